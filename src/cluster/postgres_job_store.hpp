// The daemon's record in PostgreSQL (issue 26): `snarkpipe serve --db postgresql://...` keeps
// its jobs in the cluster's tables (schema.cpp), so every host submits to one queue, finds
// any host's job, and serves its proofs once it is done, whichever host proved it.
//
// A job is inserted with its partitions and a notification in one statement, so a host that
// claims it (cluster_worker.hpp) never sees a job without partitions. An uploaded witness
// travels with the job: in its row up to `witness_inline_limit`, else copied into the shared
// `witness_dir`. Idempotency keys are unique across the cluster.
#pragma once

#include <filesystem>
#include <mutex>

#include "cluster/pg_connection.hpp"
#include "service/job_store.hpp"

namespace snarkpipe::cluster {

struct PostgresStoreOptions {
  std::string conninfo;
  std::string host;                       // this host's name (jobs record who accepted them)
  std::filesystem::path spool_witnesses;  // where the service keeps an accepted upload
  std::size_t witness_inline_limit = 16u << 20;
  std::filesystem::path witness_dir;  // shared by every host; empty: larger witnesses are refused
  std::chrono::milliseconds reconnect_deadline{30000};
};

class PostgresJobStore final : public service::JobStore {
 public:
  // Connects and applies the schema's migrations; throws DatabaseError.
  explicit PostgresJobStore(PostgresStoreOptions options);

  std::pair<service::StoredJob, bool> insert(service::StoredJob job) override;
  std::optional<service::StoredJob> get(std::uint64_t id) const override;
  std::vector<service::StoredJob> list(const std::string& token, std::size_t limit) const override;
  // This host's queued jobs, which it proves itself when the daemon runs no cluster worker.
  std::vector<service::StoredJob> queued() const override;
  bool finish(std::uint64_t id, const std::string& state, const std::string& error, const std::string& public_inputs,
              std::span<const std::uint8_t> proofs, std::int64_t now) override;
  std::optional<std::vector<std::uint8_t>> proofs(const service::StoredJob& job) const override;
  std::vector<service::StoredJob> expire(std::int64_t cutoff) override;
  std::size_t count_queued() const override;
  std::size_t count_queued_of(const std::string& token) const override;
  std::map<std::string, std::size_t> count_by_state() const override;
  void add_circuit(const service::StoredCircuit& c) override;
  std::vector<service::StoredCircuit> circuits() const override;
  std::optional<service::StoredCircuit> add_circuit_once(const service::StoredCircuit& c) override;
  std::optional<service::PartitionProgress> partition_progress(std::uint64_t id) const override;

 private:
  PostgresStoreOptions options_;
  mutable std::mutex mu_;
  mutable PgConnection db_;
};

// The engine's priority names as the queue's numbers (larger runs first), and back.
int priority_rank(const std::string& name);
std::string priority_name_of_rank(int rank);

}  // namespace snarkpipe::cluster
