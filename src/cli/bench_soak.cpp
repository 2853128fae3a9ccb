// snarkpipe bench soak (issue 27): proofs through engine::Engine on the CPU, with faults injected
// at random points, then the checks that the engine lost nothing, duplicated nothing, returned
// no proof that does not verify, and ended every job for the reason it was given.
//
// Faults: witness sources that throw, give an unsatisfying witness, or grow their buffer past
// the host budget; a scripted backend (a wrapper around groth16::CpuBackend, one per worker of
// several fake devices) whose start() fails, runs slow, or returns corrupted proof parts that
// self-verification must catch; one device that dies and must be taken out of service;
// cancellations at random times; duplicate submissions under one idempotency key; a circuit
// whose partition can never fit the host budget; a host budget that cannot keep every circuit
// resident with partitions in flight (evictions and reloads).
#include <dirent.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <deque>
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
#include <oneapi/tbb/global_control.h>

#include "circuit/r1cs.hpp"
#include "circuit/spmv.hpp"
#include "cli/bench_record.hpp"
#include "cli/command.hpp"
#include "cli/measure.hpp"
#include "engine/engine.hpp"
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

namespace snarkpipe::cli {

namespace {

using engine::JobId;
using engine::JobState;

// Per start() call.
constexpr double kStartFailure = 0.03, kSlowStart = 0.06, kCorruptParts = 0.03;
// Per job, drawn at submission.
constexpr double kSynthesisThrow = 0.04, kBadWitness = 0.03, kOvergrow = 0.02, kCancel = 0.08, kDuplicate = 0.05,
                 kOversized = 0.01;
constexpr unsigned kMaxRetries = 2, kFailureLimit = 5;
constexpr std::size_t kWindow = 12;  // jobs submitted and not yet waited for

struct SoakOptions {
  std::size_t proofs = 1000;
  std::uint64_t seed = 0;
  std::size_t devices = 3;
  std::string rss_slack = "64 MiB";
  bool json = false;
  std::string out;
};

std::size_t thread_count() {
  std::size_t n = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') ++n;
    closedir(d);
  }
  return n;
}

// A circuit type of the soak: its shape (which also computes the witness), the soak's own copy
// of its keys (the store loads fresh copies of them), the public inputs every witness has, and
// an aux value whose change breaks a constraint.
struct SoakCircuit {
  std::string type;
  std::shared_ptr<const gadgets::SyntheticCircuit> circuit;
  std::shared_ptr<const engine::CircuitKeys> keys;
  std::vector<ff::Fr> publics;
  std::size_t breakable_aux = 0;
  std::uint64_t partition_bytes = 0;  // witness buffer + the backend's host working memory
};

enum class Outcome { OK, START_FAILED, CORRUPTED };

// What the soak planned for a job, and what the backend did to its partitions.
struct JobPlan {
  std::size_t circuit = 0;
  std::size_t partitions = 1;
  engine::Priority priority = engine::Priority::NORMAL;
  long synth_throw = -1, bad_witness = -1, overgrow = -1;  // the partition, or -1
  bool cancel = false, duplicate = false;
  JobId id = 0;
  bool cancelled = false;  // cancel() said yes
};

class Faults {
 public:
  Faults(std::size_t devices, int dead_device, int dead_after)
      : calls_(devices), dead_device_(dead_device), dead_after_(dead_after) {}

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
  bool dead(int device, int call) const { return device == dead_device_ && call >= dead_after_; }
  int dead_device() const { return dead_device_; }
  int dead_after() const { return dead_after_; }

  std::atomic<std::size_t> start_failures{0}, slow_starts{0}, corruptions{0}, lost_device_calls{0}, starts{0};

 private:
  mutable std::mutex mu_;
  std::map<const groth16::Witness*, std::pair<std::size_t, std::size_t>> owner_;
  std::map<std::pair<std::size_t, std::size_t>, std::vector<Outcome>> outcomes_;
  std::vector<std::atomic<int>> calls_;
  const int dead_device_, dead_after_;
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

class SoakProvider final : public engine::BackendProvider {
 public:
  SoakProvider(std::size_t devices, std::shared_ptr<Faults> faults, std::uint64_t seed, std::uint64_t host_budget)
      : devices_(devices), faults_(std::move(faults)), seed_(seed), host_budget_(host_budget) {}
  std::string kind() const override { return "soak"; }
  std::vector<engine::DeviceSpec> devices() const override {
    std::vector<engine::DeviceSpec> d;
    for (std::size_t i = 0; i < devices_; ++i) d.push_back({int(i), "soak" + std::to_string(i), 0});
    return d;
  }
  std::unique_ptr<groth16::ProverBackend> make_backend(const engine::DeviceSpec& d) const override {
    return std::make_unique<SoakBackend>(d.index, faults_, seed_ + 1000003 * std::uint64_t(++made_));
  }
  engine::MemoryNeeds needs(const engine::CircuitKeys& keys) const override {
    engine::MemoryNeeds n = engine::CpuBackendProvider().needs(keys);
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

int run_soak(SoakOptions& o, const CLI::App&) {
  // Taken before anything starts a thread: at the end the process must be back to these.
  const std::size_t threads_at_start = thread_count();
  oneapi::tbb::task_scheduler_handle tbb_handle{oneapi::tbb::attach{}};
  const std::uint64_t seed = o.seed ? o.seed : ff::fresh_seed();
  std::fprintf(stderr, "soak: %zu proofs, seed %llu (--seed %llu replays the plan)\n", o.proofs,
               static_cast<unsigned long long>(seed), static_cast<unsigned long long>(seed));
  if (o.devices < 2) throw CLI::ValidationError("--devices", "at least 2 (one of them dies)");
  const std::uint64_t rss_slack = engine::parse_bytes(o.rss_slack);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  const Clock::time_point t0 = Clock::now();

  // Circuit types: three synthetic shapes (constraints, public inputs).
  std::vector<SoakCircuit> circuits;
  for (auto [n, inputs] : {std::pair<std::size_t, std::size_t>{300, 2}, {1000, 3}, {2500, 5}}) {
    SoakCircuit c;
    c.type = "soak-synthetic-" + std::to_string(n) + "x" + std::to_string(inputs);
    c.circuit = std::make_shared<gadgets::SyntheticCircuit>(n, inputs, rng());
    c.keys = engine::record_and_setup(c.type, c.circuit)();
    groth16::Witness w;
    engine::synthesize_into(*c.circuit, w);
    c.publics.assign(w.inputs.begin() + 1, w.inputs.end());
    const auto& r = c.keys->r1cs;
    for (c.breakable_aux = 0; c.breakable_aux < w.aux.size(); ++c.breakable_aux) {
      groth16::Witness bad = w;
      bad.aux[c.breakable_aux] = bad.aux[c.breakable_aux] + ff::Fr::one();
      if (!circuit::is_satisfied(r, bad.inputs, bad.aux)) break;
    }
    if (c.breakable_aux == w.aux.size())
      throw std::runtime_error("soak: no aux value of " + c.type + " is constrained");
    c.partition_bytes = engine::WitnessBufferPool::bytes_for(r.num_inputs, r.num_aux) +
                        engine::CpuBackendProvider().needs(*c.keys).host_per_partition;
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

  const int dead_device = int(o.devices) - 1;
  // Early enough that the dead device is called often after it (it fails fast, so it is).
  const int dead_after = 5 + int(rng() % std::max<std::size_t>(1, o.proofs / (4 * o.devices)));
  auto faults = std::make_shared<Faults>(o.devices, dead_device, dead_after);
  std::vector<JobPlan> plans;
  std::vector<engine::JobResult> results;
  std::size_t refused_right = 0, refused_wrong = 0, duplicates_same = 0, duplicates_other = 0;
  std::vector<std::string> problems;
  nlohmann::json engine_stats, devices_json;
  std::size_t timeline_jobs = 0, timeline_dups = 0, timeline_unfinished = 0, timeline_mismatch = 0;
  std::uint64_t rss_max = 0;
  const std::uint64_t rss_before = current_rss_bytes();
  {
    engine::EngineConfig config = engine::EngineConfig::defaults(engine::MachineFacts::detect());
    config.backend = "soak";
    config.synthesis_workers = 2;
    config.workers_per_device = 2;
    config.finalizer_workers = 2;
    config.max_retries = kMaxRetries;
    config.device_failure_limit = kFailureLimit;
    config.check_witness = true;
    config.host_budget = host_budget;
    engine::Engine eng(config, std::make_shared<SoakProvider>(o.devices, faults, seed, host_budget),
                       [&](const std::string& line) {
                         if (contains(line, "taken out of service")) std::fprintf(stderr, "soak: %s\n", line.c_str());
                       });
    for (const auto& c : circuits)
      eng.circuits().add(c.type, [k = c.keys] { return engine::make_circuit_keys(k->type, k->r1cs, k->pk); });
    eng.circuits().add(kOversizedType,
                       [k = circuits[0].keys] { return engine::make_circuit_keys(kOversizedType, k->r1cs, k->pk); });

    // The RSS sampler.
    std::atomic<bool> sampling{true};
    std::atomic<std::uint64_t> rss_peak{current_rss_bytes()};
    std::thread sampler([&] {
      while (sampling) {
        const std::uint64_t r = current_rss_bytes();
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
    std::map<std::size_t, engine::JobResult> by_index;
    auto wait_one = [&] {
      const std::size_t i = outstanding.front();
      outstanding.pop_front();
      auto r = eng.wait_for(plans[i].id, std::chrono::minutes(10));
      if (!r) {
        problems.push_back("job " + std::to_string(plans[i].id) + " not finished after 10 minutes");
        by_index[i] = engine::JobResult{plans[i].id, eng.state(plans[i].id), {}, "lost"};
      } else {
        by_index[i] = std::move(*r);
      }
    };
    std::size_t requested = 0;
    while (requested < o.proofs) {
      if (u(rng) < kOversized) {
        engine::ProofRequest req;
        req.circuit_type = kOversizedType;
        req.witness = engine::circuit_witness_source([c = circuits[0].circuit](std::size_t) { return c; });
        try {
          eng.submit(std::move(req));
          ++refused_wrong;
          problems.push_back("a partition larger than the host budget was accepted");
        } catch (const engine::EngineError& e) {
          (contains(e.what(), "memory budget too small") ? refused_right : refused_wrong)++;
          if (!contains(e.what(), "memory budget too small"))
            problems.push_back(std::string("oversized refused with: ") + e.what());
        }
        continue;
      }
      JobPlan p;
      p.circuit = rng() % circuits.size();
      p.partitions = std::min<std::size_t>(1 + rng() % 3, o.proofs - requested);
      p.priority = engine::Priority(rng() % 4);
      if (u(rng) < kSynthesisThrow) p.synth_throw = long(rng() % p.partitions);
      if (u(rng) < kBadWitness) p.bad_witness = long(rng() % p.partitions);
      if (u(rng) < kOvergrow) p.overgrow = long(rng() % p.partitions);
      p.cancel = u(rng) < kCancel;
      p.duplicate = u(rng) < kDuplicate;
      const std::size_t index = plans.size();
      const SoakCircuit& c = circuits[p.circuit];
      const JobPlan plan = p;
      engine::ProofRequest req;
      req.circuit_type = c.type;
      req.partitions = p.partitions;
      req.priority = p.priority;
      if (p.duplicate) req.idempotency_key = "soak-" + std::to_string(seed) + "-" + std::to_string(index);
      req.witness = [faults, index, plan, &c, host_budget](std::size_t k, groth16::Witness& out) {
        faults->tag(&out, index, k);
        if (plan.synth_throw == long(k))
          throw std::runtime_error("injected synthesis fault (job " + std::to_string(index) + ")");
        engine::synthesize_into(*c.circuit, out);
        if (plan.bad_witness == long(k)) out.aux[c.breakable_aux] = out.aux[c.breakable_aux] + ff::Fr::one();
        // Reserved, not touched: the budget must refuse it without the memory being used.
        if (plan.overgrow == long(k)) out.aux.reserve(out.aux.capacity() + host_budget / sizeof(ff::Fr) + 1);
      };
      engine::ProofRequest again = req;
      {
        std::lock_guard lock(cmu);
        plans.push_back(p);
      }
      JobId id = 0;
      try {
        id = eng.submit(std::move(req));
      } catch (const engine::EngineError& e) {
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
        } catch (const engine::EngineError& e) {
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
    const engine::EngineStats s = eng.stats();
    engine_stats = {{"host_budget", s.host_budget},
                    {"host_peak", s.host_peak},
                    {"host_used_at_end", s.host_used},
                    {"resident_bytes_at_end", s.resident_bytes},
                    {"buffers_created", s.buffers_created},
                    {"buffers_reused", s.buffers_reused},
                    {"buffers_idle", s.buffers_idle},
                    {"buffers_in_use", s.buffers_in_use},
                    {"partitions_proved", s.partitions_proved},
                    {"partitions_retried", s.partitions_retried},
                    {"verification_failures", s.verification_failures}};
    if (s.host_peak > s.host_budget)
      problems.push_back("the host budget was exceeded: peak " + engine::format_bytes(s.host_peak));
    if (s.buffers_in_use != 0) problems.push_back(std::to_string(s.buffers_in_use) + " witness buffers still in use");
    if (s.host_used != s.resident_bytes + s.buffers_idle_bytes + s.packed_idle_bytes)
      problems.push_back("host memory still charged beyond the residents and idle buffers: " +
                         engine::format_bytes(s.host_used) + " used, " + engine::format_bytes(s.resident_bytes) +
                         " resident, " + engine::format_bytes(s.buffers_idle_bytes) + " in idle buffers");
    bool all_out = true;
    for (const auto& d : s.devices) {
      all_out = all_out && !d.in_service;
      devices_json.push_back({{"device", d.index},
                              {"in_service", d.in_service},
                              {"reason", d.out_of_service_reason},
                              {"partitions_proved", d.partitions_proved},
                              {"failures", d.failures}});
      if (!d.in_service && !contains(d.out_of_service_reason, "injected"))
        problems.push_back("device " + std::to_string(d.index) + " out of service for " + d.out_of_service_reason);
      if (d.index == dead_device && d.in_service)
        problems.push_back("the dead device failed " + std::to_string(faults->lost_device_calls.load()) +
                           " times and is still in service");
    }
    if (faults->lost_device_calls == 0) problems.push_back("the dead device was never called after it died");
    // Every job once in the timeline, final, in the state its result has.
    const engine::TimelineSnapshot tl = eng.timeline();
    std::map<JobId, const engine::JobTimes*> seen;
    for (const auto& j : tl.jobs) {
      if (!seen.emplace(j.job, &j).second) ++timeline_dups;
      if (!engine::is_terminal(j.state)) ++timeline_unfinished;
    }
    timeline_jobs = tl.jobs.size();
    for (std::size_t i = 0; i < plans.size(); ++i) {
      auto it = seen.find(plans[i].id);
      if (it == seen.end() || it->second->state != results[i].state || it->second->error != results[i].error)
        ++timeline_mismatch;
    }
    // The refused oversized requests are jobs too (FAILED at submission), and nothing else is.
    if (timeline_jobs != plans.size() + refused_right + refused_wrong)
      problems.push_back("the timeline has " + std::to_string(timeline_jobs) + " jobs; " +
                         std::to_string(plans.size()) + " were submitted and " +
                         std::to_string(refused_right + refused_wrong) + " refused");
    std::set<JobId> ids;
    for (const auto& p : plans)
      if (!ids.insert(p.id).second) problems.push_back("job id " + std::to_string(p.id) + " given twice");

    const bool all_out_final = all_out;
    // Outcomes per job.
    std::size_t done = 0, failed = 0, cancelled = 0, invalid = 0, wrong_cause = 0, verified = 0;
    std::map<std::string, std::size_t> causes;
    for (std::size_t i = 0; i < plans.size(); ++i) {
      const JobPlan& p = plans[i];
      const engine::JobResult& r = results[i];
      const std::string where =
          "job " + std::to_string(p.id) + " (" + std::string(engine::state_name(r.state)) + ": " + r.error + ")";
      bool injected = p.synth_throw >= 0 || p.bad_witness >= 0 || p.overgrow >= 0 || p.cancelled;
      for (std::size_t k = 0; k < p.partitions; ++k) {
        const auto out = faults->outcomes(i, k);
        injected = injected || std::any_of(out.begin(), out.end(), [](Outcome x) { return x != Outcome::OK; });
      }
      if (p.cancelled != (r.state == JobState::CANCELLED)) {
        ++wrong_cause;
        problems.push_back(where + ": cancel() said " + (p.cancelled ? "yes" : "no"));
      }
      switch (r.state) {
        case JobState::DONE: {
          ++done;
          if (r.proofs.size() != p.partitions) {
            ++invalid;
            problems.push_back(where + ": " + std::to_string(r.proofs.size()) + " proofs");
          }
          for (const auto& proof : r.proofs) {
            if (groth16::verify(circuits[p.circuit].keys->pvk, proof, circuits[p.circuit].publics)) {
              ++verified;
            } else {
              ++invalid;
              problems.push_back(where + ": a returned proof does not verify");
            }
          }
          if (p.synth_throw >= 0 || p.bad_witness >= 0 || p.overgrow >= 0) {
            ++wrong_cause;
            problems.push_back(where + ": done despite a bad witness source");
          }
          for (std::size_t k = 0; k < p.partitions; ++k) {
            const auto out = faults->outcomes(i, k);
            if (std::size_t(std::count_if(out.begin(), out.end(), [](Outcome x) { return x != Outcome::OK; })) >
                kMaxRetries) {
              ++wrong_cause;
              problems.push_back(where + ": done after more device failures than retries on partition " +
                                 std::to_string(k));
            }
          }
          break;
        }
        case JobState::FAILED: {
          ++failed;
          const std::string cause = check_failure(r.error, p, *faults, i, all_out_final);
          if (cause.empty()) {
            ++wrong_cause;
            problems.push_back(where + ": not a cause the soak injected");
          } else {
            ++causes[cause];
          }
          break;
        }
        case JobState::CANCELLED:
          ++cancelled;
          if (r.error != "cancelled") {
            ++wrong_cause;
            problems.push_back(where + ": cancelled with the wrong cause");
          }
          break;
        default:
          problems.push_back(where + ": not final");
      }
      if (!injected && r.state != JobState::DONE && !all_out_final) {
        ++wrong_cause;
        problems.push_back(where + ": nothing was injected, yet it did not finish");
      }
    }
    // A corrupted proof of a job that ended done reached self-verification (a job still running
    // when start() returned), so each one was caught there; those of jobs that ended otherwise
    // may have been dropped unfinished.
    std::size_t corrupted_done = 0;
    for (std::size_t i = 0; i < plans.size(); ++i)
      if (results[i].state == JobState::DONE)
        for (std::size_t k = 0; k < plans[i].partitions; ++k) {
          const auto out = faults->outcomes(i, k);
          corrupted_done += std::size_t(std::count(out.begin(), out.end(), Outcome::CORRUPTED));
        }
    if (s.verification_failures < corrupted_done)
      problems.push_back("fewer verification failures (" + std::to_string(s.verification_failures) +
                         ") than corrupted proofs of jobs that ended done (" + std::to_string(corrupted_done) + ")");
    engine_stats["corrupted_proofs_of_done_jobs"] = corrupted_done;
    engine_stats["jobs"] = plans.size();
    engine_stats["done"] = done;
    engine_stats["failed"] = failed;
    engine_stats["cancelled"] = cancelled;
    engine_stats["proofs_verified_again"] = verified;
    engine_stats["invalid_proofs"] = invalid;
    engine_stats["wrong_cause"] = wrong_cause;
    engine_stats["failure_causes"] = causes;
    sampling = false;
    sampler.join();
    rss_max = rss_peak;
  }  // the engine stops here: every worker joined

  // No thread left behind: oneTBB's workers joined too, the process is back to where it began.
  const bool tbb_joined = oneapi::tbb::finalize(tbb_handle, std::nothrow);
  std::size_t threads_left = thread_count();
  for (int i = 0; i < 200 && threads_left > threads_at_start; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    threads_left = thread_count();
  }
  if (!tbb_joined) problems.push_back("oneTBB's worker threads could not be joined");
  if (threads_left != threads_at_start)
    problems.push_back(std::to_string(threads_left) + " threads at the end, " + std::to_string(threads_at_start) +
                       " at the start");
  const std::uint64_t rss_limit = rss_before + host_budget + rss_slack;
#ifdef SNARKPIPE_SOAK_SANITIZED
  // A sanitizer's allocator keeps freed memory (ASan's quarantine, TSan's shadow): not ours.
  const bool rss_checked = false;
#else
  const bool rss_checked = true;
  if (rss_max > rss_limit)
    problems.push_back("RSS reached " + engine::format_bytes(rss_max) + ", above " + engine::format_bytes(rss_limit));
#endif
  std::size_t planned_cancels = 0, honoured = 0, synth = 0, bad = 0, over = 0, dups = 0;
  for (const auto& p : plans) {
    planned_cancels += p.cancel;
    honoured += p.cancelled;
    synth += p.synth_throw >= 0;
    bad += p.bad_witness >= 0;
    over += p.overgrow >= 0;
    dups += p.duplicate;
  }
  if (duplicates_same != dups) problems.push_back("a duplicate submission made a second job");

  nlohmann::json record = bench_record("snarkpipe bench soak --proofs " + std::to_string(o.proofs) + " --devices " +
                                       std::to_string(o.devices) + " --seed " + std::to_string(seed));
  record["seed"] = std::to_string(seed);
  record["seconds"] = ms_since(t0) / 1000.0;
  record["circuits"] = nlohmann::json::array();
  for (const auto& c : circuits)
    record["circuits"].push_back(
        {{"type", c.type}, {"constraints", c.keys->r1cs.num_constraints}, {"key_bytes", c.keys->host_bytes()}});
  record["injected"] = {{"start_calls", faults->starts.load()},
                        {"start_failures", faults->start_failures.load()},
                        {"slow_starts", faults->slow_starts.load()},
                        {"corrupted_proofs", faults->corruptions.load()},
                        {"dead_device", dead_device},
                        {"dead_after_calls", dead_after},
                        {"dead_device_calls", faults->lost_device_calls.load()},
                        {"synthesis_exceptions", synth},
                        {"unsatisfying_witnesses", bad},
                        {"witnesses_over_budget", over},
                        {"cancellations_planned", planned_cancels},
                        {"cancellations_honoured", honoured},
                        {"duplicate_submissions", dups},
                        {"oversized_requests", refused_right + refused_wrong}};
  record["results"] = engine_stats;
  record["results"]["proofs_requested"] = o.proofs;
  record["results"]["devices"] = devices_json;
  record["results"]["lost_jobs"] = timeline_unfinished + timeline_mismatch;
  record["results"]["duplicated_jobs"] = timeline_dups + duplicates_other;
  record["results"]["oversized_refused_with_cause"] = refused_right;
  record["results"]["rss_before"] = rss_before;
  record["results"]["rss_max"] = rss_max;
  record["results"]["rss_limit"] = rss_limit;
  record["results"]["rss_checked"] = rss_checked;
  record["results"]["threads_at_start"] = threads_at_start;
  record["results"]["threads_at_end"] = threads_left;
  if (timeline_unfinished + timeline_mismatch) problems.push_back("jobs lost (not final, or not as waited for)");
  if (timeline_dups) problems.push_back("jobs in the timeline twice");
  record["problems"] = problems;
  record["ok"] = problems.empty();

  if (o.json) std::cout << record.dump(2) << "\n";
  else {
    const auto& r = record["results"];
    std::printf(
        "soak: %zu jobs (%zu proofs): %zu done, %zu failed, %zu cancelled; %zu proofs verified again, %zu invalid; "
        "%llu start failures, %llu corrupted, %zu synthesis faults injected; %.1f s\n",
        plans.size(), o.proofs, r["done"].get<std::size_t>(), r["failed"].get<std::size_t>(),
        r["cancelled"].get<std::size_t>(), r["proofs_verified_again"].get<std::size_t>(),
        r["invalid_proofs"].get<std::size_t>(), static_cast<unsigned long long>(faults->start_failures.load()),
        static_cast<unsigned long long>(faults->corruptions.load()), synth + bad + over,
        record["seconds"].get<double>());
  }
  if (!o.out.empty()) try {
      write_record(record, o.out);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "soak: %s\n", e.what());
    }
  for (const auto& p : problems) std::fprintf(stderr, "soak: FAILED: %s\n", p.c_str());
  return problems.empty() ? 0 : 1;
}

}  // namespace

std::vector<Command> register_soak_commands(CLI::App& app) {
  CLI::App* bench = app.get_subcommand("bench");
  auto o = std::make_shared<SoakOptions>();
  auto* c =
      bench->add_subcommand("soak", "Proofs through the engine with faults injected; checks nothing is lost or wrong");
  c->footer("Example: snarkpipe bench soak --proofs 1000 --json --out bench/results/soak/soak-DATE.json");
  c->add_option("--proofs", o->proofs, "Partition proofs to request, over jobs of 1 to 3 partitions")
      ->capture_default_str();
  c->add_option("--seed", o->seed, "Seed of the plan and the faults (0: fresh, printed)")->capture_default_str();
  c->add_option("--devices", o->devices, "Fake devices (CPU-backed); the last one dies during the run")
      ->capture_default_str();
  c->add_option("--rss-slack", o->rss_slack,
                "RSS allowed above the start's plus the host budget (thread stacks, allocator)")
      ->capture_default_str();
  c->add_flag("--json", o->json, "Print the JSON record");
  c->add_option("-o,--out", o->out, "Also write the JSON record to this file");
  return {make_command(c, o, run_soak)};
}

}  // namespace snarkpipe::cli
