// A daemon's share of a cluster's work (issue 26): slots that claim partitions from the shared
// queue (cluster_queue.hpp), prove each as a one-partition job of this host's engine (or its
// zkey lane), and complete it with its proof and public inputs; the host that completes a
// job's last partition assembles the job (in the same statement). A heartbeat renews the
// leases; a partition whose lease was lost (this host was too slow, or the job was cancelled)
// is stopped and never completed. With `snarkpipe serve --db postgresql://...` the service only
// admits and records jobs (ServiceOptions::proved_by_claims) and this worker proves them.
//
// What it does with a claim it cannot prove:
//   - a circuit this host cannot serve (its files unreadable here, or another verifying key):
//     given back, and the circuit skipped by this host's later claims;
//   - claimed more than `max_attempts` times (hosts were lost while proving it): the job fails;
//   - a witness the engine refuses: the job fails with the engine's cause;
//   - a drain (SIGTERM): in-flight partitions get the deadline, then are given back.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/cluster_queue.hpp"
#include "engine/engine.hpp"
#include "service/service.hpp"
#include "service/zkey_lane.hpp"

namespace snarkpipe::cluster {

struct WorkerOptions {
  unsigned slots = 2;    // partitions in work at once: one synthesizing while another proves
  int max_attempts = 3;  // a partition claimed more often than this fails its job
  // Between empty claims when no submission wakes the worker (a missed notification costs
  // at most this).
  std::chrono::milliseconds idle_wait{2000};
  std::filesystem::path scratch_dir;            // where a witness kept in a job's row is written to be read
  service::ZkeyProve zkey_prove;                // how .zkey circuits are proved; empty: on the CPU
  std::function<void(const std::string&)> log;  // notable events; empty: stderr
};

struct WorkerCounts {
  std::uint64_t claimed = 0, completed = 0, assembled = 0, released = 0, failed = 0, lost = 0, given_up = 0;
};

class ClusterWorker {
 public:
  // `engine`, `service` and `queue` must outlive the worker.
  ClusterWorker(engine::Engine& engine, service::Service& service, ClusterQueue& queue, WorkerOptions options);
  ~ClusterWorker();  // stop()
  ClusterWorker(const ClusterWorker&) = delete;
  ClusterWorker& operator=(const ClusterWorker&) = delete;

  void start();
  // Stops claiming; partitions in work get until `deadline` to finish, then are cancelled and
  // given back to the queue. Returns how many finished and how many were given back.
  std::pair<std::size_t, std::size_t> drain(std::chrono::milliseconds deadline);
  void stop();  // drain(0); idempotent

  WorkerCounts counts() const;
  nlohmann::json status() const;

 private:
  struct Running;
  void slot_loop();
  void heartbeat_loop();
  void listen_loop();
  void work_on(ClaimedPartition claim);
  std::uint64_t memory_available() const;
  void log(const std::string& line) const;

  engine::Engine& engine_;
  service::Service& service_;
  ClusterQueue& queue_;
  const WorkerOptions options_;
  service::ZkeyLane lane_;

  mutable std::mutex mu_;
  std::condition_variable wake_;                              // work was submitted, or the worker is stopping
  std::uint64_t wakeups_ = 0;                                 // notifications seen, under mu_
  std::map<std::int64_t, std::shared_ptr<Running>> running_;  // by claim token
  std::set<std::string> skipped_circuits_;                    // this host cannot prove them
  WorkerCounts counts_;
  std::size_t drained_finished_ = 0, drained_released_ = 0;
  std::atomic<bool> draining_{false}, stopping_{false}, started_{false};
  std::atomic<bool> cancel_all_{false};  // the drain's deadline passed
  std::vector<std::thread> slots_;
  std::thread heartbeat_, listener_;
};

}  // namespace snarkpipe::cluster
