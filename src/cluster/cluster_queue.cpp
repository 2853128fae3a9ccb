#include "cluster/cluster_queue.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <random>

#include "base/write_file.hpp"
#include "cluster/schema.hpp"

namespace snarkpipe::cluster {

namespace {

namespace fs = std::filesystem;

// The statements, each one round trip. Times are the database's: now() and intervals built
// from the lease length; no host clock is ever compared with a lease.

constexpr Statement kRegisterHost{"register_host", R"sql(
INSERT INTO hosts (name, started, heartbeat, memory_budget_bytes, version, clock_offset_ms)
VALUES ($1, now(), now(), $2, $3, $4 - (extract(epoch FROM now()) * 1000)::bigint)
ON CONFLICT (name) DO UPDATE SET started = now(), heartbeat = now(), memory_budget_bytes = EXCLUDED.memory_budget_bytes,
  version = EXCLUDED.version, clock_offset_ms = EXCLUDED.clock_offset_ms)sql"};

// Claims an earlier run of this host left: that process is gone, so is its work.
constexpr Statement kReturnOrphanedClaims{"return_orphaned_claims", R"sql(
UPDATE partitions SET state = 'queued', claimed_by = NULL, claim_token = NULL, lease_until = NULL
WHERE claimed_by = $1 AND state = 'claimed')sql"};

// The partitions are inserted with their job, and idle hosts notified, in the same statement.
constexpr Statement kSubmit{"submit_job", R"sql(
WITH new_job AS (
  INSERT INTO jobs (circuit, partitions, priority, idempotency_key, request, partition_memory_bytes, witness_inline,
                    witness_path, submitted_by)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
  ON CONFLICT (idempotency_key) DO NOTHING
  RETURNING id, partitions
), new_partitions AS (
  INSERT INTO partitions (job_id, index) SELECT id, generate_series(0, partitions - 1) FROM new_job
)
SELECT id, pg_notify('snarkpipe_work', id::text) FROM new_job)sql"};

constexpr Statement kJobByKey{"job_by_idempotency_key", "SELECT id, request FROM jobs WHERE idempotency_key = $1"};

// SKIP LOCKED: a partition another host is claiming right now is passed over, not waited for.
// Only partition rows are locked (FOR UPDATE OF p): locking the job would make every other
// host skip the whole job while one claims from it.
constexpr Statement kClaim{"claim_partition", R"sql(
WITH candidate AS (
  SELECT p.job_id, p.index
  FROM jobs j JOIN partitions p ON p.job_id = j.id
  WHERE j.state = 'queued' AND j.partition_memory_bytes <= $2 AND NOT (j.circuit = ANY ($4::text[]))
    AND (p.state = 'queued' OR (p.state = 'claimed' AND p.lease_until < now()))
  ORDER BY j.priority DESC, j.created, j.id, p.index
  LIMIT 1
  FOR UPDATE OF p SKIP LOCKED
)
UPDATE partitions p
SET state = 'claimed', claimed_by = $1, claim_token = nextval('claim_tokens'),
    lease_until = now() + $3::double precision * interval '1 millisecond', attempts = p.attempts + 1
FROM candidate c, jobs j
WHERE p.job_id = c.job_id AND p.index = c.index AND j.id = c.job_id
RETURNING p.job_id, p.index, j.partitions, p.claim_token, p.attempts, j.circuit, j.request, j.priority,
  (extract(epoch FROM (p.lease_until - now())) * 1000)::bigint, j.witness_inline, j.witness_path, j.seed,
  j.witness_format, j.witness_offsets)sql"};

// Renews only live leases this process holds (by token): an expired one may already be
// someone else's, and a lease of a closed job is not worth keeping.
constexpr Statement kHeartbeat{"heartbeat", R"sql(
WITH beat AS (
  UPDATE hosts SET heartbeat = now(), clock_offset_ms = $4 - (extract(epoch FROM now()) * 1000)::bigint
  WHERE name = $1
)
UPDATE partitions p SET lease_until = now() + $2::double precision * interval '1 millisecond'
FROM jobs j
WHERE p.claimed_by = $1 AND p.claim_token = ANY ($3::bigint[]) AND p.state = 'claimed' AND p.lease_until >= now()
  AND j.id = p.job_id AND j.state = 'queued'
RETURNING p.job_id, p.index, p.claim_token)sql"};

constexpr Statement kComplete{"complete_partition",
                              "SELECT outcome, job_state FROM complete_partition($1, $2, $3, $4, $5, $6, $7)"};

constexpr Statement kRelease{"release_partition", R"sql(
UPDATE partitions SET state = 'queued', claimed_by = NULL, claim_token = NULL, lease_until = NULL
WHERE job_id = $1 AND index = $2 AND claim_token = $3 AND state = 'claimed')sql"};

constexpr Statement kFail{"fail_partition", R"sql(
WITH failed AS (
  UPDATE partitions SET state = 'failed', error = $4::text, finished = now(), lease_until = NULL
  WHERE job_id = $1 AND index = $2::integer AND claim_token = $3 AND state = 'claimed'
  RETURNING job_id
)
UPDATE jobs j SET state = 'failed', finished = now(), error = 'partition ' || $2::integer || ': ' || $4::text
FROM failed f WHERE j.id = f.job_id AND j.state = 'queued'
RETURNING j.id)sql"};

constexpr Statement kCancel{"cancel_job", R"sql(
UPDATE jobs SET state = 'cancelled', finished = now(), error = 'cancelled'
WHERE id = $1 AND state = 'queued' RETURNING id)sql"};

constexpr Statement kJob{"read_job", R"sql(
SELECT j.id, j.circuit, j.partitions, j.priority, j.state, coalesce(j.error, ''), j.request, j.proof,
  (SELECT count(*) FROM partitions p WHERE p.job_id = j.id AND p.state = 'done')
FROM jobs j WHERE j.id = $1)sql"};

constexpr Statement kHostsStatus{"hosts_status", R"sql(
SELECT h.name, (extract(epoch FROM (now() - h.heartbeat)) * 1000)::bigint, h.memory_budget_bytes, h.version,
  h.clock_offset_ms, count(p.job_id) FILTER (WHERE p.lease_until >= now())
FROM hosts h LEFT JOIN partitions p ON p.claimed_by = h.name AND p.state = 'claimed'
GROUP BY h.name ORDER BY h.name)sql"};

constexpr Statement kLeasesStatus{"leases_status", R"sql(
SELECT p.job_id, p.index, p.claimed_by, (extract(epoch FROM (p.lease_until - now())) * 1000)::bigint, p.attempts
FROM partitions p JOIN jobs j ON j.id = p.job_id
WHERE p.state = 'claimed' AND j.state = 'queued'
ORDER BY p.lease_until)sql"};

constexpr Statement kDepthStatus{"queue_depth", R"sql(
SELECT j.priority,
  count(*) FILTER (WHERE p.state = 'queued'),
  count(*) FILTER (WHERE p.state = 'claimed' AND p.lease_until >= now()),
  count(*) FILTER (WHERE p.state = 'claimed' AND p.lease_until < now())
FROM partitions p JOIN jobs j ON j.id = p.job_id
WHERE j.state = 'queued' AND p.state IN ('queued', 'claimed')
GROUP BY j.priority ORDER BY j.priority DESC)sql"};

std::string token_array(const std::set<std::int64_t>& tokens) {
  std::string out = "{";
  for (std::int64_t t : tokens) {
    if (out.size() > 1) out += ',';
    out += std::to_string(t);
  }
  return out + "}";
}

// A text[] literal: each element quoted, its quotes and backslashes escaped.
std::string text_array(const std::set<std::string>& items) {
  std::string out = "{";
  for (const std::string& item : items) {
    if (out.size() > 1) out += ',';
    out += '"';
    for (char ch : item) {
      if (ch == '"' || ch == '\\') out += '\\';
      out += ch;
    }
    out += '"';
  }
  return out + "}";
}

// Writes a witness too large for a row into the shared folder (fsynced: another host reads it
// after this one has answered), under a random name, and returns its path.
fs::path write_shared_witness(const fs::path& dir, std::span<const std::uint8_t> witness) {
  std::random_device rd;
  char name[48];
  std::snprintf(name, sizeof(name), "witness-%08x%08x.bin", rd(), rd());
  const fs::path path = dir / name;
  base::write_file(path, witness, O_EXCL, true);
  return path;
}

}  // namespace

const char* to_string(CompleteOutcome outcome) {
  switch (outcome) {
    case CompleteOutcome::accepted:
      return "accepted";
    case CompleteOutcome::assembled:
      return "assembled";
    case CompleteOutcome::not_holder:
      return "not_holder";
    case CompleteOutcome::job_closed:
      return "job_closed";
    case CompleteOutcome::no_such_job:
      return "no_such_job";
  }
  return "unknown";
}

ClusterQueue::ClusterQueue(QueueOptions options)
    : options_(std::move(options)), db_({options_.conninfo, options_.reconnect_deadline}) {
  if (options_.host.empty()) throw std::invalid_argument("cluster: a host needs a name");
  apply_migrations(db_);
  register_host();
}

std::int64_t ClusterQueue::local_clock_ms() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(options_.local_clock().time_since_epoch()).count();
}

void ClusterQueue::register_host() {
  std::lock_guard lock(mu_);
  db_.execute(kRegisterHost,
              {PgParam::text(options_.host), PgParam::integer(static_cast<std::int64_t>(options_.memory_budget_bytes)),
               PgParam::text(options_.version), PgParam::integer(local_clock_ms())});
  db_.execute(kReturnOrphanedClaims, {PgParam::text(options_.host)});
}

SubmitResult ClusterQueue::submit(const JobSubmission& job) {
  if (job.partitions == 0) throw std::invalid_argument("cluster: a job needs at least one partition");
  std::optional<fs::path> shared;
  if (job.witness.size() > options_.witness_inline_limit) {
    if (options_.witness_dir.empty())
      throw std::invalid_argument(
          "cluster: a witness of " + std::to_string(job.witness.size()) + " bytes is over the inline limit of " +
          std::to_string(options_.witness_inline_limit) + " and no shared witness folder is configured");
    shared = write_shared_witness(options_.witness_dir, job.witness);
  }
  const PgParam key = job.idempotency_key.empty() ? PgParam::null() : PgParam::text(job.idempotency_key);
  std::lock_guard lock(mu_);
  // Twice at most: a job found by its key may be deleted (expired) before it is read.
  for (int attempt = 0; attempt < 2; ++attempt) {
    PgResult created = db_.execute(
        kSubmit, {PgParam::text(job.circuit), PgParam::integer(job.partitions), PgParam::integer(job.priority), key,
                  PgParam::text(job.request), PgParam::integer(static_cast<std::int64_t>(job.partition_memory_bytes)),
                  shared || job.witness.empty() ? PgParam::null() : PgParam::bytes(job.witness),
                  shared ? PgParam::text(shared->string()) : PgParam::null(), PgParam::text(options_.host)});
    if (created.rows() == 1) return {created.integer(0, 0), true};
    PgResult existing = db_.execute(kJobByKey, {key});
    if (existing.rows() == 0) continue;
    if (shared) fs::remove(*shared);
    if (existing.text(0, 1) != job.request)
      throw IdempotencyConflict("cluster: idempotency key '" + job.idempotency_key + "' was used for job " +
                                existing.text(0, 0) + " with a different request");
    return {existing.integer(0, 0), false};
  }
  throw std::runtime_error("cluster: idempotency key '" + job.idempotency_key + "' neither inserts nor reads");
}

std::optional<ClaimedPartition> ClusterQueue::claim(std::uint64_t memory_available_bytes,
                                                    const std::set<std::string>& skip_circuits) {
  std::lock_guard lock(mu_);
  PgResult r = db_.execute(
      kClaim, {PgParam::text(options_.host),
               PgParam::integer(static_cast<std::int64_t>(std::min<std::uint64_t>(memory_available_bytes, INT64_MAX))),
               PgParam::integer(options_.lease.count()), PgParam::text(text_array(skip_circuits))});
  if (r.rows() == 0) return std::nullopt;
  ClaimedPartition c;
  c.job_id = r.integer(0, 0);
  c.index = static_cast<int>(r.integer(0, 1));
  c.partitions = static_cast<int>(r.integer(0, 2));
  c.token = r.integer(0, 3);
  c.attempts = static_cast<int>(r.integer(0, 4));
  c.circuit = r.text(0, 5);
  c.request = r.text(0, 6);
  c.priority = static_cast<int>(r.integer(0, 7));
  c.lease_remaining = std::chrono::milliseconds(r.integer(0, 8));
  c.witness_inline = r.bytes(0, 9);
  if (!r.is_null(0, 10)) c.witness_path = r.text(0, 10);
  c.seed = static_cast<std::uint64_t>(r.integer(0, 11));
  c.witness_format = r.text(0, 12);
  c.witness_offsets = r.text(0, 13);
  held_tokens_.insert(c.token);
  return c;
}

std::vector<PartitionRef> ClusterQueue::heartbeat() {
  std::lock_guard lock(mu_);
  PgResult r = db_.execute(kHeartbeat, {PgParam::text(options_.host), PgParam::integer(options_.lease.count()),
                                        PgParam::text(token_array(held_tokens_)), PgParam::integer(local_clock_ms())});
  std::vector<PartitionRef> held;
  std::set<std::int64_t> renewed;
  for (int i = 0; i < r.rows(); ++i) {
    held.push_back({r.integer(i, 0), static_cast<int>(r.integer(i, 1))});
    renewed.insert(r.integer(i, 2));
  }
  held_tokens_ = std::move(renewed);  // a lease not renewed is lost for good
  return held;
}

CompleteOutcome ClusterQueue::complete(const ClaimedPartition& claimed, std::span<const std::uint8_t> proof,
                                       bool verified, const std::string& public_inputs) {
  std::lock_guard lock(mu_);
  PgResult r =
      db_.execute(kComplete, {PgParam::integer(claimed.job_id), PgParam::integer(claimed.index),
                              PgParam::integer(claimed.token), PgParam::bytes(proof), PgParam::boolean(verified),
                              PgParam::text(options_.host), PgParam::text(public_inputs)});
  held_tokens_.erase(claimed.token);
  const std::string outcome = r.text(0, 0);
  if (outcome == "accepted") return CompleteOutcome::accepted;
  if (outcome == "assembled") return CompleteOutcome::assembled;
  if (outcome == "not_holder") return CompleteOutcome::not_holder;
  if (outcome == "job_closed") return CompleteOutcome::job_closed;
  return CompleteOutcome::no_such_job;
}

bool ClusterQueue::release(const ClaimedPartition& claimed) {
  std::lock_guard lock(mu_);
  held_tokens_.erase(claimed.token);
  return db_.execute(kRelease, {PgParam::integer(claimed.job_id), PgParam::integer(claimed.index),
                                PgParam::integer(claimed.token)})
             .affected_rows() == 1;
}

bool ClusterQueue::fail(const ClaimedPartition& claimed, const std::string& error) {
  std::lock_guard lock(mu_);
  held_tokens_.erase(claimed.token);
  return db_.execute(kFail, {PgParam::integer(claimed.job_id), PgParam::integer(claimed.index),
                             PgParam::integer(claimed.token), PgParam::text(error)})
             .rows() == 1;
}

bool ClusterQueue::cancel(std::int64_t job_id) {
  std::lock_guard lock(mu_);
  return db_.execute(kCancel, {PgParam::integer(job_id)}).rows() == 1;
}

std::optional<JobRecord> ClusterQueue::job(std::int64_t job_id) {
  std::lock_guard lock(mu_);
  PgResult r = db_.execute(kJob, {PgParam::integer(job_id)});
  if (r.rows() == 0) return std::nullopt;
  JobRecord j;
  j.id = r.integer(0, 0);
  j.circuit = r.text(0, 1);
  j.partitions = static_cast<int>(r.integer(0, 2));
  j.priority = static_cast<int>(r.integer(0, 3));
  j.state = r.text(0, 4);
  j.error = r.text(0, 5);
  j.request = r.text(0, 6);
  j.proof = r.bytes(0, 7);
  j.partitions_done = static_cast<int>(r.integer(0, 8));
  return j;
}

ClusterStatus ClusterQueue::status() {
  std::lock_guard lock(mu_);
  return read_cluster_status(db_);
}

std::uint64_t ClusterQueue::round_trips() {
  std::lock_guard lock(mu_);
  return db_.round_trips();
}

ClusterStatus read_cluster_status(PgConnection& db) {
  ClusterStatus s;
  PgResult hosts = db.execute(kHostsStatus);
  for (int i = 0; i < hosts.rows(); ++i) {
    HostStatus h;
    h.name = hosts.text(i, 0);
    h.heartbeat_age_ms = hosts.integer(i, 1);
    h.memory_budget_bytes = static_cast<std::uint64_t>(hosts.integer(i, 2));
    h.version = hosts.text(i, 3);
    if (!hosts.is_null(i, 4)) h.clock_offset_ms = hosts.integer(i, 4);
    h.leases_held = hosts.integer(i, 5);
    s.hosts.push_back(std::move(h));
  }
  PgResult leases = db.execute(kLeasesStatus);
  for (int i = 0; i < leases.rows(); ++i)
    s.leases.push_back({leases.integer(i, 0), static_cast<int>(leases.integer(i, 1)), leases.text(i, 2),
                        leases.integer(i, 3), static_cast<int>(leases.integer(i, 4))});
  PgResult depth = db.execute(kDepthStatus);
  for (int i = 0; i < depth.rows(); ++i)
    s.depth.push_back(
        {static_cast<int>(depth.integer(i, 0)), depth.integer(i, 1), depth.integer(i, 2), depth.integer(i, 3)});
  return s;
}

WorkListener::WorkListener(const std::string& conninfo) : db_({conninfo}) { db_.listen(kWorkChannel); }

bool WorkListener::wait(std::chrono::milliseconds timeout) {
  if (!db_.wait_for_notification(timeout)) return false;
  while (db_.wait_for_notification(std::chrono::milliseconds(0))) {}
  return true;
}

}  // namespace snarkpipe::cluster
