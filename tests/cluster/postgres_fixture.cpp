#include "postgres_fixture.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "cluster/pg_connection.hpp"

namespace snarkpipe::cluster::testing {

namespace {

namespace fs = std::filesystem;

constexpr const char* kUnprivilegedUser = "nobody";
constexpr const char* kDatabaseUser = "snarkpipe";

// SNARKPIPE_PG_BINDIR, else the newest /usr/lib/postgresql/<version>/bin (Debian's layout).
std::optional<fs::path> server_bin_dir() {
  if (const char* env = std::getenv("SNARKPIPE_PG_BINDIR")) return fs::path(env);
  std::optional<fs::path> best;
  int best_version = -1;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    const std::string name = entry.path().filename().string();
    const int version = std::atoi(name.c_str());
    if (version > best_version && fs::exists(entry.path() / "bin" / "postgres")) {
      best_version = version;
      best = entry.path() / "bin";
    }
  }
  return best;
}

struct RunAs {
  bool switch_user = false;
  uid_t uid = 0;
  gid_t gid = 0;
};

RunAs run_as() {
  RunAs who;
  if (::geteuid() != 0) return who;
  const passwd* pw = ::getpwnam(kUnprivilegedUser);
  if (!pw) throw std::runtime_error("running as root and there is no user 'nobody' to run PostgreSQL as");
  who.switch_user = true;
  who.uid = pw->pw_uid;
  who.gid = pw->pw_gid;
  return who;
}

// Starts argv as the unprivileged user in `cwd`, output appended to `log`; returns its pid.
pid_t spawn(const std::vector<std::string>& argv, const fs::path& cwd, const fs::path& log) {
  const RunAs who = run_as();
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    if (who.switch_user && (::setgroups(0, nullptr) != 0 || ::setgid(who.gid) != 0 || ::setuid(who.uid) != 0))
      ::_exit(126);
    // The server dies with the test (set after setuid, which clears it): no orphan on a crash.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::chdir(cwd.c_str()) != 0) ::_exit(126);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  return pid;
}

std::string read_log(const fs::path& log) {
  std::ifstream in(log);
  std::stringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  return text.size() > 4000 ? text.substr(text.size() - 4000) : text;
}

int free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    if (fd >= 0) ::close(fd);
    throw std::runtime_error("no free port on 127.0.0.1");
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

}  // namespace

std::optional<std::string> PostgresServer::unavailable_reason() {
  const auto bin = server_bin_dir();
  if (!bin || !fs::exists(*bin / "initdb") || !fs::exists(*bin / "postgres"))
    return "PostgreSQL server binaries (initdb, postgres) not found in /usr/lib/postgresql/*/bin or "
           "$SNARKPIPE_PG_BINDIR: install Debian's `postgresql` (make deps)";
  if (::geteuid() == 0 && !::getpwnam(kUnprivilegedUser))
    return "running as root with no user 'nobody': PostgreSQL refuses to run as root";
  return std::nullopt;
}

PostgresServer::PostgresServer() {
  if (auto why = unavailable_reason()) throw std::runtime_error(*why);
  char pattern[] = "/tmp/snarkpipe-pg-XXXXXX";
  if (!::mkdtemp(pattern)) throw std::runtime_error("mkdtemp failed");
  folder_ = pattern;
  fs::create_directories(folder_ / "socket");
  const RunAs who = run_as();
  if (who.switch_user) {
    for (const fs::path& p : {folder_, folder_ / "socket"})
      if (::chown(p.c_str(), who.uid, who.gid) != 0) throw std::runtime_error("chown " + p.string() + " failed");
  }
  const fs::path bin = *server_bin_dir();
  const fs::path log = folder_ / "initdb.log";
  const pid_t pid = spawn({(bin / "initdb").string(), "-D", (folder_ / "data").string(), "-U", kDatabaseUser, "-A",
                           "trust", "-E", "UTF8", "--locale=C", "--no-sync"},
                          folder_, log);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    const std::string text = read_log(log);
    fs::remove_all(folder_);
    throw std::runtime_error("initdb failed:\n" + text);
  }
  port_ = free_loopback_port();
  start();
}

PostgresServer::~PostgresServer() {
  try {
    stop();
  } catch (...) {}
  std::error_code ec;
  fs::remove_all(folder_, ec);
}

void PostgresServer::start() {
  if (running()) return;
  const fs::path bin = *server_bin_dir();
  // fsync off: a test server need not survive power loss, and the 2-core CI machine is slow.
  postmaster_ =
      spawn({(bin / "postgres").string(), "-D", (folder_ / "data").string(), "-p", std::to_string(port_), "-c",
             "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=" + (folder_ / "socket").string(), "-c",
             "fsync=off", "-c", "max_connections=60"},
            folder_, folder_ / "server.log");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (PQping(conninfo().c_str()) != PQPING_OK) {
    int status = 0;
    if (::waitpid(postmaster_, &status, WNOHANG) == postmaster_) {
      postmaster_ = 0;
      throw std::runtime_error("postgres exited at start:\n" + read_log(folder_ / "server.log"));
    }
    if (std::chrono::steady_clock::now() > deadline)
      throw std::runtime_error("postgres not ready within 60 s:\n" + read_log(folder_ / "server.log"));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

void PostgresServer::stop() {
  if (!running()) return;
  ::kill(postmaster_, SIGINT);
  int status = 0;
  ::waitpid(postmaster_, &status, 0);
  postmaster_ = 0;
}

void PostgresServer::restart() {
  stop();
  start();
}

std::string PostgresServer::conninfo(const std::string& database) const {
  return "host=127.0.0.1 port=" + std::to_string(port_) + " user=" + kDatabaseUser + " dbname=" + database +
         " connect_timeout=5";
}

std::string PostgresServer::uri(const std::string& database) const {
  return std::string("postgresql://") + kDatabaseUser + "@127.0.0.1:" + std::to_string(port_) + "/" + database;
}

std::string PostgresServer::create_database() {
  std::random_device rd;
  const std::string name = "test_" + std::to_string(++databases_made_) + "_" + std::to_string(rd() % 1000000);
  PgConnection admin({conninfo()});
  // CREATE DATABASE takes an identifier, not a parameter; the name is made here, of [a-z0-9_].
  const std::string sql = "CREATE DATABASE " + name;
  admin.execute({"create_database", sql});
  return conninfo(name);
}

}  // namespace snarkpipe::cluster::testing
