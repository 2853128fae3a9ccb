#include "groth16/verifier.hpp"

#include "ff/random.hpp"

namespace snarkpipe::groth16 {

using ec::G1Jacobian;

namespace {

G1Jacobian input_accumulator(const PreparedVerifyingKey& pvk, std::span<const Fr> inputs) {
  if (inputs.size() + 1 != pvk.ic.size())
    throw VerificationError("the key expects " + std::to_string(pvk.ic.size() - 1) + " public inputs, got " +
                            std::to_string(inputs.size()));
  G1Jacobian acc = G1Jacobian::from_affine(pvk.ic[0]);
  for (std::size_t i = 0; i < inputs.size(); ++i) acc += G1Jacobian::from_affine(pvk.ic[i + 1]) * inputs[i];
  return acc;
}

}  // namespace

bool verify(const PreparedVerifyingKey& pvk, const Proof& proof, std::span<const Fr> public_inputs) {
  const G1Affine acc = input_accumulator(pvk, public_inputs).to_affine();
  const pairing::G2Prepared b = pairing::G2Prepared::from(proof.b);
  // e(A, B) · e(acc, -γ) · e(C, -δ) = e(α, β)
  const std::pair<G1Affine, const pairing::G2Prepared*> terms[] = {
      {proof.a, &b}, {acc, &pvk.neg_gamma}, {proof.c, &pvk.neg_delta}};
  return pairing::final_exponentiation(pairing::miller_loop(terms)) == pvk.alpha_beta;
}

bool verify_batch(const PreparedVerifyingKey& pvk, std::span<const ProofWithInputs> items) {
  if (items.empty()) return true;
  // Random 128-bit multipliers ρ_j: Π e(ρ_j·A_j, B_j) · e(Σ ρ_j·acc_j, -γ) · e(Σ ρ_j·C_j, -δ)
  // = e(α, β)^(Σ ρ_j).
  ff::SystemRng rng;
  G1Jacobian acc_sum = G1Jacobian::identity(), c_sum = G1Jacobian::identity();
  Fr rho_sum = Fr::zero();
  std::vector<G1Affine> scaled_a;
  std::vector<pairing::G2Prepared> bs;
  scaled_a.reserve(items.size());
  bs.reserve(items.size());
  for (const auto& it : items) {
    ff::Limbs<4> rho_limbs{rng.next_u64(), rng.next_u64(), 0, 0};
    const Fr rho = Fr::from_canonical_unchecked(rho_limbs);
    acc_sum += input_accumulator(pvk, it.public_inputs) * rho;
    c_sum += G1Jacobian::from_affine(it.proof->c) * rho;
    scaled_a.push_back((G1Jacobian::from_affine(it.proof->a) * rho).to_affine());
    bs.push_back(pairing::G2Prepared::from(it.proof->b));
    rho_sum += rho;
  }
  std::vector<std::pair<G1Affine, const pairing::G2Prepared*>> terms;
  for (std::size_t j = 0; j < items.size(); ++j) terms.emplace_back(scaled_a[j], &bs[j]);
  terms.emplace_back(acc_sum.to_affine(), &pvk.neg_gamma);
  terms.emplace_back(c_sum.to_affine(), &pvk.neg_delta);
  return pairing::final_exponentiation(pairing::miller_loop(terms)) == pvk.alpha_beta.pow(rho_sum.to_repr());
}

}  // namespace snarkpipe::groth16
