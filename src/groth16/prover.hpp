// The Groth16 prover on the CPU (REFERENCE.md §4, bellperson's formulas):
//   H:  a, b, c = A·z, B·z, C·z; each iNTT then coset NTT (shift 7); (a·b − c)/(7^m − 1);
//       inverse coset NTT; the first m−1 coefficients are the H MSM's scalars.
//   A = α₁ + Σ a_i·u_i + r·δ₁;   B = β₂ + Σ b_i·v_i + s·δ₂;
//   C = h + l + s·A' + r·B₁' + s·α₁ + r·β₁ + r·s·δ₁   (A', B₁' the MSM parts)
// This is the reference every faster backend is checked against.
//
// The prover is split (DESIGN.md §3): a backend's start() computes the five MSM sums (the
// heavy part; on a GPU, under the device lock) into ProofParts; assemble() adds the
// randomizer terms and forms the proof (a few scalar multiplications, on the CPU). prove()
// is the CPU backend's start() followed by assemble().
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "circuit/r1cs.hpp"
#include "ec/curves.hpp"
#include "groth16/keys.hpp"
#include "groth16/proof.hpp"
#include "msm/density.hpp"

namespace snarkpipe::groth16 {

// The assignment: inputs[0] is the constant ONE.
struct Witness {
  std::vector<Fr> inputs;
  std::vector<Fr> aux;
};

// A synthesized assignment with its constraint evaluations, as bellperson's ProvingAssignment
// holds it and supraseal-c2's ABI passes it (src/ffi): no recorded circuit, only
//   a, b, c   ⟨A_k,z⟩, ⟨B_k,z⟩, ⟨C_k,z⟩ for every constraint k (the input constraints included),
//   inputs    ONE first, then the public inputs;  aux  the auxiliary values;
//   a_aux     which aux variables have an A point; b_input / b_aux likewise for B.
struct EvaluatedAssignment {
  std::span<const Fr> a, b, c;
  std::span<const Fr> inputs, aux;
  msm::DensityView a_aux, b_input, b_aux;

  std::size_t num_constraints() const { return a.size(); }
};

struct ProverRandomness {
  Fr r, s;
  static ProverRandomness random();  // from the OS CSPRNG
};

// Wall-clock milliseconds per phase of one proof.
struct ProverTimings {
  double abc_ms = 0, ntt_ms = 0, h_msm_ms = 0, l_msm_ms = 0, a_msm_ms = 0, b_g1_msm_ms = 0, b_g2_msm_ms = 0,
         total_ms = 0;
};

// The MSM sums of one proof, without the randomizer terms:
//   h = Σ h_i·H_i, l = Σ aux_j·L_j, a = Σ z_i·A_i, b_g1 = Σ z_i·B1_i, b_g2 = Σ z_i·B2_i.
struct ProofParts {
  ec::G1Jacobian h, l, a, b_g1;
  ec::G2Jacobian b_g2;
};

// Called at the start of each phase: "a,b,c + H (NTT)", "H MSM", "L MSM", "A MSM",
// "B MSM (G1)", "B MSM (G2)" (the CUDA backend, whose L, A and B MSMs run beside the H MSM
// or after it: "a,b,c + H (NTT)", then "H MSM (L, A, B MSMs beside it)" or "H MSM", "L, A, B MSMs").
using ProverProgress = std::function<void(std::string_view phase)>;

class ProverError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Throws ProverError when the key, circuit and witness do not fit together (naming what
// differs); does not check that the witness satisfies the circuit (see prove_checked).
Proof prove(const ProvingKey& pk, const circuit::R1cs& r1cs, const Witness& witness, const ProverRandomness& rs,
            ProverTimings* timings = nullptr, const ProverProgress& progress = {});

// Throws ProverError when the key, circuit and witness do not fit together, naming what
// differs (every backend calls it first).
void check_shapes(const ProvingKey& pk, const circuit::R1cs& r1cs, const Witness& witness);
void check_shapes(const ProvingKey& pk, const circuit::R1cs& r1cs, std::span<const Fr> inputs, std::size_t num_aux);
// The A and B queries' point counts a circuit's densities ask for (inputs included). Counting
// a PoRep partition's 130M-bit densities takes ~11 ms, so a backend that keeps a circuit
// (cuda::CudaBackend) counts once and passes its counts to the overload below.
struct QuerySizes {
  std::size_t a = 0, b = 0;
};
QuerySizes query_sizes(const circuit::R1cs& r1cs);
void check_shapes(const ProvingKey& pk, const circuit::R1cs& r1cs, std::span<const Fr> inputs, std::size_t num_aux,
                  const QuerySizes& sizes);

// Throws ProverError when the assignment's parts disagree with each other or with the key.
void check_shapes(const ProvingKey& pk, const EvaluatedAssignment& ea);
// The first constraint k with a_k·b_k ≠ c_k (the witness does not satisfy it), if any.
std::optional<std::size_t> first_unsatisfied(const EvaluatedAssignment& ea);

// The CPU backend's start(): checks shapes, computes H and the five MSMs.
ProofParts compute_proof_parts(const ProvingKey& pk, const circuit::R1cs& r1cs, const Witness& witness,
                               ProverTimings* timings = nullptr, const ProverProgress& progress = {});

// The same from an evaluated assignment (no recorded circuit).
ProofParts compute_proof_parts(const ProvingKey& pk, const EvaluatedAssignment& ea, ProverTimings* timings = nullptr,
                               const ProverProgress& progress = {});

// A = α + a + r·δ;  B = β + b_g2 + s·δ;  C = h + l + s·a + r·b_g1 + s·α + r·β₁ + r·s·δ.
Proof assemble(const VerifyingKey& vk, const ProofParts& parts, const ProverRandomness& rs);

// prove() preceded by a satisfiability check (naming the first unsatisfied constraint) and
// followed by verification against the key: never returns a proof that does not verify.
Proof prove_checked(const ProvingKey& pk, const circuit::R1cs& r1cs, const Witness& witness, const ProverRandomness& rs,
                    ProverTimings* timings = nullptr, const ProverProgress& progress = {});

// The H polynomial's coefficients 0..m-2 (exposed for tests and other backends); fills
// timings->abc_ms and ntt_ms when given.
std::vector<Fr> compute_h(const circuit::R1cs& r1cs, const Witness& witness, ProverTimings* timings = nullptr);
// The same from the evaluations a, b, c (each zero-padded here to the domain), which it consumes.
std::vector<Fr> compute_h(std::vector<Fr> a, std::vector<Fr> b, std::vector<Fr> c, ProverTimings* timings = nullptr);

}  // namespace snarkpipe::groth16
