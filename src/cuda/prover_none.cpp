// The CUDA backend and GPU setup in a build without nvcc: constructing them says so.
#include <stdexcept>

#include "cuda/error.hpp"
#include "cuda/fixed_base.hpp"
#include "cuda/prover.hpp"

namespace snarkpipe::cuda {

struct CudaBackend::Impl {};

SrsResidency parse_srs_residency(const std::string& text) {
  if (text == "vram") return SrsResidency::vram;
  if (text == "host") return SrsResidency::host;
  if (text == "auto") return SrsResidency::automatic;
  throw std::invalid_argument("SRS residency must be vram, host or auto (got '" + text + "')");
}
const char* to_string(SrsResidency r) {
  return r == SrsResidency::vram ? "vram" : r == SrsResidency::host ? "host" : "auto";
}

CudaBackend::CudaBackend(const CudaBackendOptions&) {
  throw CudaError("CudaBackend", 35, "this snarkpipe was built without CUDA (no nvcc found at configure time)",
                  __FILE__, __LINE__);
}
CudaBackend::~CudaBackend() = default;
std::string CudaBackend::name() const { return "cuda (not built)"; }
groth16::ProofParts CudaBackend::start(const groth16::ProvingKey&, const circuit::R1cs&, const groth16::Witness&,
                                       groth16::ProverTimings*, const groth16::ProverProgress&) {
  return {};
}
groth16::ProofParts CudaBackend::start_packed(const groth16::ProvingKey&, const circuit::R1cs&,
                                              const groth16::PackedWitness&, groth16::ProverTimings*,
                                              const groth16::ProverProgress&) {
  return {};
}
groth16::ProofParts CudaBackend::start_evaluated(const groth16::ProvingKey&, const groth16::EvaluatedAssignment&,
                                                 groth16::ProverTimings*, const groth16::ProverProgress&) {
  return {};
}
groth16::ProofParts CudaBackend::start_common(const groth16::ProvingKey&, const circuit::R1cs*, const groth16::Witness*,
                                              const groth16::PackedWitness*, const groth16::EvaluatedAssignment*,
                                              groth16::ProverTimings*, const groth16::ProverProgress&,
                                              std::chrono::steady_clock::time_point) {
  return {};
}
std::pmr::memory_resource* CudaBackend::witness_memory() const { return std::pmr::get_default_resource(); }
void CudaBackend::release_key(const groth16::ProvingKey&) {}
void CudaBackend::release_circuit(const circuit::R1cs&) {}
std::size_t CudaBackend::device_bytes_needed(const groth16::ProvingKey&, const circuit::R1cs&, SrsResidency,
                                             std::size_t) {
  return 0;
}
std::size_t CudaBackend::device_bytes_needed(const groth16::ProvingKey&, const circuit::R1cs&, SrsResidency,
                                             std::size_t, std::size_t) {
  return 0;
}
std::size_t CudaBackend::device_bytes_needed(const groth16::ProvingKey&, const groth16::EvaluatedAssignment&,
                                             SrsResidency, std::size_t) {
  return 0;
}
SrsResidency CudaBackend::residency_used() const { return SrsResidency::vram; }
const std::string& CudaBackend::memory_plan() const {
  static const std::string none;
  return none;
}
int CudaBackend::memory_tier() const { return 0; }
std::size_t CudaBackend::key_bytes(const groth16::ProvingKey&) { return 0; }
std::size_t CudaBackend::circuit_bytes(const circuit::R1cs&) { return 0; }
std::size_t CudaBackend::device_bytes_held() const { return 0; }
const CudaProverPhases& CudaBackend::last_phases() const {
  static const CudaProverPhases none;
  return none;
}

template <class C>
struct GpuFixedBase<C>::Impl {};
template <class C>
GpuFixedBase<C>::GpuFixedBase(const ec::Affine<C>&, int) {
  throw CudaError("GpuFixedBase", 35, "this snarkpipe was built without CUDA (no nvcc found at configure time)",
                  __FILE__, __LINE__);
}
template <class C>
GpuFixedBase<C>::~GpuFixedBase() = default;
template <class C>
std::vector<ec::Affine<C>> GpuFixedBase<C>::batch_mul(std::span<const ff::Fr>) {
  return {};
}
template class GpuFixedBase<ec::G1Curve>;
template class GpuFixedBase<ec::G2Curve>;

}  // namespace snarkpipe::cuda
