// The daemon's durable record (issues 25, 26): its jobs, their proofs and its circuits. The
// service talks to the JobStore interface; SqliteJobStore keeps one host's record, and
// PostgresJobStore (postgres_job_store.hpp) a cluster's, shared by every host.
//
// Every store keeps these promises: a job is written before its id is answered; it is
// finished exactly once (a row leaves 'queued' once, and only a queued row can finish), so no
// job is ever returned with two different proofs; a job reads as done only once its proofs
// are stored.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

struct sqlite3;

namespace snarkpipe::service {

struct StoredJob {
  std::uint64_t id = 0;
  std::string circuit;
  std::uint64_t partitions = 1;
  std::string priority = "normal";
  std::uint64_t seed = 1;
  std::string idempotency_key;   // empty: none
  std::string request;           // the canonical request, which a reused key must match
  std::string witness_format;    // empty: a seeded witness; "wtns", "assignment", "packed"
  std::string witness_file;      // the spool's name for the upload
  std::string witness_offsets;   // JSON array: where each partition starts in the upload
  std::string token;             // the name of the token that submitted it (empty: anonymous)
  std::string state = "queued";  // queued, done, failed, cancelled
  std::string error;
  std::string public_inputs;                     // JSON, when done
  std::int64_t created_at = 0, finished_at = 0;  // Unix seconds
  std::uint64_t partition_memory_bytes = 0;      // host memory one partition takes (a cluster's claims)
};

// A queued job's partitions as a cluster's hosts work on them.
struct PartitionProgress {
  std::size_t claimed = 0, done = 0;
};

struct StoredCircuit {
  std::string name;
  std::string spec;  // the registration's JSON body
  std::int64_t created_at = 0;
};

class JobStore {
 public:
  virtual ~JobStore() = default;

  // Inserts `job` (its id is assigned). With an idempotency key already used, nothing is
  // inserted and the existing job is returned with `false`.
  virtual std::pair<StoredJob, bool> insert(StoredJob job) = 0;
  virtual std::optional<StoredJob> get(std::uint64_t id) const = 0;
  // Newest first; `token` non-empty: only that token's jobs.
  virtual std::vector<StoredJob> list(const std::string& token, std::size_t limit) const = 0;
  // Jobs this host is to run, oldest first.
  virtual std::vector<StoredJob> queued() const = 0;
  // queued -> state (done, failed, cancelled); false (and nothing changes) when the job was
  // not queued any more. A done job's `proofs` (192 bytes per partition) are stored first.
  virtual bool finish(std::uint64_t id, const std::string& state, const std::string& error,
                      const std::string& public_inputs, std::span<const std::uint8_t> proofs, std::int64_t now) = 0;
  // A done job's proofs; nullopt when they are missing.
  virtual std::optional<std::vector<std::uint8_t>> proofs(const StoredJob& job) const = 0;
  // Deletes finished jobs (and their proofs) that finished before `cutoff`, returning them
  // (for their witness files).
  virtual std::vector<StoredJob> expire(std::int64_t cutoff) = 0;
  virtual std::size_t count_queued() const = 0;
  // Unfinished jobs of one token: its jobs in flight, whichever host admitted them.
  virtual std::size_t count_queued_of(const std::string& token) const = 0;
  virtual std::map<std::string, std::size_t> count_by_state() const = 0;

  virtual void add_circuit(const StoredCircuit& c) = 0;  // replaces one of the same name
  virtual std::vector<StoredCircuit> circuits() const = 0;
  // Adds `c` unless its name is taken; then returns the registration that took it (another
  // host's, in a cluster). One host serializes its registrations, so the default is enough there.
  virtual std::optional<StoredCircuit> add_circuit_once(const StoredCircuit& c) {
    for (StoredCircuit& existing : circuits())
      if (existing.name == c.name) return std::move(existing);
    add_circuit(c);
    return std::nullopt;
  }
  // How far the hosts of a cluster are with a queued job; nullopt where one host proves it whole.
  virtual std::optional<PartitionProgress> partition_progress(std::uint64_t) const { return std::nullopt; }
};

// One host's record in SQLite (WAL, synchronous FULL, so a commit survives SIGKILL and power
// loss), the proofs in `proofs_dir` as ID.proof, each durable before its row reads done. One
// connection behind a mutex: every statement is short.
class SqliteJobStore final : public JobStore {
 public:
  // Opens (creating) the database; throws std::runtime_error naming the file.
  SqliteJobStore(const std::filesystem::path& file, std::filesystem::path proofs_dir);
  ~SqliteJobStore() override;
  SqliteJobStore(const SqliteJobStore&) = delete;
  SqliteJobStore& operator=(const SqliteJobStore&) = delete;

  std::pair<StoredJob, bool> insert(StoredJob job) override;
  std::optional<StoredJob> get(std::uint64_t id) const override;
  std::vector<StoredJob> list(const std::string& token, std::size_t limit) const override;
  std::vector<StoredJob> queued() const override;
  bool finish(std::uint64_t id, const std::string& state, const std::string& error, const std::string& public_inputs,
              std::span<const std::uint8_t> proofs, std::int64_t now) override;
  std::optional<std::vector<std::uint8_t>> proofs(const StoredJob& job) const override;
  std::vector<StoredJob> expire(std::int64_t cutoff) override;
  std::size_t count_queued() const override;
  std::size_t count_queued_of(const std::string& token) const override;
  std::map<std::string, std::size_t> count_by_state() const override;
  void add_circuit(const StoredCircuit& c) override;
  std::vector<StoredCircuit> circuits() const override;

 private:
  std::filesystem::path proof_file(std::uint64_t id) const { return proofs_dir_ / (std::to_string(id) + ".proof"); }
  void exec(const char* sql) const;
  sqlite3* db_ = nullptr;
  std::filesystem::path file_, proofs_dir_;
  mutable std::mutex mu_;
};

}  // namespace snarkpipe::service
