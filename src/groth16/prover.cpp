#include "groth16/prover.hpp"

#include "groth16/params_file.hpp"

#include "base/clock.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <tbb/parallel_for.h>

#include "circuit/spmv.hpp"
#include "ff/random.hpp"
#include "groth16/verifier.hpp"
#include "msm/pippenger.hpp"
#include "poly/ntt.hpp"

namespace snarkpipe::groth16 {

using base::Clock;
using ec::G1Jacobian;
using ec::G2Jacobian;

ProverRandomness ProverRandomness::random() {
  ff::SystemRng rng;
  ProverRandomness p;
  p.r = Fr::random(rng);
  p.s = Fr::random(rng);
  return p;
}

namespace {

// A density with every bit set: the L query has a point for every aux variable.
std::vector<std::uint64_t> all_ones(std::size_t bits) {
  std::vector<std::uint64_t> w((bits + 63) / 64, ~std::uint64_t(0));
  if (bits % 64) w.back() = (std::uint64_t(1) << (bits % 64)) - 1;
  return w;
}

using base::ms_since;

}  // namespace

std::vector<Fr> compute_h(const circuit::R1cs& r1cs, const Witness& witness, ProverTimings* timings) {
  auto t0 = Clock::now();
  const std::size_t n = r1cs.num_constraints, m = poly::EvaluationDomain::for_size(n).m();
  std::vector<Fr> a(m), b(m), c(m);  // zero-padded to the domain
  circuit::evaluate_into(r1cs, witness.inputs, witness.aux, std::span(a).first(n), std::span(b).first(n),
                         std::span(c).first(n));
  if (timings) timings->abc_ms = ms_since(t0);
  return compute_h(std::move(a), std::move(b), std::move(c), timings);
}

std::vector<Fr> compute_h(std::vector<Fr> a, std::vector<Fr> b, std::vector<Fr> c, ProverTimings* timings) {
  auto t0 = Clock::now();
  const poly::EvaluationDomain domain = poly::EvaluationDomain::for_size(a.size());
  const std::size_t m = domain.m();
  for (auto* v : {&a, &b, &c}) v->resize(m);
  using poly::Order;
  // h = (a·b − c)/Z. On the coset 7·H, Z is the constant z = 7^m − 1, so h's coefficients are
  // icoset_ntt(â·b̂ − ĉ)/z with x̂ the coset evaluations of x; icoset_ntt is linear and undoes
  // coset_ntt, so the c term is intt(c)/z: six transforms instead of seven.
  // a, b: evaluations on H -> coefficients (bit-reversed) -> evaluations on the coset (natural),
  // orderings that chain with no permutation pass.
  for (auto* v : {&a, &b}) {
    poly::intt(*v, domain, Order::Natural, Order::BitReversed);
    poly::coset_ntt(*v, domain, Order::BitReversed, Order::Natural);
  }
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, m, 4096), [&](const auto& r) {
    for (std::size_t i = r.begin(); i < r.end(); ++i) a[i] *= b[i];
  });
  // Both back to coefficients in bit-reversed order (no permutation), then one permutation.
  poly::icoset_ntt(a, domain, Order::Natural, Order::BitReversed);
  poly::intt(c, domain, Order::Natural, Order::BitReversed);
  const Fr zinv = domain.coset_vanishing_inv();
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, m, 4096), [&](const auto& r) {
    for (std::size_t i = r.begin(); i < r.end(); ++i) a[i] = (a[i] - c[i]) * zinv;
  });
  poly::bit_reverse_permute(a);
  a.resize(m - 1);
  if (timings) timings->ntt_ms = ms_since(t0);
  return a;
}

void check_shapes(const ProvingKey& pk, const circuit::R1cs& r1cs, const Witness& w) {
  check_shapes(pk, r1cs, w.inputs, w.aux.size());
}

QuerySizes query_sizes(const circuit::R1cs& r1cs) {
  return {r1cs.num_inputs + r1cs.a_aux_density.count(), r1cs.b_input_density.count() + r1cs.b_aux_density.count()};
}

void check_shapes(const ProvingKey& pk, const circuit::R1cs& r1cs, std::span<const Fr> inputs, std::size_t num_aux) {
  check_shapes(pk, r1cs, inputs, num_aux, query_sizes(r1cs));
}

void check_shapes(const ProvingKey& pk, const circuit::R1cs& r1cs, std::span<const Fr> inputs, std::size_t num_aux,
                  const QuerySizes& sizes) {
  auto fail = [](const std::string& what) { throw ProverError(what); };
  auto n = [](std::size_t x) { return std::to_string(x); };
  if (inputs.size() != r1cs.num_inputs)
    fail("the witness has " + n(inputs.size()) + " inputs (ONE included); the circuit has " + n(r1cs.num_inputs));
  if (num_aux != r1cs.num_aux)
    fail("the witness has " + n(num_aux) + " aux values; the circuit has " + n(r1cs.num_aux));
  if (inputs.empty() || !inputs[0].is_one()) fail("the witness's first input must be the constant ONE");
  if (pk.vk.ic.size() != r1cs.num_inputs)
    fail("the key is for " + n(pk.vk.ic.size()) + " inputs; the circuit has " + n(r1cs.num_inputs) +
         " (a key for another circuit?)");
  if (pk.l.size() != r1cs.num_aux)
    fail("the key has " + n(pk.l.size()) + " L points; the circuit has " + n(r1cs.num_aux) + " aux variables");
  const std::size_t m = poly::EvaluationDomain::for_size(r1cs.num_constraints).m();
  if (pk.h.size() + 1 != m)
    fail("the key's H query is for a domain of " + n(pk.h.size() + 1) + "; the circuit needs " + n(m));
  if (pk.a.size() != sizes.a)
    fail("the key's A query has " + n(pk.a.size()) + " points; the circuit's density needs " + n(sizes.a));
  if (pk.b_g1.size() != sizes.b || pk.b_g2.size() != sizes.b)
    fail("the key's B queries have " + n(pk.b_g1.size()) + "/" + n(pk.b_g2.size()) + " points; the density needs " +
         n(sizes.b));
}

namespace {

// The five MSMs of a proof whose H scalars are known, into parts (timed into t).
void msm_parts(const ProvingKey& pk, std::span<const Fr> h, std::span<const Fr> inputs, std::span<const Fr> aux,
               msm::DensityView a_aux, msm::DensityView b_input, msm::DensityView b_aux, ProofParts& parts,
               ProverTimings& t, const std::function<void(std::string_view)>& phase) {
  if (!pk.queries_on_host())
    throw ProverError("the proving key's queries are not in host memory (they were left in " +
                      (pk.deferred ? pk.deferred->path() : std::string("their file")) +
                      " for a GPU backend): the CPU prover needs the key read whole (read_params)");
  const std::size_t nin = inputs.size();
  const std::size_t nb_in = b_input.count();
  const std::span<const ec::G1Affine> a_q(pk.a), b1_q(pk.b_g1);
  const std::span<const ec::G2Affine> b2_q(pk.b_g2);

  phase("H MSM");
  auto t0 = Clock::now();
  parts.h = msm::msm<ec::G1Curve>(pk.h, h);
  t.h_msm_ms = ms_since(t0);

  phase("L MSM");
  t0 = Clock::now();
  const std::vector<std::uint64_t> every_aux = all_ones(aux.size());
  parts.l = msm::msm_split<ec::G1Curve>(pk.l, aux, msm::DensityView(every_aux, aux.size()));
  t.l_msm_ms = ms_since(t0);

  phase("A MSM");
  t0 = Clock::now();
  parts.a = msm::msm<ec::G1Curve>(a_q.first(nin), inputs) + msm::msm_split<ec::G1Curve>(a_q.subspan(nin), aux, a_aux);
  t.a_msm_ms = ms_since(t0);

  phase("B MSM (G1)");
  t0 = Clock::now();
  parts.b_g1 = msm::msm_with_density<ec::G1Curve>(b1_q.first(nb_in), inputs, b_input) +
               msm::msm_split<ec::G1Curve>(b1_q.subspan(nb_in), aux, b_aux);
  t.b_g1_msm_ms = ms_since(t0);

  phase("B MSM (G2)");
  t0 = Clock::now();
  parts.b_g2 = msm::msm_with_density<ec::G2Curve>(b2_q.first(nb_in), inputs, b_input) +
               msm::msm_split<ec::G2Curve>(b2_q.subspan(nb_in), aux, b_aux);
  t.b_g2_msm_ms = ms_since(t0);
}

}  // namespace

ProofParts compute_proof_parts(const ProvingKey& pk, const circuit::R1cs& r1cs, const Witness& w,
                               ProverTimings* timings, const ProverProgress& progress) {
  auto phase = [&](std::string_view p) {
    if (progress) progress(p);
  };
  check_shapes(pk, r1cs, w);
  ProverTimings t;
  const auto start = Clock::now();
  ProofParts parts;
  phase("a,b,c + H (NTT)");
  const std::vector<Fr> h = compute_h(r1cs, w, &t);
  msm_parts(pk, h, w.inputs, w.aux, r1cs.a_aux_density, r1cs.b_input_density, r1cs.b_aux_density, parts, t, phase);
  t.total_ms = ms_since(start);
  if (timings) *timings = t;
  return parts;
}

ProofParts compute_proof_parts(const ProvingKey& pk, const EvaluatedAssignment& ea, ProverTimings* timings,
                               const ProverProgress& progress) {
  auto phase = [&](std::string_view p) {
    if (progress) progress(p);
  };
  check_shapes(pk, ea);
  ProverTimings t;
  const auto start = Clock::now();
  ProofParts parts;
  phase("H (NTT)");
  const std::vector<Fr> h =
      compute_h(std::vector<Fr>(ea.a.begin(), ea.a.end()), std::vector<Fr>(ea.b.begin(), ea.b.end()),
                std::vector<Fr>(ea.c.begin(), ea.c.end()), &t);
  msm_parts(pk, h, ea.inputs, ea.aux, ea.a_aux, ea.b_input, ea.b_aux, parts, t, phase);
  t.total_ms = ms_since(start);
  if (timings) *timings = t;
  return parts;
}

void check_shapes(const ProvingKey& pk, const EvaluatedAssignment& ea) {
  auto fail = [](const std::string& what) { throw ProverError(what); };
  auto n = [](std::size_t x) { return std::to_string(x); };
  if (ea.b.size() != ea.a.size() || ea.c.size() != ea.a.size())
    fail("the a, b and c evaluations have " + n(ea.a.size()) + ", " + n(ea.b.size()) + " and " + n(ea.c.size()) +
         " entries; they must be equally long");
  if (ea.inputs.empty() || !ea.inputs[0].is_one()) fail("the first input must be the constant ONE");
  if (pk.vk.ic.size() != ea.inputs.size())
    fail("the key is for " + n(pk.vk.ic.size()) + " inputs (ONE included); the assignment has " + n(ea.inputs.size()));
  if (pk.l.size() != ea.aux.size())
    fail("the key has " + n(pk.l.size()) + " L points; the assignment has " + n(ea.aux.size()) + " aux values");
  if (ea.a.size() < ea.inputs.size())
    fail("the assignment has " + n(ea.a.size()) + " constraint evaluations, fewer than its " + n(ea.inputs.size()) +
         " inputs (bellperson adds one constraint per input)");
  const std::size_t m = poly::EvaluationDomain::for_size(ea.a.size()).m();
  if (pk.h.size() + 1 != m)
    fail("the key's H query is for a domain of " + n(pk.h.size() + 1) + "; " + n(ea.a.size()) +
         " constraint evaluations need " + n(m));
  if (ea.a_aux.size != ea.aux.size() || ea.b_aux.size != ea.aux.size())
    fail("the aux densities have " + n(ea.a_aux.size) + " (A) and " + n(ea.b_aux.size) + " (B) bits; there are " +
         n(ea.aux.size()) + " aux values");
  if (ea.b_input.size != ea.inputs.size())
    fail("the B input density has " + n(ea.b_input.size) + " bits; there are " + n(ea.inputs.size()) + " inputs");
  const std::size_t na = ea.inputs.size() + ea.a_aux.count(), nb = ea.b_input.count() + ea.b_aux.count();
  if (pk.a.size() != na) fail("the key's A query has " + n(pk.a.size()) + " points; the A density selects " + n(na));
  if (pk.b_g1.size() != nb || pk.b_g2.size() != nb)
    fail("the key's B queries have " + n(pk.b_g1.size()) + "/" + n(pk.b_g2.size()) +
         " points; the B densities select " + n(nb));
}

std::optional<std::size_t> first_unsatisfied(const EvaluatedAssignment& ea) {
  const std::size_t n = std::min({ea.a.size(), ea.b.size(), ea.c.size()});
  std::atomic<std::size_t> first{n};
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 1 << 14), [&](const auto& r) {
    for (std::size_t k = r.begin(); k < r.end() && k < first.load(std::memory_order_relaxed); ++k)
      if (ea.a[k] * ea.b[k] != ea.c[k]) {
        std::size_t cur = first.load();
        while (k < cur && !first.compare_exchange_weak(cur, k)) {}
        break;
      }
  });
  if (first.load() == n) return std::nullopt;
  return first.load();
}

Proof assemble(const VerifyingKey& vk, const ProofParts& parts, const ProverRandomness& rs) {
  const G1Jacobian alpha = G1Jacobian::from_affine(vk.alpha_g1), beta1 = G1Jacobian::from_affine(vk.beta_g1),
                   delta1 = G1Jacobian::from_affine(vk.delta_g1);
  const G2Jacobian beta2 = G2Jacobian::from_affine(vk.beta_g2), delta2 = G2Jacobian::from_affine(vk.delta_g2);
  Proof proof;
  proof.a = (alpha + parts.a + delta1 * rs.r).to_affine();
  proof.b = (beta2 + parts.b_g2 + delta2 * rs.s).to_affine();
  proof.c =
      (parts.h + parts.l + parts.a * rs.s + parts.b_g1 * rs.r + alpha * rs.s + beta1 * rs.r + delta1 * (rs.r * rs.s))
          .to_affine();
  return proof;
}

Proof prove(const ProvingKey& pk, const circuit::R1cs& r1cs, const Witness& w, const ProverRandomness& rs,
            ProverTimings* timings, const ProverProgress& progress) {
  const auto start = Clock::now();
  const ProofParts parts = compute_proof_parts(pk, r1cs, w, timings, progress);
  const Proof proof = assemble(pk.vk, parts, rs);
  if (timings) timings->total_ms = ms_since(start);
  return proof;
}

Proof prove_checked(const ProvingKey& pk, const circuit::R1cs& r1cs, const Witness& w, const ProverRandomness& rs,
                    ProverTimings* timings, const ProverProgress& progress) {
  check_shapes(pk, r1cs, w);
  const auto sat = circuit::is_satisfied(r1cs, w.inputs, w.aux);
  if (!sat) throw ProverError("the witness does not satisfy constraint " + std::to_string(*sat.first_failing_row));
  const Proof proof = prove(pk, r1cs, w, rs, timings, progress);
  const std::vector<Fr> publics(w.inputs.begin() + 1, w.inputs.end());
  if (!verify(PreparedVerifyingKey::from(pk.vk), proof, publics))
    throw std::runtime_error("internal error: the proof does not verify against its own key; not returning it");
  return proof;
}

}  // namespace snarkpipe::groth16
