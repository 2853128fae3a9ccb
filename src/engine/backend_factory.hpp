// Where proofs run: a BackendProvider names the devices of one backend kind ("cpu" today,
// "cuda" next), makes one ProverBackend per worker (each worker owns its backend, so
// per-worker device memory is planned once and reused), and says what a partition of a
// circuit needs in host and device memory, so the engine can budget it before it starts.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/circuit_store.hpp"
#include "groth16/backend.hpp"

namespace snarkpipe::engine {

struct DeviceSpec {
  int index = 0;             // the backend's device number (CUDA ordinal; 0 for the CPU)
  std::string name;          // "cpu", "NVIDIA H200", ...
  std::uint64_t memory = 0;  // device memory in bytes; 0 when it has none of its own (CPU)
  std::uint64_t budget = 0;  // memory.device_budget for it (0: all of memory), set by the engine
};

struct MemoryNeeds {
  std::uint64_t host_per_partition = 0;    // host working memory of one start() (besides the witness)
  std::uint64_t device_per_partition = 0;  // device memory one start() uses, freed when it returns
  std::uint64_t device_resident = 0;       // device memory the circuit's keys occupy once loaded
};

class BackendProvider {
 public:
  virtual ~BackendProvider() = default;
  virtual std::string kind() const = 0;
  virtual std::vector<DeviceSpec> devices() const = 0;
  // A backend for one worker of `device`, used by that worker's thread only.
  virtual std::unique_ptr<groth16::ProverBackend> make_backend(const DeviceSpec& device) const = 0;
  virtual MemoryNeeds needs(const CircuitKeys& keys) const = 0;
  // The same on a device that may give a proof `device_limit` bytes (0: no limit): a GPU
  // backend plans its memory tier against it (cuda/memory_plan.hpp) and throws EngineError,
  // with the plan's numbers, when no tier fits.
  virtual MemoryNeeds needs(const CircuitKeys& keys, std::uint64_t /*device_limit*/) const { return needs(keys); }
  // Whether partitions should wait for this backend's devices as packed witnesses (0/1
  // values as bits; groth16/packed_witness.hpp) rather than full ones.
  virtual bool packed_witnesses() const { return false; }
  // Where those packed witnesses are best kept (groth16::ProverBackend::witness_memory).
  virtual std::pmr::memory_resource* witness_memory() const { return std::pmr::get_default_resource(); }
};

// The CPU backend (groth16::CpuBackend): one device, "cpu", no device memory. The host
// estimate covers the prover's a, b, c and H vectors over the FFT domain and its MSM
// scalars.
class CpuBackendProvider final : public BackendProvider {
 public:
  std::string kind() const override { return "cpu"; }
  std::vector<DeviceSpec> devices() const override { return {DeviceSpec{0, "cpu", 0}}; }
  std::unique_ptr<groth16::ProverBackend> make_backend(const DeviceSpec&) const override {
    return std::make_unique<groth16::CpuBackend>();
  }
  MemoryNeeds needs(const CircuitKeys& keys) const override;
};

// The CUDA backend: one device per GPU the process sees. The workers of one device share one
// cuda::CudaBackend (its key and circuit are resident once per device, and its start()
// serializes the device's kernels); workers_per_device > 1 then overlaps a worker's host
// side with another's kernels only through the engine's stages around start().
class CudaBackendProvider final : public BackendProvider {
 public:
  CudaBackendProvider();
  ~CudaBackendProvider() override;
  std::string kind() const override { return "cuda"; }
  std::vector<DeviceSpec> devices() const override { return devices_; }
  std::unique_ptr<groth16::ProverBackend> make_backend(const DeviceSpec& device) const override;
  MemoryNeeds needs(const CircuitKeys& keys) const override;
  MemoryNeeds needs(const CircuitKeys& keys, std::uint64_t device_limit) const override;
  bool packed_witnesses() const override { return true; }
  std::pmr::memory_resource* witness_memory() const override;  // page-locked host memory

 private:
  std::vector<DeviceSpec> devices_;
  struct Shared;
  std::unique_ptr<Shared> shared_;
};

// The backend kinds this build can make ("cpu", and "cuda" when CUDA is compiled in).
std::vector<std::string> backend_kinds();
// Throws EngineError for an unknown kind, naming the known ones.
// "auto" as the kind it stands for here: "cuda" when this build has CUDA and a GPU is usable,
// else "cpu"; any other kind unchanged.
std::string resolve_backend(std::string_view kind);
// kind: "cpu", "cuda" or "auto" (resolve_backend); EngineError for another.
std::unique_ptr<BackendProvider> make_backend_provider(std::string_view kind);

}  // namespace snarkpipe::engine
