#include "engine/backend_factory.hpp"

#include <map>
#include <mutex>

#include "cuda/device_info.hpp"
#include "cuda/memory.hpp"
#include "cuda/prover.hpp"
#include "engine/job.hpp"
#include "poly/domain.hpp"

namespace snarkpipe::engine {

MemoryNeeds CpuBackendProvider::needs(const CircuitKeys& keys) const {
  const std::uint64_t m = keys.pk.domain_size();
  // a, b, c and the H coefficients (4·m), plus the MSM scalar copies (~ one per column).
  return MemoryNeeds{(4 * m + keys.r1cs.num_columns()) * sizeof(ff::Fr), 0, 0};
}

namespace {

// A worker's handle on its device's shared CUDA backend.
class SharedCudaBackend final : public groth16::ProverBackend {
 public:
  explicit SharedCudaBackend(std::shared_ptr<cuda::CudaBackend> b) : b_(std::move(b)) {}
  std::string name() const override { return b_->name(); }
  groth16::ProofParts start(const groth16::ProvingKey& pk, const circuit::R1cs& r1cs, const groth16::Witness& w,
                            groth16::ProverTimings* t, const groth16::ProverProgress& p) override {
    return b_->start(pk, r1cs, w, t, p);
  }
  groth16::ProofParts start_packed(const groth16::ProvingKey& pk, const circuit::R1cs& r1cs,
                                   const groth16::PackedWitness& w, groth16::ProverTimings* t,
                                   const groth16::ProverProgress& p) override {
    return b_->start_packed(pk, r1cs, w, t, p);
  }
  bool takes_packed() const override { return true; }
  std::pmr::memory_resource* witness_memory() const override { return b_->witness_memory(); }
  void release_key(const groth16::ProvingKey& pk) override { b_->release_key(pk); }
  void release_circuit(const circuit::R1cs& r1cs) override { b_->release_circuit(r1cs); }

 private:
  std::shared_ptr<cuda::CudaBackend> b_;
};

}  // namespace

struct CudaBackendProvider::Shared {
  std::mutex mu;
  std::map<int, std::shared_ptr<cuda::CudaBackend>> backends;
};

CudaBackendProvider::CudaBackendProvider() : shared_(std::make_unique<Shared>()) {
  for (const auto& d : cuda::list_devices()) devices_.push_back(DeviceSpec{d.index, d.name, d.total_memory});
  if (devices_.empty()) throw EngineError("backend 'cuda': " + cuda::why_no_devices());
}

CudaBackendProvider::~CudaBackendProvider() = default;

std::unique_ptr<groth16::ProverBackend> CudaBackendProvider::make_backend(const DeviceSpec& device) const {
  std::lock_guard lock(shared_->mu);
  auto& b = shared_->backends[device.index];
  if (!b) {
    cuda::CudaBackendOptions o;
    o.device = device.index;
    b = std::make_shared<cuda::CudaBackend>(o);
  }
  return std::make_unique<SharedCudaBackend>(b);
}

MemoryNeeds CudaBackendProvider::needs(const CircuitKeys& keys) const {
  const std::size_t circuit = cuda::CudaBackend::circuit_bytes(keys.r1cs);
  const std::uint64_t total =
      cuda::CudaBackend::device_bytes_needed(keys.pk, keys.r1cs, cuda::SrsResidency::vram, 0, circuit);
  const std::uint64_t resident = cuda::CudaBackend::key_bytes(keys.pk) + circuit;
  // Host side of one start(): the two 32 MiB pinned staging buffers.
  return MemoryNeeds{std::uint64_t(64) << 20, total > resident ? total - resident : 0, resident};
}

std::pmr::memory_resource* CudaBackendProvider::witness_memory() const { return cuda::pinned_memory(); }

std::vector<std::string> backend_kinds() {
  if (cuda::compiled_with_cuda()) return {"cpu", "cuda"};
  return {"cpu"};
}

std::unique_ptr<BackendProvider> make_backend_provider(std::string_view kind) {
  if (kind == "cpu") return std::make_unique<CpuBackendProvider>();
  if (kind == "cuda" && cuda::compiled_with_cuda()) return std::make_unique<CudaBackendProvider>();
  std::string known;
  for (const auto& k : backend_kinds()) known += (known.empty() ? "" : ", ") + k;
  throw EngineError("unknown backend '" + std::string(kind) + "' (this build has: " + known + ")");
}

}  // namespace snarkpipe::engine
