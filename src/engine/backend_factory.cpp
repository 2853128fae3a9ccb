#include "engine/backend_factory.hpp"

#include <map>
#include <mutex>

#include "cuda/device_info.hpp"
#include "cuda/memory.hpp"
#include "cuda/memory_plan.hpp"
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
    o.device_budget = device.budget;
    b = std::make_shared<cuda::CudaBackend>(o);
  }
  return std::make_unique<SharedCudaBackend>(b);
}

MemoryNeeds CudaBackendProvider::needs(const CircuitKeys& keys) const { return needs(keys, 0); }

MemoryNeeds CudaBackendProvider::needs(const CircuitKeys& keys, std::uint64_t device_limit) const {
  // The tier the backend will choose on such a device (it plans again against its own free
  // memory on first use): what stays resident per circuit and what one start() adds.
  cuda::PlanRequest r;
  r.shape = cuda::ProofShape::of(keys.pk, keys.r1cs);
  r.device_free = device_limit ? device_limit : ~std::size_t(0) / 2;
  r.device_name = devices_.empty() ? "the GPU" : devices_.front().name;
  cuda::MemoryPlan plan;
  try {
    plan = cuda::plan_device_memory(r);
  } catch (const cuda::MemoryPlanError& e) {
    throw EngineError(e.what());
  }
  const std::uint64_t resident =
      (plan.key_on_device() ? r.shape.key_bytes() : 0) + (plan.circuit_on_device() ? r.shape.circuit_bytes : 0);
  // Host side: the two 32 MiB pinned staging buffers; a streamed circuit's page-locked copy;
  // a, b, c when the host evaluates them; tier 4's staged vector.
  // A key whose queries were left in their file is read into the backend's own page-locked
  // memory when it stays on the host.
  const std::uint64_t host = (std::uint64_t(64) << 20) + (plan.streams_circuit ? r.shape.circuit_bytes : 0) +
                             (!plan.key_on_device() && keys.pk.deferred ? r.shape.key_bytes() : 0) +
                             (plan.abc_from_host ? 3 * std::uint64_t(r.shape.constraints) * sizeof(ff::Fr) : 0) +
                             (plan.tier == cuda::MemoryTier::bounded_h ? r.shape.domain() * sizeof(ff::Fr) : 0);
  return MemoryNeeds{host, plan.device_bytes > resident ? plan.device_bytes - resident : 0, resident};
}

std::pmr::memory_resource* CudaBackendProvider::witness_memory() const { return cuda::pinned_memory(); }

std::vector<std::string> backend_kinds() {
  if (cuda::compiled_with_cuda()) return {"cpu", "cuda"};
  return {"cpu"};
}

std::string resolve_backend(std::string_view kind) {
  if (kind != "auto") return std::string(kind);
  return cuda::compiled_with_cuda() && cuda::usable_device_count() > 0 ? "cuda" : "cpu";
}

std::unique_ptr<BackendProvider> make_backend_provider(std::string_view requested) {
  const std::string kind = resolve_backend(requested);
  if (kind == "cpu") return std::make_unique<CpuBackendProvider>();
  if (kind == "cuda" && cuda::compiled_with_cuda()) return std::make_unique<CudaBackendProvider>();
  std::string known;
  for (const auto& k : backend_kinds()) known += (known.empty() ? "" : ", ") + k;
  throw EngineError("unknown backend '" + kind + "' (this build has: " + known + ", or auto)");
}

}  // namespace snarkpipe::engine
