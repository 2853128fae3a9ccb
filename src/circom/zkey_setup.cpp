#include "circom/zkey_setup.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "circom/prover.hpp"
#include "ff/batch_invert.hpp"
#include "groth16/qap_columns.hpp"
#include "msm/fixed_base.hpp"
#include "poly/domain.hpp"

namespace snarkpipe::circom {

namespace {

using ec::G1Affine;
using ec::G2Affine;
using ff::Fr;
using groth16::SetupError;

// k_i·G for every k_i, the identity for k_i = 0: only the non-zero scalars are multiplied
// (a signal absent from a matrix has a zero column), by `multiply` (CPU table or GPU).
template <class Aff, class Multiply>
std::vector<Aff> multiply_skipping_zeros(std::vector<Fr>& scalars, const Multiply& multiply) {
  std::vector<std::size_t> where;
  std::vector<Fr> nonzero;
  nonzero.reserve(scalars.size());
  for (std::size_t i = 0; i < scalars.size(); ++i) {
    if (scalars[i].is_zero()) continue;
    where.push_back(i);
    nonzero.push_back(scalars[i]);
  }
  const std::size_t n = scalars.size();
  std::vector<Fr>().swap(scalars);
  std::vector<Aff> products = multiply(std::span<const Fr>(nonzero));
  if (products.size() != nonzero.size())
    throw std::logic_error("internal error: the fixed-base multiplier returned the wrong number of points");
  if (where.size() == n) return products;
  std::vector<Aff> out(n, Aff::identity());
  for (std::size_t i = 0; i < where.size(); ++i) out[where[i]] = products[i];
  return out;
}

// H_j = L'_{2j+1}(τ)/δ (zkey_setup.hpp): with x_j = ω'_{2m}^{2j+1} = ω'_{2m}·ω'_m^j,
// L'_{2j+1}(τ) = (τ^{2m} − 1)/(2m) · x_j/(τ − x_j). One batch inversion per chunk.
std::vector<Fr> h_scalars(const Fr& tau, const Fr& delta_inv, unsigned log_m) {
  const std::size_t m = std::size_t(1) << log_m;
  const Fr odd_shift = snarkjs_root_of_unity(log_m + 1), step = snarkjs_root_of_unity(log_m);
  const Fr vanishing = tau.pow(ff::from_u64<1>(2 * m)) - Fr::one();
  if (vanishing.is_zero()) throw SetupError("tau is a 2m-th root of unity; pick another tau");
  const Fr scale = vanishing * Fr::from_u64(2 * m).inverse() * delta_inv;
  std::vector<Fr> out(m);
  constexpr std::size_t CHUNK = std::size_t(1) << 12;
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, m, CHUNK), [&](const auto& r) {
    const std::size_t n = r.size();
    std::vector<Fr> points(n);
    Fr x = odd_shift * step.pow(ff::from_u64<1>(r.begin()));
    for (std::size_t i = 0; i < n; ++i) {
      points[i] = x;
      out[r.begin() + i] = tau - x;
      x *= step;
    }
    ff::batch_invert(std::span<Fr>(out.data() + r.begin(), n));
    for (std::size_t i = 0; i < n; ++i) out[r.begin() + i] *= scale * points[i];
  });
  return out;
}

}  // namespace

Zkey zkey_from_toxic_waste(const CircomR1cs& circuit, const groth16::ToxicWaste& tw,
                           const groth16::SetupMultipliers& multipliers, const groth16::SetupProgress& progress) {
  auto phase = [&](std::string_view p) {
    if (progress) progress(p);
  };
  const circuit::R1cs& r1cs = circuit.r1cs;
  const std::uint64_t num_vars = r1cs.num_columns(), num_public = circuit.num_public();
  const std::uint64_t rows = r1cs.num_constraints;
  if (num_vars > 0xffffffffu) throw SetupError("the circuit has more signals than a .zkey can count (2^32 - 1)");
  if (r1cs.num_inputs != num_public + 1)
    throw SetupError("the circuit's inputs (" + std::to_string(r1cs.num_inputs) + ") are not ONE and its " +
                     std::to_string(num_public) + " public signals");
  if (rows > (std::uint64_t(1) << poly::EvaluationDomain::MAX_LOG_SIZE))
    throw SetupError("the circuit's " + std::to_string(rows) + " rows need a domain larger than 2^" +
                     std::to_string(poly::EvaluationDomain::MAX_LOG_SIZE));
  const poly::EvaluationDomain domain = poly::EvaluationDomain::for_size(std::max<std::uint64_t>(rows, 2));
  const std::uint64_t m = domain.m();
  const unsigned log_m = unsigned(domain.log_m());
  for (const Fr* x : {&tw.tau, &tw.alpha, &tw.beta, &tw.gamma, &tw.delta})
    if (x->is_zero()) throw SetupError("a toxic waste value is zero");

  Zkey z;
  z.num_vars = std::uint32_t(num_vars);
  z.num_public = std::uint32_t(num_public);
  z.domain_size = std::uint32_t(m);

  z.coefficients.reserve(r1cs.a.nnz() + r1cs.b.nnz());
  for (std::uint64_t k = 0; k < rows; ++k) {
    for (std::uint32_t matrix = 0; matrix < 2; ++matrix) {
      const circuit::CsrMatrix& mat = matrix == 0 ? r1cs.a : r1cs.b;
      const auto cols = mat.row_cols(k);
      const auto vals = mat.row_vals(k);
      for (std::size_t e = 0; e < cols.size(); ++e)
        z.coefficients.push_back({matrix, std::uint32_t(k), cols[e], vals[e]});
    }
  }

  phase("lagrange");
  // snarkjs's row k is the point ω'^k = ω^π(k) (prover.hpp), so its Lagrange basis is
  // snarkpipe's permuted.
  std::vector<Fr> lagrange(rows);
  {
    const std::vector<Fr> natural = domain.lagrange_at(tw.tau);
    const std::uint64_t perm = snarkjs_root_exponent() & (m - 1);
    tbb::parallel_for(std::uint64_t(0), rows, [&](std::uint64_t k) { lagrange[k] = natural[(perm * k) & (m - 1)]; });
  }

  phase("qap");
  std::vector<Fr> u = groth16::transpose_times(r1cs.a, num_vars, lagrange);
  std::vector<Fr> v = groth16::transpose_times(r1cs.b, num_vars, lagrange);
  std::vector<Fr> ic_scalars(num_public + 1), c_scalars(num_vars - num_public - 1);
  {
    const std::vector<Fr> w = groth16::transpose_times(r1cs.c, num_vars, lagrange);
    std::vector<Fr>().swap(lagrange);
    const Fr gamma_inv = tw.gamma.inverse(), delta_inv = tw.delta.inverse();
    tbb::parallel_for(std::uint64_t(0), num_vars, [&](std::uint64_t i) {
      const Fr k = tw.beta * u[i] + tw.alpha * v[i] + w[i];
      if (i <= num_public) ic_scalars[i] = k * gamma_inv;
      else c_scalars[i - num_public - 1] = k * delta_inv;
    });
  }

  std::size_t g1_count = 0, g2_count = 0;
  for (std::uint64_t i = 0; i < num_vars; ++i) {
    g1_count += !u[i].is_zero() + !v[i].is_zero();
    g2_count += !v[i].is_zero();
  }
  g1_count += num_vars + m;
  // With a multiplier supplied, the CPU tables serve only the six points of the vk: small ones.
  constexpr unsigned VK_ONLY_WINDOW = 4;
  const msm::FixedBaseTable<ec::G1Curve> g1(
      G1Affine::generator(), multipliers.g1 ? VK_ONLY_WINDOW : msm::fixed_base_window<ec::G1Curve>(g1_count));
  const msm::FixedBaseTable<ec::G2Curve> g2(
      G2Affine::generator(), multipliers.g2 ? VK_ONLY_WINDOW : msm::fixed_base_window<ec::G2Curve>(g2_count));
  auto mul_g1 = [&](std::span<const Fr> k) { return multipliers.g1 ? multipliers.g1(k) : msm::batch_mul(g1, k); };
  auto mul_g2 = [&](std::span<const Fr> k) { return multipliers.g2 ? multipliers.g2(k) : msm::batch_mul(g2, k); };

  auto& vk = z.vk;
  vk.alpha_g1 = g1.mul(tw.alpha).to_affine();
  vk.beta_g1 = g1.mul(tw.beta).to_affine();
  vk.beta_g2 = g2.mul(tw.beta).to_affine();
  vk.gamma_g2 = g2.mul(tw.gamma).to_affine();
  vk.delta_g1 = g1.mul(tw.delta).to_affine();
  vk.delta_g2 = g2.mul(tw.delta).to_affine();

  phase("a");
  z.a = multiply_skipping_zeros<G1Affine>(u, mul_g1);
  phase("b1");
  std::vector<Fr> v_copy = v;
  z.b1 = multiply_skipping_zeros<G1Affine>(v_copy, mul_g1);
  phase("b2");
  z.b2 = multiply_skipping_zeros<G2Affine>(v, mul_g2);
  phase("c");
  z.c = multiply_skipping_zeros<G1Affine>(c_scalars, mul_g1);
  phase("ic");
  vk.ic = multiply_skipping_zeros<G1Affine>(ic_scalars, mul_g1);
  for (std::size_t i = 0; i < vk.ic.size(); ++i)
    if (vk.ic[i].is_identity()) throw SetupError("IC_" + std::to_string(i) + " vanishes at this tau; pick another tau");
  phase("h");
  std::vector<Fr> h = h_scalars(tw.tau, tw.delta.inverse(), log_m);
  z.h = multiply_skipping_zeros<G1Affine>(h, mul_g1);
  return z;
}

}  // namespace snarkpipe::circom
