// A real PostgreSQL for the cluster tests (issue 26): initdb into a temporary folder, the server
// as an unprivileged user (the tests may run as root; the server refuses root), listening on
// 127.0.0.1 on a free port and on a unix socket in the folder. Stopped and removed after.
// No mock: every test talks to the real server.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>

namespace snarkpipe::cluster::testing {

class PostgresServer {
 public:
  // Why a server cannot be started here (no initdb/postgres found, root without an
  // unprivileged user to run it as), or nullopt when it can. Tests GTEST_SKIP with it.
  static std::optional<std::string> unavailable_reason();

  // initdb and start; throws std::runtime_error with the server's log on failure.
  PostgresServer();
  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  // Again after stop(): same folder, same port. The server is killed when the thread that
  // started it ends (so a crashed test leaves no server behind): start it from a thread that
  // outlives its use.
  void start();
  // A fast shutdown (SIGINT: clients are disconnected, work in flight is rolled back).
  void stop();
  void restart();
  bool running() const { return postmaster_ > 0; }

  int port() const { return port_; }
  // libpq keyword form, TCP on 127.0.0.1.
  std::string conninfo(const std::string& database = "postgres") const;
  // postgresql://user@127.0.0.1:port/database, as `--db` takes it.
  std::string uri(const std::string& database = "postgres") const;
  // A new empty database (each test its own), returned as conninfo.
  std::string create_database();

 private:
  std::filesystem::path folder_;
  int port_ = 0;
  pid_t postmaster_ = 0;
  int databases_made_ = 0;
};

}  // namespace snarkpipe::cluster::testing
