// The backend the engine proves on when its last device has been taken out of service
// (gpu.cpu_fallback): the CPU prover, which needs every query point in host memory. A key
// opened with its queries left in the .params file (what a GPU backend loads) is read whole
// from that file, once per key, and forgotten when the engine releases the key.
#pragma once

#include <map>
#include <memory>

#include "groth16/backend.hpp"

namespace snarkpipe::engine {

class CpuFallbackBackend final : public groth16::ProverBackend {
 public:
  std::string name() const override { return "cpu (fallback)"; }
  groth16::ProofParts start(const groth16::ProvingKey& pk, const circuit::R1cs& r1cs, const groth16::Witness& witness,
                            groth16::ProverTimings* timings = nullptr,
                            const groth16::ProverProgress& progress = {}) override;
  void release_key(const groth16::ProvingKey& pk) override { whole_.erase(&pk); }

 private:
  // The key as the CPU prover reads it: `pk` itself, or its host copy read from the file.
  const groth16::ProvingKey& on_host(const groth16::ProvingKey& pk);
  std::map<const groth16::ProvingKey*, std::unique_ptr<groth16::ProvingKey>> whole_;
};

}  // namespace snarkpipe::engine
