// The device workers (start() under the device's lock, nothing else under it) and the
// finalizers (finish, then self-verification: no proof leaves unverified), with the
// failure policy: retries, devices taken out of service, jobs failed once with the cause.
#include "engine/cpu_fallback.hpp"
#include "engine/engine.hpp"
#include "groth16/verifier.hpp"

namespace snarkpipe::engine {

std::uint64_t Engine::device_need(const Device& d, const Job& job) const {
  if (d.cpu_fallback) return 0;  // proves in host memory
  return job.needs.device_per_partition + (d.resident.contains(job.keys.get()) ? 0 : job.needs.device_resident);
}

bool Engine::device_can_take(const Device& d) const {
  if (ready_.empty()) return false;
  return device_need(d, *jobs_.at(ready_.front().job)) <= d.memory->available();
}

void Engine::take_out_of_service(Device& d, const std::string& why) {
  if (!d.in_service) return;
  d.in_service = false;
  d.reason = why;
  log_("device " + std::to_string(d.spec.index) + " (" + d.spec.name + ") taken out of service: " + why);
  if (std::any_of(devices_.begin(), devices_.end(), [](const auto& x) { return x->in_service; })) return;
  if (!stopping_ && start_cpu_fallback()) return;
  log_("no device left in service: failing every unfinished job");
  for (auto& [_, job] : jobs_)
    if (!is_terminal(job->state))
      finish_job(*job, JobState::FAILED,
                 "no device in service (device " + std::to_string(d.spec.index) + ": " + why + ")");
}

std::pmr::memory_resource* Engine::witness_memory() const {
  return on_cpu_fallback_ ? std::pmr::get_default_resource() : backend_->witness_memory();
}

bool Engine::start_cpu_fallback() {
  if (!config_.cpu_fallback || backend_->kind() == "cpu" ||
      std::any_of(devices_.begin(), devices_.end(), [](const auto& x) { return x->cpu_fallback; }))
    return false;
  auto d = std::make_unique<Device>();
  d->spec = DeviceSpec{-1, "cpu (fallback)", 0};
  d->cpu_fallback = true;
  on_cpu_fallback_ = true;
  d->memory = std::make_unique<MemoryBudget>("the CPU fallback", config_.device_budget_for(0));
  d->live_workers = 1;
  devices_.push_back(std::move(d));  // never reallocates: reserved in the constructor
  device_names_.push_back("cpu:fallback");
  timeline_.set_devices(device_names_);
  const std::size_t slot = devices_.size() - 1;
  log_("no device left in service: proving on the CPU from now on (gpu.cpu_fallback)");
  devices_[slot]->threads.emplace_back([this, slot] { device_worker(slot, std::make_unique<CpuFallbackBackend>()); });
  return true;
}

void Engine::device_failed(Device& d, const std::string& what) {
  ++d.failures;
  if (++d.consecutive_failures >= config_.device_failure_limit)
    take_out_of_service(d, std::to_string(d.consecutive_failures) + " consecutive failures, the last: " + what);
}

void Engine::proof_failed_on_device(Job& job, std::uint32_t partition, Device& d, const std::string& what) {
  ++job.device_failures[partition];
  device_failed(d, what);
  if (!is_terminal(job.state) && job.device_failures[partition] > config_.max_retries)
    finish_job(job, JobState::FAILED, what + ", after " + std::to_string(job.device_failures[partition]) + " attempts");
}

void Engine::device_worker(std::size_t slot, std::unique_ptr<groth16::ProverBackend> backend) {
  Device& d = *devices_[slot];
  std::uint64_t released_upto = 0;
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] {
      return stopping_ || !d.in_service || (!d.releases.empty() && d.releases.back().seq > released_upto) ||
             device_can_take(d);
    });
    // Keys evicted from the store: this worker's backend forgets its copies (outside the lock).
    std::vector<std::shared_ptr<const CircuitKeys>> forget;
    for (auto& r : d.releases)
      if (r.seq > released_upto) {
        forget.push_back(r.keys);
        released_upto = r.seq;
        --r.workers_left;
      }
    while (!d.releases.empty() && d.releases.front().workers_left == 0) d.releases.pop_front();
    if (!forget.empty()) {
      lock.unlock();
      for (const auto& k : forget) {
        backend->release_key(k->pk);
        backend->release_circuit(k->r1cs);
      }
      forget.clear();
      lock.lock();
      continue;
    }
    if (stopping_ || !d.in_service) break;

    auto [key, ready] = ready_.pop();
    const std::uint64_t ticket = d.next_ticket++;
    Job& job = *jobs_.at(key.job);
    const std::shared_ptr<const CircuitKeys> keys = job.keys;
    const std::uint64_t need = device_need(d, job);
    // device_can_take checked that it fits; nobody else reserves on this device meanwhile
    // except under mu_, which is held.
    d.memory->try_reserve(need);
    if (!d.resident.contains(keys.get())) d.resident[keys.get()] = d.cpu_fallback ? 0 : job.needs.device_resident;
    const std::uint64_t per_partition = d.cpu_fallback ? 0 : job.needs.device_per_partition;
    lock.unlock();

    groth16::ProofParts parts;
    std::string partition_error, device_error;
    {
      std::unique_lock kernels(d.start_lock);
      d.turn.wait(kernels, [&] { return d.serving == ticket; });
      timeline_.record(key.job, key.partition, Stage::GPU_START, int(slot));
      try {
        parts = ready.packed ? backend->start_packed(keys->pk, keys->r1cs, *ready.packed)
                             : backend->start(keys->pk, keys->r1cs, ready.buffer->witness);
      } catch (const groth16::ProverError& e) {
        partition_error = e.what();
      } catch (const std::exception& e) {
        device_error = e.what();
        if (device_error.empty()) device_error = "unknown error";
      }
      timeline_.record(key.job, key.partition, Stage::GPU_END, int(slot));
      ++d.serving;
    }
    d.turn.notify_all();
    std::vector<ff::Fr> publics;
    if (partition_error.empty() && device_error.empty()) {
      const std::vector<ff::Fr>& in = ready.packed ? ready.packed->inputs : ready.buffer->witness.inputs;
      publics.assign(in.begin() + 1, in.end());
    }

    lock.lock();
    d.memory->release(per_partition);
    const std::string where = "partition " + std::to_string(key.partition) + ": ";
    if (!device_error.empty()) {
      ++job.device_failures[key.partition];
      log_("device " + std::to_string(d.spec.index) + " (" + d.spec.name + ") failed job " + std::to_string(job.id) +
           " " + where + device_error);
      device_failed(d, device_error);
      if (is_terminal(job.state)) {
        release_ready(ready);
        --job.in_flight;
        settle(job);
      } else if (job.device_failures[key.partition] > config_.max_retries) {
        release_ready(ready);
        --job.in_flight;
        finish_job(job, JobState::FAILED,
                   where + "the device failed " + std::to_string(job.device_failures[key.partition]) +
                       " times, the last on device " + std::to_string(d.spec.index) + ": " + device_error);
      } else {
        ++retried_;
        ready_.push(key, std::move(ready));
        timeline_.record(key.job, key.partition, Stage::GPU_QUEUE);
      }
      wake();
      continue;
    }
    release_ready(ready);
    if (!partition_error.empty() || is_terminal(job.state)) {
      --job.in_flight;
      if (!partition_error.empty()) finish_job(job, JobState::FAILED, where + partition_error);
      settle(job);
      wake();
      continue;
    }
    finishing_.push_back({key, int(slot), parts, std::move(publics), keys});
    wake();
  }
  --d.live_workers;
  // This worker will not release keys any more: do not wait for it.
  for (auto& r : d.releases)
    if (r.seq > released_upto) --r.workers_left;
  while (!d.releases.empty() && d.releases.front().workers_left == 0) d.releases.pop_front();
}

void Engine::finalizer_worker() {
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stopping_ || !finishing_.empty(); });
    if (stopping_) return;
    Finish f = std::move(finishing_.front());
    finishing_.pop_front();
    lock.unlock();

    timeline_.record(f.key.job, f.key.partition, Stage::FINISH_START, f.device);
    std::optional<groth16::Proof> proof;
    std::string failure;
    try {
      proof = groth16::assemble(f.keys->pk.vk, f.parts, groth16::ProverRandomness::random());
      if (!groth16::verify(f.keys->pvk, *proof, f.public_inputs)) failure = "the proof does not verify";
    } catch (const std::exception& e) {
      failure = std::string("finishing the proof failed: ") + e.what();
    }
    timeline_.record(f.key.job, f.key.partition, Stage::FINISH_END, f.device);

    lock.lock();
    Job& job = *jobs_.at(f.key.job);
    Device& d = *devices_[f.device];
    --job.in_flight;
    if (failure.empty()) {
      d.consecutive_failures = 0;
      ++d.proved;
      ++proved_;
      if (!is_terminal(job.state) && !job.proofs[f.key.partition]) {
        job.proofs[f.key.partition] = std::move(proof);
        if (++job.proved == job.proofs.size()) finish_job(job, JobState::DONE, "");
      }
    } else {
      ++verification_failures_;
      const std::string what = "partition " + std::to_string(f.key.partition) + ": " + failure + " (device " +
                               std::to_string(d.spec.index) + ")";
      log_("job " + std::to_string(job.id) + " " + what);
      if (config_.check_witness) {
        // The witness satisfied the circuit at synthesis, so a bad proof is the device's fault.
        proof_failed_on_device(job, f.key.partition, d, what);
      } else if (!is_terminal(job.state)) {
        // The witness was never checked and may be what is wrong: the retry checks it, and
        // the device is blamed only if it satisfies the circuit (synthesis_pool.cpp).
        job.suspect[f.key.partition] = Job::UnverifiedFailure{f.device, what};
      }
      if (!is_terminal(job.state)) {
        ++retried_;
        synth_.push(f.key, 0);
      }
    }
    settle(job);
    wake();
  }
}

}  // namespace snarkpipe::engine
