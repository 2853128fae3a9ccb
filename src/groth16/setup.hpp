// Groth16 setup for a recorded circuit (a "circuit-specific trusted setup" from fresh toxic
// waste; for production keys use an MPC ceremony's output instead).
//
// The QAP is evaluated at τ through the Lagrange basis of the evaluation domain:
// u_j(τ) = Σ_k A[k][j]·L_k(τ) (likewise v from B, w from C), then every query is a batch of
// fixed-base multiplications of the generators (REFERENCE.md §3).
#pragma once

#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "circuit/r1cs.hpp"
#include "groth16/keys.hpp"

namespace snarkpipe::groth16 {

struct ToxicWaste {
  Fr tau, alpha, beta, gamma, delta;
  // All five non-zero, from the OS CSPRNG.
  static ToxicWaste random();
};

// Called at the start of each phase ("lagrange", "qap", "a", "b_g1", "b_g2", "ic", "l", "h").
using SetupProgress = std::function<void(std::string_view phase)>;

// The fixed-base multiplications k_i·G of whole queries, setup's bulk (hundreds of millions
// for a PoRep partition). A GPU can supply them (cuda/fixed_base.hpp); unset, the CPU's
// windowed tables do the work. Each returns k_i·G in affine form, in order.
struct SetupMultipliers {
  std::function<std::vector<G1Affine>(std::span<const Fr>)> g1;
  std::function<std::vector<ec::G2Affine>(std::span<const Fr>)> g2;
};

class SetupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Keys for `r1cs` from the given toxic waste. Throws SetupError when τ makes a variable's
// query point vanish although its density bit is set (probability ~n/r; pick another τ),
// which would make the key and the prover disagree about which bases exist.
ProvingKey generate_parameters(const circuit::R1cs& r1cs, const ToxicWaste& tw, const SetupProgress& progress = {},
                               const SetupMultipliers& multipliers = {});

// Keys from fresh toxic waste (retrying on the negligible SetupError above).
ProvingKey setup(const circuit::R1cs& r1cs, const SetupProgress& progress = {},
                 const SetupMultipliers& multipliers = {});

}  // namespace snarkpipe::groth16
