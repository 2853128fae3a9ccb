// Groth16 verification: e(A, B) = e(α, β) · e(Σ x_i·ic_i, γ) · e(C, δ), with x_0 = 1,
// as one multi-Miller loop and one final exponentiation; and a batch verifier that checks
// many proofs against one key with a random linear combination (one multi-pairing of
// n + 2 terms instead of n pairings of 3 terms).
#pragma once

#include <span>
#include <stdexcept>

#include "groth16/keys.hpp"
#include "groth16/proof.hpp"

namespace snarkpipe::groth16 {

class VerificationError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// `public_inputs` excludes the constant ONE. Throws VerificationError when the number of
// inputs does not match the key; returns false for a proof that does not verify.
bool verify(const PreparedVerifyingKey& pvk, const Proof& proof, std::span<const Fr> public_inputs);

struct ProofWithInputs {
  const Proof* proof;
  std::span<const Fr> public_inputs;
};
// True only if every proof verifies (except with probability ~2^-128).
bool verify_batch(const PreparedVerifyingKey& pvk, std::span<const ProofWithInputs> items);

}  // namespace snarkpipe::groth16
