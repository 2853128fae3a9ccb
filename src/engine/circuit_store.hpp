// Circuit types and their residents: the recorded circuit (CSR), the proving key and the
// prepared verifying key, loaded on first use and kept in host memory across proofs
// (lesson 1), charged to the host budget. A job pins its circuit while it runs; idle
// circuits are evicted least-recently-used first when the budget needs room.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "circuit/constraint_system.hpp"
#include "circuit/r1cs.hpp"
#include "engine/memory_budget.hpp"
#include "groth16/keys.hpp"

namespace snarkpipe::engine {

struct CircuitKeys {
  std::string type;
  circuit::R1cs r1cs;
  groth16::ProvingKey pk;
  groth16::PreparedVerifyingKey pvk;

  // The host bytes the three hold (vector payloads; small headers ignored).
  std::uint64_t host_bytes() const;
};

std::shared_ptr<const CircuitKeys> make_circuit_keys(std::string type, circuit::R1cs r1cs, groth16::ProvingKey pk);

using CircuitLoader = std::function<std::shared_ptr<const CircuitKeys>()>;
// Records `shape` (a circuit without witness) and runs a fresh Groth16 setup for it: for
// tests and benchmarks; production keys come from files (a ceremony's output).
CircuitLoader record_and_setup(std::string type, std::shared_ptr<const circuit::Circuit> shape);

class CircuitStore {
 public:
  explicit CircuitStore(MemoryBudget& host) : host_(host) {}
  ~CircuitStore();
  CircuitStore(const CircuitStore&) = delete;
  CircuitStore& operator=(const CircuitStore&) = delete;

  // Called (without the store's lock) when evicting idle circuits does not make room: frees
  // what else the budget holds idle (the engine's pooled buffers) toward `bytes`.
  void set_reclaimer(std::function<void(std::uint64_t bytes)> reclaim) { reclaim_ = std::move(reclaim); }

  // Registers a circuit type; throws EngineError when the name is taken.
  void add(const std::string& type, CircuitLoader loader);
  bool contains(const std::string& type) const;

  struct Pinned {
    std::shared_ptr<const CircuitKeys> keys;
    std::vector<std::shared_ptr<const CircuitKeys>> evicted;  // residents evicted to make room
  };
  // Pins `type`, loading it first when it is not resident. Its bytes are charged to the
  // budget, evicting idle residents (least recently used first) and then waiting for work
  // in flight to release bytes. `headroom` is what one partition of the job needs besides:
  // throws EngineError when resident + headroom can never fit (more than the limit minus
  // the other pinned residents), or when the loader fails.
  Pinned pin(const std::string& type, std::uint64_t headroom);
  // `headroom` for a resident circuit, checked like pin() does without pinning.
  void check_fits(const std::string& type, std::uint64_t headroom) const;
  void unpin(const std::string& type);

  std::vector<std::string> resident() const;  // least recently used first
  std::uint64_t resident_bytes() const;

 private:
  struct Entry {
    CircuitLoader loader;
    std::shared_ptr<const CircuitKeys> keys;  // null when not resident
    std::uint64_t bytes = 0;
    bool loading = false;
    std::size_t pins = 0;
    std::uint64_t last_used = 0;
  };
  std::uint64_t pinned_bytes_except(const Entry* e) const;  // under mu_
  void fits_or_throw(const std::string& type, const Entry& e, std::uint64_t bytes, std::uint64_t headroom) const;

  MemoryBudget& host_;
  std::function<void(std::uint64_t)> reclaim_;
  mutable std::mutex mu_;
  std::condition_variable loaded_;
  std::map<std::string, Entry> entries_;
  std::uint64_t clock_ = 0;
};

}  // namespace snarkpipe::engine
