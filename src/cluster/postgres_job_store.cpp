#include "cluster/postgres_job_store.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <iterator>

#include "cluster/schema.hpp"
#include "engine/job.hpp"
#include "service/spool.hpp"

namespace snarkpipe::cluster {

namespace {

namespace fs = std::filesystem;
using service::StoredCircuit;
using service::StoredJob;

// A done job's public inputs: those its accepting host recorded when it proved the job whole,
// else the partitions' in order (each written by the host that proved it).
constexpr const char* kJobColumns =
    R"sql(j.id, j.circuit, j.partitions, j.priority, j.seed, coalesce(j.idempotency_key, ''),
  j.request, j.witness_format, j.witness_file, j.witness_offsets, j.token, j.state, coalesce(j.error, ''),
  CASE WHEN j.state = 'done' THEN coalesce(j.public_inputs,
    (SELECT '[' || string_agg(p.public_inputs, ',' ORDER BY p.index) || ']' FROM partitions p WHERE p.job_id = j.id))
  ELSE '' END,
  extract(epoch FROM j.created)::bigint, coalesce(extract(epoch FROM j.finished)::bigint, 0))sql";

std::string select_jobs(const std::string& rest) {
  return std::string("SELECT ") + kJobColumns + " FROM jobs j " + rest;
}

StoredJob read_job(const PgResult& r, int i) {
  StoredJob j;
  j.id = static_cast<std::uint64_t>(r.integer(i, 0));
  j.circuit = r.text(i, 1);
  j.partitions = static_cast<std::uint64_t>(r.integer(i, 2));
  j.priority = priority_name_of_rank(static_cast<int>(r.integer(i, 3)));
  j.seed = static_cast<std::uint64_t>(r.integer(i, 4));
  j.idempotency_key = r.text(i, 5);
  j.request = r.text(i, 6);
  j.witness_format = r.text(i, 7);
  j.witness_file = r.text(i, 8);
  j.witness_offsets = r.text(i, 9);
  j.token = r.text(i, 10);
  j.state = r.text(i, 11);
  j.error = r.text(i, 12);
  j.public_inputs = r.is_null(i, 13) ? std::string() : r.text(i, 13);
  j.created_at = r.integer(i, 14);
  j.finished_at = r.integer(i, 15);
  return j;
}

std::vector<StoredJob> read_jobs(const PgResult& r) {
  std::vector<StoredJob> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back(read_job(r, i));
  return out;
}

std::vector<std::uint8_t> read_whole(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cluster: cannot read the accepted witness " + file.string());
  return std::vector<std::uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A copy every host can read, synced before the job that names it is committed.
fs::path copy_to_shared(const fs::path& from, const fs::path& dir) {
  const fs::path to = dir / ("witness-" + service::random_name() + ".bin");
  fs::copy_file(from, to);
  const int fd = ::open(to.c_str(), O_RDONLY);
  const bool synced = fd >= 0 && ::fsync(fd) == 0;
  if (fd >= 0) ::close(fd);
  if (!synced) {
    fs::remove(to);
    throw std::runtime_error("cluster: cannot sync the shared witness " + to.string());
  }
  return to;
}

}  // namespace

int priority_rank(const std::string& name) {
  const auto p = engine::parse_priority(name);
  if (!p) throw std::invalid_argument("unknown priority '" + name + "'");
  return static_cast<int>(*p);
}

std::string priority_name_of_rank(int rank) {
  const int highest = static_cast<int>(engine::Priority::CRITICAL);
  return std::string(engine::priority_name(static_cast<engine::Priority>(std::clamp(rank, 0, highest))));
}

PostgresJobStore::PostgresJobStore(PostgresStoreOptions options)
    : options_(std::move(options)), db_({options_.conninfo, options_.reconnect_deadline}) {
  apply_migrations(db_);
}

std::pair<StoredJob, bool> PostgresJobStore::insert(StoredJob job) {
  std::vector<std::uint8_t> inline_witness;
  std::optional<fs::path> shared;
  if (!job.witness_file.empty()) {
    const fs::path upload = options_.spool_witnesses / job.witness_file;
    if (fs::file_size(upload) <= options_.witness_inline_limit) {
      inline_witness = read_whole(upload);
    } else {
      if (options_.witness_dir.empty())
        throw std::invalid_argument("a witness of " + std::to_string(fs::file_size(upload)) +
                                    " bytes is over the cluster's inline limit of " +
                                    std::to_string(options_.witness_inline_limit) +
                                    " bytes and no shared witness folder is configured (service.cluster_shared_dir)");
      shared = copy_to_shared(upload, options_.witness_dir);
    }
  }
  const PgParam key = job.idempotency_key.empty() ? PgParam::null() : PgParam::text(job.idempotency_key);
  static constexpr Statement kInsert{"store_insert_job", R"sql(
WITH new_job AS (
  INSERT INTO jobs (circuit, partitions, priority, idempotency_key, request, witness_inline, witness_path, submitted_by,
                    seed, witness_format, witness_file, witness_offsets, token, created, partition_memory_bytes)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, to_timestamp($14), $15)
  ON CONFLICT (idempotency_key) DO NOTHING
  RETURNING id, partitions
), new_partitions AS (
  INSERT INTO partitions (job_id, index) SELECT id, generate_series(0, partitions - 1) FROM new_job
)
SELECT id, pg_notify('snarkpipe_work', id::text) FROM new_job)sql"};
  std::lock_guard lock(mu_);
  // Twice at most: the job a key names may expire between the insert and the read.
  for (int attempt = 0; attempt < 2; ++attempt) {
    PgResult created =
        db_.execute(kInsert, {PgParam::text(job.circuit), PgParam::integer(static_cast<std::int64_t>(job.partitions)),
                              PgParam::integer(priority_rank(job.priority)), key, PgParam::text(job.request),
                              inline_witness.empty() ? PgParam::null() : PgParam::bytes(inline_witness),
                              shared ? PgParam::text(shared->string()) : PgParam::null(), PgParam::text(options_.host),
                              PgParam::integer(static_cast<std::int64_t>(job.seed)), PgParam::text(job.witness_format),
                              PgParam::text(job.witness_file), PgParam::text(job.witness_offsets),
                              PgParam::text(job.token), PgParam::integer(job.created_at),
                              PgParam::integer(static_cast<std::int64_t>(job.partition_memory_bytes))});
    if (created.rows() == 1) {
      job.id = static_cast<std::uint64_t>(created.integer(0, 0));
      return {std::move(job), true};
    }
    PgResult existing = db_.execute({"store_job_by_key", select_jobs("WHERE j.idempotency_key = $1")}, {key});
    if (existing.rows() == 0) continue;
    if (shared) fs::remove(*shared);
    return {read_job(existing, 0), false};
  }
  throw std::runtime_error("cluster: idempotency key '" + job.idempotency_key + "' neither inserts nor reads");
}

std::optional<StoredJob> PostgresJobStore::get(std::uint64_t id) const {
  std::lock_guard lock(mu_);
  PgResult r =
      db_.execute({"store_get_job", select_jobs("WHERE j.id = $1")}, {PgParam::integer(static_cast<std::int64_t>(id))});
  if (r.rows() == 0) return std::nullopt;
  return read_job(r, 0);
}

std::vector<StoredJob> PostgresJobStore::list(const std::string& token, std::size_t limit) const {
  std::lock_guard lock(mu_);
  const auto n = PgParam::integer(static_cast<std::int64_t>(limit));
  if (token.empty())
    return read_jobs(db_.execute({"store_list_jobs", select_jobs("ORDER BY j.id DESC LIMIT $1")}, {n}));
  return read_jobs(db_.execute({"store_list_token_jobs", select_jobs("WHERE j.token = $1 ORDER BY j.id DESC LIMIT $2")},
                               {PgParam::text(token), n}));
}

std::vector<StoredJob> PostgresJobStore::queued() const {
  std::lock_guard lock(mu_);
  return read_jobs(
      db_.execute({"store_queued_jobs", select_jobs("WHERE j.state = 'queued' AND j.submitted_by = $1 ORDER BY j.id")},
                  {PgParam::text(options_.host)}));
}

bool PostgresJobStore::finish(std::uint64_t id, const std::string& state, const std::string& error,
                              const std::string& public_inputs, std::span<const std::uint8_t> proofs, std::int64_t) {
  // The database's clock stamps it, as it stamps every lease.
  static constexpr Statement kFinish{"store_finish_job", R"sql(
UPDATE jobs SET state = $2, error = nullif($3, ''), public_inputs = nullif($4, ''), proof = $5, finished = now()
WHERE id = $1 AND state = 'queued')sql"};
  std::lock_guard lock(mu_);
  return db_.execute(kFinish,
                     {PgParam::integer(static_cast<std::int64_t>(id)), PgParam::text(state), PgParam::text(error),
                      PgParam::text(public_inputs), state == "done" ? PgParam::bytes(proofs) : PgParam::null()})
             .affected_rows() == 1;
}

std::optional<std::vector<std::uint8_t>> PostgresJobStore::proofs(const StoredJob& job) const {
  std::lock_guard lock(mu_);
  PgResult r = db_.execute({"store_job_proof", "SELECT proof FROM jobs WHERE id = $1 AND proof IS NOT NULL"},
                           {PgParam::integer(static_cast<std::int64_t>(job.id))});
  if (r.rows() == 0) return std::nullopt;
  return r.bytes(0, 0);
}

std::vector<StoredJob> PostgresJobStore::expire(std::int64_t cutoff) {
  std::lock_guard lock(mu_);
  PgResult r = db_.execute(
      {"store_expire_jobs", std::string("WITH gone AS (DELETE FROM jobs WHERE state <> 'queued' AND finished < "
                                        "to_timestamp($1) RETURNING *) SELECT ") +
                                "gone.witness_path FROM gone"},
      {PgParam::integer(cutoff)});
  for (int i = 0; i < r.rows(); ++i)
    if (!r.is_null(i, 0)) service::remove_quietly(r.text(i, 0));
  // Their spool files are the accepting host's; that host removed them when the job finished.
  return {};
}

std::size_t PostgresJobStore::count_queued() const {
  std::lock_guard lock(mu_);
  return static_cast<std::size_t>(
      db_.execute({"store_count_queued", "SELECT count(*) FROM jobs WHERE state = 'queued'"}).integer(0, 0));
}

std::size_t PostgresJobStore::count_queued_of(const std::string& token) const {
  std::lock_guard lock(mu_);
  return static_cast<std::size_t>(
      db_.execute({"store_count_queued_of", "SELECT count(*) FROM jobs WHERE state = 'queued' AND token = $1"},
                  {PgParam::text(token)})
          .integer(0, 0));
}

std::map<std::string, std::size_t> PostgresJobStore::count_by_state() const {
  std::lock_guard lock(mu_);
  PgResult r = db_.execute({"store_count_by_state", "SELECT state, count(*) FROM jobs GROUP BY state"});
  std::map<std::string, std::size_t> out;
  for (int i = 0; i < r.rows(); ++i) out[r.text(i, 0)] = static_cast<std::size_t>(r.integer(i, 1));
  return out;
}

void PostgresJobStore::add_circuit(const StoredCircuit& c) {
  std::lock_guard lock(mu_);
  db_.execute({"store_add_circuit", R"sql(INSERT INTO circuits (name, spec, created) VALUES ($1, $2, to_timestamp($3))
ON CONFLICT (name) DO UPDATE SET spec = EXCLUDED.spec, created = EXCLUDED.created)sql"},
              {PgParam::text(c.name), PgParam::text(c.spec), PgParam::integer(c.created_at)});
}

std::vector<StoredCircuit> PostgresJobStore::circuits() const {
  std::lock_guard lock(mu_);
  PgResult r =
      db_.execute({"store_circuits",
                   "SELECT name, spec, extract(epoch FROM created)::bigint FROM circuits ORDER BY created, name"});
  std::vector<StoredCircuit> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back({r.text(i, 0), r.text(i, 1), r.integer(i, 2)});
  return out;
}

std::optional<StoredCircuit> PostgresJobStore::add_circuit_once(const StoredCircuit& c) {
  std::lock_guard lock(mu_);
  // The first host to register a name wins; the others adopt its registration (its keys).
  PgResult added = db_.execute({"store_add_circuit_once", R"sql(INSERT INTO circuits (name, spec, created)
VALUES ($1, $2, to_timestamp($3)) ON CONFLICT (name) DO NOTHING RETURNING name)sql"},
                               {PgParam::text(c.name), PgParam::text(c.spec), PgParam::integer(c.created_at)});
  if (added.rows() == 1) return std::nullopt;
  PgResult r = db_.execute(
      {"store_circuit", "SELECT name, spec, extract(epoch FROM created)::bigint FROM circuits WHERE name = $1"},
      {PgParam::text(c.name)});
  if (r.rows() == 0) throw std::runtime_error("cluster: circuit '" + c.name + "' was registered and removed at once");
  return StoredCircuit{r.text(0, 0), r.text(0, 1), r.integer(0, 2)};
}

std::optional<service::PartitionProgress> PostgresJobStore::partition_progress(std::uint64_t id) const {
  std::lock_guard lock(mu_);
  PgResult r = db_.execute({"store_partition_progress", R"sql(
SELECT count(*) FILTER (WHERE state = 'claimed' AND lease_until >= now()), count(*) FILTER (WHERE state = 'done')
FROM partitions WHERE job_id = $1)sql"},
                           {PgParam::integer(static_cast<std::int64_t>(id))});
  return service::PartitionProgress{static_cast<std::size_t>(r.integer(0, 0)),
                                    static_cast<std::size_t>(r.integer(0, 1))};
}

}  // namespace snarkpipe::cluster
