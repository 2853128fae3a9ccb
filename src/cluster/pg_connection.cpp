#include "cluster/pg_connection.hpp"

#include <libpq-fe.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

namespace snarkpipe::cluster {

namespace {

constexpr Oid kByteaOid = 17;

std::string connection_message(pg_conn* conn) {
  if (!conn) return "out of memory";
  std::string message = PQerrorMessage(conn);
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  return message;
}

// Failures after which the link is gone, or the server is not yet (or no longer) serving:
// class 08 (connection exception) and 57P01..57P03 (shutdown, crash shutdown, starting up).
bool is_link_failure(const std::string& sqlstate) {
  return sqlstate.starts_with("08") || sqlstate == "57P01" || sqlstate == "57P02" || sqlstate == "57P03";
}

}  // namespace

DatabaseError::DatabaseError(std::string statement, std::string message, std::string sqlstate)
    : std::runtime_error("database: statement '" + statement + "': " + message +
                         (sqlstate.empty() ? "" : " (SQLSTATE " + sqlstate + ")")),
      statement_(std::move(statement)),
      sqlstate_(std::move(sqlstate)) {}

PgParam PgParam::text(std::string value) {
  PgParam p;
  p.value_ = std::move(value);
  return p;
}

PgParam PgParam::integer(std::int64_t value) { return text(std::to_string(value)); }

PgParam PgParam::boolean(bool value) { return text(value ? "true" : "false"); }

PgParam PgParam::bytes(std::span<const std::uint8_t> value) {
  PgParam p;
  p.value_ = std::string(reinterpret_cast<const char*>(value.data()), value.size());
  p.binary_ = true;
  return p;
}

PgParam PgParam::null() { return PgParam{}; }

void PgResult::Free::operator()(pg_result* r) const { PQclear(r); }

PgResult::PgResult(pg_result* result) : result_(result) {}

int PgResult::rows() const { return result_ ? PQntuples(result_.get()) : 0; }

int PgResult::columns() const { return result_ ? PQnfields(result_.get()) : 0; }

bool PgResult::is_null(int row, int column) const { return PQgetisnull(result_.get(), row, column) != 0; }

std::string PgResult::text(int row, int column) const {
  if (row >= rows() || column >= columns())
    throw std::out_of_range("database: no cell (" + std::to_string(row) + ", " + std::to_string(column) +
                            ") in the result");
  return std::string(PQgetvalue(result_.get(), row, column),
                     static_cast<std::size_t>(PQgetlength(result_.get(), row, column)));
}

std::int64_t PgResult::integer(int row, int column) const {
  const std::string value = text(row, column);
  try {
    return std::stoll(value);
  } catch (const std::exception&) {
    throw std::runtime_error("database: column '" + std::string(PQfname(result_.get(), column)) + "' holds '" + value +
                             "', not an integer");
  }
}

double PgResult::real(int row, int column) const {
  const std::string value = text(row, column);
  try {
    return std::stod(value);
  } catch (const std::exception&) {
    throw std::runtime_error("database: column '" + std::string(PQfname(result_.get(), column)) + "' holds '" + value +
                             "', not a number");
  }
}

bool PgResult::boolean(int row, int column) const { return text(row, column) == "t"; }

std::vector<std::uint8_t> PgResult::bytes(int row, int column) const {
  if (is_null(row, column)) return {};
  std::size_t length = 0;
  unsigned char* raw =
      PQunescapeBytea(reinterpret_cast<const unsigned char*>(PQgetvalue(result_.get(), row, column)), &length);
  if (!raw)
    throw std::runtime_error("database: column '" + std::string(PQfname(result_.get(), column)) +
                             "' is not a valid bytea text");
  std::vector<std::uint8_t> out(raw, raw + length);
  PQfreemem(raw);
  return out;
}

std::int64_t PgResult::affected_rows() const {
  const char* count = result_ ? PQcmdTuples(result_.get()) : "";
  return *count ? std::stoll(count) : 0;
}

PgConnection::PgConnection(ConnectionOptions options) : options_(std::move(options)) { connect_with_retry("connect"); }

PgConnection::~PgConnection() { drop_link(); }

void PgConnection::drop_link() {
  if (conn_) PQfinish(conn_);
  conn_ = nullptr;
}

bool PgConnection::link_ok() const { return conn_ && PQstatus(conn_) == CONNECTION_OK; }

void PgConnection::connect_with_retry(const std::string& why) {
  const auto deadline = std::chrono::steady_clock::now() + options_.reconnect_deadline;
  std::string last_error;
  for (;;) {
    drop_link();
    conn_ = PQconnectdb(options_.conninfo.c_str());
    if (link_ok()) break;
    last_error = connection_message(conn_);
    if (std::chrono::steady_clock::now() >= deadline)
      throw ConnectionLost(why,
                           "cannot reach the database (" + last_error + ") within " +
                               std::to_string(options_.reconnect_deadline.count()) + " ms",
                           "");
    std::this_thread::sleep_for(options_.reconnect_interval);
  }
  // Notices (e.g. "relation already exists, skipping") are not errors; keep them off stderr.
  PQsetNoticeProcessor(
      conn_, [](void*, const char*) {}, nullptr);
  for (const std::string& channel : listened_channels_) {
    char* quoted = PQescapeIdentifier(conn_, channel.data(), channel.size());
    const std::string sql = "LISTEN " + std::string(quoted);
    PQfreemem(quoted);
    send({"listen", sql}, {});
  }
}

PgResult PgConnection::send(const Statement& statement, const std::vector<PgParam>& params) {
  std::vector<const char*> values;
  std::vector<int> lengths, formats;
  std::vector<Oid> types;
  values.reserve(params.size());
  for (const PgParam& p : params) {
    values.push_back(p.value() ? p.value()->data() : nullptr);
    lengths.push_back(p.value() ? static_cast<int>(p.value()->size()) : 0);
    formats.push_back(p.binary() ? 1 : 0);
    types.push_back(p.binary() ? kByteaOid : 0);  // 0: the server infers the type
  }
  const std::string name(statement.name), sql(statement.sql);
  ++round_trips_;
  pg_result* raw = PQexecParams(conn_, sql.c_str(), static_cast<int>(params.size()), types.data(), values.data(),
                                lengths.data(), formats.data(), 0);
  const ExecStatusType status = raw ? PQresultStatus(raw) : PGRES_FATAL_ERROR;
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return PgResult(raw);
  std::string sqlstate, message;
  if (raw) {
    const char* code = PQresultErrorField(raw, PG_DIAG_SQLSTATE);
    sqlstate = code ? code : "";
    const char* primary = PQresultErrorField(raw, PG_DIAG_MESSAGE_PRIMARY);
    message = primary ? primary : PQresStatus(status);
    PQclear(raw);
  } else {
    message = connection_message(conn_);
  }
  if (!link_ok() || is_link_failure(sqlstate)) {
    throw ConnectionLost(name, message.empty() ? connection_message(conn_) : message, sqlstate);
  }
  throw DatabaseError(name, message, sqlstate);
}

PgResult PgConnection::execute(const Statement& statement, const std::vector<PgParam>& params) {
  for (;;) {
    if (!link_ok()) {
      if (in_transaction_) throw ConnectionLost(std::string(statement.name), "the link broke inside a transaction", "");
      ++reconnects_;
      connect_with_retry(std::string(statement.name));
    }
    try {
      return send(statement, params);
    } catch (const ConnectionLost&) {
      // Inside a transaction the caller re-runs it whole; outside, the statement is sent again.
      if (in_transaction_) throw;
      drop_link();  // a "shutting down" answer may come on a socket still open: drop it too
    }
  }
}

void PgConnection::transaction(const std::function<void()>& body) {
  for (;;) {
    execute({"begin", "BEGIN"});
    in_transaction_ = true;
    try {
      body();
      execute({"commit", "COMMIT"});
      in_transaction_ = false;
      return;
    } catch (const ConnectionLost&) {
      in_transaction_ = false;  // the server rolled it back when the link went; run it again
    } catch (...) {
      in_transaction_ = false;
      if (link_ok()) {
        try {
          execute({"rollback", "ROLLBACK"});
        } catch (const DatabaseError&) {
          // The original error is the one worth reporting.
        }
      }
      throw;
    }
  }
}

void PgConnection::listen(std::string_view channel) {
  // LISTEN takes an identifier, not a parameter: only plain names are accepted, and quoted.
  if (channel.empty() || !std::all_of(channel.begin(), channel.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
      }))
    throw std::invalid_argument("database: channel name '" + std::string(channel) + "' is not [a-z0-9_]+");
  listened_channels_.emplace_back(channel);
  if (!link_ok()) {
    ++reconnects_;
    connect_with_retry("listen");  // LISTENs every channel, this one included
    return;
  }
  char* quoted = PQescapeIdentifier(conn_, channel.data(), channel.size());
  const std::string sql = "LISTEN " + std::string(quoted);
  PQfreemem(quoted);
  execute({"listen", sql});
}

std::optional<Notification> PgConnection::take_notification() {
  PGnotify* notify = PQnotifies(conn_);
  if (!notify) return std::nullopt;
  Notification n{notify->relname ? notify->relname : "", notify->extra ? notify->extra : ""};
  PQfreemem(notify);
  return n;
}

std::optional<Notification> PgConnection::wait_for_notification(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (!link_ok()) {
      ++reconnects_;
      connect_with_retry("wait_for_notification");
    }
    PQconsumeInput(conn_);
    if (auto n = take_notification()) return n;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return std::nullopt;
    pollfd fd{PQsocket(conn_), POLLIN, 0};
    if (fd.fd < 0) {
      drop_link();
      continue;
    }
    const int ready = ::poll(&fd, 1, static_cast<int>(left));
    if (ready < 0 && errno != EINTR)
      throw DatabaseError("wait_for_notification", std::string("poll: ") + std::strerror(errno), "");
    if (ready > 0 && !PQconsumeInput(conn_)) {
      // The server went away while we waited; the loop re-opens the link and LISTENs again.
      drop_link();
      continue;
    }
    if (auto n = take_notification()) return n;
  }
}

}  // namespace snarkpipe::cluster
