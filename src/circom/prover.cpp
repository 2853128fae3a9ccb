#include "circom/prover.hpp"

#include "base/clock.hpp"

#include <bit>
#include <chrono>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "groth16/verifier.hpp"
#include "msm/pippenger.hpp"
#include "poly/ntt.hpp"

namespace snarkpipe::circom {

namespace {

using base::Clock;
using ec::G1Jacobian;
using ec::G2Jacobian;
using ff::Fr;

using base::ms_since;

// (r - 1) / 2^32, the odd part of the group order of Fr*.
constexpr ff::Limbs<4> odd_part() {
  ff::Limbs<4> t = ff::FrParams::modulus;
  t[0] -= 1;
  for (int i = 0; i < 32; ++i) t = ff::shr1(t);
  return t;
}

template <class Aff>
std::vector<std::uint64_t> non_identity_words(const std::vector<Aff>& pts) {
  std::vector<std::uint64_t> w((pts.size() + 63) / 64, 0);
  for (std::size_t i = 0; i < pts.size(); ++i)
    if (!pts[i].is_identity()) w[i / 64] |= std::uint64_t(1) << (i % 64);
  return w;
}

template <class Aff>
std::vector<Aff> compact(std::vector<Aff>& pts) {
  std::vector<Aff> out;
  for (const auto& p : pts)
    if (!p.is_identity()) out.push_back(p);
  std::vector<Aff>().swap(pts);
  return out;
}

}  // namespace

Fr snarkjs_root_of_unity(unsigned log_n) {
  static const Fr w32 = Fr::from_u64(5).pow(odd_part());
  Fr w = w32;
  for (unsigned i = log_n; i < ff::FR_TWO_ADICITY; ++i) w = w.square();
  return w;
}

std::uint32_t snarkjs_root_exponent() {
  // Pohlig–Hellman in the cyclic group of order 2^32: bit i of e from the order of ω'·ω^-e.
  static const std::uint32_t e = [] {
    const Fr target = snarkjs_root_of_unity(32);
    const Fr g_inv = ff::FR_ROOT_OF_UNITY.inverse();
    std::uint32_t x = 0;
    for (unsigned i = 0; i < 32; ++i) {
      Fr t = target * g_inv.pow(std::uint64_t(x));
      for (unsigned k = 0; k < 31 - i; ++k) t = t.square();
      if (!t.is_one()) x |= std::uint32_t(1) << i;
    }
    if (!(ff::FR_ROOT_OF_UNITY.pow(std::uint64_t(x)) == target))
      throw std::logic_error("internal error: snarkjs's root of unity is not a power of snarkpipe's");
    return x;
  }();
  return e;
}

ZkeyProver::ZkeyProver(Zkey z)
    : num_vars_(z.num_vars),
      num_public_(z.num_public),
      vk_(std::move(z.vk)),
      domain_(std::size_t(std::countr_zero(z.domain_size))),
      pvk_(groth16::PreparedVerifyingKey::from(vk_)) {
  ZkeyLayout& L = layout_;
  const std::uint64_t m = domain_.m();
  L.perm_mul = snarkjs_root_exponent() & (m - 1);

  // Coefficients by row (counting sort), rows in snarkjs's order.
  for (std::uint32_t mat = 0; mat < 2; ++mat) {
    ZkeyLayout::Rows& rows = mat == 0 ? L.a_rows : L.b_rows;
    rows.row_ptr.assign(m + 1, 0);
    for (const auto& c : z.coefficients)
      if (c.matrix == mat) ++rows.row_ptr[c.constraint + 1];
    for (std::uint64_t k = 0; k < m; ++k) rows.row_ptr[k + 1] += rows.row_ptr[k];
    rows.signal.resize(rows.row_ptr[m]);
    rows.value.resize(rows.row_ptr[m]);
    std::vector<std::uint32_t> fill(rows.row_ptr.begin(), rows.row_ptr.end() - 1);
    for (const auto& c : z.coefficients) {
      if (c.matrix != mat) continue;
      const std::uint32_t at = fill[c.constraint]++;
      rows.signal[at] = c.signal;
      rows.value[at] = c.value;
    }
  }
  std::vector<ZkeyCoefficient>().swap(z.coefficients);

  // s^bitrev(q) at position q, s = ω'_{2m}: the coset shift applied to coefficients that
  // the inverse NTT leaves in bit-reversed order.
  const Fr s = snarkjs_root_of_unity(unsigned(domain_.log_m()) + 1);
  L.coset_twiddles.resize(m);
  Fr x = Fr::one();
  for (auto& v : L.coset_twiddles) {
    v = x;
    x *= s;
  }
  poly::bit_reverse_permute(L.coset_twiddles);

  L.a_density = {non_identity_words(z.a), z.a.size()};
  L.b1_density = {non_identity_words(z.b1), z.b1.size()};
  L.b2_density = {non_identity_words(z.b2), z.b2.size()};
  L.a = compact(z.a);
  L.b1 = compact(z.b1);
  L.b2 = compact(z.b2);

  // C's points (private signals), then H's with H_j at π(j): H_j pairs with the evaluation
  // at s·ω'^j = s·ω^π(j). Identity points (signals in no constraint) are left out.
  const std::size_t nc = z.c.size();
  std::vector<ec::G1Affine> c_and_h = std::move(z.c);
  c_and_h.resize(nc + m);
  for (std::uint64_t j = 0; j < m; ++j) c_and_h[nc + ((L.perm_mul * j) & (m - 1))] = z.h[j];
  std::vector<ec::G1Affine>().swap(z.h);
  L.c_h_density = {non_identity_words(c_and_h), c_and_h.size()};
  L.c_h = compact(c_and_h);
}

void ZkeyProver::evaluate_h(std::span<const Fr> w, std::vector<Fr>& d, ZkeyProverTimings& t) const {
  const ZkeyLayout& L = layout_;
  auto t0 = Clock::now();
  const std::uint64_t m = domain_.m(), mask = m - 1;
  std::vector<Fr> a(m), b(m), c(m);
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, m, 4096), [&](const auto& r) {
    for (std::uint64_t k = r.begin(); k < r.end(); ++k) {
      Fr sa, sb;
      for (std::uint32_t i = L.a_rows.row_ptr[k]; i < L.a_rows.row_ptr[k + 1]; ++i)
        sa += L.a_rows.value[i] * w[L.a_rows.signal[i]];
      for (std::uint32_t i = L.b_rows.row_ptr[k]; i < L.b_rows.row_ptr[k + 1]; ++i)
        sb += L.b_rows.value[i] * w[L.b_rows.signal[i]];
      const std::uint64_t at = (L.perm_mul * k) & mask;
      a[at] = sa;
      b[at] = sb;
      c[at] = sa * sb;
    }
  });
  t.abc_ms = ms_since(t0);
  t0 = Clock::now();
  using poly::Order;
  for (auto* v : {&a, &b, &c}) {
    poly::intt(*v, domain_, Order::Natural, Order::BitReversed);
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, m, 4096), [&](const auto& r) {
      for (std::uint64_t q = r.begin(); q < r.end(); ++q) (*v)[q] *= L.coset_twiddles[q];
    });
    poly::ntt(*v, domain_, Order::BitReversed, Order::Natural);
  }
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, m, 4096), [&](const auto& r) {
    for (std::uint64_t i = r.begin(); i < r.end(); ++i) a[i] = a[i] * b[i] - c[i];
  });
  d = std::move(a);
  t.ntt_ms = ms_since(t0);
}

void ZkeyProver::check_witness_shape(std::span<const Fr> w) const {
  if (w.size() != num_vars_)
    throw groth16::ProverError("the witness has " + std::to_string(w.size()) + " values; the key is for " +
                               std::to_string(num_vars_) + " signals (a witness for another circuit?)");
  if (!w[0].is_one()) throw groth16::ProverError("the witness's value 0 (the constant ONE) is not 1");
}

groth16::Proof assemble_zkey_proof(const groth16::VerifyingKey& vk, const G1Jacobian& a_acc, const G1Jacobian& b1_acc,
                                   const G2Jacobian& b2_acc, const G1Jacobian& ch_acc,
                                   const groth16::ProverRandomness& rs) {
  const G1Jacobian delta1 = G1Jacobian::from_affine(vk.delta_g1);
  const G1Jacobian pi_a = G1Jacobian::from_affine(vk.alpha_g1) + a_acc + delta1 * rs.r;
  const G2Jacobian pi_b = G2Jacobian::from_affine(vk.beta_g2) + b2_acc + G2Jacobian::from_affine(vk.delta_g2) * rs.s;
  const G1Jacobian b1 = G1Jacobian::from_affine(vk.beta_g1) + b1_acc + delta1 * rs.s;
  const G1Jacobian pi_c = ch_acc + pi_a * rs.s + b1 * rs.r - delta1 * (rs.r * rs.s);
  return groth16::Proof{pi_a.to_affine(), pi_b.to_affine(), pi_c.to_affine()};
}

groth16::Proof ZkeyProver::prove(std::span<const Fr> w, const groth16::ProverRandomness& rs,
                                 ZkeyProverTimings* timings) const {
  check_witness_shape(w);
  const ZkeyLayout& L = layout_;
  ZkeyProverTimings t;
  const auto start = Clock::now();
  // The C ‖ H MSM's scalars: the private signals' values, then d.
  std::vector<Fr> ch_scalars;
  evaluate_h(w, ch_scalars, t);
  ch_scalars.insert(ch_scalars.begin(), w.begin() + std::ptrdiff_t(num_public_ + 1), w.end());

  auto view = [](const ZkeyLayout::Query& q) { return msm::DensityView(q.words, q.size); };
  auto t0 = Clock::now();
  const G1Jacobian ch_acc = msm::msm_split<ec::G1Curve>(L.c_h, ch_scalars, view(L.c_h_density));
  t.c_h_msm_ms = ms_since(t0);
  std::vector<Fr>().swap(ch_scalars);

  t0 = Clock::now();
  const G1Jacobian a_acc = msm::msm_split<ec::G1Curve>(L.a, w, view(L.a_density));
  t.a_msm_ms = ms_since(t0);
  t0 = Clock::now();
  const G1Jacobian b1_acc = msm::msm_split<ec::G1Curve>(L.b1, w, view(L.b1_density));
  t.b1_msm_ms = ms_since(t0);
  t0 = Clock::now();
  const G2Jacobian b2_acc = msm::msm_split<ec::G2Curve>(L.b2, w, view(L.b2_density));
  t.b2_msm_ms = ms_since(t0);

  const groth16::Proof proof = assemble_zkey_proof(vk_, a_acc, b1_acc, b2_acc, ch_acc, rs);
  t.total_ms = ms_since(start);
  if (timings) *timings = t;
  return proof;
}

groth16::Proof ZkeyProver::prove_checked(std::span<const Fr> w, const groth16::ProverRandomness& rs,
                                         ZkeyProverTimings* timings) const {
  const groth16::Proof proof = prove(w, rs, timings);
  const std::vector<Fr> publics(w.begin() + 1, w.begin() + 1 + num_public_);
  if (!groth16::verify(pvk_, proof, publics))
    throw groth16::ProverError(
        "the proof does not verify against the key's verifying key: the witness does not satisfy the circuit (or "
        "the witness and key are for different circuits); not returning it");
  return proof;
}

}  // namespace snarkpipe::circom
