#include "engine/engine.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>

namespace snarkpipe::engine {

namespace {

LogSink default_log() {
  return [](const std::string& line) { std::fprintf(stderr, "snarkpipe engine: %s\n", line.c_str()); };
}

}  // namespace

Engine::Engine(EngineConfig config, std::shared_ptr<BackendProvider> backend, LogSink log)
    : config_(std::move(config)),
      backend_(std::move(backend)),
      log_(log ? std::move(log) : default_log()),
      timeline_(config_.timeline),
      host_("host", config_.host_budget),
      store_(host_),
      pool_(host_) {
  config_.validate();
  if (!backend_) throw EngineError("no backend");
  // Loading a circuit may need the bytes idle witness buffers and kept packed witnesses hold
  // (the store calls this without mu_ held; the buffers are freed after it is let go).
  store_.set_reclaimer([this](std::uint64_t bytes) {
    pool_.trim(bytes, std::numeric_limits<std::size_t>::max(), std::numeric_limits<std::size_t>::max());
    std::vector<SparePacked> spares;
    {
      std::lock_guard lock(mu_);
      spares = take_spare_packed();
    }
  });
  const std::vector<DeviceSpec> available = backend_->devices();
  std::vector<DeviceSpec> chosen;
  if (config_.devices.empty()) {
    chosen = available;
  } else {
    for (int want : config_.devices) {
      auto it = std::find_if(available.begin(), available.end(), [&](const DeviceSpec& d) { return d.index == want; });
      if (it == available.end()) {
        std::string have;
        for (const auto& d : available) have += (have.empty() ? "" : ", ") + std::to_string(d.index);
        throw EngineError("device " + std::to_string(want) + " requested; the " + backend_->kind() +
                          " backend has device(s) " + (have.empty() ? "none" : have));
      }
      chosen.push_back(*it);
    }
  }
  if (chosen.empty()) throw EngineError("the " + backend_->kind() + " backend has no device");

  std::vector<std::string>& names = device_names_;
  devices_.reserve(chosen.size() + 1);
  for (const auto& spec : chosen) {
    auto d = std::make_unique<Device>();
    d->spec = spec;
    d->spec.budget = config_.device_budget ? config_.device_budget_for(spec.memory) : 0;
    d->memory = std::make_unique<MemoryBudget>("device " + std::to_string(spec.index) + " (" + spec.name + ")",
                                               config_.device_budget_for(spec.memory));
    names.push_back(std::to_string(spec.index) + ":" + spec.name);
    devices_.push_back(std::move(d));
  }
  timeline_.set_devices(names);
  lookahead_ =
      config_.lookahead ? config_.lookahead : config_.synthesis_workers + devices_.size() * config_.workers_per_device;

  // Backends are made here, before any thread starts, so a backend that cannot be made
  // (no memory for its planned buffers, ...) fails the constructor with its cause.
  std::vector<std::vector<std::unique_ptr<groth16::ProverBackend>>> backends(devices_.size());
  for (std::size_t s = 0; s < devices_.size(); ++s)
    for (std::size_t w = 0; w < config_.workers_per_device; ++w)
      backends[s].push_back(backend_->make_backend(devices_[s]->spec));
  for (std::size_t s = 0; s < devices_.size(); ++s) {
    devices_[s]->live_workers = backends[s].size();
    for (auto& b : backends[s])
      devices_[s]->threads.emplace_back([this, s, b = std::move(b)]() mutable { device_worker(s, std::move(b)); });
  }
  for (std::size_t i = 0; i < config_.synthesis_workers; ++i)
    synthesis_threads_.emplace_back([this] { synthesis_worker(); });
  for (std::size_t i = 0; i < config_.finalizer_workers; ++i)
    finalizer_threads_.emplace_back([this] { finalizer_worker(); });
}

Engine::~Engine() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    for (auto& [_, job] : jobs_)
      if (!is_terminal(job->state)) finish_job(*job, JobState::CANCELLED, "the engine shut down");
    wake();
  }
  for (auto& t : synthesis_threads_) t.join();
  for (auto& d : devices_)
    for (auto& t : d->threads) t.join();
  for (auto& t : finalizer_threads_) t.join();
  for (auto& [_, job] : jobs_)
    if (job->pinned) store_.unpin(job->request.circuit_type);
  for (auto& d : devices_)
    for (const auto& [_, bytes] : d->resident) d->memory->release(bytes);
}

void Engine::wake() {
  ++epoch_;
  cv_.notify_all();
}

JobId Engine::submit(ProofRequest request) {
  if (!request.witness && !request.packed_witness) throw EngineError("the request has no witness source");
  if (request.partitions < 1 || request.partitions > 0xffffffffu)
    throw EngineError("a request has 1 to 2^32-1 partitions, not " + std::to_string(request.partitions));
  if (!store_.contains(request.circuit_type)) throw EngineError("unknown circuit type '" + request.circuit_type + "'");

  Job* job = nullptr;
  {
    std::lock_guard lock(mu_);
    if (stopping_) throw EngineError("the engine is shutting down");
    if (std::none_of(devices_.begin(), devices_.end(), [](const auto& d) { return d->in_service; }))
      throw EngineError("no device in service");
    if (!request.idempotency_key.empty()) {
      if (auto it = keys_.find(request.idempotency_key); it != keys_.end()) {
        const Job& j = *jobs_.at(it->second);
        if (j.request.circuit_type != request.circuit_type || j.request.partitions != request.partitions)
          throw EngineError("idempotency key '" + request.idempotency_key + "' already names job " +
                            std::to_string(j.id) + " (" + j.request.circuit_type + ", " +
                            std::to_string(j.request.partitions) + " partitions); this request differs");
        return j.id;
      }
    }
    auto owned = std::make_unique<Job>();
    job = owned.get();
    job->id = next_id_++;
    job->proofs.resize(request.partitions);
    job->device_failures.assign(request.partitions, 0);
    job->suspect.resize(request.partitions);
    if (!request.idempotency_key.empty()) keys_[request.idempotency_key] = job->id;
    job->request = std::move(request);
    timeline_.job_submitted(job->id, job->request.priority, job->request.partitions);
    jobs_[job->id] = std::move(owned);
  }
  // The keys are pinned outside the engine's lock: loading them may take long, and pinning
  // may wait for partitions in flight to release host memory.
  const std::string& type = job->request.circuit_type;
  CircuitStore::Pinned pinned;
  MemoryNeeds needs;
  try {
    pinned = store_.pin(type, 0);
    try {
      // Planned for the smallest device in service (a GPU backend picks its memory tier by it).
      std::uint64_t limit = 0;
      {
        std::lock_guard lock(mu_);
        for (const auto& d : devices_)
          if (d->in_service && !d->cpu_fallback && d->memory->limit() && (!limit || d->memory->limit() < limit))
            limit = d->memory->limit();
      }
      needs = backend_->needs(*pinned.keys, limit);
      const auto& r = pinned.keys->r1cs;
      store_.check_fits(type, WitnessBufferPool::bytes_for(r.num_inputs, r.num_aux) + needs.host_per_partition);
      std::lock_guard lock(mu_);
      const bool fits = std::any_of(devices_.begin(), devices_.end(), [&](const auto& d) {
        if (d->in_service && d->cpu_fallback) return true;
        return d->in_service && needs.device_resident <= d->memory->limit() &&
               needs.device_per_partition <= d->memory->limit() - needs.device_resident;
      });
      if (!fits)
        throw EngineError("no device in service has the memory for circuit '" + type + "' (" +
                          format_bytes(needs.device_resident) + " resident + " +
                          format_bytes(needs.device_per_partition) + " per partition)");
    } catch (...) {
      store_.unpin(type);
      throw;
    }
  } catch (const std::exception& e) {
    std::lock_guard lock(mu_);
    evicted(std::move(pinned.evicted));
    finish_job(*job, JobState::FAILED, e.what());
    throw EngineError(e.what());
  }
  std::lock_guard lock(mu_);
  evicted(std::move(pinned.evicted));
  job->keys = std::move(pinned.keys);
  job->needs = needs;
  job->pinned = true;
  if (is_terminal(job->state)) {  // cancelled while its keys loaded
    settle(*job);
    return job->id;
  }
  for (std::uint32_t k = 0; k < job->request.partitions; ++k) synth_.push({job->request.priority, job->id, k}, 0);
  wake();
  return job->id;
}

bool Engine::cancel(JobId id) {
  std::lock_guard lock(mu_);
  auto it = jobs_.find(id);
  if (it == jobs_.end() || is_terminal(it->second->state)) return false;
  finish_job(*it->second, JobState::CANCELLED, "cancelled");
  return true;
}

JobState Engine::state(JobId id) const {
  std::lock_guard lock(mu_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) throw EngineError("unknown job " + std::to_string(id));
  return it->second->state;
}

std::size_t Engine::partitions_proved(JobId id) const {
  std::lock_guard lock(mu_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) throw EngineError("unknown job " + std::to_string(id));
  return it->second->proved;
}

JobResult Engine::result_of(const Job& job) const {
  JobResult r;
  r.id = job.id;
  r.state = job.state;
  r.error = job.error;
  if (job.state == JobState::DONE)
    for (const auto& p : job.proofs) r.proofs.push_back(*p);
  return r;
}

JobResult Engine::wait(JobId id) {
  std::unique_lock lock(mu_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) throw EngineError("unknown job " + std::to_string(id));
  const Job& job = *it->second;
  cv_.wait(lock, [&] { return is_terminal(job.state); });
  return result_of(job);
}

std::optional<JobResult> Engine::wait_for(JobId id, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) throw EngineError("unknown job " + std::to_string(id));
  const Job& job = *it->second;
  if (!cv_.wait_for(lock, timeout, [&] { return is_terminal(job.state); })) return std::nullopt;
  return result_of(job);
}

bool Engine::forget(JobId id) {
  std::lock_guard lock(mu_);
  auto it = jobs_.find(id);
  if (it == jobs_.end() || !is_terminal(it->second->state) || it->second->in_flight > 0) return false;
  if (!it->second->request.idempotency_key.empty()) keys_.erase(it->second->request.idempotency_key);
  jobs_.erase(it);
  return true;
}

void Engine::finish_job(Job& job, JobState state, const std::string& error) {
  if (is_terminal(job.state)) return;  // a job fails (or ends) once
  job.state = state;
  job.error = error;
  timeline_.job_finished(job.id, state, error);
  synth_.remove_job(job.id);
  for (Ready& r : ready_.remove_job(job.id)) {
    release_ready(r);
    --job.in_flight;
  }
  settle(job);
  wake();
}

void Engine::release_ready(Ready& r) {
  if (r.buffer) pool_.give_back(std::move(r.buffer));
  host_.release(r.working);
  if (r.packed) {
    // Kept for the next partition, still charged (freeing it here would hold mu_ through
    // cudaFreeHost; admission or a circuit load frees kept ones outside the lock).
    spare_packed_.push_back({std::move(r.packed), r.packed_charge});
  } else {
    host_.release(r.packed_charge);
  }
  r.working = 0;
  r.packed_charge = 0;
}

std::vector<Engine::SparePacked> Engine::take_spare_packed() {
  std::vector<SparePacked> spares = std::move(spare_packed_);
  spare_packed_.clear();
  for (const SparePacked& s : spares) host_.release(s.charge);
  return spares;
}

void Engine::settle(Job& job) {
  if (!is_terminal(job.state) || job.in_flight > 0) return;
  if (job.pinned) {
    store_.unpin(job.request.circuit_type);
    job.pinned = false;
  }
  // Nothing of the job runs any more: drop what its request captured, and its keys.
  job.keys.reset();
  job.request.witness = nullptr;
  job.request.packed_witness = nullptr;
}

void Engine::evicted(std::vector<std::shared_ptr<const CircuitKeys>> keys) {
  for (auto& k : keys) {
    for (auto& d : devices_) {
      auto it = d->resident.find(k.get());
      if (it == d->resident.end()) continue;
      d->memory->release(it->second);
      d->resident.erase(it);
      if (d->live_workers > 0) d->releases.push_back({k, ++d->release_seq, d->live_workers});
    }
  }
  if (!keys.empty()) wake();
}

EngineStats Engine::stats() const {
  std::lock_guard lock(mu_);
  EngineStats s;
  s.host_budget = host_.limit();
  s.host_used = host_.used();
  s.host_peak = host_.peak();
  for (const auto& d : devices_)
    s.devices.push_back({d->spec.index, d->spec.name, d->in_service, d->reason, d->threads.size(), d->memory->limit(),
                         d->memory->peak(), d->proved, d->failures});
  s.buffers_created = pool_.created();
  s.buffers_reused = pool_.reused();
  s.buffers_idle = pool_.idle();
  s.buffers_in_use = pool_.in_use();
  s.buffers_idle_bytes = pool_.idle_bytes();
  s.resident_bytes = store_.resident_bytes();
  s.packed_created = packed_created_;
  s.packed_idle = spare_packed_.size();
  for (const SparePacked& p : spare_packed_) s.packed_idle_bytes += p.charge;
  s.partitions_proved = proved_;
  s.partitions_retried = retried_;
  s.verification_failures = verification_failures_;
  return s;
}

}  // namespace snarkpipe::engine
