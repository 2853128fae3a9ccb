// The queue several snarkpipe hosts share in PostgreSQL (issue 26).
//
// Jobs and their partitions are rows. A host claims one partition at a time (`SELECT … FOR
// UPDATE SKIP LOCKED`, highest priority first, then oldest), under a lease it renews by
// heartbeat. Every lease is timed by the database's clock (now()), never by a host's, so a
// host whose clock is wrong can neither steal a live lease nor keep a dead one. A lease that
// runs out puts its partition back in the queue: the next claim takes it, counting an attempt.
// Each claim draws a fresh token; only the holder of the current token can complete, so no
// partition gets two proofs, and the completion of the last partition assembles the job, once.
//
// One statement per operation (one round trip): claim, heartbeat, complete, submit. A host
// uses one ClusterQueue from any number of threads (a mutex serializes its connection);
// idle workers wait on a WorkListener, woken when a job is submitted anywhere in the cluster.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "cluster/pg_connection.hpp"

namespace snarkpipe::cluster {

// The channel submits notify and listeners wait on.
inline constexpr const char* kWorkChannel = "snarkpipe_work";

struct QueueOptions {
  std::string conninfo;                    // "postgresql://user@host:port/db" or key=value
  std::string host;                        // this host's name, unique in the cluster
  std::chrono::milliseconds lease{30000};  // how long a claim lives without a heartbeat
  std::uint64_t memory_budget_bytes = 0;   // reported in status; claims say what is free now
  std::string version{};                   // this host's snarkpipe version, for status
  // Witnesses up to this size live in the job's row; larger ones in `witness_dir`.
  std::size_t witness_inline_limit = 16u << 20;
  std::filesystem::path witness_dir{};  // shared by every host; empty: larger witnesses are refused
  // This host's wall clock. Leases never read it; it is reported (as the offset from the
  // database's clock) so an operator sees a skewed host.
  std::function<std::chrono::system_clock::time_point()> local_clock = [] { return std::chrono::system_clock::now(); };
  std::chrono::milliseconds reconnect_deadline{30000};
};

// What a client asks for. `request` is its canonical form: a reused idempotency key must come
// with the same request, else the submission is refused.
struct JobSubmission {
  std::string circuit;
  std::uint32_t partitions = 1;
  int priority = 0;             // larger runs first
  std::string idempotency_key;  // empty: none
  std::string request;
  std::uint64_t partition_memory_bytes = 0;  // a host claims only partitions its free memory admits
  std::vector<std::uint8_t> witness;         // the packed witness of every partition; may be empty
};

struct SubmitResult {
  std::int64_t job_id = 0;
  bool created = false;  // false: the key was already used, this is the job it names
};

// An idempotency key reused with a different request.
class IdempotencyConflict : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ClaimedPartition {
  std::int64_t job_id = 0;
  int index = 0;
  int partitions = 0;      // the job's count
  std::int64_t token = 0;  // this claim's; completing needs it
  int attempts = 0;        // claims of this partition so far, this one included
  std::string circuit;
  std::string request;
  int priority = 0;
  std::chrono::milliseconds lease_remaining{0};  // as the database counts it
  std::vector<std::uint8_t> witness_inline;      // the job's witness when in the row
  std::string witness_path;                      // else where it lies
  std::uint64_t seed = 1;                        // the daemon's job fields (postgres_job_store.hpp)
  std::string witness_format;                    // empty: a seeded witness
  std::string witness_offsets = "[]";            // where each partition starts in the witness
};

struct PartitionRef {
  std::int64_t job_id = 0;
  int index = 0;
  auto operator<=>(const PartitionRef&) const = default;
};

enum class CompleteOutcome {
  accepted,    // stored; partitions of the job are still open
  assembled,   // stored, and it was the last: the job is done, its proof assembled (once)
  not_holder,  // the lease was taken over (or released): this proof is not stored
  job_closed,  // the job was cancelled or failed meanwhile
  no_such_job,
};

const char* to_string(CompleteOutcome outcome);

struct JobRecord {
  std::int64_t id = 0;
  std::string circuit;
  int partitions = 0;
  int priority = 0;
  std::string state;  // queued, done, failed, cancelled
  std::string error;
  std::string request;
  std::vector<std::uint8_t> proof;  // the partitions' proofs in order, when done
  int partitions_done = 0;
};

struct HostStatus {
  std::string name;
  std::int64_t heartbeat_age_ms = 0;  // by the database's clock
  std::int64_t leases_held = 0;       // live leases
  std::uint64_t memory_budget_bytes = 0;
  std::string version;
  std::optional<std::int64_t> clock_offset_ms;
};

struct LeaseStatus {
  std::int64_t job_id = 0;
  int index = 0;
  std::string host;
  std::int64_t remaining_ms = 0;  // negative: expired, waiting for the next claim
  int attempts = 0;
};

struct QueueDepth {
  int priority = 0;
  std::int64_t queued = 0;   // waiting for a first claim
  std::int64_t claimed = 0;  // under a live lease
  std::int64_t expired = 0;  // lease ran out, back in the queue
};

struct ClusterStatus {
  std::vector<HostStatus> hosts;
  std::vector<LeaseStatus> leases;
  std::vector<QueueDepth> depth;  // highest priority first
};

class ClusterQueue {
 public:
  // Connects, applies the schema's migrations, registers this host (returning to the queue
  // any claims an earlier run of the same host left behind).
  explicit ClusterQueue(QueueOptions options);

  const QueueOptions& options() const { return options_; }

  // Adds a job and its partitions and wakes idle hosts. Throws IdempotencyConflict, or
  // std::invalid_argument for a witness over the inline limit with no shared folder.
  SubmitResult submit(const JobSubmission& job);

  // One partition whose job needs at most `memory_available_bytes`, and whose circuit is not
  // in `skip_circuits` (circuits this host cannot prove), under a new lease; nullopt when none
  // is waiting.
  std::optional<ClaimedPartition> claim(std::uint64_t memory_available_bytes,
                                        const std::set<std::string>& skip_circuits = {});

  // Renews the leases this host holds and records its heartbeat; returns the partitions still
  // held. One missing from the answer was lost (expired and taken, or its job closed): stop it.
  std::vector<PartitionRef> heartbeat();

  // Stores a partition's proof with its verification and its public inputs (JSON, may be
  // empty). A proof that did not verify fails the job (no unverified proof is ever assembled).
  CompleteOutcome complete(const ClaimedPartition& claimed, std::span<const std::uint8_t> proof, bool verified,
                           const std::string& public_inputs = "");

  // Gives a claim back to the queue (a host draining); false when it was no longer held.
  bool release(const ClaimedPartition& claimed);
  // Fails the partition and its job, with `error`; false when it was no longer held.
  bool fail(const ClaimedPartition& claimed, const std::string& error);

  // Cancels a queued job; false when it was finished already (or unknown).
  bool cancel(std::int64_t job_id);
  std::optional<JobRecord> job(std::int64_t job_id);
  ClusterStatus status();

  std::uint64_t round_trips();  // of this host's connection, for the benchmark

 private:
  void register_host();
  std::int64_t local_clock_ms() const;

  QueueOptions options_;
  std::mutex mu_;
  PgConnection db_;
  std::set<std::int64_t> held_tokens_;  // claims of this process, renewed by heartbeat
};

// Reads a ClusterStatus without joining the cluster (no host row, no migrations): for
// `snarkpipe cluster status`.
ClusterStatus read_cluster_status(PgConnection& db);

// Waits for submissions on its own connection, so a waiting worker blocks nobody's statements.
class WorkListener {
 public:
  explicit WorkListener(const std::string& conninfo);
  // True when a job was submitted (anywhere) before `timeout`. Several submissions in a row
  // wake it once.
  bool wait(std::chrono::milliseconds timeout);

 private:
  PgConnection db_;
};

}  // namespace snarkpipe::cluster
