// `snarkpipe serve --db postgresql://...` as processes against a real PostgreSQL: hosts that
// share one job store. A job submitted to one host is found, listed and served (with the same
// proofs) by another; one idempotency key names one job across hosts.
#include <gtest/gtest.h>
#include <httplib.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "postgres_fixture.hpp"
#include "test_seed.hpp"

namespace snarkpipe::cluster {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::PostgresServer;

// One `snarkpipe serve` child; its stderr goes to a log file the test reads for its port.
class Daemon {
 public:
  Daemon(const std::string& db, const std::string& host, const fs::path& dir, std::uint64_t circuit_seed) {
    fs::create_directories(dir);
    log_ = dir / "daemon.log";
    const std::string seed = std::to_string(circuit_seed);
    std::vector<std::string> args = {SNARKPIPE_BINARY, "serve",
                                     "--listen",       "127.0.0.1:0",
                                     "--state-dir",    (dir / "state").string(),
                                     "--db",           db,
                                     "--set",          "service.cluster_host=" + host,
                                     "--backend",      "cpu",
                                     "--set",          "synthesis.workers=1",
                                     "--set",          "finalizer.workers=1",
                                     "--circuit",      "synthetic",
                                     "--constraints",  "2^10",
                                     "--inputs",       "2",
                                     "--seed",         seed};
    pid_ = ::fork();
    if (pid_ == 0) {
      const int fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(fd, 2);
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    const std::regex bound(R"(daemon on http://127\.0\.0\.1:(\d+))");
    while (std::chrono::steady_clock::now() < give_up) {
      const std::string text = log();
      std::smatch m;
      if (port_ == 0 && std::regex_search(text, m, bound)) port_ = std::stoi(m[1]);
      if (port_ && text.find("snarkpipe daemon: ready") != std::string::npos) return;
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = 0;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    throw std::runtime_error("the daemon did not get ready:\n" + log());
  }
  ~Daemon() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  std::string log() const {
    std::ifstream in(log_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  json request(const std::string& method, const std::string& path, const std::string& body = "") const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(std::chrono::seconds(120));
    const auto r = method == "GET"      ? c.Get(path)
                   : method == "DELETE" ? c.Delete(path)
                                        : c.Post(path, body, "application/json");
    if (!r) throw std::runtime_error(method + " " + path + ": no answer");
    json j = json::parse(r->body);
    j["http_status"] = r->status;
    return j;
  }

 private:
  pid_t pid_ = 0;
  int port_ = 0;
  fs::path log_;
};

struct Cluster : ::testing::Test {
  void SetUp() override {
    if (auto why = PostgresServer::unavailable_reason()) GTEST_SKIP() << *why;
    server = std::make_unique<PostgresServer>();
    const std::string conninfo = server->create_database();
    const auto at = conninfo.find("dbname=") + 7;
    uri = server->uri(conninfo.substr(at, conninfo.find(' ', at) - at));
    char tmpl[] = "/tmp/snarkpipe-cluster-serve-XXXXXX";
    dir = ::mkdtemp(tmpl);
  }
  void TearDown() override {
    daemons.clear();
    std::error_code ec;
    if (!dir.empty()) fs::remove_all(dir, ec);
  }
  const Daemon& start(const std::string& host, std::uint64_t circuit_seed) {
    daemons.push_back(std::make_unique<Daemon>(uri, host, dir / host, circuit_seed));
    return *daemons.back();
  }
  std::unique_ptr<PostgresServer> server;
  std::string uri;
  fs::path dir;
  std::vector<std::unique_ptr<Daemon>> daemons;
};

TEST_F(Cluster, AJobSubmittedToOneHostIsServedByAnotherWithItsProofs) {
  const std::uint64_t seed = test_seed("ClusterServe") % 1000000 + 1;
  const Daemon& a = start("host-a", seed);
  const Daemon& b = start("host-b", seed);
  const json circuits = a.request("GET", "/v1/circuits");
  ASSERT_EQ(circuits.at("circuits").size(), 1u) << circuits.dump();
  const std::string circuit = circuits.at("circuits")[0];

  const json submitted =
      a.request("POST", "/v1/jobs", json{{"circuit", circuit}, {"partitions", 2}, {"seed", seed}}.dump());
  ASSERT_EQ(submitted.at("http_status"), 200) << submitted.dump();
  const std::string id = std::to_string(submitted.at("id").get<std::int64_t>());
  const json done = a.request("GET", "/v1/jobs/" + id + "/wait?timeout_s=120");
  ASSERT_EQ(done.at("state"), "done") << done.dump();
  ASSERT_EQ(done.at("proofs").size(), 2u);

  // Host b never proved it, yet reads it from the shared store: the same proofs, the same inputs.
  const json seen = b.request("GET", "/v1/jobs/" + id);
  EXPECT_EQ(seen.at("state"), "done") << seen.dump();
  EXPECT_EQ(seen.at("proofs"), done.at("proofs"));
  EXPECT_EQ(seen.at("public_inputs"), done.at("public_inputs"));
  const json listing = b.request("GET", "/v1/jobs");
  bool listed = false;
  for (const json& j : listing.at("jobs")) listed |= std::to_string(j.at("id").get<std::int64_t>()) == id;
  EXPECT_TRUE(listed) << listing.dump();
}

TEST_F(Cluster, OneIdempotencyKeyNamesOneJobAcrossHosts) {
  const std::uint64_t seed = test_seed("ClusterServeKey") % 1000000 + 1;
  const Daemon& a = start("host-a", seed);
  const Daemon& b = start("host-b", seed);
  const std::string circuit = a.request("GET", "/v1/circuits").at("circuits")[0];
  const std::string key = "sector-" + std::to_string(seed);
  const std::string body =
      json{{"circuit", circuit}, {"partitions", 1}, {"seed", seed}, {"idempotency_key", key}}.dump();
  const json first = a.request("POST", "/v1/jobs", body);
  const json again = b.request("POST", "/v1/jobs", body);
  ASSERT_EQ(first.at("http_status"), 200) << first.dump();
  ASSERT_EQ(again.at("http_status"), 200) << again.dump();
  EXPECT_TRUE(first.at("created").get<bool>());
  EXPECT_FALSE(again.at("created").get<bool>());
  EXPECT_EQ(first.at("id"), again.at("id"));
  // The key with another request is refused on the other host too.
  const json other =
      b.request("POST", "/v1/jobs",
                json{{"circuit", circuit}, {"partitions", 2}, {"seed", seed}, {"idempotency_key", key}}.dump());
  EXPECT_EQ(other.at("http_status"), 400) << other.dump();
}

}  // namespace
}  // namespace snarkpipe::cluster
