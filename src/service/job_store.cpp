#include "service/job_store.hpp"

#include <sqlite3.h>

#include <fstream>
#include <iterator>
#include <stdexcept>

#include "service/spool.hpp"

namespace snarkpipe::service {

namespace {

constexpr const char* SCHEMA = R"sql(
CREATE TABLE IF NOT EXISTS jobs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  circuit TEXT NOT NULL,
  partitions INTEGER NOT NULL,
  priority TEXT NOT NULL,
  seed INTEGER NOT NULL,
  idempotency_key TEXT UNIQUE,
  request TEXT NOT NULL,
  witness_format TEXT NOT NULL,
  witness_file TEXT NOT NULL,
  witness_offsets TEXT NOT NULL,
  token TEXT NOT NULL,
  state TEXT NOT NULL,
  error TEXT NOT NULL,
  public_inputs TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  finished_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS jobs_by_state ON jobs(state, finished_at);
CREATE TABLE IF NOT EXISTS circuits (
  name TEXT PRIMARY KEY,
  spec TEXT NOT NULL,
  created_at INTEGER NOT NULL);
)sql";

constexpr const char* JOB_COLUMNS =
    "id, circuit, partitions, priority, seed, idempotency_key, request, witness_format, witness_file, "
    "witness_offsets, token, state, error, public_inputs, created_at, finished_at";

// One prepared statement, finalized on scope exit.
class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s_, nullptr) != SQLITE_OK)
      throw std::runtime_error(std::string("job store: ") + sqlite3_errmsg(db) + " in: " + sql);
  }
  ~Statement() { sqlite3_finalize(s_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, const std::string& v) {
    sqlite3_bind_text(s_, i, v.data(), int(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind(int i, std::int64_t v) {
    sqlite3_bind_int64(s_, i, v);
    return *this;
  }
  Statement& bind_null(int i) {
    sqlite3_bind_null(s_, i);
    return *this;
  }
  // True while there is a row; throws on an error.
  bool step() {
    const int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    last_rc_ = rc;
    throw std::runtime_error(std::string("job store: ") + sqlite3_errmsg(db_));
  }
  int last_rc() const { return last_rc_; }
  std::string text(int i) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s_, i));
    return p ? std::string(p, std::size_t(sqlite3_column_bytes(s_, i))) : std::string();
  }
  std::int64_t integer(int i) const { return sqlite3_column_int64(s_, i); }

 private:
  sqlite3* db_;
  sqlite3_stmt* s_ = nullptr;
  int last_rc_ = SQLITE_OK;
};

StoredJob read_job(const Statement& s) {
  StoredJob j;
  j.id = std::uint64_t(s.integer(0));
  j.circuit = s.text(1);
  j.partitions = std::uint64_t(s.integer(2));
  j.priority = s.text(3);
  j.seed = std::uint64_t(s.integer(4));
  j.idempotency_key = s.text(5);
  j.request = s.text(6);
  j.witness_format = s.text(7);
  j.witness_file = s.text(8);
  j.witness_offsets = s.text(9);
  j.token = s.text(10);
  j.state = s.text(11);
  j.error = s.text(12);
  j.public_inputs = s.text(13);
  j.created_at = s.integer(14);
  j.finished_at = s.integer(15);
  return j;
}

std::vector<StoredJob> read_jobs(Statement& s) {
  std::vector<StoredJob> out;
  while (s.step()) out.push_back(read_job(s));
  return out;
}

}  // namespace

SqliteJobStore::SqliteJobStore(const std::filesystem::path& file, std::filesystem::path proofs_dir)
    : file_(file), proofs_dir_(std::move(proofs_dir)) {
  if (sqlite3_open_v2(file.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    throw std::runtime_error("cannot open the job database " + file.string() + ": " + why);
  }
  sqlite3_busy_timeout(db_, 5000);
  try {
    exec("PRAGMA journal_mode=WAL");
    exec("PRAGMA synchronous=FULL");
    exec(SCHEMA);
  } catch (...) {
    sqlite3_close(db_);
    throw;
  }
}

SqliteJobStore::~SqliteJobStore() { sqlite3_close(db_); }

void SqliteJobStore::exec(const char* sql) const {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string why = err ? err : "unknown error";
    sqlite3_free(err);
    throw std::runtime_error("job database " + file_.string() + ": " + why);
  }
}

std::pair<StoredJob, bool> SqliteJobStore::insert(StoredJob job) {
  std::lock_guard lock(mu_);
  if (!job.idempotency_key.empty()) {
    Statement s(db_, std::string("SELECT ") + JOB_COLUMNS + " FROM jobs WHERE idempotency_key = ?");
    s.bind(1, job.idempotency_key);
    if (s.step()) return {read_job(s), false};
  }
  Statement s(db_,
              "INSERT INTO jobs (circuit, partitions, priority, seed, idempotency_key, request, witness_format, "
              "witness_file, witness_offsets, token, state, error, public_inputs, created_at, finished_at) "
              "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  s.bind(1, job.circuit).bind(2, std::int64_t(job.partitions)).bind(3, job.priority).bind(4, std::int64_t(job.seed));
  if (job.idempotency_key.empty()) s.bind_null(5);
  else s.bind(5, job.idempotency_key);
  s.bind(6, job.request).bind(7, job.witness_format).bind(8, job.witness_file).bind(9, job.witness_offsets);
  s.bind(10, job.token).bind(11, job.state).bind(12, job.error).bind(13, job.public_inputs);
  s.bind(14, job.created_at).bind(15, job.finished_at);
  s.step();
  job.id = std::uint64_t(sqlite3_last_insert_rowid(db_));
  return {std::move(job), true};
}

std::optional<StoredJob> SqliteJobStore::get(std::uint64_t id) const {
  std::lock_guard lock(mu_);
  Statement s(db_, std::string("SELECT ") + JOB_COLUMNS + " FROM jobs WHERE id = ?");
  s.bind(1, std::int64_t(id));
  if (!s.step()) return std::nullopt;
  return read_job(s);
}

std::vector<StoredJob> SqliteJobStore::list(const std::string& token, std::size_t limit) const {
  std::lock_guard lock(mu_);
  Statement s(db_, std::string("SELECT ") + JOB_COLUMNS + " FROM jobs" + (token.empty() ? "" : " WHERE token = ?") +
                       " ORDER BY id DESC LIMIT ?");
  int i = 1;
  if (!token.empty()) s.bind(i++, token);
  s.bind(i, std::int64_t(limit));
  return read_jobs(s);
}

std::vector<StoredJob> SqliteJobStore::queued() const {
  std::lock_guard lock(mu_);
  Statement s(db_, std::string("SELECT ") + JOB_COLUMNS + " FROM jobs WHERE state = 'queued' ORDER BY id");
  return read_jobs(s);
}

std::size_t SqliteJobStore::count_queued() const {
  std::lock_guard lock(mu_);
  Statement s(db_, "SELECT COUNT(*) FROM jobs WHERE state = 'queued'");
  s.step();
  return std::size_t(s.integer(0));
}

std::size_t SqliteJobStore::count_queued_of(const std::string& token) const {
  std::lock_guard lock(mu_);
  Statement s(db_, "SELECT COUNT(*) FROM jobs WHERE state = 'queued' AND token = ?");
  s.bind(1, token);
  s.step();
  return std::size_t(s.integer(0));
}

std::map<std::string, std::size_t> SqliteJobStore::count_by_state() const {
  std::lock_guard lock(mu_);
  Statement s(db_, "SELECT state, COUNT(*) FROM jobs GROUP BY state");
  std::map<std::string, std::size_t> out;
  while (s.step()) out[s.text(0)] = std::size_t(s.integer(1));
  return out;
}

bool SqliteJobStore::finish(std::uint64_t id, const std::string& state, const std::string& error,
                            const std::string& public_inputs, std::span<const std::uint8_t> proofs, std::int64_t now) {
  std::lock_guard lock(mu_);
  // The proofs on disk first: a job reads as done only once they are there.
  if (state == "done") write_file_durably(proof_file(id), proofs);
  Statement s(
      db_,
      "UPDATE jobs SET state = ?, error = ?, public_inputs = ?, finished_at = ? WHERE id = ? AND state = 'queued'");
  s.bind(1, state).bind(2, error).bind(3, public_inputs).bind(4, now).bind(5, std::int64_t(id));
  s.step();
  const bool finished = sqlite3_changes(db_) == 1;
  if (!finished && state == "done") remove_quietly(proof_file(id));  // cancelled meanwhile
  return finished;
}

std::optional<std::vector<std::uint8_t>> SqliteJobStore::proofs(const StoredJob& job) const {
  std::ifstream in(proof_file(job.id), std::ios::binary);
  if (!in) return std::nullopt;
  return std::vector<std::uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<StoredJob> SqliteJobStore::expire(std::int64_t cutoff) {
  std::lock_guard lock(mu_);
  Statement s(db_,
              std::string("DELETE FROM jobs WHERE state != 'queued' AND finished_at < ? RETURNING ") + JOB_COLUMNS);
  s.bind(1, cutoff);
  std::vector<StoredJob> gone = read_jobs(s);
  for (const StoredJob& job : gone) remove_quietly(proof_file(job.id));
  return gone;
}

void SqliteJobStore::add_circuit(const StoredCircuit& c) {
  std::lock_guard lock(mu_);
  Statement s(db_, "INSERT OR REPLACE INTO circuits (name, spec, created_at) VALUES (?, ?, ?)");
  s.bind(1, c.name).bind(2, c.spec).bind(3, c.created_at);
  s.step();
}

std::vector<StoredCircuit> SqliteJobStore::circuits() const {
  std::lock_guard lock(mu_);
  Statement s(db_, "SELECT name, spec, created_at FROM circuits ORDER BY created_at, name");
  std::vector<StoredCircuit> out;
  while (s.step()) out.push_back({s.text(0), s.text(1), s.integer(2)});
  return out;
}

}  // namespace snarkpipe::service
