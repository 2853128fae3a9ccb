#include "service/zkey_lane.hpp"

namespace snarkpipe::service {

ZkeyLane::ZkeyLane(ZkeyProve prove)
    : prove_(prove ? std::move(prove)
                   : ZkeyProve([](const std::shared_ptr<const circom::ZkeyProver>& key, std::span<const ff::Fr> w) {
                       return key->prove_checked(w, groth16::ProverRandomness::random());
                     })),
      worker_([this] { work(); }) {}

ZkeyLane::~ZkeyLane() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    for (auto& [id, job] : jobs_) job.cancel = true;
  }
  cv_.notify_all();
  worker_.join();
}

std::uint64_t ZkeyLane::submit(Request request) {
  std::lock_guard lock(mu_);
  const std::uint64_t id = next_id_++;
  Job& job = jobs_[id];
  job.request = std::move(request);
  job.result.id = id;
  cv_.notify_all();
  return id;
}

engine::JobState ZkeyLane::state(std::uint64_t id) const {
  std::lock_guard lock(mu_);
  const auto it = jobs_.find(id);
  return it == jobs_.end() ? engine::JobState::CANCELLED : it->second.result.state;
}

std::size_t ZkeyLane::partitions_proved(std::uint64_t id) const {
  std::lock_guard lock(mu_);
  const auto it = jobs_.find(id);
  return it == jobs_.end() ? 0 : it->second.proved;
}

std::optional<engine::JobResult> ZkeyLane::result(std::uint64_t id) const {
  std::lock_guard lock(mu_);
  const auto it = jobs_.find(id);
  if (it == jobs_.end() || !engine::is_terminal(it->second.result.state)) return std::nullopt;
  return it->second.result;
}

bool ZkeyLane::cancel(std::uint64_t id) {
  std::lock_guard lock(mu_);
  const auto it = jobs_.find(id);
  if (it == jobs_.end() || engine::is_terminal(it->second.result.state)) return false;
  it->second.cancel = true;
  if (it->second.result.state == engine::JobState::QUEUED) {
    it->second.result.state = engine::JobState::CANCELLED;
    it->second.result.error = "cancelled";
  }
  return true;  // a running one stops before its next partition, and its result says cancelled
}

void ZkeyLane::forget(std::uint64_t id) {
  std::lock_guard lock(mu_);
  const auto it = jobs_.find(id);
  if (it != jobs_.end() && engine::is_terminal(it->second.result.state)) jobs_.erase(it);
}

void ZkeyLane::work() {
  std::unique_lock lock(mu_);
  for (;;) {
    // The most urgent queued job, the oldest first among equals.
    Job* next = nullptr;
    for (auto& [id, job] : jobs_)
      if (job.result.state == engine::JobState::QUEUED && (!next || job.request.priority > next->request.priority))
        next = &job;
    if (!next) {
      if (stopping_) return;
      cv_.wait(lock);
      continue;
    }
    Job& job = *next;
    job.result.state = engine::JobState::RUNNING;
    std::vector<groth16::Proof> proofs;
    std::string error;
    for (std::size_t k = 0; k < job.request.partitions && error.empty(); ++k) {
      if (job.cancel) break;
      const Request& r = job.request;
      lock.unlock();
      try {
        groth16::Witness w;
        r.witness(k, w);
        std::vector<ff::Fr> z(w.inputs);
        z.insert(z.end(), w.aux.begin(), w.aux.end());
        proofs.push_back(prove_(r.prover, z));
      } catch (const std::exception& e) {
        error = "partition " + std::to_string(k) + ": " + e.what();
      }
      lock.lock();
      if (error.empty()) ++job.proved;
    }
    if (job.cancel) {
      job.result.state = engine::JobState::CANCELLED;
      job.result.error = stopping_ ? "the engine shut down" : "cancelled";
    } else if (!error.empty()) {
      job.result.state = engine::JobState::FAILED;
      job.result.error = error;
    } else {
      job.result.state = engine::JobState::DONE;
      job.result.proofs = std::move(proofs);
    }
  }
}

}  // namespace snarkpipe::service
