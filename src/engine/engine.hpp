// The pipelined proving engine (DESIGN.md §3, issue 8):
//
//   submit ─► synthesis queue ─► synthesis workers ─► device queue ─► device workers ─► finalizers ─► result
//             (scheduler order,   (witness into a     (scheduler     (start() under the  (finish + verify,
//              host budget)        pooled buffer)      order)          device's lock)      outside the lock)
//
// - Scheduling (scheduler.hpp): CRITICAL > HIGH > NORMAL > LOW, FIFO within a priority, a
//   job's partitions in order; both queues use that order, so a more urgent job overtakes
//   queued partitions but never a running one.
// - Memory: a partition is admitted to synthesis only when its witness buffer and the
//   backend's host working memory fit the host budget; both stay reserved until its start()
//   returns, so an admitted partition can always finish (no deadlock), and the budget is
//   never exceeded. Device memory is reserved per start() (and once per resident circuit).
// - Devices: each device has workers_per_device workers with their own backend and one lock
//   around start() only; all devices take partitions from the same queue, so a job's
//   partitions spread across devices.
// - Failures: a witness that fails (or does not satisfy the circuit) fails its job, once,
//   with the cause. A device error (start() throws anything but ProverError, or a proof that
//   does not verify) retries the partition up to max_retries times; a device failing
//   device_failure_limit times in a row is taken out of service (and says so in the log).
//   A proof that does not verify is the device's only when its witness satisfies the
//   circuit: without synthesis.check_witness the retry checks the witness before the device
//   is blamed. No proof is returned unverified.
// - Cancellation: queued partitions disappear at once, running ones stop after their
//   current stage; their buffers and reservations return.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <memory_resource>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/backend_factory.hpp"
#include "engine/buffer_pool.hpp"
#include "groth16/packed_witness.hpp"
#include "engine/circuit_store.hpp"
#include "engine/config.hpp"
#include "engine/job.hpp"
#include "engine/memory_budget.hpp"
#include "engine/scheduler.hpp"
#include "engine/timeline.hpp"

namespace snarkpipe::engine {

struct DeviceStatus {
  int index = 0;  // the backend's device number
  std::string name;
  bool in_service = true;
  std::string out_of_service_reason;
  std::size_t workers = 0;
  std::uint64_t memory_budget = 0, memory_peak = 0;
  std::size_t partitions_proved = 0, failures = 0;
};

struct EngineStats {
  std::uint64_t host_budget = 0, host_used = 0, host_peak = 0;
  std::vector<DeviceStatus> devices;  // by device slot (the timeline's device numbers)
  std::size_t buffers_created = 0, buffers_reused = 0, buffers_idle = 0;
  std::size_t buffers_in_use = 0;        // witness buffers held by partitions now
  std::uint64_t buffers_idle_bytes = 0;  // the idle ones' host charge
  std::uint64_t resident_bytes = 0;      // the circuit store's residents' host charge
  // Packed witnesses (a backend that takes them): made so far, and kept idle for reuse with
  // the host bytes they stay charged for.
  std::size_t packed_created = 0, packed_idle = 0;
  std::uint64_t packed_idle_bytes = 0;
  std::size_t partitions_proved = 0, partitions_retried = 0, verification_failures = 0;
};

using LogSink = std::function<void(const std::string&)>;

class Engine {
 public:
  // Starts the workers. Throws EngineError when the configuration names devices the backend
  // does not have, or leaves no device. `log` receives notable events (a device taken out
  // of service, retries); by default they go to stderr.
  Engine(EngineConfig config, std::shared_ptr<BackendProvider> backend, LogSink log = {});
  // Cancels what is still running ("the engine shut down") and joins every worker.
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Register circuit types here before submitting jobs for them.
  CircuitStore& circuits() { return store_; }

  // Queues a request and returns its job; the same idempotency key returns the same job.
  // Loads the circuit's keys first if they are not resident (this call then takes as long).
  // Throws EngineError for a request that cannot run (see job.hpp).
  JobId submit(ProofRequest request);
  // True when the job was queued or running and is now cancelled.
  bool cancel(JobId id);
  JobState state(JobId id) const;
  // How many of the job's partitions are proved (and verified) so far, for progress reports;
  // throws EngineError for an unknown id.
  std::size_t partitions_proved(JobId id) const;
  // Blocks until the job is done, failed or cancelled. Throws EngineError for an unknown id.
  JobResult wait(JobId id);
  std::optional<JobResult> wait_for(JobId id, std::chrono::milliseconds timeout);
  // Drops a finished job (and its idempotency key); false when it is not finished.
  bool forget(JobId id);

  TimelineSnapshot timeline() const { return timeline_.snapshot(); }
  EngineStats stats() const;
  const EngineConfig& config() const { return config_; }

 private:
  struct Job {
    JobId id = 0;
    ProofRequest request;
    std::shared_ptr<const CircuitKeys> keys;
    MemoryNeeds needs;
    JobState state = JobState::QUEUED;
    std::string error;
    std::vector<std::optional<groth16::Proof>> proofs;
    std::size_t proved = 0;
    std::size_t in_flight = 0;  // partitions admitted to synthesis and not settled yet
    bool pinned = false;
    std::vector<unsigned> device_failures;  // per partition
    // Per partition: a proof that failed verification while the witness was not checked at
    // synthesis (synthesis.check_witness = false). Its retry checks the witness first: an
    // unsatisfying one fails the job and clears the device; a satisfying one blames it then.
    struct UnverifiedFailure {
      int device = 0;  // slot
      std::string what;
    };
    std::vector<std::optional<UnverifiedFailure>> suspect;
  };
  // A synthesized partition waiting for a device, holding its buffer and host reservation.
  // A synthesized partition waiting for a device: its full witness buffer, or (when the
  // backend takes packed witnesses) the packed form, charged on its own, the buffer back in
  // the pool for the next synthesis.
  struct Ready {
    WitnessBufferPool::Handle buffer;
    std::uint64_t working = 0;
    std::unique_ptr<groth16::PackedWitness> packed;
    std::uint64_t packed_charge = 0;
  };
  struct PendingRelease {
    std::shared_ptr<const CircuitKeys> keys;
    std::uint64_t seq = 0;
    std::size_t workers_left = 0;
  };
  struct Device {
    DeviceSpec spec;
    std::unique_ptr<MemoryBudget> memory;
    // Held around start() only, and taken in the order partitions left the ready queue (a
    // ticket per popped partition): with a plain mutex one worker could re-take it at once
    // after each start() while another worker's partition waited (measured: 5 s on the H200).
    std::mutex start_lock;
    std::condition_variable turn;
    std::uint64_t next_ticket = 0;  // under the engine's mutex
    std::uint64_t serving = 0;      // under start_lock
    bool in_service = true;
    bool cpu_fallback = false;  // the CPU, started when no device was left (gpu.cpu_fallback)
    std::string reason;
    unsigned consecutive_failures = 0;
    std::size_t proved = 0, failures = 0, live_workers = 0;
    std::map<const CircuitKeys*, std::uint64_t> resident;  // keys whose device memory is charged
    std::deque<PendingRelease> releases;                   // evicted keys to release_key() per worker
    std::uint64_t release_seq = 0;
    std::vector<std::thread> threads;
  };
  struct Finish {
    PartitionKey key;
    int device = 0;
    groth16::ProofParts parts;
    std::vector<ff::Fr> public_inputs;
    std::shared_ptr<const CircuitKeys> keys;
  };

  // The worker loops (synthesis_pool.cpp, prover_workers.cpp). Every helper below runs
  // with mu_ held.
  void synthesis_worker();
  void device_worker(std::size_t slot, std::unique_ptr<groth16::ProverBackend> backend);
  void finalizer_worker();
  bool device_can_take(const Device& d) const;
  std::uint64_t device_need(const Device& d, const Job& job) const;
  void device_failed(Device& d, const std::string& what);
  // A proof from device `d` did not verify and its witness satisfies the circuit: the
  // device's fault, counted against the device and the partition (which may fail the job).
  void proof_failed_on_device(Job& job, std::uint32_t partition, Device& d, const std::string& what);
  void take_out_of_service(Device& d, const std::string& why);
  // Adds the CPU as a device and starts its worker; false when gpu.cpu_fallback is off, the
  // backend is the CPU already, or the fallback was started before.
  bool start_cpu_fallback();
  // Where packed witnesses are made: the backend's memory (page-locked for GPUs), or the
  // default heap once the engine proves on the CPU fallback (no device to pin memory for).
  std::pmr::memory_resource* witness_memory() const;
  void wake();
  void finish_job(Job& job, JobState state, const std::string& error);
  void release_ready(Ready& r);
  void settle(Job& job);  // a partition left the pipeline
  void evicted(std::vector<std::shared_ptr<const CircuitKeys>> keys);
  JobResult result_of(const Job& job) const;

  const EngineConfig config_;
  const std::shared_ptr<BackendProvider> backend_;
  std::atomic<bool> on_cpu_fallback_{false};  // read by synthesis workers outside the lock
  const LogSink log_;
  Timeline timeline_;
  MemoryBudget host_;
  CircuitStore store_;
  WitnessBufferPool pool_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::uint64_t epoch_ = 0;  // bumped by wake(): anything that may unblock a waiting worker
  bool stopping_ = false;
  JobId next_id_ = 1;
  std::map<JobId, std::unique_ptr<Job>> jobs_;
  std::map<std::string, JobId> keys_;
  PartitionQueue<char> synth_;
  PartitionQueue<Ready> ready_;
  std::deque<Finish> finishing_;
  // Packed witnesses the devices are done with, kept (with their host charge) for the next
  // partitions: in the backend's witness memory (page-locked for a GPU), which is slow to
  // allocate and to free. As many as were ever in flight at once (a new one is made only when
  // none is kept); freed, outside mu_, when admission or loading a circuit needs the room.
  struct SparePacked {
    std::unique_ptr<groth16::PackedWitness> packed;
    std::uint64_t charge = 0;
  };
  std::vector<SparePacked> spare_packed_;
  std::size_t packed_created_ = 0;
  // Under mu_: every kept packed witness, its charge released; the caller frees them after
  // letting mu_ go (freeing page-locked memory may wait for a device).
  std::vector<SparePacked> take_spare_packed();
  std::size_t synthesizing_ = 0;  // partitions in a synthesis worker now
  std::size_t lookahead_ = 0;     // most partitions synthesizing or waiting for a device
  // Reserved for one more than the devices chosen: the CPU fallback is appended while the
  // device workers run, and they index it without the lock (so it must never reallocate).
  std::vector<std::unique_ptr<Device>> devices_;
  std::vector<std::string> device_names_;  // the timeline's
  std::size_t retried_ = 0, verification_failures_ = 0, proved_ = 0;

  std::vector<std::thread> synthesis_threads_, finalizer_threads_;
};

}  // namespace snarkpipe::engine
