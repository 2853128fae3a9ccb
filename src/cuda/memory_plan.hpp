// The device memory plan of a proof: which tier it runs in, what lives where, the bytes each
// piece takes and the bus traffic per partition, chosen from the memory free on the device
// (and memory.device_budget) before any work starts. Plain C++: it runs, and is tested,
// without a GPU (tests/cuda/test_memory_plan.cpp simulates device sizes).
//
// Tiers, from the most device memory to the least:
//   1 resident        the key's five queries and the recorded circuit stay in GPU memory
//                     (copied once); per proof only the witness crosses the bus.
//   2 key streamed    the key stays in host memory, pinned in place, and every MSM streams
//                     its query through two piece buffers (the copy of piece k+1 beside the
//                     MSM of piece k); the circuit stays resident.
//   3 circuit streamed  as 2, and the recorded circuit stays in page-locked host memory too:
//                     each SpMV streams its matrix through in pieces of rows (9 GB for a
//                     PoRep partition, less than the 12.5 GB of a, b, c and no host SpMV);
//                     the NTT uses compact twiddles.
//   4 bounded H       as 3, one phase at a time: H with one full-size vector on the device
//                     and a second staged in pinned host memory, then the H MSM, then the L,
//                     A, B MSMs. Where even z cannot stay beside H's vectors, the host
//                     evaluates a, b, c instead and z comes after H (2^27: about 10 GiB).
// In tiers 2 to 4 the L, A, B MSMs run beside the H MSM where the memory allows, through a
// second streamer (tail_piece_points): the H MSM is bound by arithmetic (2^27 scalars of 255
// bits), the L, A, B MSMs by the bus (their scalars are mostly 0 or 1), so together they take
// about as long as the H MSM alone. The plan then counts two phases: H (a, b, c, the NTT's
// scratch) and the MSMs (h, both MSMs' temporaries, the second streamer's pieces).
// An evaluated assignment (a, b, c from the caller, the Filecoin ABI) has no circuit: tiers
// 1, 2 and 4, with a, b, c on the bus in each.
//
// The byte counts follow the CUDA backend's allocations (src/cuda/prover.cu), conservatively:
// every temporary of a phase is counted as if it were live for the whole proof.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "circuit/r1cs.hpp"
#include "groth16/keys.hpp"
#include "groth16/prover.hpp"

namespace snarkpipe::cuda {

// How the prover sizes its MSM passes (shared with src/cuda/prover.cu).
inline constexpr std::size_t MSM_PIECE = std::size_t(1) << 26;       // H MSM: sorted entries per pass, as at 2^26
inline constexpr std::size_t SPLIT_CHUNK = std::size_t(1) << 24;     // L/A/B full scalars per chunk
inline constexpr std::size_t H_STAGE_PIECE = std::size_t(1) << 22;   // tier 4: staged Fr per bus copy
inline constexpr std::size_t CSR_PIECE_NNZ = std::size_t(1) << 24;   // a streamed matrix's entries per copy
inline constexpr std::size_t CSR_PIECE_ROWS = std::size_t(1) << 22;  // ... and rows

// The sizes of one proof, from its key and circuit.
struct ProofShape {
  std::size_t constraints = 0;      // a, b, c entries (input constraints included)
  std::size_t inputs = 0, aux = 0;  // z = inputs ‖ aux
  std::size_t h_points = 0, l_points = 0, a_points = 0, b_points = 0;
  std::size_t circuit_bytes = 0;  // the recorded circuit on the device (0: a, b, c come evaluated)
  bool evaluated = false;         // a, b, c given by the caller: no circuit at all

  std::size_t domain() const;  // m, a power of two ≥ constraints
  std::size_t key_bytes() const;
  static ProofShape of(const groth16::ProvingKey& pk, const circuit::R1cs& r1cs);
  // The same with device_circuit_bytes(r1cs) known (it classifies every coefficient).
  static ProofShape of(const groth16::ProvingKey& pk, const circuit::R1cs& r1cs, std::size_t circuit_bytes);
  static ProofShape of(const groth16::ProvingKey& pk, const groth16::EvaluatedAssignment& assignment);
  // A full 32 GiB PoRep partition (REFERENCE.md §5), scaled like circuit::SyntheticShape: for
  // `snarkpipe info`, which has no key to measure.
  static ProofShape porep_partition(double scale = 1.0);
};

// What a recorded circuit takes on the device (CSR as coefficient codes).
std::size_t device_circuit_bytes(const circuit::R1cs& r1cs);

enum class MemoryTier { resident = 1, key_streamed = 2, circuit_streamed = 3, bounded_h = 4 };
const char* to_string(MemoryTier tier);  // "resident", "key streamed", ...

enum class Place { device, pinned_host, host };

struct PlanItem {
  std::string what;
  Place where;
  std::size_t bytes;
  bool phase = false;  // tier 4: held only during its phase (the plan counts the largest phase)
};

struct MemoryPlan {
  MemoryTier tier = MemoryTier::resident;
  std::size_t device_bytes = 0;             // all device items
  std::size_t available_bytes = 0;          // what it was planned against
  std::size_t piece_points = 0;             // G1 points per streamed key piece (tiers ≥ 2)
  std::size_t bus_bytes_per_partition = 0;  // host → device, witness included
  bool streams_circuit = false;             // tiers 3 and 4: the circuit's matrices stream per SpMV
  bool abc_from_host = false;               // tier 4 in the least memory: the host evaluates a, b, c
  // Tiers 2-4: the L, A, B MSMs beside the H MSM through a second streamer of pieces of this
  // many G1 points; 0: after it, through the first.
  std::size_t tail_piece_points = 0;
  std::vector<PlanItem> items;
  std::string device_name;

  bool key_on_device() const { return tier == MemoryTier::resident; }
  bool circuit_on_device() const { return tier == MemoryTier::resident || tier == MemoryTier::key_streamed; }
  // "tier 2 of 4 (key streamed): 38.2 GiB planned of 40.0 GiB free on NVIDIA H200".
  std::string summary() const;
  // The summary, then what lives where and the bus traffic, one line each.
  std::string describe() const;
};

class MemoryPlanError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Which tiers the caller allows (SrsResidency): vram only tier 1, host tiers 2 and 3, any all.
enum class TierChoice { any, key_on_device, key_on_host };

struct PlanRequest {
  ProofShape shape;
  std::size_t device_free = 0;  // the device's free memory plus what the prover's pools hold
  std::size_t budget = 0;       // memory.device_budget (0: none)
  TierChoice choice = TierChoice::any;
  std::size_t piece_points = 0;  // 0: the largest that fits, 2^25 down to 2^20
  bool concurrent_msms = true;   // tiers 2-4 may run the L, A, B MSMs beside the H MSM
  int only_tier = 0;             // 1-4: that tier alone (still within the choice); 0: any
  std::string device_name = "the GPU";
};

// The plan for one device in the fewest-transfer tier that fits. Throws MemoryPlanError with
// the numbers (the smallest tier's need, what the device has, what to do) when none fits.
MemoryPlan plan_device_memory(const PlanRequest& request);
// The plan of one tier regardless of fit (piece_points 0: 2^25), for reports and tests;
// abc_from_host picks tier 4's variant for the least memory (a recorded circuit only);
// tail_piece_points > 0 runs the L, A, B MSMs beside the H MSM (tiers 2-4; not with
// abc_from_host, whose z comes after the H MSM).
MemoryPlan plan_for_tier(const ProofShape& shape, MemoryTier tier, std::size_t piece_points = 0,
                         bool abc_from_host = false, std::size_t tail_piece_points = 0);

// What setup's fixed-base multiplications on the GPU hold (cuda/fixed_base.cu: the G1 and G2
// tables and one batch of 2^22 scalars each, XYZZ and affine results), whatever the circuit.
std::size_t setup_device_bytes();

std::string format_gib(std::size_t bytes);  // "38.2 GiB"

}  // namespace snarkpipe::cuda
