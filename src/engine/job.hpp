// A proof request and its result. A request names a circuit type (registered in the engine's
// CircuitStore), a witness source that fills partition k's assignment, a priority and an
// optional idempotency key; it becomes `partitions` partition proofs, returned concatenated
// in partition order (192 bytes each), or one error naming the cause.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "groth16/proof.hpp"
#include "groth16/packed_witness.hpp"
#include "groth16/prover.hpp"

namespace snarkpipe::engine {

// Declared lowest first so that a larger value means more urgent.
enum class Priority : std::uint8_t { LOW, NORMAL, HIGH, CRITICAL };
std::string_view priority_name(Priority p);                     // "low" ... "critical"
std::optional<Priority> parse_priority(std::string_view name);  // case-insensitive

// Unique per engine and never reused; also the submission order (older jobs have smaller ids).
using JobId = std::uint64_t;

// Fills `out` with partition `partition`'s assignment (out.inputs[0] = ONE). `out` is a pooled
// buffer: its vectors arrive empty with capacity for the circuit's sizes; append to them
// (push_back, resize, assign) rather than swapping in vectors of your own, so the buffer's
// memory stays the one charged to the budget. Throw to fail the partition (and its job).
using WitnessSource = std::function<void(std::size_t partition, groth16::Witness& out)>;

// Writes partition `partition`'s assignment straight into its packed form (0/1 values as
// bits), through a groth16::PackedWitnessWriter on `out`: the full 32-byte vector (4.2 GB for
// a PoRep partition) never exists. `out` may be a kept witness in the backend's memory.
using PackedWitnessSource = std::function<void(std::size_t partition, groth16::PackedWitness& out)>;

struct ProofRequest {
  std::string circuit_type;
  WitnessSource witness;  // this, packed_witness (below), or both
  std::size_t partitions = 1;
  Priority priority = Priority::NORMAL;
  // Non-empty: submitting the same key again returns the same job instead of a new one.
  std::string idempotency_key;
  // Used instead of `witness` when the backend takes packed witnesses and the witness is not
  // to be checked (synthesis.check_witness = false); when it is the only source and a full
  // witness is needed, unpacked into a pooled buffer.
  PackedWitnessSource packed_witness;
};

enum class JobState : std::uint8_t { QUEUED, RUNNING, DONE, FAILED, CANCELLED };
std::string_view state_name(JobState s);
inline bool is_terminal(JobState s) { return s == JobState::DONE || s == JobState::FAILED || s == JobState::CANCELLED; }

struct JobResult {
  JobId id = 0;
  JobState state = JobState::QUEUED;
  std::vector<groth16::Proof> proofs;  // every partition, in order, each verified (DONE only)
  std::string error;                   // the cause (FAILED, CANCELLED)

  bool ok() const { return state == JobState::DONE; }
  std::vector<std::uint8_t> bytes() const { return groth16::encode_proofs(proofs); }
};

// A request the engine refuses outright (unknown circuit type, an idempotency key reused for
// a different request, a budget too small for one partition, no device in service).
class EngineError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace snarkpipe::engine
