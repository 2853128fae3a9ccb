// The GPU zkey prover in a build without nvcc: constructing it says so.
#include "cuda/error.hpp"
#include "cuda/zkey_prover.hpp"

namespace snarkpipe::cuda {

struct GpuZkeyProver::Impl {};

GpuZkeyProver::GpuZkeyProver(const circom::ZkeyProver&, int) {
  throw CudaError("GpuZkeyProver", 35, "this snarkpipe was built without CUDA (no nvcc found at configure time)",
                  __FILE__, __LINE__);
}
GpuZkeyProver::~GpuZkeyProver() = default;
groth16::Proof GpuZkeyProver::prove(std::span<const ff::Fr>, const groth16::ProverRandomness&,
                                    circom::ZkeyProverTimings*) {
  return {};
}
groth16::Proof GpuZkeyProver::prove_checked(std::span<const ff::Fr>, const groth16::ProverRandomness&,
                                            circom::ZkeyProverTimings*) {
  return {};
}
std::size_t GpuZkeyProver::device_bytes() const { return 0; }

}  // namespace snarkpipe::cuda
