// The engine's soak (soak.hpp): the plan, the scripted faults, the run and its checks.
#include "engine/soak.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <thread>

#include <oneapi/tbb/global_control.h>

#include "base/clock.hpp"
#include "base/process.hpp"
#include "circuit/r1cs.hpp"
#include "circuit/spmv.hpp"
#include "engine/witness.hpp"
#include "ff/random.hpp"
#include "gadgets/synthetic.hpp"
#include "groth16/verifier.hpp"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SNARKPIPE_SOAK_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SNARKPIPE_SOAK_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define SNARKPIPE_SOAK_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SNARKPIPE_SOAK_TSAN 1
#endif
#endif

namespace snarkpipe::engine {

namespace {

using base::Clock;

// Per start() call.
constexpr double kStartFailure = 0.03, kSlowStart = 0.06, kCorruptParts = 0.03;
// Per job, drawn at submission.
constexpr double kSynthesisThrow = 0.04, kBadWitness = 0.03, kOvergrow = 0.02, kCancel = 0.08, kDuplicate = 0.05,
                 kOversized = 0.01;
constexpr unsigned kMaxRetries = 2, kFailureLimit = 5;
constexpr std::size_t kWindow = 12;  // jobs submitted and not yet waited for

// A circuit type of the soak: its shape (which also computes the witness), the soak's own copy
// of its keys (the store loads fresh copies of them), the public inputs every witness has, and
// an aux value whose change breaks a constraint.
struct SoakCircuit {
  std::string type;
  std::shared_ptr<const gadgets::SyntheticCircuit> circuit;
  std::shared_ptr<const CircuitKeys> keys;
  std::vector<ff::Fr> publics;
  std::size_t breakable_aux = 0;
  std::uint64_t partition_bytes = 0;  // witness buffer + the backend's host working memory
};

enum class Outcome { OK, START_FAILED, CORRUPTED };

// What the soak planned for a job, and what the backend did to its partitions.
struct JobPlan {
  std::size_t circuit = 0;
  std::size_t partitions = 1;
  Priority priority = Priority::NORMAL;
  long synth_throw = -1, bad_witness = -1, overgrow = -1;  // the partition, or -1
  bool cancel = false, duplicate = false;
  JobId id = 0;
  bool cancelled = false;  // cancel() said yes
};

class Faults {
 public:
  // dead_after[d]: device d's start() calls before it dies (INT_MAX: it never does).
  explicit Faults(std::vector<int> dead_after) : calls_(dead_after.size()), dead_after_(std::move(dead_after)) {}

  void tag(const groth16::Witness* w, std::size_t job, std::size_t partition) {
    std::lock_guard lock(mu_);
    owner_[w] = {job, partition};
  }
  std::pair<std::size_t, std::size_t> owner_of(const groth16::Witness* w) {
    std::lock_guard lock(mu_);
    auto it = owner_.find(w);
    if (it == owner_.end()) throw std::logic_error("soak: start() got a witness no source filled");
    return it->second;
  }
  void record(std::size_t job, std::size_t partition, Outcome o) {
    std::lock_guard lock(mu_);
    outcomes_[{job, partition}].push_back(o);
  }
  std::vector<Outcome> outcomes(std::size_t job, std::size_t partition) const {
    std::lock_guard lock(mu_);
    auto it = outcomes_.find({job, partition});
    return it == outcomes_.end() ? std::vector<Outcome>{} : it->second;
  }
  int next_call(int device) { return calls_[std::size_t(device)]++; }
  bool dead(int device, int call) const { return call >= dead_after_[std::size_t(device)]; }

  std::atomic<std::size_t> start_failures{0}, slow_starts{0}, corruptions{0}, lost_device_calls{0}, starts{0};

 private:
  mutable std::mutex mu_;
  std::map<const groth16::Witness*, std::pair<std::size_t, std::size_t>> owner_;
  std::map<std::pair<std::size_t, std::size_t>, std::vector<Outcome>> outcomes_;
  std::vector<std::atomic<int>> calls_;
  const std::vector<int> dead_after_;
};

// The scripted backend: the CPU prover with faults drawn per call.
class SoakBackend final : public groth16::ProverBackend {
 public:
  SoakBackend(int device, std::shared_ptr<Faults> faults, std::uint64_t seed)
      : device_(device), faults_(std::move(faults)), rng_(seed) {}
  std::string name() const override { return "soak"; }
  groth16::ProofParts start(const groth16::ProvingKey& pk, const circuit::R1cs& r1cs, const groth16::Witness& w,
                            groth16::ProverTimings* t, const groth16::ProverProgress& p) override {
    Faults& f = *faults_;
    const auto [job, partition] = f.owner_of(&w);
    const int call = f.next_call(device_);
    ++f.starts;
    if (f.dead(device_, call)) {
      ++f.lost_device_calls;
      f.record(job, partition, Outcome::START_FAILED);
      throw std::runtime_error("injected: device " + std::to_string(device_) + " lost");
    }
    std::uniform_real_distribution<double> u(0, 1);
    if (u(rng_) < kSlowStart) {
      ++f.slow_starts;
      std::this_thread::sleep_for(std::chrono::milliseconds(2 + rng_() % 28));
    }
    if (u(rng_) < kStartFailure) {
      ++f.start_failures;
      f.record(job, partition, Outcome::START_FAILED);
      throw std::runtime_error("injected start() failure on device " + std::to_string(device_));
    }
    groth16::ProofParts parts = cpu_.start(pk, r1cs, w, t, p);
    if (u(rng_) < kCorruptParts) {
      ++f.corruptions;
      parts.l = parts.l + ec::G1Jacobian::generator();  // a flipped bit on the device, say
      f.record(job, partition, Outcome::CORRUPTED);
      return parts;
    }
    f.record(job, partition, Outcome::OK);
    return parts;
  }

 private:
  int device_;
  std::shared_ptr<Faults> faults_;
  std::mt19937_64 rng_;
  groth16::CpuBackend cpu_;
};

constexpr const char* kOversizedType = "soak-oversized";

class SoakProvider final : public BackendProvider {
 public:
  SoakProvider(std::size_t devices, std::shared_ptr<Faults> faults, std::uint64_t seed, std::uint64_t host_budget)
      : devices_(devices), faults_(std::move(faults)), seed_(seed), host_budget_(host_budget) {}
  std::string kind() const override { return "soak"; }
  std::vector<DeviceSpec> devices() const override {
    std::vector<DeviceSpec> d;
    for (std::size_t i = 0; i < devices_; ++i) d.push_back({int(i), "soak" + std::to_string(i), 0});
    return d;
  }
  std::unique_ptr<groth16::ProverBackend> make_backend(const DeviceSpec& d) const override {
    return std::make_unique<SoakBackend>(d.index, faults_, seed_ + 1000003 * std::uint64_t(++made_));
  }
  MemoryNeeds needs(const CircuitKeys& keys) const override {
    MemoryNeeds n = CpuBackendProvider().needs(keys);
    // Memory pressure by script: this type's partition can never fit the host budget.
    if (keys.type == kOversizedType) n.host_per_partition = host_budget_ + 1;
    return n;
  }

 private:
  std::size_t devices_;
  std::shared_ptr<Faults> faults_;
  std::uint64_t seed_, host_budget_;
  mutable std::atomic<std::uint64_t> made_{0};
};

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// "partition 3: ..." -> 3; -1 when the error does not name one.
long error_partition(const std::string& error) {
  unsigned long k = 0;
  return std::sscanf(error.c_str(), "partition %lu:", &k) == 1 ? long(k) : -1;
}

// Why a failed job's error is right for what was done to it, or "" when it is not.
std::string check_failure(const std::string& error, const JobPlan& plan, const Faults& faults, std::size_t index,
                          bool all_devices_out) {
  if (all_devices_out && contains(error, "no device in service") && contains(error, "injected")) return "no device";
  const long k = error_partition(error);
  if (k < 0 || std::size_t(k) >= plan.partitions) return "";
  if (contains(error, "witness generation failed: injected synthesis fault"))
    return plan.synth_throw == k ? "synthesis exception" : "";
  if (contains(error, "the witness does not satisfy constraint")) return plan.bad_witness == k ? "bad witness" : "";
  if (contains(error, "grew its buffer beyond what the memory budget holds"))
    return plan.overgrow == k ? "over budget" : "";
  const std::vector<Outcome> o = faults.outcomes(index, std::size_t(k));
  const auto bad = std::size_t(std::count_if(o.begin(), o.end(), [](Outcome x) { return x != Outcome::OK; }));
  unsigned long n = 0;
  if (contains(error, "the device failed") && contains(error, "injected")) {
    if (std::sscanf(error.c_str() + error.find("the device failed"), "the device failed %lu times", &n) != 1) return "";
    const bool failed = std::count(o.begin(), o.end(), Outcome::START_FAILED) > 0;
    return failed && n == kMaxRetries + 1 && bad >= n ? "device failures" : "";
  }
  if (contains(error, "the proof does not verify")) {
    if (std::sscanf(error.c_str() + error.find("after "), "after %lu attempts", &n) != 1) return "";
    const bool corrupted = std::count(o.begin(), o.end(), Outcome::CORRUPTED) > 0;
    return corrupted && n == kMaxRetries + 1 && bad >= n ? "proof corrupted" : "";
  }
  return "";
}

// Each fake device's start() calls before it dies (INT_MAX: never). Early enough that a dead
// device is called often after it (it fails fast, so it is), and, when all die, that most of
// the run is left for the CPU fallback.
std::vector<int> plan_deaths(const SoakOptions& o, std::mt19937_64& rng) {
  std::vector<int> dead_after(o.devices, INT_MAX);
  dead_after.back() = 2 + int(rng() % std::max<std::size_t>(1, o.proofs / (4 * o.devices)));
  if (o.all_devices_die)
    for (std::size_t d = 0; d < o.devices; ++d)
      dead_after[d] = 2 + int(rng() % std::max<std::size_t>(1, o.proofs / (6 * o.devices)));
  return dead_after;
}

}  // namespace

SoakReport run_soak(const SoakOptions& o) {
  if (o.devices < 2) throw std::invalid_argument("the soak needs at least 2 devices (one of them dies)");
  const auto note = [&o](const std::string& line) {
    if (o.log) o.log(line);
    else std::fprintf(stderr, "soak: %s\n", line.c_str());
  };
  SoakReport report;
  // Taken before the soak starts a thread: at the end the process must be back to these. One
  // thread started and joined first: TSan's runtime starts a thread of its own (its background
  // thread) at the process's first pthread_create and keeps it, which is not the soak's.
  std::thread([] {}).join();
  report.threads_at_start = base::thread_count();
  oneapi::tbb::task_scheduler_handle tbb_handle{oneapi::tbb::attach{}};
#ifdef SNARKPIPE_SOAK_TSAN
  // oneTBB is not instrumented, so TSan cannot see a task handed to one of its worker threads:
  // every such task is a report that tsan.supp then suppresses (453 in 150 s, each with libtbb
  // in a stack), and handling them took 93% of the soak's time (perf; 40 s a partition on the
  // CPU fallback, whose one thread hands out the most). Without workers every task runs on the
  // thread that spawned it: nothing to report, and the engine's own threads are checked as before.
  std::optional<oneapi::tbb::global_control> no_tbb_workers(std::in_place,
                                                            oneapi::tbb::global_control::max_allowed_parallelism, 1);
#endif
  const std::uint64_t seed = o.seed ? o.seed : ff::fresh_seed();
  report.seed = seed;
  report.all_devices_die = o.all_devices_die;
  note(std::to_string(o.proofs) + " proofs, seed " + std::to_string(seed) + " (--seed " + std::to_string(seed) +
       " replays the plan)" + (o.all_devices_die ? ", every device dies" : ""));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  const Clock::time_point t0 = Clock::now();
  std::vector<std::string>& problems = report.problems;

  // Circuit types: three synthetic shapes (constraints, public inputs).
  std::vector<SoakCircuit> circuits;
  for (auto [n, inputs] : {std::pair<std::size_t, std::size_t>{300, 2}, {1000, 3}, {2500, 5}}) {
    SoakCircuit c;
    c.type = "soak-synthetic-" + std::to_string(n) + "x" + std::to_string(inputs);
    c.circuit = std::make_shared<gadgets::SyntheticCircuit>(n, inputs, rng());
    c.keys = record_and_setup(c.type, c.circuit)();
    groth16::Witness w;
    synthesize_into(*c.circuit, w);
    c.publics.assign(w.inputs.begin() + 1, w.inputs.end());
    const auto& r = c.keys->r1cs;
    for (c.breakable_aux = 0; c.breakable_aux < w.aux.size(); ++c.breakable_aux) {
      groth16::Witness bad = w;
      bad.aux[c.breakable_aux] = bad.aux[c.breakable_aux] + ff::Fr::one();
      if (!circuit::is_satisfied(r, bad.inputs, bad.aux)) break;
    }
    if (c.breakable_aux == w.aux.size())
      throw std::runtime_error("soak: no aux value of " + c.type + " is constrained");
    c.partition_bytes =
        WitnessBufferPool::bytes_for(r.num_inputs, r.num_aux) + CpuBackendProvider().needs(*c.keys).host_per_partition;
    report.circuits.push_back({c.type, c.keys->r1cs.num_constraints, c.keys->host_bytes()});
    circuits.push_back(std::move(c));
  }
  // Room for the two largest circuits' keys and three of the largest partitions: jobs of all
  // three types at once must wait, and evict idle circuits.
  std::vector<std::uint64_t> key_bytes;
  std::uint64_t largest_partition = 0;
  for (const auto& c : circuits) {
    key_bytes.push_back(c.keys->host_bytes());
    largest_partition = std::max(largest_partition, c.partition_bytes);
  }
  std::sort(key_bytes.rbegin(), key_bytes.rend());
  const std::uint64_t host_budget = key_bytes[0] + key_bytes[1] + 3 * largest_partition;

  const std::vector<int> dead_after = plan_deaths(o, rng);
  for (std::size_t d = 0; d < dead_after.size(); ++d)
    if (dead_after[d] != INT_MAX) {
      report.injected.dead_devices.push_back(int(d));
      report.injected.dead_after_calls.push_back(dead_after[d]);
    }
  auto faults = std::make_shared<Faults>(dead_after);
  std::vector<JobPlan> plans;
  std::vector<JobResult> results;
  std::size_t refused_right = 0, refused_wrong = 0, duplicates_same = 0, duplicates_other = 0;
  std::size_t timeline_dups = 0, timeline_unfinished = 0, timeline_mismatch = 0;
  std::atomic<std::size_t> fallback_lines{0};
  report.rss_before = base::current_rss_bytes();
  {
    EngineConfig config = EngineConfig::defaults(MachineFacts::detect());
    config.backend = "soak";
    config.synthesis_workers = 2;
    config.workers_per_device = 2;
    config.finalizer_workers = 2;
    config.max_retries = kMaxRetries;
    config.device_failure_limit = kFailureLimit;
    config.check_witness = true;
    config.host_budget = host_budget;
    config.cpu_fallback = true;  // what the last device's death must switch on
    // Called from the engine's workers: the log sink, like SoakOptions::log, must be thread-safe.
    Engine eng(config, std::make_shared<SoakProvider>(o.devices, faults, seed, host_budget),
               [&](const std::string& line) {
                 if (contains(line, "proving on the CPU from now on")) ++fallback_lines;
                 if (contains(line, "taken out of service") || contains(line, "no device left in service")) note(line);
               });
    for (const auto& c : circuits)
      eng.circuits().add(c.type, [k = c.keys] { return make_circuit_keys(k->type, k->r1cs, k->pk); });
    eng.circuits().add(kOversizedType,
                       [k = circuits[0].keys] { return make_circuit_keys(kOversizedType, k->r1cs, k->pk); });

    // The RSS sampler.
    std::atomic<bool> sampling{true};
    std::atomic<std::uint64_t> rss_peak{base::current_rss_bytes()};
    std::thread sampler([&] {
      while (sampling) {
        const std::uint64_t r = base::current_rss_bytes();
        for (std::uint64_t m = rss_peak; r > m && !rss_peak.compare_exchange_weak(m, r);) {}
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    });
    // The canceller: each planned cancellation at its time.
    std::mutex cmu;
    std::condition_variable ccv;
    std::multimap<Clock::time_point, std::size_t> due;
    bool cancelling = true;
    std::thread canceller([&] {
      std::unique_lock lock(cmu);
      while (cancelling || !due.empty()) {
        if (due.empty()) {
          ccv.wait(lock);
          continue;
        }
        if (ccv.wait_until(lock, due.begin()->first) == std::cv_status::no_timeout && Clock::now() < due.begin()->first)
          continue;
        const std::size_t i = due.begin()->second;
        due.erase(due.begin());
        const JobId id = plans[i].id;
        lock.unlock();
        const bool yes = eng.cancel(id);
        lock.lock();
        plans[i].cancelled = yes;
      }
    });

    plans.reserve(o.proofs);
    results.reserve(o.proofs);
    std::deque<std::size_t> outstanding;
    std::map<std::size_t, JobResult> by_index;
    auto wait_one = [&] {
      const std::size_t i = outstanding.front();
      outstanding.pop_front();
      auto r = eng.wait_for(plans[i].id, std::chrono::minutes(10));
      if (!r) {
        problems.push_back("job " + std::to_string(plans[i].id) + " not finished after 10 minutes");
        by_index[i] = JobResult{plans[i].id, eng.state(plans[i].id), {}, "lost"};
      } else {
        by_index[i] = std::move(*r);
      }
    };
    std::size_t requested = 0;
    while (requested < o.proofs) {
      if (u(rng) < kOversized) {
        ProofRequest req;
        req.circuit_type = kOversizedType;
        req.witness = circuit_witness_source([c = circuits[0].circuit](std::size_t) { return c; });
        try {
          eng.submit(std::move(req));
          ++refused_wrong;
          problems.push_back("a partition larger than the host budget was accepted");
        } catch (const EngineError& e) {
          (contains(e.what(), "memory budget too small") ? refused_right : refused_wrong)++;
          if (!contains(e.what(), "memory budget too small"))
            problems.push_back(std::string("oversized refused with: ") + e.what());
        }
        continue;
      }
      JobPlan p;
      p.circuit = rng() % circuits.size();
      p.partitions = std::min<std::size_t>(1 + rng() % 3, o.proofs - requested);
      p.priority = Priority(rng() % 4);
      if (u(rng) < kSynthesisThrow) p.synth_throw = long(rng() % p.partitions);
      if (u(rng) < kBadWitness) p.bad_witness = long(rng() % p.partitions);
      if (u(rng) < kOvergrow) p.overgrow = long(rng() % p.partitions);
      p.cancel = u(rng) < kCancel;
      p.duplicate = u(rng) < kDuplicate;
      const std::size_t index = plans.size();
      const SoakCircuit& c = circuits[p.circuit];
      const JobPlan plan = p;
      ProofRequest req;
      req.circuit_type = c.type;
      req.partitions = p.partitions;
      req.priority = p.priority;
      if (p.duplicate) req.idempotency_key = "soak-" + std::to_string(seed) + "-" + std::to_string(index);
      req.witness = [faults, index, plan, &c, host_budget](std::size_t k, groth16::Witness& out) {
        faults->tag(&out, index, k);
        if (plan.synth_throw == long(k))
          throw std::runtime_error("injected synthesis fault (job " + std::to_string(index) + ")");
        synthesize_into(*c.circuit, out);
        if (plan.bad_witness == long(k)) out.aux[c.breakable_aux] = out.aux[c.breakable_aux] + ff::Fr::one();
        // Reserved, not touched: the budget must refuse it without the memory being used.
        if (plan.overgrow == long(k)) out.aux.reserve(out.aux.capacity() + host_budget / sizeof(ff::Fr) + 1);
      };
      ProofRequest again = req;
      {
        std::lock_guard lock(cmu);
        plans.push_back(p);
      }
      JobId id = 0;
      try {
        id = eng.submit(std::move(req));
      } catch (const EngineError& e) {
        problems.push_back(std::string("a soak job was refused: ") + e.what());
        plans.pop_back();
        continue;
      }
      requested += p.partitions;
      {
        std::lock_guard lock(cmu);
        plans[index].id = id;
        if (p.cancel) {
          due.emplace(Clock::now() + std::chrono::microseconds(rng() % 40000), index);
          ccv.notify_all();
        }
      }
      if (p.duplicate) {
        try {
          (eng.submit(std::move(again)) == id ? duplicates_same : duplicates_other)++;
        } catch (const EngineError& e) {
          ++duplicates_other;
          problems.push_back(std::string("a duplicate submission was refused: ") + e.what());
        }
      }
      outstanding.push_back(index);
      if (outstanding.size() >= kWindow) wait_one();
    }
    while (!outstanding.empty()) wait_one();
    {
      std::lock_guard lock(cmu);
      cancelling = false;
      ccv.notify_all();
    }
    canceller.join();
    for (std::size_t i = 0; i < plans.size(); ++i) results.push_back(std::move(by_index[i]));

    // The engine's view, now that every job is final.
    const EngineStats s = eng.stats();
    report.engine = s;
    if (s.host_peak > s.host_budget)
      problems.push_back("the host budget was exceeded: peak " + format_bytes(s.host_peak));
    if (s.buffers_in_use != 0) problems.push_back(std::to_string(s.buffers_in_use) + " witness buffers still in use");
    if (s.host_used != s.resident_bytes + s.buffers_idle_bytes + s.packed_idle_bytes)
      problems.push_back(
          "host memory still charged beyond the residents and idle buffers: " + format_bytes(s.host_used) + " used, " +
          format_bytes(s.resident_bytes) + " resident, " + format_bytes(s.buffers_idle_bytes) + " in idle buffers");
    // Devices by slot: the fake ones, then the CPU fallback if the engine started it.
    bool all_out = true;
    for (std::size_t slot = 0; slot < s.devices.size(); ++slot) {
      const DeviceStatus& d = s.devices[slot];
      all_out = all_out && !d.in_service;
      if (slot >= o.devices) continue;
      if (!d.in_service && !contains(d.out_of_service_reason, "injected"))
        problems.push_back("device " + std::to_string(d.index) + " out of service for " + d.out_of_service_reason);
      if (dead_after[slot] != INT_MAX && d.in_service)
        problems.push_back("device " + std::to_string(d.index) + " died (" +
                           std::to_string(faults->lost_device_calls.load()) +
                           " calls to dead devices) and is still in service");
    }
    if (faults->lost_device_calls == 0) problems.push_back("the dead device was never called after it died");
    report.cpu_fallback_started = s.devices.size() > o.devices;
    report.cpu_fallback_logged = fallback_lines > 0;
    if (report.cpu_fallback_started) {
      const DeviceStatus& cpu = s.devices.back();
      report.cpu_fallback_partitions = cpu.partitions_proved;
      if (!cpu.in_service) problems.push_back("the CPU fallback went out of service: " + cpu.out_of_service_reason);
    }
    if (report.cpu_fallback_started != report.cpu_fallback_logged)
      problems.push_back(std::string("the CPU fallback was ") + (report.cpu_fallback_started ? "" : "not ") +
                         "started, and the log said " + std::to_string(fallback_lines.load()) + " times that it was");
    if (o.all_devices_die) {
      if (!report.cpu_fallback_started)
        problems.push_back("every device died and the engine did not fall back to the CPU");
      else if (report.cpu_fallback_partitions == 0) problems.push_back("the CPU fallback proved nothing");
    }
    // Every job once in the timeline, final, in the state its result has.
    const TimelineSnapshot tl = eng.timeline();
    std::map<JobId, const JobTimes*> seen;
    for (const auto& j : tl.jobs) {
      if (!seen.emplace(j.job, &j).second) ++timeline_dups;
      if (!is_terminal(j.state)) ++timeline_unfinished;
    }
    for (std::size_t i = 0; i < plans.size(); ++i) {
      auto it = seen.find(plans[i].id);
      if (it == seen.end() || it->second->state != results[i].state || it->second->error != results[i].error)
        ++timeline_mismatch;
    }
    // The refused oversized requests are jobs too (FAILED at submission), and nothing else is.
    if (tl.jobs.size() != plans.size() + refused_right + refused_wrong)
      problems.push_back("the timeline has " + std::to_string(tl.jobs.size()) + " jobs; " +
                         std::to_string(plans.size()) + " were submitted and " +
                         std::to_string(refused_right + refused_wrong) + " refused");
    std::set<JobId> ids;
    for (const auto& p : plans)
      if (!ids.insert(p.id).second) problems.push_back("job id " + std::to_string(p.id) + " given twice");

    // Outcomes per job. "No device in service" is a cause only when no device was left (the
    // CPU fallback off or out of service too); with the fallback every job must go on.
    const bool all_out_final = all_out;
    for (std::size_t i = 0; i < plans.size(); ++i) {
      const JobPlan& p = plans[i];
      const JobResult& r = results[i];
      const std::string where =
          "job " + std::to_string(p.id) + " (" + std::string(state_name(r.state)) + ": " + r.error + ")";
      bool injected = p.synth_throw >= 0 || p.bad_witness >= 0 || p.overgrow >= 0 || p.cancelled;
      for (std::size_t k = 0; k < p.partitions; ++k) {
        const auto out = faults->outcomes(i, k);
        injected = injected || std::any_of(out.begin(), out.end(), [](Outcome x) { return x != Outcome::OK; });
      }
      if (p.cancelled != (r.state == JobState::CANCELLED)) {
        ++report.wrong_cause;
        problems.push_back(where + ": cancel() said " + (p.cancelled ? "yes" : "no"));
      }
      switch (r.state) {
        case JobState::DONE: {
          ++report.done;
          if (r.proofs.size() != p.partitions) {
            ++report.invalid_proofs;
            problems.push_back(where + ": " + std::to_string(r.proofs.size()) + " proofs");
          }
          for (const auto& proof : r.proofs) {
            if (groth16::verify(circuits[p.circuit].keys->pvk, proof, circuits[p.circuit].publics)) {
              ++report.proofs_verified_again;
            } else {
              ++report.invalid_proofs;
              problems.push_back(where + ": a returned proof does not verify");
            }
          }
          if (p.synth_throw >= 0 || p.bad_witness >= 0 || p.overgrow >= 0) {
            ++report.wrong_cause;
            problems.push_back(where + ": done despite a bad witness source");
          }
          for (std::size_t k = 0; k < p.partitions; ++k) {
            const auto out = faults->outcomes(i, k);
            if (std::size_t(std::count_if(out.begin(), out.end(), [](Outcome x) { return x != Outcome::OK; })) >
                kMaxRetries) {
              ++report.wrong_cause;
              problems.push_back(where + ": done after more device failures than retries on partition " +
                                 std::to_string(k));
            }
          }
          break;
        }
        case JobState::FAILED: {
          ++report.failed;
          const std::string cause = check_failure(r.error, p, *faults, i, all_out_final);
          if (cause.empty()) {
            ++report.wrong_cause;
            problems.push_back(where + ": not a cause the soak injected");
          } else {
            ++report.failure_causes[cause];
          }
          break;
        }
        case JobState::CANCELLED:
          ++report.cancelled;
          if (r.error != "cancelled") {
            ++report.wrong_cause;
            problems.push_back(where + ": cancelled with the wrong cause");
          }
          break;
        default:
          problems.push_back(where + ": not final");
      }
      if (!injected && r.state != JobState::DONE && !all_out_final) {
        ++report.wrong_cause;
        problems.push_back(where + ": nothing was injected, yet it did not finish");
      }
    }
    // A corrupted proof of a job that ended done reached self-verification (a job still running
    // when start() returned), so each one was caught there; those of jobs that ended otherwise
    // may have been dropped unfinished.
    for (std::size_t i = 0; i < plans.size(); ++i)
      if (results[i].state == JobState::DONE)
        for (std::size_t k = 0; k < plans[i].partitions; ++k) {
          const auto out = faults->outcomes(i, k);
          report.corrupted_proofs_of_done_jobs += std::size_t(std::count(out.begin(), out.end(), Outcome::CORRUPTED));
        }
    if (s.verification_failures < report.corrupted_proofs_of_done_jobs)
      problems.push_back("fewer verification failures (" + std::to_string(s.verification_failures) +
                         ") than corrupted proofs of jobs that ended done (" +
                         std::to_string(report.corrupted_proofs_of_done_jobs) + ")");
    report.jobs = plans.size();
    sampling = false;
    sampler.join();
    report.rss_max = rss_peak;
  }  // the engine stops here: every worker joined

  // No thread left behind: oneTBB's workers joined too, the process is back to where it began.
#ifdef SNARKPIPE_SOAK_TSAN
  no_tbb_workers.reset();
#endif
  const bool tbb_joined = oneapi::tbb::finalize(tbb_handle, std::nothrow);
  std::size_t threads_left = base::thread_count();
  for (int i = 0; i < 200 && threads_left > report.threads_at_start; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    threads_left = base::thread_count();
  }
  report.threads_at_end = threads_left;
  if (!tbb_joined) problems.push_back("oneTBB's worker threads could not be joined");
  if (threads_left != report.threads_at_start)
    problems.push_back(std::to_string(threads_left) + " threads at the end, " +
                       std::to_string(report.threads_at_start) + " at the start");
  report.rss_limit = report.rss_before + host_budget + o.rss_slack;
#ifdef SNARKPIPE_SOAK_SANITIZED
  // A sanitizer's allocator keeps freed memory (ASan's quarantine, TSan's shadow): not ours.
  report.rss_checked = false;
#else
  report.rss_checked = true;
  if (report.rss_max > report.rss_limit)
    problems.push_back("RSS reached " + format_bytes(report.rss_max) + ", above " + format_bytes(report.rss_limit));
#endif
  SoakInjected& in = report.injected;
  for (const auto& p : plans) {
    in.cancellations_planned += p.cancel;
    in.cancellations_honoured += p.cancelled;
    in.synthesis_exceptions += p.synth_throw >= 0;
    in.unsatisfying_witnesses += p.bad_witness >= 0;
    in.witnesses_over_budget += p.overgrow >= 0;
    in.duplicate_submissions += p.duplicate;
  }
  if (duplicates_same != in.duplicate_submissions) problems.push_back("a duplicate submission made a second job");
  in.start_calls = faults->starts;
  in.start_failures = faults->start_failures;
  in.slow_starts = faults->slow_starts;
  in.corrupted_proofs = faults->corruptions;
  in.dead_device_calls = faults->lost_device_calls;
  in.oversized_requests = refused_right + refused_wrong;
  report.lost_jobs = timeline_unfinished + timeline_mismatch;
  report.duplicated_jobs = timeline_dups + duplicates_other;
  report.oversized_refused_with_cause = refused_right;
  if (timeline_unfinished + timeline_mismatch) problems.push_back("jobs lost (not final, or not as waited for)");
  if (timeline_dups) problems.push_back("jobs in the timeline twice");
  report.seconds = base::ms_since(t0) / 1000.0;
  return report;
}

}  // namespace snarkpipe::engine
