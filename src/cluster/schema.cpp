#include "cluster/schema.hpp"

#include <stdexcept>
#include <string>

namespace snarkpipe::cluster {

namespace {

// pg_advisory_xact_lock's key for "migrating": any constant, the same in every host.
constexpr std::int64_t kMigrationLock = 0x736e61726b706970;  // "snarkpip"

const std::vector<Migration>& migrations() {
  static const std::vector<Migration> all = {
      {1,
       "hosts, jobs, partitions; the claim indexes; completion with assembly",
       {
           R"sql(CREATE TABLE hosts (
  name text PRIMARY KEY,
  started timestamptz NOT NULL,
  heartbeat timestamptz NOT NULL,
  memory_budget_bytes bigint NOT NULL CHECK (memory_budget_bytes >= 0),
  version text NOT NULL,
  clock_offset_ms bigint  -- the host's wall clock minus the database's, at its last heartbeat
))sql",
           // A job's witness is in the row (witness_inline, up to the submitter's limit) or on a
           // path every host can read (witness_path), never both. priority: larger runs first.
           R"sql(CREATE TABLE jobs (
  id bigserial PRIMARY KEY,
  circuit text NOT NULL,
  partitions integer NOT NULL CHECK (partitions > 0),
  priority smallint NOT NULL,
  idempotency_key text UNIQUE,
  request text NOT NULL,
  state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'done', 'failed', 'cancelled')),
  created timestamptz NOT NULL DEFAULT now(),
  finished timestamptz,
  error text,
  partition_memory_bytes bigint NOT NULL DEFAULT 0 CHECK (partition_memory_bytes >= 0),
  witness_inline bytea,
  witness_path text,
  proof bytea,
  submitted_by text,
  CHECK (witness_inline IS NULL OR witness_path IS NULL)
))sql",
           // claim_token: drawn anew at every claim, so a holder whose lease was taken over
           // cannot complete (its token no longer matches).
           R"sql(CREATE TABLE partitions (
  job_id bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  index integer NOT NULL CHECK (index >= 0),
  state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'claimed', 'done', 'failed')),
  claimed_by text,
  claim_token bigint,
  lease_until timestamptz,
  attempts integer NOT NULL DEFAULT 0,
  proof bytea,
  verified boolean,
  finished timestamptz,
  error text,
  PRIMARY KEY (job_id, index)
))sql",
           "CREATE SEQUENCE claim_tokens",
           // The claim walks open jobs in priority-then-age order, then their open partitions.
           "CREATE INDEX jobs_claim_order ON jobs (priority DESC, created, id) WHERE state = 'queued'",
           "CREATE INDEX partitions_open ON partitions (job_id, index) WHERE state IN ('queued', 'claimed')",
           // Heartbeats renew by holder; status counts live and expired leases.
           "CREATE INDEX partitions_by_holder ON partitions (claimed_by) WHERE state = 'claimed'",
           "CREATE INDEX partitions_by_lease ON partitions (lease_until) WHERE state = 'claimed'",
           // One round trip per completion. The job row's lock serializes the completions of
           // one job, so exactly one of them sees that no partition is left and assembles.
           // A completion sent again by its holder (the answer was lost with the link) gets
           // 'accepted' again and changes nothing.
           R"sql(CREATE FUNCTION complete_partition(p_job bigint, p_index integer, p_token bigint, p_proof bytea,
                                   p_verified boolean, p_host text)
RETURNS TABLE (outcome text, job_state text) LANGUAGE plpgsql AS $fn$
DECLARE
  v_job_state text;
  v_state text;
  v_token bigint;
  v_open integer;
BEGIN
  SELECT j.state INTO v_job_state FROM jobs j WHERE j.id = p_job FOR UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'no_such_job'::text, NULL::text;
    RETURN;
  END IF;
  SELECT p.state, p.claim_token INTO v_state, v_token FROM partitions p
    WHERE p.job_id = p_job AND p.index = p_index FOR UPDATE;
  IF v_state IN ('done', 'failed') AND v_token = p_token THEN
    RETURN QUERY SELECT 'accepted'::text, v_job_state;
    RETURN;
  END IF;
  IF v_job_state <> 'queued' THEN
    RETURN QUERY SELECT 'job_closed'::text, v_job_state;
    RETURN;
  END IF;
  IF v_state IS DISTINCT FROM 'claimed' OR v_token IS DISTINCT FROM p_token THEN
    RETURN QUERY SELECT 'not_holder'::text, v_job_state;
    RETURN;
  END IF;
  IF NOT p_verified THEN
    UPDATE partitions p SET state = 'failed', proof = p_proof, verified = false, finished = now(), lease_until = NULL,
        error = 'the proof did not verify on host ' || p_host
      WHERE p.job_id = p_job AND p.index = p_index;
    UPDATE jobs j SET state = 'failed', finished = now(),
        error = 'partition ' || p_index || ': the proof did not verify on host ' || p_host
      WHERE j.id = p_job;
    RETURN QUERY SELECT 'accepted'::text, 'failed'::text;
    RETURN;
  END IF;
  UPDATE partitions p SET state = 'done', proof = p_proof, verified = true, finished = now(), lease_until = NULL
    WHERE p.job_id = p_job AND p.index = p_index;
  SELECT count(*) INTO v_open FROM partitions p WHERE p.job_id = p_job AND p.state <> 'done';
  IF v_open = 0 THEN
    UPDATE jobs j SET state = 'done', finished = now(),
        proof = (SELECT string_agg(p.proof, ''::bytea ORDER BY p.index) FROM partitions p WHERE p.job_id = p_job)
      WHERE j.id = p_job;
    RETURN QUERY SELECT 'assembled'::text, 'done'::text;
    RETURN;
  END IF;
  RETURN QUERY SELECT 'accepted'::text, v_job_state;
END
$fn$)sql",
       }},
      {2,
       "the daemon's jobs: seeds, witness formats, tokens, public inputs; registered circuits",
       {
           // What `snarkpipe serve --db postgresql://...` keeps of a job beyond the queue's
           // columns, so that any host can describe it and prove it.
           R"sql(ALTER TABLE jobs
  ADD COLUMN seed bigint NOT NULL DEFAULT 1,
  ADD COLUMN witness_format text NOT NULL DEFAULT '',
  ADD COLUMN witness_offsets text NOT NULL DEFAULT '[]',
  ADD COLUMN witness_file text NOT NULL DEFAULT '',  -- the accepting host's spool name
  ADD COLUMN token text NOT NULL DEFAULT '',
  ADD COLUMN public_inputs text)sql",
           // Each partition's public inputs, written by its holder with its proof; a done job's
           // are these in partition order.
           "ALTER TABLE partitions ADD COLUMN public_inputs text",
           "CREATE INDEX jobs_by_token ON jobs (token, id DESC)",
           "CREATE INDEX jobs_finished ON jobs (finished) WHERE state <> 'queued'",
           // Circuits registered on any host, so that every host serves them.
           R"sql(CREATE TABLE circuits (
  name text PRIMARY KEY,
  spec text NOT NULL,
  created timestamptz NOT NULL DEFAULT now()
))sql",
       }},
      {3,
       "completion stores the partition's public inputs",
       {
           "DROP FUNCTION complete_partition(bigint, integer, bigint, bytea, boolean, text)",
           // As version 1's, and the partition's public inputs (a JSON array of decimals) are
           // stored with its proof, so the host that assembles the job needs nothing but rows.
           R"sql(CREATE FUNCTION complete_partition(p_job bigint, p_index integer, p_token bigint, p_proof bytea,
                                   p_verified boolean, p_host text, p_public_inputs text)
RETURNS TABLE (outcome text, job_state text) LANGUAGE plpgsql AS $fn$
DECLARE
  v_job_state text;
  v_state text;
  v_token bigint;
  v_open integer;
BEGIN
  SELECT j.state INTO v_job_state FROM jobs j WHERE j.id = p_job FOR UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'no_such_job'::text, NULL::text;
    RETURN;
  END IF;
  SELECT p.state, p.claim_token INTO v_state, v_token FROM partitions p
    WHERE p.job_id = p_job AND p.index = p_index FOR UPDATE;
  IF v_state IN ('done', 'failed') AND v_token = p_token THEN
    RETURN QUERY SELECT 'accepted'::text, v_job_state;
    RETURN;
  END IF;
  IF v_job_state <> 'queued' THEN
    RETURN QUERY SELECT 'job_closed'::text, v_job_state;
    RETURN;
  END IF;
  IF v_state IS DISTINCT FROM 'claimed' OR v_token IS DISTINCT FROM p_token THEN
    RETURN QUERY SELECT 'not_holder'::text, v_job_state;
    RETURN;
  END IF;
  IF NOT p_verified THEN
    UPDATE partitions p SET state = 'failed', proof = p_proof, verified = false, finished = now(), lease_until = NULL,
        error = 'the proof did not verify on host ' || p_host
      WHERE p.job_id = p_job AND p.index = p_index;
    UPDATE jobs j SET state = 'failed', finished = now(),
        error = 'partition ' || p_index || ': the proof did not verify on host ' || p_host
      WHERE j.id = p_job;
    RETURN QUERY SELECT 'accepted'::text, 'failed'::text;
    RETURN;
  END IF;
  UPDATE partitions p SET state = 'done', proof = p_proof, verified = true, finished = now(), lease_until = NULL,
      public_inputs = nullif(p_public_inputs, '')
    WHERE p.job_id = p_job AND p.index = p_index;
  SELECT count(*) INTO v_open FROM partitions p WHERE p.job_id = p_job AND p.state <> 'done';
  IF v_open = 0 THEN
    UPDATE jobs j SET state = 'done', finished = now(),
        proof = (SELECT string_agg(p.proof, ''::bytea ORDER BY p.index) FROM partitions p WHERE p.job_id = p_job)
      WHERE j.id = p_job;
    RETURN QUERY SELECT 'assembled'::text, 'done'::text;
    RETURN;
  END IF;
  RETURN QUERY SELECT 'accepted'::text, v_job_state;
END
$fn$)sql",
       }},
  };
  return all;
}

}  // namespace

std::span<const Migration> schema_migrations() { return migrations(); }

int latest_schema_version() { return migrations().back().version; }

int schema_version(PgConnection& db) {
  PgResult exists = db.execute({"schema_version_exists", "SELECT to_regclass('schema_version') IS NOT NULL"});
  if (!exists.boolean(0, 0)) return 0;
  PgResult r = db.execute({"schema_version", "SELECT coalesce(max(version), 0) FROM schema_version"});
  return static_cast<int>(r.integer(0, 0));
}

std::vector<int> apply_migrations(PgConnection& db) {
  std::vector<int> applied;
  db.transaction([&] {
    applied.clear();  // the transaction may run again after a broken link
    db.execute({"migration_lock", "SELECT pg_advisory_xact_lock($1)"}, {PgParam::integer(kMigrationLock)});
    db.execute({"create_schema_version", R"sql(CREATE TABLE IF NOT EXISTS schema_version (
  version integer PRIMARY KEY,
  description text NOT NULL,
  applied timestamptz NOT NULL DEFAULT now()
))sql"});
    const int current = static_cast<int>(
        db.execute({"schema_version", "SELECT coalesce(max(version), 0) FROM schema_version"}).integer(0, 0));
    if (current > latest_schema_version())
      throw std::runtime_error("cluster database: its schema is version " + std::to_string(current) +
                               ", newer than this snarkpipe's " + std::to_string(latest_schema_version()) +
                               ": upgrade this host");
    for (const Migration& m : migrations()) {
      if (m.version <= current) continue;
      for (std::size_t i = 0; i < m.statements.size(); ++i) {
        const std::string name = "migration " + std::to_string(m.version) + " statement " + std::to_string(i + 1);
        db.execute({name, m.statements[i]});
      }
      db.execute({"record_migration", "INSERT INTO schema_version (version, description) VALUES ($1, $2)"},
                 {PgParam::integer(m.version), PgParam::text(std::string(m.description))});
      applied.push_back(m.version);
    }
  });
  return applied;
}

}  // namespace snarkpipe::cluster
