// snarkpipe bench soak-daemon (issue 27): a real `snarkpipe serve` child process (CPU backend,
// small synthetic circuits, a fresh state directory, loopback, a bearer token) under load from
// several client threads, SIGKILLed or SIGTERMed at random points and restarted on the same
// state directory. Then the checks: every accepted job is final for the reason it was given (done,
// or cancelled when a cancel was answered "cancelled"), none lost, none twice (one id never shows
// two different proofs, one idempotency key never two ids), every proof verifies against the
// served vk, the daemon's RSS stayed under its budget, and no process of ours is left behind.
//
// A submit the daemon may have taken without answering (the connection broke after the request
// was sent) is "ambiguous": without an idempotency key the client cannot know its id, so the
// daemon may hold a job nobody was told of. Such jobs must still finish; there may be at most as
// many of them as there were ambiguous submits.
#ifdef SNARKPIPE_HAVE_SERVICE
#include <httplib.h>
#include <signal.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/command.hpp"

#ifdef SNARKPIPE_HAVE_SERVICE
#include "base/hex.hpp"
#include "cli/bench_record.hpp"
#include "cli/measure.hpp"
#include "engine/config.hpp"
#include "engine/memory_budget.hpp"
#include "engine/witness.hpp"
#include "ff/random.hpp"
#include "gadgets/synthetic.hpp"
#include "groth16/params_file.hpp"
#include "groth16/proof.hpp"
#include "groth16/verifier.hpp"
#include "service/sha256.hpp"
#endif

namespace snarkpipe::cli {

namespace {

struct SoakDaemonOptions {
  std::size_t jobs = 300;
  std::size_t clients = 4;
  std::size_t faults = 10;  // SIGKILLs and SIGTERMs, about half each
  std::uint64_t seed = 0;
  std::string budget = "256 MiB";    // the daemon's memory.budget
  std::string rss_slack = "96 MiB";  // allowed above it: the program, threads, SQLite, allocator
  bool json = false;
  std::string out;
};

#ifdef SNARKPIPE_HAVE_SERVICE

using nlohmann::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::uint64_t rss_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  return 0;
}

// Our live children (any process whose parent is this one), zombies included.
std::vector<pid_t> children_of_this_process() {
  std::vector<pid_t> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0]))) continue;
    std::ifstream in(e.path() / "stat");
    std::string stat;
    std::getline(in, stat);
    const std::size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    int ppid = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %c %d", &state, &ppid) == 2 && ppid == getpid())
      out.push_back(std::stoi(name));
  }
  return out;
}

// One `snarkpipe serve` child at a time, restarted on the same state directory and port.
class DaemonChild {
 public:
  DaemonChild(std::vector<std::string> args, fs::path log_dir, int port)
      : args_(std::move(args)), log_dir_(std::move(log_dir)), port_(port) {}
  ~DaemonChild() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  // Starts it and waits until /v1/status says ready; false (the child reaped) when it does not.
  bool start(std::chrono::seconds limit) {
    const fs::path log = log_dir_ / ("daemon-" + std::to_string(++starts_) + ".log");
    std::vector<char*> argv;
    static const std::string self = fs::read_symlink("/proc/self/exe").string();
    argv.push_back(const_cast<char*>(self.c_str()));
    for (auto& a : args_) argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) return false;
    if (pid == 0) {
      // The daemon dies with the soak, so a crashed soak leaves no daemon behind.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(127);
      if (std::FILE* f = std::fopen(log.c_str(), "w")) {
        dup2(fileno(f), 1);
        dup2(fileno(f), 2);
      }
      execv(argv[0], argv.data());
      _exit(127);
    }
    pid_ = pid;
    started_.push_back(pid);
    last_log_ = log;
    httplib::Client probe("127.0.0.1", port_);
    probe.set_connection_timeout(0, 200'000);
    probe.set_read_timeout(2, 0);
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return false;
      }
      if (auto r = probe.Get("/v1/status"); r && r->status == 200) {
        const json s = json::parse(r->body, nullptr, false);
        if (!s.is_discarded() && s.value("ready", false)) return true;
      }
      std::this_thread::sleep_for(20ms);
    }
    return false;
  }

  // Sends `sig` and reaps the child; the exit status (-signal when killed by one), or nullopt
  // when it had not exited within `limit` (then it is SIGKILLed and reaped).
  std::optional<int> stop(int sig, std::chrono::seconds limit) {
    if (pid_ <= 0) return -SIGKILL;
    ::kill(pid_, sig);
    const auto deadline = std::chrono::steady_clock::now() + limit;
    int status = 0;
    std::optional<int> result;
    while (true) {
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        result = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
        break;
      }
      if (std::chrono::steady_clock::now() > deadline) {
        ::kill(pid_, SIGKILL);
        waitpid(pid_, &status, 0);
        break;
      }
      std::this_thread::sleep_for(5ms);
    }
    pid_ = -1;
    return result;
  }

  pid_t pid() const { return pid_; }
  const std::vector<pid_t>& started() const { return started_; }
  fs::path last_log() const { return last_log_; }

 private:
  std::vector<std::string> args_;
  fs::path log_dir_;
  int port_;
  pid_t pid_ = -1;
  std::size_t starts_ = 0;
  std::vector<pid_t> started_;
  fs::path last_log_;
};

// A port free on loopback now (the kernel's choice); the daemon binds it on every start.
int free_loopback_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  const bool ok = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
                  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0;
  close(fd);
  if (!ok) throw std::runtime_error("soak-daemon: no free loopback port");
  return ntohs(a.sin_port);
}

struct SoakCircuitShape {
  std::size_t constraints, inputs;
  std::uint64_t seed;
  std::string name;                      // the daemon's
  std::vector<std::uint8_t> assignment;  // the registered witness, for uploads ("assignment" format)
  std::shared_ptr<groth16::PreparedVerifyingKey> pvk;
};

// What a client was told, and what it asked for.
struct AcceptedJob {
  std::uint64_t id = 0;
  std::size_t circuit = 0, partitions = 1;
  std::string priority, idempotency_key;
  bool uploaded = false;
  bool cancel_answered_cancelled = false;
  std::vector<std::string> first_seen_proofs;  // the proofs when a client first saw it done
};

struct Ledger {
  std::mutex mu;
  std::map<std::uint64_t, AcceptedJob> jobs;
  std::map<std::string, std::uint64_t> id_of_key;
  std::size_t ambiguous_submits = 0, refused_while_down = 0, resubmits_same = 0, resubmits_other = 0, ids_reused = 0,
              cancels_sent = 0, cancels_honoured = 0, proofs_changed = 0;
  std::vector<std::string> problems;
  void problem(const std::string& p) {
    std::lock_guard lock(mu);
    if (problems.size() < 50) problems.push_back(p);
  }
};

// A circuit name as one URL path segment: all but letters, digits and -._~ escaped.
std::string path_segment(const std::string& text) {
  static constexpr char digits[] = "0123456789ABCDEF";
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || ch == '-' || ch == '.' || ch == '_' || ch == '~') out += ch;
    else out += {'%', digits[c >> 4], digits[c & 15]};
  }
  return out;
}

bool is_final(const std::string& state) { return state == "done" || state == "failed" || state == "cancelled"; }

int run_soak_daemon(SoakDaemonOptions& o, const CLI::App&) {
  const std::uint64_t seed = o.seed ? o.seed : ff::fresh_seed();
  std::fprintf(stderr, "soak-daemon: %zu jobs, %zu clients, %zu faults, seed %llu (--seed replays the plan)\n", o.jobs,
               o.clients, o.faults, static_cast<unsigned long long>(seed));
  const std::uint64_t budget = engine::parse_bytes(o.budget), rss_limit = budget + engine::parse_bytes(o.rss_slack);
  std::mt19937_64 plan_rng(seed);
  const auto t0 = std::chrono::steady_clock::now();

  const fs::path dir = fs::temp_directory_path() /
                       ("snarkpipe-soak-daemon-" + std::to_string(getpid()) + "-" + std::to_string(seed % 100000));
  fs::create_directories(dir / "state");
  const std::string token =
      base::hex(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(&seed), sizeof seed)) +
      "-soak-token";
  {
    std::ofstream cfg(dir / "serve.toml");
    cfg << "[engine]\nbackend = \"cpu\"\n[service]\nshutdown_deadline = \"2s\"\n[[service.tokens]]\nname = \"soak\"\nsha256 = \""
        << service::sha256_hex(token) << "\"\nadmin = true\nmax_jobs_in_flight = 100000\n";
  }
  const int port = free_loopback_port();
  DaemonChild daemon(
      {"serve", "--listen", "127.0.0.1:" + std::to_string(port), "--state-dir", (dir / "state").string(), "--config",
       (dir / "serve.toml").string(), "--backend", "cpu", "--set", "synthesis.workers=1", "--set",
       "gpu.workers_per_device=1", "--set", "finalizer.workers=1", "--set", "memory.budget=" + o.budget},
      dir, port);

  std::atomic<pid_t> sampled_pid{-1};
  std::atomic<std::uint64_t> rss_max{0};
  std::atomic<bool> sampling{true};
  std::thread sampler([&] {
    while (sampling) {
      if (const pid_t p = sampled_pid.load(); p > 0) {
        const std::uint64_t r = rss_of(p);
        std::uint64_t m = rss_max.load();
        while (r > m && !rss_max.compare_exchange_weak(m, r)) {}
      }
      std::this_thread::sleep_for(10ms);
    }
  });
  Ledger ledger;
  auto finish_sampler = [&] {
    sampling = false;
    if (sampler.joinable()) sampler.join();
  };

  if (!daemon.start(60s)) {
    finish_sampler();
    std::fprintf(stderr, "soak-daemon: FAILED: the daemon did not start (log %s)\n", daemon.last_log().c_str());
    return 1;
  }
  sampled_pid = daemon.pid();

  auto make_http = [&] {
    auto c = std::make_unique<httplib::Client>("127.0.0.1", port);
    c->set_bearer_token_auth(token);
    c->set_connection_timeout(1, 0);
    c->set_read_timeout(15, 0);
    c->set_write_timeout(5, 0);
    return c;
  };

  // Three synthetic shapes; each registered once (the daemon keeps them across restarts).
  std::vector<SoakCircuitShape> shapes;
  for (auto [n, inputs] : {std::pair<std::size_t, std::size_t>{512, 2}, {1024, 3}, {2048, 5}})
    shapes.push_back({n, inputs, plan_rng() >> 16, "", {}, nullptr});
  {
    auto http = make_http();
    for (auto& s : shapes) {
      const json spec = {{"type", "synthetic"},
                         {"constraints", std::to_string(s.constraints)},
                         {"inputs", s.inputs},
                         {"seed", s.seed}};
      const auto r = http->Post("/v1/circuits", spec.dump(), "application/json");
      if (!r || r->status != 200) {
        finish_sampler();
        std::fprintf(stderr, "soak-daemon: FAILED: registering %s: %s\n", spec.dump().c_str(),
                     r ? r->body.c_str() : "no answer");
        return 1;
      }
      s.name = json::parse(r->body)["name"].get<std::string>();
      const auto info = http->Get(("/v1/circuits/" + path_segment(s.name)).c_str());
      const std::vector<std::uint8_t> vk_bytes =
          base::unhex(json::parse(info->body)["vk"]["bellperson_hex"].get<std::string>());
      const fs::path vk_file = dir / "served.vk";
      std::ofstream(vk_file, std::ios::binary)
          .write(reinterpret_cast<const char*>(vk_bytes.data()), std::streamsize(vk_bytes.size()));
      s.pvk = std::make_shared<groth16::PreparedVerifyingKey>(
          groth16::PreparedVerifyingKey::from(groth16::read_vk(vk_file.string())));
      groth16::Witness w;
      engine::synthesize_into(gadgets::SyntheticCircuit(s.constraints, s.inputs, s.seed), w);
      s.assignment.resize((w.inputs.size() + w.aux.size()) * 32);
      std::uint8_t* p = s.assignment.data();
      for (const auto* v : {&w.inputs, &w.aux})
        for (const auto& x : *v) x.to_bytes_le(p), p += 32;
    }
  }

  // The plan, drawn up front from the seed so --seed replays it (the timing still varies).
  struct PlannedJob {
    std::size_t circuit, partitions;
    std::string priority;
    bool keyed, resubmit, upload, cancel;
  };
  std::vector<PlannedJob> plan;
  std::uniform_real_distribution<double> u(0, 1);
  static const char* priorities[] = {"low", "normal", "high"};
  for (std::size_t i = 0; i < o.jobs; ++i) {
    PlannedJob p;
    p.circuit = plan_rng() % shapes.size();
    p.partitions = 1 + plan_rng() % 3;
    p.priority = priorities[plan_rng() % 3];
    p.keyed = u(plan_rng) < 0.3;
    p.resubmit = p.keyed && u(plan_rng) < 0.5;
    p.upload = u(plan_rng) < 0.3;
    p.cancel = u(plan_rng) < 0.08;
    plan.push_back(p);
  }
  std::atomic<std::size_t> next_job{0};
  std::atomic<bool> daemon_lost{false};  // it would not start again: the clients stop

  // Proofs as a client first sees them, to compare with what the daemon says at the end.
  auto note_done = [&](std::uint64_t id, const json& body) {
    std::vector<std::string> proofs;
    for (const auto& p : body.value("proofs", json::array())) proofs.push_back(p.get<std::string>());
    std::lock_guard lock(ledger.mu);
    auto it = ledger.jobs.find(id);
    if (it == ledger.jobs.end()) return;
    if (it->second.first_seen_proofs.empty()) it->second.first_seen_proofs = proofs;
    else if (it->second.first_seen_proofs != proofs) ++ledger.proofs_changed;
  };

  // A call retried until the daemon answers (it may be down, starting, or draining: 503).
  auto answered = [&](httplib::Client& http, auto&& send, std::chrono::seconds limit) -> httplib::Result {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (true) {
      httplib::Result r = send();
      if (r && r->status != 503) return r;
      if (std::chrono::steady_clock::now() > deadline) return r;
      std::this_thread::sleep_for(50ms);
    }
  };

  auto client = [&](std::size_t which) {
    auto http = make_http();
    std::mt19937_64 rng(seed ^ (0xA5A5A5A5ull * (which + 1)));
    std::deque<std::uint64_t> outstanding;
    auto wait_front = [&] {
      const std::uint64_t id = outstanding.front();
      const auto r = answered(
          *http, [&] { return http->Get(("/v1/jobs/" + std::to_string(id) + "/wait?timeout_s=2").c_str()); }, 120s);
      if (!r || r->status != 200) return;  // a later wait, or the final check, settles it
      const json body = json::parse(r->body, nullptr, false);
      if (body.is_discarded() || !is_final(body.value("state", ""))) return;
      if (body["state"] == "done") note_done(id, body);
      outstanding.pop_front();
    };
    for (std::size_t i; !daemon_lost && (i = next_job++) < plan.size();) {
      const PlannedJob& p = plan[i];
      const SoakCircuitShape& s = shapes[p.circuit];
      const std::string key = p.keyed ? "soak-" + std::to_string(seed) + "-" + std::to_string(i) : "";
      std::string body_bytes;
      std::string path = "/v1/jobs";
      if (p.upload) {
        httplib::Params q = {{"circuit", s.name},
                             {"format", "assignment"},
                             {"partitions", std::to_string(p.partitions)},
                             {"priority", p.priority}};
        if (p.keyed) q.emplace("idempotency_key", key);
        path = httplib::append_query_params(path, q);
        for (std::size_t k = 0; k < p.partitions; ++k)
          body_bytes.append(reinterpret_cast<const char*>(s.assignment.data()), s.assignment.size());
      } else {
        json req = {{"circuit", s.name}, {"partitions", p.partitions}, {"priority", p.priority}, {"seed", rng() >> 12}};
        if (p.keyed) req["idempotency_key"] = key;
        body_bytes = req.dump();
      }
      const char* type = p.upload ? "application/octet-stream" : "application/json";
      std::optional<std::uint64_t> id;
      for (int attempt = 0; !id && attempt < 2000; ++attempt) {
        const httplib::Result r = http->Post(path.c_str(), body_bytes, type);
        if (r && r->status == 200) {
          id = json::parse(r->body)["id"].get<std::uint64_t>();
          break;
        }
        if (r && r->status != 503) {
          ledger.problem("job " + std::to_string(i) + " refused: HTTP " + std::to_string(r->status) + " " +
                         r->body.substr(0, 200));
          break;
        }
        // No connection or 503: not taken. A broken answer: maybe taken, unknown without a key.
        const bool maybe_taken = !r && r.error() != httplib::Error::Connection;
        {
          std::lock_guard lock(ledger.mu);
          if (maybe_taken) ++ledger.ambiguous_submits;
          else ++ledger.refused_while_down;
        }
        if (maybe_taken && !p.keyed) break;
        std::this_thread::sleep_for(50ms);
      }
      if (!id) continue;
      {
        std::lock_guard lock(ledger.mu);
        if (ledger.jobs.count(*id)) {
          if (!p.keyed || ledger.jobs[*id].idempotency_key != key) ++ledger.ids_reused;
        } else {
          ledger.jobs[*id] = AcceptedJob{*id, p.circuit, p.partitions, p.priority, key, p.upload, false, {}};
        }
        if (p.keyed) {
          auto [it, fresh] = ledger.id_of_key.emplace(key, *id);
          if (!fresh && it->second != *id) ++ledger.resubmits_other;
        }
      }
      outstanding.push_back(*id);
      if (p.cancel) {
        std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 300));
        const auto r = answered(
            *http, [&] { return http->Delete(("/v1/jobs/" + std::to_string(*id)).c_str()); }, 120s);
        const json answer = r && r->status == 200 ? json::parse(r->body, nullptr, false) : json();
        std::lock_guard lock(ledger.mu);
        ++ledger.cancels_sent;
        if (answer.is_object() && answer.value("cancelled", false)) {
          ledger.jobs[*id].cancel_answered_cancelled = true;
          ++ledger.cancels_honoured;
        }
      }
      if (p.resubmit) {
        std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 500));
        const auto r = answered(
            *http, [&] { return http->Post(path.c_str(), body_bytes, type); }, 120s);
        if (r && r->status == 200) {
          const std::uint64_t again = json::parse(r->body)["id"].get<std::uint64_t>();
          std::lock_guard lock(ledger.mu);
          (again == *id ? ledger.resubmits_same : ledger.resubmits_other)++;
        } else {
          ledger.problem("resubmitting key " + key + ": " +
                         (r ? std::to_string(r->status) + " " + r->body : "no answer"));
        }
      }
      while (outstanding.size() >= 3 && !daemon_lost) wait_front();
    }
    while (!outstanding.empty() && !daemon_lost) wait_front();
  };

  // The faults: about half SIGKILL, half SIGTERM; one of each first (a short run sees both),
  // the rest in a shuffled order.
  std::vector<int> signals;
  for (std::size_t i = 0; i < o.faults; ++i) signals.push_back(i % 2 ? SIGTERM : SIGKILL);
  if (signals.size() > 2) std::shuffle(signals.begin() + 2, signals.end(), plan_rng);
  std::size_t kills = 0, terms = 0, term_clean_exits = 0, failed_starts = 0;
  std::vector<std::uint64_t> jobs_accepted_at_fault;
  std::atomic<std::size_t> clients_running{o.clients};
  std::vector<std::thread> clients;
  for (std::size_t c = 0; c < o.clients; ++c)
    clients.emplace_back([&, c] {
      client(c);
      --clients_running;
    });
  // On this thread, which lives as long as the soak: the daemon's parent-death signal follows
  // the thread that forked it.
  std::mt19937_64 fault_rng(plan_rng());
  [&] {
    for (int sig : signals) {
      // A fault at a random moment of the load.
      std::this_thread::sleep_for(std::chrono::milliseconds(300 + fault_rng() % 1200));
      if (!clients_running) break;
      sampled_pid = -1;
      const std::optional<int> end = daemon.stop(sig, 30s);
      {
        std::lock_guard lock(ledger.mu);
        jobs_accepted_at_fault.push_back(ledger.jobs.size());
      }
      if (sig == SIGKILL) ++kills;
      else {
        ++terms;
        if (end && *end == 0) ++term_clean_exits;
        else
          ledger.problem("SIGTERM: the daemon " +
                         (end ? "exited with " + std::to_string(*end) : std::string("did not exit in 30 s")));
      }
      if (!daemon.start(60s)) {
        ++failed_starts;
        ledger.problem("the daemon did not restart (log " + daemon.last_log().string() + ")");
        if (!daemon.start(60s)) {
          daemon_lost = true;
          return;
        }
      }
      sampled_pid = daemon.pid();
    }
  }();
  for (auto& t : clients) t.join();

  // The final check, on the daemon as the last restart left it.
  std::size_t done = 0, cancelled = 0, failed = 0, wrong_cause = 0, not_final = 0, proofs_checked = 0,
              invalid_proofs = 0, listed_unknown = 0, lost = 0, proof_changes = ledger.proofs_changed;
  std::map<std::uint64_t, json> final_jobs;
  auto http = make_http();
  auto verify_done = [&](std::uint64_t id, const json& body, std::size_t circuit) {
    const SoakCircuitShape& s = shapes[circuit];
    const auto& proofs = body["proofs"];
    const auto& publics = body["public_inputs"];
    for (std::size_t k = 0; k < proofs.size(); ++k) {
      ++proofs_checked;
      const std::vector<std::uint8_t> bytes = base::unhex(proofs[k].get<std::string>());
      std::vector<ff::Fr> inputs;
      for (const auto& x : publics[k]) inputs.push_back(*ff::Fr::from_decimal(x.get<std::string>()));
      bool ok =
          bytes.size() == groth16::Proof::BYTES && groth16::verify(*s.pvk, groth16::Proof::from_bytes(bytes), inputs);
      if (ok && !inputs.empty()) {  // and not with another input: the check means something
        inputs[0] += ff::Fr::one();
        ok = !groth16::verify(*s.pvk, groth16::Proof::from_bytes(bytes), inputs);
      }
      if (!ok) {
        ++invalid_proofs;
        ledger.problem("job " + std::to_string(id) + " partition " + std::to_string(k) + ": the proof does not verify");
      }
    }
  };
  auto final_of = [&](std::uint64_t id) -> json {
    const auto deadline = std::chrono::steady_clock::now() + 240s;
    json body;
    while (std::chrono::steady_clock::now() < deadline) {
      const auto r = answered(
          *http, [&] { return http->Get(("/v1/jobs/" + std::to_string(id) + "/wait?timeout_s=5").c_str()); }, 60s);
      if (!r) continue;
      body = json::parse(r->body, nullptr, false);
      if (r->status == 404) return body;
      if (!body.is_discarded() && is_final(body.value("state", ""))) return body;
    }
    return body;
  };
  std::map<std::uint64_t, AcceptedJob> accepted;
  {
    std::lock_guard lock(ledger.mu);
    accepted = ledger.jobs;
  }
  for (const auto& [id, a] : accepted) {
    const json body = final_of(id);
    const std::string state = body.is_object() ? body.value("state", "") : "";
    if (state.empty()) {
      ++lost;
      ledger.problem("job " + std::to_string(id) + " is gone: " + body.dump().substr(0, 200));
      continue;
    }
    if (!is_final(state)) {
      ++not_final;
      ledger.problem("job " + std::to_string(id) + " is still " + state);
      continue;
    }
    final_jobs[id] = body;
    if (state == "done") {
      ++done;
      if (a.cancel_answered_cancelled)
        ++wrong_cause, ledger.problem("job " + std::to_string(id) + " was cancelled, yet is done");
      if (body["proofs"].size() != a.partitions)
        ++wrong_cause, ledger.problem("job " + std::to_string(id) + ": wrong proof count");
      verify_done(id, body, a.circuit);
      std::vector<std::string> proofs;
      for (const auto& p : body["proofs"]) proofs.push_back(p.get<std::string>());
      if (!a.first_seen_proofs.empty() && a.first_seen_proofs != proofs) {
        ++proof_changes;
        ledger.problem("job " + std::to_string(id) + " returned two different proofs");
      }
    } else if (state == "cancelled") {
      ++cancelled;
      if (!a.cancel_answered_cancelled || body.value("error", "") != "cancelled by the client") {
        ++wrong_cause;
        ledger.problem("job " + std::to_string(id) + " cancelled without being cancelled: " + body.value("error", ""));
      }
    } else {
      ++failed;
      ++wrong_cause;  // nothing the soak does should fail a job
      ledger.problem("job " + std::to_string(id) + " failed: " + body.value("error", ""));
    }
  }
  // Jobs the daemon holds that no client was told of: only ambiguous submits may make them,
  // and they must finish too.
  std::map<std::string, std::size_t> circuit_index;
  for (std::size_t i = 0; i < shapes.size(); ++i) circuit_index[shapes[i].name] = i;
  const auto listing = answered(
      *http, [&] { return http->Get("/v1/jobs"); }, 60s);
  std::size_t listed = 0;
  if (listing && listing->status == 200) {
    const json listed_jobs = json::parse(listing->body, nullptr, false);
    for (const auto& j : listed_jobs.value("jobs", json::array())) {
      ++listed;
      const std::uint64_t id = j["id"].get<std::uint64_t>();
      if (accepted.count(id)) continue;
      ++listed_unknown;
      const json body = final_of(id);
      if (body.value("state", "") == "done") {
        ++done;
        verify_done(id, body, circuit_index[j["circuit"].get<std::string>()]);
      } else {
        ++not_final;
        ledger.problem("unannounced job " + std::to_string(id) + " is " + body.value("state", "?") + " " +
                       body.value("error", ""));
      }
    }
  } else {
    ledger.problem("GET /v1/jobs did not answer at the end");
  }
  if (listed_unknown > ledger.ambiguous_submits)
    ledger.problem(std::to_string(listed_unknown) + " jobs nobody was told of, from " +
                   std::to_string(ledger.ambiguous_submits) + " ambiguous submits");
  if (listed != accepted.size() + listed_unknown)
    ++lost, ledger.problem("GET /v1/jobs lists " + std::to_string(listed) + " jobs");

  // The end: SIGTERM, then nothing of ours may be left running.
  sampled_pid = -1;
  const std::optional<int> last_exit = daemon.stop(SIGTERM, 30s);
  if (!last_exit || *last_exit != 0) ledger.problem("the last SIGTERM did not end the daemon cleanly");
  finish_sampler();
  std::size_t stray = 0;
  for (pid_t p : daemon.started())
    if (::kill(p, 0) == 0) ++stray;
  stray += children_of_this_process().size();
  if (stray) ledger.problem(std::to_string(stray) + " processes left behind");
  const std::uint64_t rss_peak = rss_max.load();
  if (rss_peak > rss_limit)
    ledger.problem("the daemon's RSS reached " + engine::format_bytes(rss_peak) + ", above " +
                   engine::format_bytes(rss_limit));
  if (ledger.resubmits_other || ledger.ids_reused)
    ledger.problem("an idempotency key gave two jobs, or one id two submissions");
  if (proof_changes) ledger.problem("a job id was returned with two different proofs");
  if (kills + terms < std::min<std::size_t>(o.faults, 1))
    ledger.problem("no fault was injected: the clients finished first");

  json record = bench_record("snarkpipe bench soak-daemon --jobs " + std::to_string(o.jobs) + " --clients " +
                             std::to_string(o.clients) + " --faults " + std::to_string(o.faults) + " --budget '" +
                             o.budget + "' --seed " + std::to_string(seed));
  record["seed"] = std::to_string(seed);
  record["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  record["circuits"] = json::array();
  for (const auto& s : shapes)
    record["circuits"].push_back({{"name", s.name}, {"constraints", s.constraints}, {"public_inputs", s.inputs}});
  std::size_t keyed = 0, uploads = 0, resubmits = 0, partitions = 0;
  for (const auto& p : plan) keyed += p.keyed, uploads += p.upload, resubmits += p.resubmit, partitions += p.partitions;
  record["injected"] = {{"sigkill", kills},
                        {"sigterm", terms},
                        {"sigterm_clean_exits", term_clean_exits},
                        {"jobs_accepted_at_each_fault", jobs_accepted_at_fault},
                        {"daemon_starts", daemon.started().size()},
                        {"failed_starts", failed_starts},
                        {"cancels_sent", ledger.cancels_sent},
                        {"cancels_honoured", ledger.cancels_honoured},
                        {"idempotent_resubmits", resubmits}};
  record["results"] = {{"jobs_planned", o.jobs},
                       {"partitions_planned", partitions},
                       {"keyed_jobs", keyed},
                       {"uploaded_witness_jobs", uploads},
                       {"accepted", accepted.size()},
                       {"unannounced_jobs", listed_unknown},
                       {"ambiguous_submits", ledger.ambiguous_submits},
                       {"refused_while_down", ledger.refused_while_down},
                       {"done", done},
                       {"cancelled", cancelled},
                       {"failed", failed},
                       {"wrong_cause", wrong_cause},
                       {"not_final", not_final},
                       {"lost_jobs", lost},
                       {"duplicated_jobs", ledger.resubmits_other + ledger.ids_reused + proof_changes},
                       {"idempotent_resubmits_same_id", ledger.resubmits_same},
                       {"proofs_verified", proofs_checked},
                       {"invalid_proofs", invalid_proofs},
                       {"rss_max", rss_peak},
                       {"rss_limit", rss_limit},
                       {"memory_budget", budget},
                       {"stray_processes", stray}};
  record["problems"] = ledger.problems;
  record["ok"] = ledger.problems.empty();
  if (ledger.problems.empty()) fs::remove_all(dir);
  else record["state_dir_kept"] = dir.string();

  if (o.json) std::cout << record.dump(2) << "\n";
  else
    std::printf(
        "soak-daemon: %zu jobs accepted (%zu unannounced), %zu done, %zu cancelled, %zu failed; %zu SIGKILL, %zu SIGTERM; "
        "%zu proofs verified, %zu invalid; %zu lost, %zu duplicated; RSS max %s of %s; %.1f s\n",
        accepted.size(), listed_unknown, done, cancelled, failed, kills, terms, proofs_checked, invalid_proofs, lost,
        record["results"]["duplicated_jobs"].get<std::size_t>(), engine::format_bytes(rss_peak).c_str(),
        engine::format_bytes(rss_limit).c_str(), record["seconds"].get<double>());
  if (!o.out.empty()) try {
      write_record(record, o.out);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "soak-daemon: %s\n", e.what());
    }
  for (const auto& p : ledger.problems) std::fprintf(stderr, "soak-daemon: FAILED: %s\n", p.c_str());
  return ledger.problems.empty() ? 0 : 1;
}

#else

int run_soak_daemon(SoakDaemonOptions&, const CLI::App&) {
  std::fprintf(stderr, "bench soak-daemon needs the daemon, which this build left out (cpp-httplib missing)\n");
  return 2;
}

#endif

}  // namespace

std::vector<Command> register_soak_daemon_commands(CLI::App& app) {
  CLI::App* bench = app.get_subcommand("bench");
  auto o = std::make_shared<SoakDaemonOptions>();
  auto* c = bench->add_subcommand(
      "soak-daemon",
      "Jobs through a real `snarkpipe serve`, SIGKILLed and SIGTERMed under load; checks nothing is lost");
  c->footer(
      "Example: snarkpipe bench soak-daemon --jobs 300 --faults 10 --json --out bench/results/soak/soak-daemon-DATE.json");
  c->add_option("--jobs", o->jobs, "Jobs to submit (1 to 3 partitions each)")->capture_default_str();
  c->add_option("--clients", o->clients, "Client threads submitting at once")->capture_default_str();
  c->add_option("--faults", o->faults,
                "SIGKILLs and SIGTERMs of the daemon (about half each), each followed by a restart")
      ->capture_default_str();
  c->add_option("--seed", o->seed, "Seed of the plan (0: fresh, printed)")->capture_default_str();
  c->add_option("--budget", o->budget, "The daemon's memory.budget")->capture_default_str();
  c->add_option("--rss-slack", o->rss_slack, "RSS allowed above the budget (program, threads, SQLite, allocator)")
      ->capture_default_str();
  c->add_flag("--json", o->json, "Print the JSON record");
  c->add_option("-o,--out", o->out, "Also write the JSON record to this file");
  return {make_command(c, o, run_soak_daemon)};
}

}  // namespace snarkpipe::cli
