#include "poly/domain.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <span>
#include <stdexcept>
#include <string>

#include "ff/batch_invert.hpp"

namespace snarkpipe::poly {

EvaluationDomain::EvaluationDomain(std::size_t log_m) {
  if (log_m > ff::FR_TWO_ADICITY) {
    throw std::out_of_range("EvaluationDomain: Fr has no subgroup of size 2^" + std::to_string(log_m) +
                            " (its two-adicity is " + std::to_string(ff::FR_TWO_ADICITY) + ")");
  }
  if (log_m > MAX_LOG_SIZE) {
    throw std::out_of_range("EvaluationDomain: size 2^" + std::to_string(log_m) + " exceeds the supported maximum 2^" +
                            std::to_string(MAX_LOG_SIZE));
  }
  log_m_ = log_m;
  m_ = std::size_t(1) << log_m;
  omega_ = ff::FR_ROOT_OF_UNITY;
  for (std::size_t i = log_m; i < ff::FR_TWO_ADICITY; ++i) omega_ = omega_.square();
  omega_inv_ = omega_.inverse();
  m_inv_ = Fr::from_u64(m_).inverse();
  g_ = Fr::from_u64(ff::FR_MULTIPLICATIVE_GENERATOR);
  g_inv_ = g_.inverse();
  coset_vanishing_ = vanishing_at(g_);
  coset_vanishing_inv_ = coset_vanishing_.inverse();
}

EvaluationDomain EvaluationDomain::for_size(std::size_t n) {
  std::size_t log_m = 0;
  while (log_m <= MAX_LOG_SIZE && (std::size_t(1) << log_m) < n) ++log_m;
  if (log_m > MAX_LOG_SIZE) {
    throw std::out_of_range("EvaluationDomain::for_size: " + std::to_string(n) +
                            " points need a domain larger than the supported maximum 2^" +
                            std::to_string(MAX_LOG_SIZE));
  }
  return EvaluationDomain(log_m);
}

Fr EvaluationDomain::vanishing_at(const Fr& tau) const {
  Fr x = tau;
  for (std::size_t i = 0; i < log_m_; ++i) x = x.square();
  return x - Fr::one();
}

std::vector<Fr> EvaluationDomain::lagrange_at(const Fr& tau) const {
  // ω^i/(τ − ω^i) = 1/(τ·ω^-i − 1): one running product, one batch inversion per chunk. The
  // denominator vanishes exactly when τ = ω^i; then τ^m − 1 = 0 zeroes every other entry.
  const Fr scale = vanishing_at(tau) * m_inv_;
  std::vector<Fr> out(m_);
  std::atomic<std::size_t> hit{m_};
  constexpr std::size_t CHUNK = std::size_t(1) << 12;
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, m_, CHUNK), [&](const tbb::blocked_range<std::size_t>& r) {
    Fr u = tau * omega_inv_.pow(ff::u64(r.begin()));
    for (std::size_t i = r.begin(); i < r.end(); ++i) {
      out[i] = u - Fr::one();
      if (out[i].is_zero()) hit.store(i, std::memory_order_relaxed);
      u *= omega_inv_;
    }
    const std::span<Fr> chunk(out.data() + r.begin(), r.size());
    ff::batch_invert(chunk);
    for (Fr& x : chunk) x *= scale;
  });
  if (const std::size_t j = hit.load(); j < m_) out[j] = Fr::one();
  return out;
}

}  // namespace snarkpipe::poly
