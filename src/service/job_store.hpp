// The daemon's durable record (issue 25): its jobs and its circuits in SQLite (WAL, synchronous
// FULL, so a commit survives SIGKILL and power loss). A job is written before its id is
// answered; it is finished exactly once (a row leaves 'queued' once, and only a queued row
// can finish), so no job is ever returned with two different proofs. Files it names live in
// the spool (spool.hpp). One connection behind a mutex: every statement is short.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
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
  std::string idempotency_key;  // empty: none
  std::string request;          // the canonical request, which a reused key must match
  std::string witness_format;   // empty: a seeded witness; "wtns", "assignment", "packed"
  std::string witness_file;     // the spool's name for the upload
  std::string witness_offsets;  // JSON array: where each partition starts in the upload
  std::string token;            // the name of the token that submitted it (empty: anonymous)
  std::string state = "queued";  // queued, done, failed, cancelled
  std::string error;
  std::string public_inputs;  // JSON, when done
  std::int64_t created_at = 0, finished_at = 0;  // Unix seconds
};

struct StoredCircuit {
  std::string name;
  std::string spec;  // the registration's JSON body
  std::int64_t created_at = 0;
};

class JobStore {
 public:
  // Opens (creating) the database; throws std::runtime_error naming the file.
  explicit JobStore(const std::filesystem::path& file);
  ~JobStore();
  JobStore(const JobStore&) = delete;
  JobStore& operator=(const JobStore&) = delete;

  // Inserts `job` (its id is assigned). With an idempotency key already used, nothing is
  // inserted and the existing job is returned with `false`.
  std::pair<StoredJob, bool> insert(StoredJob job);
  std::optional<StoredJob> get(std::uint64_t id) const;
  // Newest first; `token` non-empty: only that token's jobs.
  std::vector<StoredJob> list(const std::string& token, std::size_t limit) const;
  // Jobs still to run, oldest first.
  std::vector<StoredJob> queued() const;
  // queued -> state (done, failed, cancelled); false (and nothing changes) when the job was
  // not queued any more.
  bool finish(std::uint64_t id, const std::string& state, const std::string& error, const std::string& public_inputs,
              std::int64_t now);
  // Deletes finished jobs that finished before `cutoff`, returning them (for their files).
  std::vector<StoredJob> expire(std::int64_t cutoff);
  std::size_t count_queued() const;
  std::map<std::string, std::size_t> count_by_state() const;

  void add_circuit(const StoredCircuit& c);  // replaces one of the same name
  std::vector<StoredCircuit> circuits() const;

 private:
  void exec(const char* sql) const;
  sqlite3* db_ = nullptr;
  std::filesystem::path file_;
  mutable std::mutex mu_;
};

}  // namespace snarkpipe::service
