// One PostgreSQL connection through libpq (issue 26): parameterized statements only (no SQL is
// ever built from values), results owned by RAII handles, errors that name the statement.
//
// A connection that breaks (the server restarted, a network blip) is re-opened on the next
// statement, retrying until `reconnect_deadline`. A statement that was in flight when the link
// broke may or may not have committed, so it is sent once more on the new link: callers write
// statements that are safe to repeat (the queue's are: cluster_queue.cpp). Inside a
// transaction the whole transaction is re-run instead (`transaction`).
//
// Not thread-safe: one connection per thread (or a mutex around it).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

struct pg_conn;
struct pg_result;

namespace snarkpipe::cluster {

// A failure of the database: which statement, the server's message and its SQLSTATE code.
class DatabaseError : public std::runtime_error {
 public:
  DatabaseError(std::string statement, std::string message, std::string sqlstate);
  const std::string& statement() const { return statement_; }
  const std::string& sqlstate() const { return sqlstate_; }  // "" when the link failed

 private:
  std::string statement_;
  std::string sqlstate_;
};

// The link to the server could not be (re-)established before the deadline.
class ConnectionLost : public DatabaseError {
 public:
  using DatabaseError::DatabaseError;
};

// A named SQL text with numbered placeholders ($1, $2 and on); the name is what errors report.
struct Statement {
  std::string_view name;
  std::string_view sql;
};

// One parameter: text (the server parses it as the placeholder's type), bytes (bytea, sent in
// binary form, no escaping) or NULL.
class PgParam {
 public:
  static PgParam text(std::string value);
  static PgParam integer(std::int64_t value);
  static PgParam boolean(bool value);
  static PgParam bytes(std::span<const std::uint8_t> value);
  static PgParam null();

  const std::optional<std::string>& value() const { return value_; }
  bool binary() const { return binary_; }

 private:
  std::optional<std::string> value_;
  bool binary_ = false;
};

// A statement's rows (text format). Owns the PGresult; moves, does not copy.
class PgResult {
 public:
  PgResult() = default;
  explicit PgResult(pg_result* result);
  int rows() const;
  int columns() const;
  bool is_null(int row, int column) const;
  std::string text(int row, int column) const;
  std::int64_t integer(int row, int column) const;
  double real(int row, int column) const;
  bool boolean(int row, int column) const;
  std::vector<std::uint8_t> bytes(int row, int column) const;  // a bytea column
  std::int64_t affected_rows() const;                          // UPDATE/INSERT/DELETE count

 private:
  struct Free {
    void operator()(pg_result* r) const;
  };
  std::unique_ptr<pg_result, Free> result_;
};

// A notification from LISTEN: its channel and payload.
struct Notification {
  std::string channel;
  std::string payload;
};

struct ConnectionOptions {
  std::string conninfo;  // "postgresql://user@host:port/db" or "host=... port=..."
  // How long a broken link is retried before statements give up with ConnectionLost.
  std::chrono::milliseconds reconnect_deadline{30000};
  std::chrono::milliseconds reconnect_interval{100};
};

class PgConnection {
 public:
  explicit PgConnection(ConnectionOptions options);
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  // Runs `statement` with `params`. A broken link is re-opened and the statement sent again
  // (outside a transaction only). Throws DatabaseError naming the statement.
  PgResult execute(const Statement& statement, const std::vector<PgParam>& params = {});

  // Runs `body` between BEGIN and COMMIT (ROLLBACK when it throws). When the link breaks
  // inside, the transaction is lost as a whole, so it is re-run from BEGIN on a new link.
  void transaction(const std::function<void()>& body);

  // LISTEN on `channel` (again after every reconnect).
  void listen(std::string_view channel);
  // Waits up to `timeout` for a notification on a listened channel; nullopt on timeout.
  std::optional<Notification> wait_for_notification(std::chrono::milliseconds timeout);

  // Statements sent to the server so far (each a round trip), for the benchmark.
  std::uint64_t round_trips() const { return round_trips_; }
  // Times the link was re-opened after it broke.
  std::uint64_t reconnects() const { return reconnects_; }

 private:
  void connect_with_retry(const std::string& why);
  bool link_ok() const;
  void drop_link();
  PgResult send(const Statement& statement, const std::vector<PgParam>& params);
  std::optional<Notification> take_notification();

  ConnectionOptions options_;
  pg_conn* conn_ = nullptr;
  bool in_transaction_ = false;
  std::vector<std::string> listened_channels_;
  std::uint64_t round_trips_ = 0;
  std::uint64_t reconnects_ = 0;
};

}  // namespace snarkpipe::cluster
