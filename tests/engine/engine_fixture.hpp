// What the engine tests share: a tiny synthetic circuit type with its keys, a backend whose
// faults a test scripts, and a gate that holds a witness source until the test opens it.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <memory_resource>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/backend_factory.hpp"
#include "engine/circuit_store.hpp"
#include "engine/witness.hpp"
#include "gadgets/synthetic.hpp"
#include "test_seed.hpp"

namespace snarkpipe::testing {

// A few hundred constraints: proving takes milliseconds on two cores.
struct TinyCircuit {
  std::uint64_t seed;
  std::shared_ptr<const circuit::Circuit> circuit;
  std::shared_ptr<const engine::CircuitKeys> keys;

  TinyCircuit(std::uint64_t seed, std::size_t constraints = 200, std::size_t inputs = 2)
      : seed(seed), circuit(std::make_shared<gadgets::SyntheticCircuit>(constraints, inputs, seed)) {
    keys = engine::record_and_setup("tiny", circuit)();
  }
  engine::WitnessSource source() const {
    return engine::circuit_witness_source([c = circuit](std::size_t) { return c; });
  }
};

// Opens once; every wait() before that blocks.
class Gate {
 public:
  void wait() {
    std::unique_lock lock(mu_);
    ++waiting_;
    cv_.notify_all();
    cv_.wait(lock, [&] { return open_; });
  }
  void open() {
    std::lock_guard lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  // Blocks until someone is waiting at the gate.
  void until_waiting(int n = 1) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return waiting_ >= n; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
  int waiting_ = 0;
};

// What a scripted backend does on one start() call.
enum class Fault { NONE, THROW, WRONG_PARTS, BAD_INPUT };

struct BackendScript {
  // Decides per call: (device index, call number on that device from 0).
  std::function<Fault(int device, int call)> fault = [](int, int) { return Fault::NONE; };
  std::atomic<int> calls[4] = {};
  std::atomic<int> inside[4] = {};      // start() calls running now, per device
  std::atomic<int> max_inside[4] = {};  // the most at once, per device
  std::atomic<int> releases{0};         // release_key() calls, all workers
};

class ScriptedBackend final : public groth16::ProverBackend {
 public:
  ScriptedBackend(int device, std::shared_ptr<BackendScript> script) : device_(device), script_(std::move(script)) {}
  std::string name() const override { return "scripted"; }
  void release_key(const groth16::ProvingKey&) override { ++script_->releases; }
  groth16::ProofParts start(const groth16::ProvingKey& pk, const circuit::R1cs& r1cs, const groth16::Witness& w,
                            groth16::ProverTimings* t, const groth16::ProverProgress& p) override {
    BackendScript& s = *script_;
    const int now = ++s.inside[device_];
    for (int m = s.max_inside[device_]; now > m && !s.max_inside[device_].compare_exchange_weak(m, now);) {}
    const int call = s.calls[device_]++;
    struct Leave {
      std::atomic<int>& n;
      ~Leave() { --n; }
    } leave{s.inside[device_]};
    switch (s.fault(device_, call)) {
      case Fault::THROW:
        throw std::runtime_error("injected device fault");
      case Fault::BAD_INPUT:
        throw groth16::ProverError("injected bad input");
      case Fault::WRONG_PARTS: {
        groth16::ProofParts parts = groth16::compute_proof_parts(pk, r1cs, w, t, p);
        parts.h = parts.h + parts.h;  // a flipped bit on the device, say
        return parts;
      }
      case Fault::NONE:
        break;
    }
    return groth16::compute_proof_parts(pk, r1cs, w, t, p);
  }

 private:
  int device_;
  std::shared_ptr<BackendScript> script_;
};

// `n` fake devices of `memory` bytes each, proving on the CPU as scripted. Host working
// memory is the CPU backend's, or none (as on a GPU, where only the witness is on the host).
class ScriptedProvider final : public engine::BackendProvider {
 public:
  ScriptedProvider(int n, std::uint64_t memory, engine::MemoryNeeds device_needs, std::shared_ptr<BackendScript> script,
                   bool host_working = true, bool packed = false)
      : n_(n),
        memory_(memory),
        device_needs_(device_needs),
        script_(std::move(script)),
        host_working_(host_working),
        packed_(packed) {}
  bool packed_witnesses() const override { return packed_; }
  std::string kind() const override { return "scripted"; }
  // Where packed witnesses are made (a GPU's is page-locked); default: the heap.
  std::pmr::memory_resource* witness_memory() const override {
    return witness_memory_ ? witness_memory_ : std::pmr::get_default_resource();
  }
  void set_witness_memory(std::pmr::memory_resource* r) { witness_memory_ = r; }
  std::vector<engine::DeviceSpec> devices() const override {
    std::vector<engine::DeviceSpec> d;
    for (int i = 0; i < n_; ++i) d.push_back({i, "fake" + std::to_string(i), memory_});
    return d;
  }
  std::unique_ptr<groth16::ProverBackend> make_backend(const engine::DeviceSpec& d) const override {
    return std::make_unique<ScriptedBackend>(d.index, script_);
  }
  engine::MemoryNeeds needs(const engine::CircuitKeys& keys) const override {
    engine::MemoryNeeds n = engine::CpuBackendProvider().needs(keys);
    if (!host_working_) n.host_per_partition = 0;
    n.device_per_partition = device_needs_.device_per_partition;
    n.device_resident = device_needs_.device_resident;
    return n;
  }

 private:
  int n_;
  std::uint64_t memory_;
  engine::MemoryNeeds device_needs_;
  std::shared_ptr<BackendScript> script_;
  bool host_working_;
  bool packed_;
  std::pmr::memory_resource* witness_memory_ = nullptr;
};

}  // namespace snarkpipe::testing
