// The CUDA backend in a build without nvcc: constructing it says so.
#include "cuda/error.hpp"
#include "cuda/prover.hpp"

namespace snarkpipe::cuda {

struct CudaBackend::Impl {};

CudaBackend::CudaBackend(int) {
  throw CudaError("CudaBackend", 35, "this snarkpipe was built without CUDA (no nvcc found at configure time)",
                  __FILE__, __LINE__);
}
CudaBackend::~CudaBackend() = default;
std::string CudaBackend::name() const { return "cuda (not built)"; }
groth16::ProofParts CudaBackend::start(const groth16::ProvingKey&, const circuit::R1cs&, const groth16::Witness&,
                                       groth16::ProverTimings*, const groth16::ProverProgress&) {
  return {};
}
void CudaBackend::release_key(const groth16::ProvingKey&) {}
void CudaBackend::release_circuit(const circuit::R1cs&) {}
std::size_t CudaBackend::device_bytes_needed(const groth16::ProvingKey&, const circuit::R1cs&) { return 0; }
std::size_t CudaBackend::device_bytes_held() const { return 0; }
const CudaProverPhases& CudaBackend::last_phases() const {
  static const CudaProverPhases none;
  return none;
}

}  // namespace snarkpipe::cuda
