// The daemon (DESIGN.md §2, issue 25): an HTTP JSON API over one engine::Engine, its jobs
// durable in SQLite and an on-disk spool, its status as JSON and as Prometheus metrics.
// docs/openapi.json is the API's full description; in short:
//
//   POST   /v1/circuits        register a circuit: a built-in type through the CircuitFactory
//                              ({"type": "synthetic", ...}), or files by path ({"name": N,
//                              "params": "x.params", "r1cs": "x.snkr1cs" | "x.r1cs"}, or
//                              {"name": N, "zkey": "x.zkey", "r1cs": "x.r1cs"}); admin
//   PUT    /v1/circuits/NAME/files/KIND   a circuit file uploaded (KIND params, r1cs or zkey) into
//                              the spool, streamed, for POST /v1/circuits {"name": NAME,
//                              "uploaded": ["params", "r1cs"] | ["zkey", "r1cs"]}; admin
//   GET    /v1/circuits        {"circuits": [names]}
//   GET    /v1/circuits/NAME   its shape and verifying key (bellperson hex, snarkjs JSON)
//   POST   /v1/jobs            JSON {"circuit", "partitions", "priority", "seed",
//                              "idempotency_key"}: a seeded witness of a built-in circuit; or
//                              an uploaded witness as the body (application/octet-stream) with
//                              those fields as query parameters and "format" (wtns,
//                              assignment, packed: witness_upload.hpp) → {"id": ...}
//   GET    /v1/jobs            the caller's jobs, newest first
//   GET    /v1/jobs/ID         state, error; when done the proofs and public inputs
//   GET    /v1/jobs/ID/wait    the same, once the job is finished (long poll, ?timeout_s=)
//   GET    /v1/jobs/ID/events  server-sent events: "progress" (state, partitions synthesized
//                              and proved) as it changes, then "done" with the whole job
//   DELETE /v1/jobs/ID         cancels a queued or running job
//   GET    /v1/status, /metrics
//
// Durability: a job is in the database (and its witness in the spool) before its id is
// answered; its proofs are on disk before it reads as done. After a restart, even after
// SIGKILL, queued and running jobs run again and finished ones keep their proofs (a job
// finishes once, so never returns two different proofs). Finished jobs expire after
// `retention`. drain() (SIGTERM) stops taking work, lets running jobs finish within a
// deadline, and leaves the rest queued for the next start.
//
// Access: with tokens configured, every route but /v1/status and /metrics wants
// "Authorization: Bearer T" (401 without a valid one); each token sees its own jobs, has
// its own limits (429 past its jobs in flight, 413 past its upload size), and only admin
// tokens register circuits (403). Errors are {"error": "..."} with the status that fits.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "circuit/constraint_system.hpp"
#include "engine/engine.hpp"
#include "service/access.hpp"
#include "service/job_store.hpp"
#include "service/spool.hpp"
#include "service/zkey_lane.hpp"

namespace httplib {
class Server;
}

namespace snarkpipe::service {

class FrontDoor;

// A built-in circuit type as the factory makes it: its keys, and the circuit (with its witness)
// that partition `partition` of a job seeded `seed` proves.
struct CircuitType {
  using Instance = std::function<std::unique_ptr<circuit::Circuit>(std::uint64_t seed, std::size_t partition)>;
  std::string name;
  std::shared_ptr<const engine::CircuitKeys> keys;
  Instance instance;
};

// A circuit the daemon serves. Its keys are not held here: the engine's CircuitStore loads them
// (from the spool or the registered files) when a job needs them and evicts them under its
// memory budget. A snarkjs key is held by its prover (the ZkeyLane proves it). Without
// `instance` the circuit takes uploaded witnesses only.
struct ServedCircuit {
  std::string name;
  groth16::VerifyingKey vk;
  std::uint64_t constraints = 0, inputs = 0, aux = 0;  // inputs: ONE included
  std::shared_ptr<const circom::ZkeyProver> zkey;      // null: bellperson keys, proved by the engine
  CircuitType::Instance instance;
};

// How POST /v1/circuits turns a built-in type's body into a circuit type. `name` is cheap (no
// recording), so a type already registered is not set up again; `make` records and sets up;
// `instance` gives the seeded witnesses again at a restart (the keys come from the spool).
// All throw std::invalid_argument for a body they cannot serve (answered 400).
struct CircuitFactory {
  std::function<std::string(const nlohmann::json& body)> name;
  std::function<CircuitType(const nlohmann::json& body)> make;
  std::function<CircuitType::Instance(const nlohmann::json& body)> instance;
};

struct ServiceOptions {
  std::filesystem::path state_dir;                                  // the database and the spool (spool.hpp); required
  std::chrono::seconds retention{7 * 24 * 3600};                    // finished jobs are deleted this long after
  std::chrono::seconds shutdown_deadline{60};                       // drain(): running jobs get this long
  std::uint64_t max_upload_bytes = std::uint64_t(64) << 30;         // one witness upload
  std::uint64_t max_json_bytes = 1 << 20;                           // one JSON body
  std::uint64_t max_partitions = 1024;                              // one job's (a 32 GiB sector has 10)
  std::uint64_t max_circuit_file_bytes = std::uint64_t(128) << 30;  // one uploaded circuit file
  unsigned http_threads = 0;                                        // 0: max(256, 8 × cores); long polls hold one each
  std::chrono::seconds read_timeout{2};
  std::chrono::seconds header_timeout{10};  // a request's headers, from their first byte to their end
  std::chrono::seconds max_wait{300};       // the longest long poll
  std::vector<AccessToken> tokens;          // empty: no authentication
  // Where POST /v1/circuits may read files by path; empty: anywhere the daemon can read.
  std::vector<std::filesystem::path> circuit_roots;
  std::string tls_cert, tls_key;  // both set: HTTPS (PEM files)
  ZkeyProve zkey_prove;           // how .zkey circuits are proved; empty: on the CPU (zkey_lane.hpp)
  // The job store, given the spool; empty: SQLite in the state directory (one host). A
  // cluster's hosts open PostgreSQL here (cluster/postgres_job_store.hpp).
  std::function<std::unique_ptr<JobStore>(const Spool&)> open_store;
  // A cluster's hosts prove jobs by claiming their partitions (cluster/cluster_worker.hpp):
  // with this set, the service admits and records jobs but does not prove them itself, and
  // reads their progress and results from the store.
  bool proved_by_claims = false;
  // A folder every host of a cluster reads: built-in circuits' keys are written there, so that
  // every host proves under the verifying key of the first registration. Empty: the spool.
  std::filesystem::path shared_keys_dir;
};

// A refusal: the HTTP status and the reason the client reads.
class ApiError : public std::runtime_error {
 public:
  ApiError(int status, const std::string& what) : std::runtime_error(what), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

// Who is calling: a configured token, or anyone when none is configured.
struct Caller {
  const AccessToken* token = nullptr;  // null: anonymous (no tokens configured)
  bool admin() const { return !token || token->admin; }
  std::string name() const { return token ? token->name : std::string(); }
};

class Service {
 public:
  // Serves `engine`, which must outlive the service. Opens (or creates) the state directory.
  // Without a factory, only circuits from files register.
  Service(engine::Engine& engine, CircuitFactory factory, ServiceOptions options);
  ~Service();  // stop()
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  // Binds host:port (0: a free port) and serves on threads of its own, then restores the
  // registered circuits, runs again the jobs a previous run left queued, and runs `then`
  // (the command line's --circuit registration, say); status "ready" is false until all
  // that is done, and POST /v1/jobs answers 503. Returns the port; throws
  // std::runtime_error when it cannot bind.
  int start(const std::string& host, int port, std::function<void()> then = {});
  bool ready() const { return ready_; }
  // Waits until start()'s recovery is done; throws what it failed with.
  void wait_ready();
  // Stops taking work (503), lets running jobs finish until the deadline, then cancels what
  // is left, which stays queued in the database for the next start. Returns how many jobs
  // finished and how many were left queued.
  std::pair<std::size_t, std::size_t> drain(std::chrono::milliseconds deadline);
  // Stops serving and the service's threads; the engine keeps its jobs. Idempotent.
  void stop();

  // The API's routes, as "METHOD /path" in OpenAPI's path-template form.
  static std::vector<std::string> routes();

  nlohmann::json status() const;     // GET /v1/status
  std::string metrics_text() const;  // GET /metrics (metrics.cpp)

  // The routes without the transport; each throws ApiError.
  nlohmann::json register_circuit(const std::string& body, const Caller& caller = {});
  // PUT /v1/circuits/NAME/files/KIND: the file streamed into the spool (`read`, `declared` as
  // for submit_upload), checked as far as a file alone can be (its kind's layout); the checks
  // against each other come with the registration.
  nlohmann::json upload_circuit_file(
      const std::string& name, const std::string& kind, std::optional<std::uint64_t> declared,
      const std::function<bool(const std::function<bool(const char*, std::size_t)>&)>& read, const Caller& caller = {});
  nlohmann::json submit(const std::string& body, const Caller& caller = {});
  nlohmann::json job(const std::string& id, const Caller& caller = {}) const;
  nlohmann::json wait(const std::string& id, std::chrono::milliseconds timeout, const Caller& caller = {});
  nlohmann::json jobs(const Caller& caller = {}) const;
  nlohmann::json cancel(const std::string& id, const Caller& caller = {});
  nlohmann::json circuit_info(const std::string& name) const;
  std::shared_ptr<const ServedCircuit> circuit(const std::string& name) const;
  // The circuit of a claimed partition: served already, or restored from the store (another
  // host registered it since this one started). Throws std::runtime_error saying why this
  // host cannot prove it (files it cannot read, a verifying key other than the registered one).
  std::shared_ptr<const ServedCircuit> circuit_for_claim(const std::string& name);
  const Spool& spool() const { return spool_; }

  // The witness upload (POST /v1/jobs with a binary body): `query` the job's fields, `read`
  // the body's bytes as they come (false when the connection broke), `declared` the
  // Content-Length when there was one.
  using BodyReader = std::function<bool(const std::function<bool(const char*, std::size_t)>&)>;
  nlohmann::json submit_upload(const std::multimap<std::string, std::string>& query,
                               std::optional<std::uint64_t> declared, const BodyReader& read,
                               const Caller& caller = {});

 private:
  // Partition k's public inputs, written by the witness source as it fills k, read when the
  // job is done; and how many partitions have been filled (progress).
  struct Progress {
    std::mutex mu;
    std::vector<std::vector<ff::Fr>> publics;
    std::atomic<std::size_t> synthesized{0};
  };
  struct LiveJob {
    engine::JobId engine_id = 0;
    std::string token;
    std::string witness_file;
    std::shared_ptr<Progress> progress;
    bool cancel_requested = false;
    bool on_zkey_lane = false;  // engine_id is the lane's id
  };
  std::optional<engine::JobResult> result_of(const LiveJob& j) const;
  engine::JobState state_of(const LiveJob& j) const;
  std::size_t proved_of(const LiveJob& j) const;
  bool cancel_live(const LiveJob& j);
  void forget_live(const LiveJob& j);

  Caller authenticate(const std::string& authorization) const;
  // Serves `c`, its keys loaded by `loader` (none for a zkey); `spec` is what a restart
  // needs to serve it again.
  void serve_circuit(ServedCircuit c, engine::CircuitLoader loader, const nlohmann::json& spec, bool persist);
  // A circuit from files, checked (counts against counts, without loading the keys), and
  // the loader of its keys.
  std::pair<ServedCircuit, engine::CircuitLoader> load_files(const nlohmann::json& spec) const;
  // The same for files uploaded under the circuit's name ({"name", "uploaded": [...]}).
  std::pair<ServedCircuit, engine::CircuitLoader> load_uploaded(const nlohmann::json& spec) const;
  std::pair<ServedCircuit, engine::CircuitLoader> load_checked_files(std::string name, bool zkey,
                                                                     const std::filesystem::path& key,
                                                                     const std::filesystem::path& r1cs) const;
  // Where PUT /v1/circuits/NAME/files/KIND keeps the file.
  std::filesystem::path uploaded_file(const std::string& name, const std::string& kind) const;
  std::filesystem::path allowed_path(const nlohmann::json& spec, const char* key) const;
  nlohmann::json admit(StoredJob row, const Caller& caller);
  void run(const StoredJob& row);  // hands a stored job to the engine (under nothing)
  StoredJob owned_job(const std::string& id, const Caller& caller) const;  // 404 for another's
  nlohmann::json describe(const StoredJob& row) const;
  void recover(const std::function<void()>& then);
  // Serves a stored registration again (at a restart, or one another host made), checking its
  // verifying key against the digest registered with it.
  void restore_circuit(const StoredCircuit& c);
  // The bellperson bytes of a verifying key, as a .vk file holds them.
  std::vector<std::uint8_t> vk_bytes(const groth16::VerifyingKey& vk) const;
  void completion_loop();
  void janitor_loop();
  void settle(std::uint64_t id, LiveJob live, const engine::JobResult& result);
  std::size_t in_flight(const std::string& token) const;

  engine::Engine& engine_;
  const CircuitFactory factory_;
  const ServiceOptions options_;
  Spool spool_;
  std::unique_ptr<JobStore> store_;

  std::mutex register_mu_;           // one registration (and its setup) at a time
  mutable std::mutex mu_;            // circuits_, live_
  std::condition_variable changed_;  // a live job finished, or the service is stopping
  std::map<std::string, std::shared_ptr<const ServedCircuit>> circuits_;
  std::map<std::uint64_t, LiveJob> live_;  // jobs handed to the engine, not settled yet
  std::atomic<bool> ready_{false}, draining_{false}, stopping_{false};
  std::atomic<std::size_t> settled_{0};  // jobs finished since start
  std::exception_ptr recovery_error_;

  ZkeyLane zkey_lane_;
  std::unique_ptr<httplib::Server> http_;  // the routes
  std::unique_ptr<FrontDoor> door_;        // the gate in front of them (http_gate.hpp)
  std::thread recovery_, completion_, janitor_;
};

}  // namespace snarkpipe::service
