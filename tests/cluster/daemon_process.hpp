// One `snarkpipe serve` as a child process (issue 26), for the cluster's tests and its
// benchmark (bench/cluster/bench_cluster_hosts.cpp): fork/exec of SNARKPIPE_BINARY (each
// target that includes this defines it), its stderr in a log file read for its port and its
// "ready" line, requests over HTTP. Optionally placed like a machine of its own: pinned to CPUs
// (the affinity is set in the child before exec, so the daemon and every thread it starts run
// only there, as under `taskset -c`, and its engine sizes its workers from that set), and in a
// session of its own (setsid), because where the kernel groups scheduling by session
// (autogroup) the hosts would otherwise split one group's share of the CPUs between them.
#pragma once

#ifndef SNARKPIPE_BINARY
#error "SNARKPIPE_BINARY (the path of the snarkpipe program) must be defined by the target"
#endif

#include <fcntl.h>
#include <httplib.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace snarkpipe::cluster::testing {

// One `snarkpipe serve` child; its stderr goes to a log file the caller reads for its port.
class Daemon {
 public:
  // `extra`: more arguments (--circuit ..., --set ...); `env`: NAME=VALUE set in the daemon's
  // environment (libfaketime's, say: the daemon itself stays the child, so signals reach it);
  // the daemon runs in `dir`; `cpus`: the CPUs it may run on, in a session of its own (empty:
  // all of this process's, in its session).
  Daemon(const std::string& db, const std::string& host, const std::filesystem::path& dir,
         std::vector<std::string> extra, std::vector<std::string> env = {}, std::vector<int> cpus = {}) {
    std::filesystem::create_directories(dir);
    log_ = dir / "daemon.log";
    std::vector<std::string> args;
    for (std::string a :
         {std::string(SNARKPIPE_BINARY), std::string("serve"), std::string("--listen"), std::string("127.0.0.1:0"),
          std::string("--state-dir"), (dir / "state").string(), std::string("--db"), db, std::string("--set"),
          "service.cluster_host=" + host, std::string("--backend"), std::string("cpu"), std::string("--set"),
          std::string("synthesis.workers=1"), std::string("--set"), std::string("finalizer.workers=1")})
      args.push_back(a);
    for (auto& a : extra) args.push_back(a);
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c : cpus) CPU_SET(c, &set);
    pid_ = ::fork();
    if (pid_ == 0) {
      const int fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(fd, 2);
      if (!cpus.empty() && (::sched_setaffinity(0, sizeof set, &set) != 0 || ::setsid() < 0)) ::_exit(125);
      if (::chdir(dir.c_str()) != 0) ::_exit(126);
      for (auto& e : env) ::putenv(e.data());
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execvp(argv[0], argv.data());
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
  ~Daemon() { stop(SIGTERM); }
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  // SIGTERM: a drain; SIGKILL: a host lost.
  void stop(int signal) {
    if (pid_ > 0) {
      ::kill(pid_, signal);
      ::waitpid(pid_, nullptr, 0);
      pid_ = 0;
    }
  }
  pid_t pid() const { return pid_; }
  int port() const { return port_; }
  std::string log() const {
    std::ifstream in(log_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // Requests carry "Authorization: Bearer TOKEN" from now on (empty: none).
  void set_token(const std::string& token) { token_ = token; }
  nlohmann::json request(const std::string& method, const std::string& path, const std::string& body = "") const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(std::chrono::seconds(120));
    httplib::Headers h;
    if (!token_.empty()) h.emplace("Authorization", "Bearer " + token_);
    const auto r = method == "GET"      ? c.Get(path, h)
                   : method == "DELETE" ? c.Delete(path, h)
                   : method == "UPLOAD" ? c.Post(path, h, body, "application/octet-stream")
                                        : c.Post(path, h, body, "application/json");
    if (!r) throw std::runtime_error(method + " " + path + ": no answer");
    nlohmann::json j = nlohmann::json::parse(r->body);
    j["http_status"] = r->status;
    return j;
  }

 private:
  pid_t pid_ = 0;
  int port_ = 0;
  std::filesystem::path log_;
  std::string token_;
};

}  // namespace snarkpipe::cluster::testing
