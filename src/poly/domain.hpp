// The evaluation domain of the prover's polynomials (DESIGN.md §2, src/poly): the subgroup
// H = {ω^i : i < m} of Fr* of size m = 2^k, and its coset g·H with g = 7 (REFERENCE.md §1, §4).
#pragma once

#include <cstddef>
#include <vector>

#include "ff/fields.hpp"

namespace snarkpipe::poly {

using ff::Fr;

class EvaluationDomain {
 public:
  // The largest domain this library builds: 2^28 (Fr itself has subgroups up to 2^32).
  static constexpr std::size_t MAX_LOG_SIZE = 28;

  // The domain of size 2^log_m; throws std::out_of_range when log_m > MAX_LOG_SIZE.
  explicit EvaluationDomain(std::size_t log_m);
  // The smallest domain with at least n points (n = 0 and n = 1 give m = 1); throws
  // std::out_of_range when that is larger than 2^MAX_LOG_SIZE.
  static EvaluationDomain for_size(std::size_t n);

  std::size_t m() const { return m_; }
  std::size_t log_m() const { return log_m_; }
  // The primitive m-th root of unity: FR_ROOT_OF_UNITY squared 32 - log_m times (bellperson).
  const Fr& omega() const { return omega_; }
  const Fr& omega_inv() const { return omega_inv_; }
  const Fr& m_inv() const { return m_inv_; }
  // The coset shift g = FR_MULTIPLICATIVE_GENERATOR = 7 and its inverse.
  const Fr& g() const { return g_; }
  const Fr& g_inv() const { return g_inv_; }

  // t(τ) = τ^m − 1, the polynomial vanishing on H.
  Fr vanishing_at(const Fr& tau) const;
  // t(g·ω^i) = g^m − 1 for every i, and its inverse: what the quotient (a·b − c)/t divides by
  // on the coset.
  const Fr& coset_vanishing() const { return coset_vanishing_; }
  const Fr& coset_vanishing_inv() const { return coset_vanishing_inv_; }

  // The Lagrange basis of H at τ: L_i(τ) = (τ^m − 1)/m · ω^i/(τ − ω^i) for i < m, so that
  // Σ L_i(τ)·f(ω^i) = f(τ) for every f of degree < m. When τ = ω^j it is the unit vector e_j.
  // Multi-threaded (oneTBB), one batch inversion per chunk.
  std::vector<Fr> lagrange_at(const Fr& tau) const;

 private:
  std::size_t m_;
  std::size_t log_m_;
  Fr omega_, omega_inv_, m_inv_, g_, g_inv_, coset_vanishing_, coset_vanishing_inv_;
};

}  // namespace snarkpipe::poly
