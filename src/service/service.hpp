// The daemon (DESIGN.md §2): an HTTP JSON API over one engine::Engine, its status as JSON
// and as Prometheus metrics.
//
//   POST   /v1/circuits   {"type": "synthetic", "constraints": "2^10", ...} → {"name": ...}
//                         registers a circuit type through the CircuitFactory (recorded and
//                         set up once; the same parameters again return the same name)
//   GET    /v1/circuits   → {"circuits": [names]}
//   POST   /v1/jobs       {"circuit": NAME, "partitions": N, "priority": "HIGH",
//                          "idempotency_key": "...", "seed": S} → {"id": ...}
//   GET    /v1/jobs/{id}  → state, error; when done the proofs (hex of the 192-byte
//                         encodings, partition order) and public inputs (decimal strings)
//   DELETE /v1/jobs/{id}  → cancels a queued or running job
//   GET    /v1/status     → engine statistics (JSON);  GET /metrics → the same, Prometheus text
//
// Errors are {"error": "..."}: 400 for a request that cannot run (malformed JSON, unknown
// circuit, bad priority, ...), 404 for an unknown job or path.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "circuit/constraint_system.hpp"
#include "engine/engine.hpp"

namespace httplib {
class Server;
}

namespace snarkpipe::service {

// A circuit type the daemon proves: its keys, made once at registration, and the circuit
// (with its witness) that partition `partition` of a job seeded `seed` proves.
struct CircuitType {
  std::string name;
  std::shared_ptr<const engine::CircuitKeys> keys;
  std::function<std::unique_ptr<circuit::Circuit>(std::uint64_t seed, std::size_t partition)> instance;
};

// How POST /v1/circuits turns a request body into a circuit type. `name` is cheap (no
// recording), so a type already registered is not set up again. Both throw
// std::invalid_argument for a body they cannot serve (answered 400).
struct CircuitFactory {
  std::function<std::string(const nlohmann::json& body)> name;
  std::function<CircuitType(const nlohmann::json& body)> make;
};

// A request the API refuses (400), with the reason it gives.
class BadRequest : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// An unknown job (404).
class NotFound : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Service {
 public:
  // Serves `engine`, which must outlive the service. Without a factory, POST /v1/circuits
  // answers 400 and only add_circuit() registers types.
  explicit Service(engine::Engine& engine, CircuitFactory factory = {});
  ~Service();  // stop()
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  // Registers a type with the engine; false (and nothing changes) when the name is taken.
  bool add_circuit(CircuitType type);
  // The type named `name`, or null.
  std::shared_ptr<const CircuitType> circuit(const std::string& name) const;

  // Binds host:port (0: a free port) and serves on threads of its own; returns the port.
  // Throws std::runtime_error when it cannot bind.
  int start(const std::string& host, int port);
  // Stops accepting and waits for the server's threads; the engine keeps its jobs. Idempotent.
  void stop();

  nlohmann::json status() const;     // GET /v1/status
  std::string metrics_text() const;  // GET /metrics (metrics.cpp)

  // The routes without the transport: each returns its JSON body and throws BadRequest
  // (400) or NotFound (404).
  nlohmann::json register_circuit(const std::string& body);
  nlohmann::json submit(const std::string& body);
  nlohmann::json job(const std::string& id) const;
  nlohmann::json cancel(const std::string& id);
  // GET /v1/circuits/NAME: its shape and verifying key (bellperson .vk bytes in hex, snarkjs
  // vk.json), so a client can check the proofs it gets.
  nlohmann::json circuit_info(const std::string& name) const;

 private:
  // Partition k's public inputs, written by the witness source when it synthesizes k (on the
  // engine's synthesis workers), read once the job is done.
  struct Publics {
    std::mutex mu;
    std::vector<std::vector<ff::Fr>> values;
  };
  struct JobRecord {
    std::string circuit;
    std::size_t partitions = 0;
    std::shared_ptr<Publics> publics;
  };
  // The service's jobs by state, and the partitions of those not started yet. The engine
  // keeps its queues to itself (EngineStats has no queue sizes), so they are counted here
  // from its per-job states.
  struct JobCounts {
    std::map<engine::JobState, std::size_t> jobs;
    std::size_t partitions_queued = 0;
  };
  JobCounts count_jobs() const;
  engine::JobId find_job(const std::string& id) const;  // throws NotFound

  engine::Engine& engine_;
  const CircuitFactory factory_;
  std::mutex register_mu_;  // one registration (and its setup) at a time
  mutable std::mutex mu_;   // circuits_, jobs_
  std::map<std::string, std::shared_ptr<const CircuitType>> circuits_;
  std::map<engine::JobId, JobRecord> jobs_;
  std::map<std::string, std::string> idempotent_requests_;  // key → the request it was first used with
  std::unique_ptr<httplib::Server> http_;
  std::thread listener_;
};

}  // namespace snarkpipe::service
