#include "groth16/setup.hpp"

#include <tbb/parallel_for.h>

#include <atomic>

#include "ff/random.hpp"
#include "groth16/qap_columns.hpp"
#include "msm/fixed_base.hpp"
#include "poly/domain.hpp"

namespace snarkpipe::groth16 {

using circuit::CsrMatrix;
using circuit::R1cs;

ToxicWaste ToxicWaste::random() {
  ff::SystemRng rng;
  auto nonzero = [&] {
    for (;;) {
      const Fr x = Fr::random(rng);
      if (!x.is_zero()) return x;
    }
  };
  ToxicWaste t;
  t.tau = nonzero();
  t.alpha = nonzero();
  t.beta = nonzero();
  t.gamma = nonzero();
  t.delta = nonzero();
  return t;
}

// The transposed product (qap_columns.hpp), by a column-major copy of the
// matrix (a counting sort of the entries by column) and a pass over columns, all of it
// multi-threaded: counts and fill positions are atomic (the order of a column's entries then
// varies from run to run; their sum in the field does not). 12 bytes per entry.
std::vector<Fr> transpose_times(const CsrMatrix& m, std::size_t columns, const std::vector<Fr>& lagrange) {
  const std::size_t rows = m.num_rows();
  std::vector<std::uint64_t> col_ptr(columns + 1, 0);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, m.nnz(), 1 << 16), [&](const auto& range) {
    for (std::size_t e = range.begin(); e < range.end(); ++e)
      std::atomic_ref<std::uint64_t>(col_ptr[m.col[e] + 1]).fetch_add(1, std::memory_order_relaxed);
  });
  for (std::size_t c = 0; c < columns; ++c) col_ptr[c + 1] += col_ptr[c];
  std::vector<std::uint32_t> entry_rows(m.nnz());
  std::vector<std::uint64_t> entry_index(m.nnz());
  std::vector<std::uint64_t> fill(col_ptr.begin(), col_ptr.end() - 1);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, rows, 1 << 12), [&](const auto& range) {
    for (std::size_t r = range.begin(); r < range.end(); ++r) {
      for (std::uint64_t e = m.row_ptr[r]; e < m.row_ptr[r + 1]; ++e) {
        const std::uint64_t at = std::atomic_ref<std::uint64_t>(fill[m.col[e]]).fetch_add(1, std::memory_order_relaxed);
        entry_rows[at] = std::uint32_t(r);
        entry_index[at] = e;
      }
    }
  });
  std::vector<Fr> out(columns);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, columns, 1024), [&](const auto& range) {
    for (std::size_t c = range.begin(); c < range.end(); ++c) {
      Fr acc = Fr::zero();
      for (std::uint64_t k = col_ptr[c]; k < col_ptr[c + 1]; ++k)
        acc += m.val[entry_index[k]] * lagrange[entry_rows[k]];
      out[c] = acc;
    }
  });
  return out;
}

ProvingKey generate_parameters(const R1cs& r1cs, const ToxicWaste& tw, const SetupProgress& progress,
                               const SetupMultipliers& multipliers) {
  auto phase = [&](std::string_view p) {
    if (progress) progress(p);
  };
  const std::size_t nin = r1cs.num_inputs, naux = r1cs.num_aux, ncols = nin + naux;
  if (nin == 0) throw SetupError("the circuit has no inputs (not even the constant ONE)");
  const poly::EvaluationDomain domain = poly::EvaluationDomain::for_size(r1cs.num_constraints);
  const std::size_t m = domain.m();
  if (m < 2) throw SetupError("the circuit needs at least 2 constraints");

  phase("lagrange");
  const std::vector<Fr> lagrange = domain.lagrange_at(tw.tau);
  phase("qap");
  std::vector<Fr> a_scalars, b_scalars, ic_scalars(nin), l_scalars(naux);
  {  // u, v, w (3 × 32 bytes per variable) are gone before the multiplications start
    const std::vector<Fr> u = transpose_times(r1cs.a, ncols, lagrange);
    const std::vector<Fr> v = transpose_times(r1cs.b, ncols, lagrange);
    const std::vector<Fr> w = transpose_times(r1cs.c, ncols, lagrange);

    // Which query points exist must agree with the densities the prover walks.
    for (std::size_t i = 0; i < nin; ++i) {
      if (u[i].is_zero()) throw SetupError("u_" + std::to_string(i) + "(tau) = 0 for an input; pick another tau");
      if (v[i].is_zero() == r1cs.b_input_density.test(i))
        throw SetupError("v(tau) disagrees with the B input density at input " + std::to_string(i));
    }
    for (std::size_t j = 0; j < naux; ++j) {
      if (u[nin + j].is_zero() == r1cs.a_aux_density.test(j))
        throw SetupError("u(tau) disagrees with the A aux density at aux " + std::to_string(j));
      if (v[nin + j].is_zero() == r1cs.b_aux_density.test(j))
        throw SetupError("v(tau) disagrees with the B aux density at aux " + std::to_string(j));
    }

    a_scalars.reserve(nin + r1cs.a_aux_density.count());
    for (std::size_t j = 0; j < ncols; ++j)
      if (!u[j].is_zero()) a_scalars.push_back(u[j]);
    for (std::size_t j = 0; j < ncols; ++j)
      if (!v[j].is_zero()) b_scalars.push_back(v[j]);

    const Fr gamma_inv = tw.gamma.inverse(), delta_inv = tw.delta.inverse();
    tbb::parallel_for(std::size_t(0), ncols, [&](std::size_t j) {
      const Fr k = tw.beta * u[j] + tw.alpha * v[j] + w[j];
      if (j < nin) ic_scalars[j] = k * gamma_inv;
      else l_scalars[j - nin] = k * delta_inv;
    });
  }
  const Fr delta_inv = tw.delta.inverse();
  // h_i = τ^i·t(τ)/δ for i < m - 1, in parallel chunks that start from τ^start.
  std::vector<Fr> h_scalars(m - 1);
  const Fr t_over_delta = domain.vanishing_at(tw.tau) * delta_inv;
  constexpr std::size_t CHUNK = 1 << 14;
  tbb::parallel_for(std::size_t(0), (m - 1 + CHUNK - 1) / CHUNK, [&](std::size_t c) {
    const std::size_t s = c * CHUNK, e = std::min(m - 1, s + CHUNK);
    Fr x = tw.tau.pow(ff::from_u64<1>(s)) * t_over_delta;
    for (std::size_t i = s; i < e; ++i) {
      h_scalars[i] = x;
      x *= tw.tau;
    }
  });

  const std::size_t g1_count =
      a_scalars.size() + b_scalars.size() + ic_scalars.size() + l_scalars.size() + h_scalars.size();
  const msm::FixedBaseTable<ec::G1Curve> g1(ec::G1Affine::generator(), msm::fixed_base_window<ec::G1Curve>(g1_count));
  const msm::FixedBaseTable<ec::G2Curve> g2(ec::G2Affine::generator(),
                                            msm::fixed_base_window<ec::G2Curve>(b_scalars.size()));

  ProvingKey pk;
  pk.vk.alpha_g1 = g1.mul(tw.alpha).to_affine();
  pk.vk.beta_g1 = g1.mul(tw.beta).to_affine();
  pk.vk.beta_g2 = g2.mul(tw.beta).to_affine();
  pk.vk.gamma_g2 = g2.mul(tw.gamma).to_affine();
  pk.vk.delta_g1 = g1.mul(tw.delta).to_affine();
  pk.vk.delta_g2 = g2.mul(tw.delta).to_affine();
  auto g1_mul = [&](std::vector<Fr>& k) {
    std::vector<G1Affine> pts = multipliers.g1 ? multipliers.g1(k) : msm::batch_mul(g1, std::span<const Fr>(k));
    std::vector<Fr>().swap(k);
    return pts;
  };
  auto g2_mul = [&](std::vector<Fr>& k) {
    std::vector<ec::G2Affine> pts = multipliers.g2 ? multipliers.g2(k) : msm::batch_mul(g2, std::span<const Fr>(k));
    std::vector<Fr>().swap(k);
    return pts;
  };
  phase("a");
  pk.a = g1_mul(a_scalars);
  phase("b_g2");
  std::vector<Fr> b2_scalars = b_scalars;
  pk.b_g2 = g2_mul(b2_scalars);
  phase("b_g1");
  pk.b_g1 = g1_mul(b_scalars);
  phase("ic");
  pk.vk.ic = g1_mul(ic_scalars);
  phase("l");
  pk.l = g1_mul(l_scalars);
  phase("h");
  pk.h = g1_mul(h_scalars);
  return pk;
}

ProvingKey setup(const R1cs& r1cs, const SetupProgress& progress, const SetupMultipliers& multipliers) {
  for (int attempt = 0;; ++attempt) {
    try {
      return generate_parameters(r1cs, ToxicWaste::random(), progress, multipliers);
    } catch (const SetupError&) {
      if (attempt >= 3) throw;
    }
  }
}

}  // namespace snarkpipe::groth16
