// The prover backend interface (DESIGN.md §3): start() runs the heavy part of one partition's
// proof (H and the five MSMs; on a GPU, the kernels under the device lock) and returns the
// MSM sums; finish() adds the randomizer terms and forms the proof on the CPU, outside any
// lock. Every backend gives the same proof bytes for the same key, witness, r and s.
#pragma once

#include <memory>
#include <memory_resource>
#include <string>

#include "groth16/packed_witness.hpp"
#include "groth16/prover.hpp"

namespace snarkpipe::groth16 {

class ProverBackend {
 public:
  virtual ~ProverBackend() = default;
  virtual std::string name() const = 0;
  // Throws ProverError when key, circuit and witness do not fit together. The references
  // must stay valid for the call only (a backend may cache data derived from the key,
  // keyed by its address, until release_key()).
  virtual ProofParts start(const ProvingKey& pk, const circuit::R1cs& r1cs, const Witness& witness,
                           ProverTimings* timings = nullptr, const ProverProgress& progress = {}) = 0;
  // The same from a packed witness (0/1 values as bits). The default unpacks and calls
  // start(); a backend that takes the packed form directly says so with takes_packed().
  virtual ProofParts start_packed(const ProvingKey& pk, const circuit::R1cs& r1cs, const PackedWitness& witness,
                                  ProverTimings* timings = nullptr, const ProverProgress& progress = {}) {
    return start(pk, r1cs, unpack_witness(witness), timings, progress);
  }
  virtual bool takes_packed() const { return false; }
  // The same from an assignment whose constraint evaluations the caller computed (bellperson's,
  // through supraseal-c2's ABI): no recorded circuit. The default proves on the CPU.
  virtual ProofParts start_evaluated(const ProvingKey& pk, const EvaluatedAssignment& assignment,
                                     ProverTimings* timings = nullptr, const ProverProgress& progress = {}) {
    return compute_proof_parts(pk, assignment, timings, progress);
  }
  // Where packed witnesses for this backend are best kept (PackedWitness's constructor): host
  // memory a device can copy from without staging, for a GPU backend.
  virtual std::pmr::memory_resource* witness_memory() const { return std::pmr::get_default_resource(); }

  // Forgets anything cached for this key or circuit (device-resident copies and the like).
  virtual void release_key(const ProvingKey& /*pk*/) {}
  virtual void release_circuit(const circuit::R1cs& /*r1cs*/) {}

  Proof finish(const VerifyingKey& vk, const ProofParts& parts, const ProverRandomness& rs) const {
    return assemble(vk, parts, rs);
  }
};

// The CPU backend: the reference prover of prover.hpp, multi-threaded with oneTBB.
class CpuBackend final : public ProverBackend {
 public:
  std::string name() const override { return "cpu"; }
  ProofParts start(const ProvingKey& pk, const circuit::R1cs& r1cs, const Witness& witness,
                   ProverTimings* timings = nullptr, const ProverProgress& progress = {}) override {
    return compute_proof_parts(pk, r1cs, witness, timings, progress);
  }
};

}  // namespace snarkpipe::groth16
