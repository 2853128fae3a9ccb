#include "cluster/cluster_worker.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "base/write_file.hpp"
#include "engine/witness.hpp"
#include "groth16/proof.hpp"
#include "service/spool.hpp"
#include "service/witness_upload.hpp"

namespace snarkpipe::cluster {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// After a failed statement (the database restarting, say): how long a slot waits to try again.
constexpr auto RETRY_AFTER = std::chrono::milliseconds(500);
// How often a slot looks at its engine job (the lease and the drain are checked between looks).
constexpr auto RESULT_POLL = std::chrono::milliseconds(50);

engine::Priority priority_of_rank(int rank) {
  return static_cast<engine::Priority>(std::clamp(rank, 0, static_cast<int>(engine::Priority::CRITICAL)));
}

// A witness kept in the job's row, written where the upload readers can read it.
fs::path write_scratch(const fs::path& dir, const ClaimedPartition& c) {
  fs::create_directories(dir);
  const fs::path path = dir / ("job-" + std::to_string(c.job_id) + "-" + std::to_string(c.token) + ".witness");
  base::write_file(path, c.witness_inline, O_TRUNC, false, 0600);
  return path;
}

}  // namespace

// A claim in work: its engine (or lane) job, and whether its lease was lost.
struct ClusterWorker::Running {
  ClaimedPartition claim;
  std::atomic<bool> lost{false};
};

ClusterWorker::ClusterWorker(engine::Engine& engine, service::Service& service, ClusterQueue& queue,
                             WorkerOptions options)
    : engine_(engine), service_(service), queue_(queue), options_(std::move(options)), lane_(options_.zkey_prove) {
  if (options_.slots == 0) throw std::invalid_argument("cluster worker: slots must be at least 1");
  if (options_.max_attempts < 1) throw std::invalid_argument("cluster worker: max_attempts must be at least 1");
}

ClusterWorker::~ClusterWorker() { stop(); }

void ClusterWorker::log(const std::string& line) const {
  if (options_.log) options_.log(line);
  else std::fprintf(stderr, "snarkpipe cluster: %s\n", line.c_str());
}

void ClusterWorker::start() {
  if (started_.exchange(true)) return;
  listener_ = std::thread([this] { listen_loop(); });
  heartbeat_ = std::thread([this] { heartbeat_loop(); });
  for (unsigned i = 0; i < options_.slots; ++i) slots_.emplace_back([this] { slot_loop(); });
}

std::pair<std::size_t, std::size_t> ClusterWorker::drain(std::chrono::milliseconds deadline) {
  if (!started_ || stopping_) return {0, 0};
  draining_ = true;
  wake_.notify_all();
  const auto until = std::chrono::steady_clock::now() + deadline;
  {
    std::unique_lock lock(mu_);
    while (!running_.empty() && std::chrono::steady_clock::now() < until)
      wake_.wait_until(lock, std::min(until, std::chrono::steady_clock::now() + RESULT_POLL));
  }
  cancel_all_ = true;  // what is left is cancelled and given back
  for (std::thread& t : slots_) t.join();
  slots_.clear();
  stopping_ = true;
  wake_.notify_all();
  if (heartbeat_.joinable()) heartbeat_.join();
  if (listener_.joinable()) listener_.join();
  std::lock_guard lock(mu_);
  return {drained_finished_, drained_released_};
}

void ClusterWorker::stop() { drain(std::chrono::milliseconds(0)); }

WorkerCounts ClusterWorker::counts() const {
  std::lock_guard lock(mu_);
  return counts_;
}

json ClusterWorker::status() const {
  std::lock_guard lock(mu_);
  json running = json::array();
  for (const auto& [token, r] : running_)
    running.push_back({{"job", r->claim.job_id}, {"partition", r->claim.index}, {"attempt", r->claim.attempts}});
  return {{"slots", options_.slots},      {"running", std::move(running)},  {"skipped_circuits", skipped_circuits_},
          {"claimed", counts_.claimed},   {"completed", counts_.completed}, {"assembled", counts_.assembled},
          {"released", counts_.released}, {"failed", counts_.failed},       {"lost", counts_.lost},
          {"given_up", counts_.given_up}};
}

std::uint64_t ClusterWorker::memory_available() const {
  const engine::EngineStats s = engine_.stats();
  if (s.host_budget == 0) return std::numeric_limits<std::uint64_t>::max();
  // Idle pooled buffers are charged but free to take.
  const std::uint64_t reusable = s.buffers_idle_bytes + s.packed_idle_bytes;
  const std::uint64_t used = s.host_used > reusable ? s.host_used - reusable : 0;
  return s.host_budget > used ? s.host_budget - used : 0;
}

void ClusterWorker::listen_loop() {
  std::unique_ptr<WorkListener> listener;
  while (!stopping_) {
    try {
      if (!listener) listener = std::make_unique<WorkListener>(queue_.options().conninfo);
      if (listener->wait(std::chrono::milliseconds(250))) {
        std::lock_guard lock(mu_);
        ++wakeups_;
        wake_.notify_all();
      }
    } catch (const std::exception& e) {
      listener.reset();  // the link broke (a database restart): listen again on a new one
      std::unique_lock lock(mu_);
      wake_.wait_for(lock, RETRY_AFTER, [&] { return stopping_.load(); });
    }
  }
}

void ClusterWorker::heartbeat_loop() {
  const auto period = std::max(queue_.options().lease / 3, std::chrono::milliseconds(50));
  bool failing = false;
  while (!stopping_) {
    {
      std::unique_lock lock(mu_);
      wake_.wait_for(lock, period, [&] { return stopping_.load(); });
    }
    if (stopping_) break;
    // Only claims made before the beat are judged by its answer.
    std::vector<std::shared_ptr<Running>> judged;
    {
      std::lock_guard lock(mu_);
      for (const auto& [token, r] : running_) judged.push_back(r);
    }
    std::vector<PartitionRef> held;
    try {
      held = queue_.heartbeat();
      if (failing) log("heartbeat: the database answers again");
      failing = false;
    } catch (const std::exception& e) {
      if (!failing) log(std::string("heartbeat failed (leases are kept while they last): ") + e.what());
      failing = true;
      continue;
    }
    const std::set<PartitionRef> kept(held.begin(), held.end());
    for (const auto& r : judged)
      if (!kept.count({r->claim.job_id, r->claim.index}) && !r->lost.exchange(true)) {
        log("job " + std::to_string(r->claim.job_id) + " partition " + std::to_string(r->claim.index) +
            ": lease lost (taken over, or the job was closed); stopping it");
        std::lock_guard lock(mu_);
        ++counts_.lost;
      }
  }
}

void ClusterWorker::slot_loop() {
  bool failing = false;
  while (!draining_ && !stopping_) {
    std::uint64_t seen;
    std::set<std::string> skip;
    {
      std::lock_guard lock(mu_);
      seen = wakeups_;
      skip = skipped_circuits_;
    }
    std::optional<ClaimedPartition> claim;
    const auto asked = std::chrono::steady_clock::now();
    try {
      claim = queue_.claim(memory_available(), skip);
      if (failing) log("claims: the database answers again");
      failing = false;
    } catch (const std::exception& e) {
      if (!failing) log(std::string("claim failed (trying again): ") + e.what());
      failing = true;
      std::unique_lock lock(mu_);
      wake_.wait_for(lock, RETRY_AFTER, [&] { return draining_ || stopping_; });
      continue;
    }
    if (!claim) {
      std::unique_lock lock(mu_);
      wake_.wait_for(lock, options_.idle_wait, [&] { return draining_ || stopping_ || wakeups_ != seen; });
      continue;
    }
    {
      std::lock_guard lock(mu_);
      ++counts_.claimed;
    }
    // One line per claim, with the claim statement's time as this host saw it (round trip
    // included): the cluster's claim latency under load is read from these (bench_cluster_hosts).
    char took[32];
    std::snprintf(took, sizeof took, "%.3f",
                  std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - asked).count());
    log("job " + std::to_string(claim->job_id) + " partition " + std::to_string(claim->index) + ": claimed (attempt " +
        std::to_string(claim->attempts) + ") in " + took + " ms");
    work_on(std::move(*claim));
  }
}

void ClusterWorker::work_on(ClaimedPartition claim) {
  const std::string what = "job " + std::to_string(claim.job_id) + " partition " + std::to_string(claim.index);
  const auto count = [&](std::uint64_t WorkerCounts::*field) {
    std::lock_guard lock(mu_);
    ++(counts_.*field);
  };
  // Statements about the claim run until they succeed or the lease is gone anyway: a
  // database restart must not lose a finished proof.
  const auto settle = [&](const std::function<void()>& statement) {
    const auto give_up = std::chrono::steady_clock::now() + queue_.options().lease;
    for (;;) {
      try {
        statement();
        return;
      } catch (const std::exception& e) {
        if (std::chrono::steady_clock::now() >= give_up) {
          log(what + ": could not record the result (the lease will return it to the queue): " + e.what());
          return;
        }
        std::this_thread::sleep_for(RETRY_AFTER);
      }
    }
  };
  if (claim.attempts > options_.max_attempts) {
    settle([&] {
      queue_.fail(claim, "given up after " + std::to_string(claim.attempts - 1) +
                             " claims: the hosts proving it were lost each time");
    });
    log(what + ": given up after " + std::to_string(claim.attempts - 1) + " claims");
    count(&WorkerCounts::given_up);
    return;
  }
  std::shared_ptr<const service::ServedCircuit> type;
  try {
    type = service_.circuit_for_claim(claim.circuit);
  } catch (const std::exception& e) {
    log(what + ": this host cannot prove circuit '" + claim.circuit +
        "', giving it back and skipping the circuit: " + e.what());
    {
      std::lock_guard lock(mu_);
      skipped_circuits_.insert(claim.circuit);
    }
    settle([&] { queue_.release(claim); });
    count(&WorkerCounts::released);
    return;
  }

  // The witness source of the claimed partition, as partition 0 of a one-partition job.
  auto inputs = std::make_shared<std::vector<ff::Fr>>();
  fs::path scratch;
  engine::WitnessSource source;
  engine::PackedWitnessSource packed_source;
  const std::size_t index = static_cast<std::size_t>(claim.index);
  try {
    if (claim.witness_format.empty()) {
      if (!type->instance) throw std::runtime_error("circuit '" + claim.circuit + "' has no seeded witnesses");
      source = [type, seed = claim.seed, index, inputs](std::size_t, groth16::Witness& out) {
        const std::unique_ptr<circuit::Circuit> c = type->instance(seed, index);
        engine::synthesize_into(*c, out);
        inputs->assign(out.inputs.begin() + 1, out.inputs.end());
      };
    } else {
      const auto format = service::parse_witness_format(claim.witness_format);
      if (!format) throw std::runtime_error("unknown witness format '" + claim.witness_format + "'");
      const service::WitnessShape shape{type->inputs, type->aux};
      const auto starts = json::parse(claim.witness_offsets).get<std::vector<std::uint64_t>>();
      fs::path file = claim.witness_path;
      if (file.empty()) file = scratch = write_scratch(options_.scratch_dir, claim);
      source = [file, format = *format, shape, starts, index, inputs](std::size_t, groth16::Witness& out) {
        service::read_uploaded_partition(file, format, shape, starts, index, out);
        inputs->assign(out.inputs.begin() + 1, out.inputs.end());
      };
      if (*format == service::WitnessFormat::PACKED && !type->zkey)
        packed_source = [file, shape, starts, index, inputs](std::size_t, groth16::PackedWitness& out) {
          service::read_uploaded_packed_partition(file, shape, starts, index, out);
          inputs->assign(out.inputs.begin() + 1, out.inputs.end());
        };
    }
  } catch (const std::exception& e) {
    if (!scratch.empty()) service::remove_quietly(scratch);
    settle([&] { queue_.fail(claim, std::string("its witness cannot be read: ") + e.what()); });
    count(&WorkerCounts::failed);
    return;
  }

  const bool on_lane = type->zkey != nullptr;
  std::uint64_t id = 0;
  try {
    id = on_lane ? lane_.submit({type->zkey, 1, priority_of_rank(claim.priority), std::move(source)})
                 : engine_.submit({claim.circuit, std::move(source), 1, priority_of_rank(claim.priority), "",
                                   std::move(packed_source)});
  } catch (const std::exception& e) {
    // This engine refuses it (its budget too small for the circuit, no device): another host may not.
    if (!scratch.empty()) service::remove_quietly(scratch);
    log(what + ": this host's engine refuses circuit '" + claim.circuit + "', giving it back: " + e.what());
    {
      std::lock_guard lock(mu_);
      skipped_circuits_.insert(claim.circuit);
    }
    settle([&] { queue_.release(claim); });
    count(&WorkerCounts::released);
    return;
  }
  auto running = std::make_shared<Running>();
  running->claim = claim;
  {
    std::lock_guard lock(mu_);
    running_[claim.token] = running;
  }

  std::optional<engine::JobResult> result;
  bool cancelled = false;
  while (!result) {
    if (!cancelled && (running->lost || cancel_all_)) {
      cancelled = true;
      if (on_lane) lane_.cancel(id);
      else engine_.cancel(id);
    }
    if (on_lane) {
      result = lane_.result(id);
      if (!result) std::this_thread::sleep_for(RESULT_POLL);
    } else {
      result = engine_.wait_for(id, RESULT_POLL);
    }
  }
  if (on_lane) lane_.forget(id);
  else engine_.forget(id);
  if (!scratch.empty()) service::remove_quietly(scratch);

  bool finished = false, released = false;
  if (running->lost) {
    // Its lease is another host's now (or the job closed): this proof is not stored.
  } else if (result->state == engine::JobState::DONE) {
    json publics = json::array();
    for (const ff::Fr& x : *inputs) publics.push_back(x.to_decimal());
    CompleteOutcome outcome = CompleteOutcome::not_holder;
    settle([&] { outcome = queue_.complete(claim, result->bytes(), true, publics.dump()); });
    if (outcome == CompleteOutcome::accepted || outcome == CompleteOutcome::assembled) {
      count(&WorkerCounts::completed);
      if (outcome == CompleteOutcome::assembled) count(&WorkerCounts::assembled);
      finished = true;
    } else {
      log(what + ": proved, but not stored: " + to_string(outcome));
    }
  } else if (cancelled || draining_) {
    settle([&] { released = queue_.release(claim); });
    count(&WorkerCounts::released);
  } else {
    // The engine retries a device's faults itself (and falls back to the CPU): what reaches
    // here is the job's own (its witness does not satisfy the circuit, say).
    log(what + ": failed: " + result->error);
    settle([&] { queue_.fail(claim, result->error); });
    count(&WorkerCounts::failed);
  }
  std::lock_guard lock(mu_);
  running_.erase(claim.token);
  if (draining_) {
    drained_finished_ += finished;
    drained_released_ += released;
  }
  wake_.notify_all();
}

}  // namespace snarkpipe::cluster
