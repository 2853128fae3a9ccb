// Witness generation into the engine's pooled buffers: a constraint system that computes
// values only (like circuit::WitnessConstraintSystem) but appends them to a caller's
// Witness, so a buffer's capacity is reused from partition to partition.
#pragma once

#include <functional>
#include <memory>

#include "circuit/constraint_system.hpp"
#include "engine/job.hpp"
#include "groth16/prover.hpp"

namespace snarkpipe::engine {

// Runs `circuit` for its values into `out` (cleared first; inputs[0] = ONE).
void synthesize_into(const circuit::Circuit& circuit, groth16::Witness& out);

// A witness source that synthesizes `circuit_for(k)` for partition k. The function is
// called from the engine's synthesis workers, concurrently; it must be thread-safe.
WitnessSource circuit_witness_source(std::function<std::shared_ptr<const circuit::Circuit>(std::size_t)> circuit_for);

}  // namespace snarkpipe::engine
