// Jobs for snarkjs keys (.zkey): the engine proves bellperson-layout keys only (its H query
// is bellperson's coset basis, a zkey's is snarkjs's Lagrange basis at odd points, see
// circom/prover.hpp), so a circuit registered from a .zkey is proved here, one job at a time
// in priority order, by the lane's ZkeyProve: on the CPU circom::ZkeyProver::prove_checked, on
// a GPU daemon cuda::GpuZkeyProver with the key kept on the device between proofs (set by
// `snarkpipe serve`). Either verifies every proof before it is returned. The same surface as the engine's jobs (state, result, cancel,
// forget), so the service tracks both alike.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <thread>

#include "circom/prover.hpp"
#include "engine/job.hpp"

namespace snarkpipe::service {

// Proves one witness (circom's wire values, ONE first) under `key`, verified, or throws. (A
// shared key, so a prover may keep it, and its device copy, between calls.)
using ZkeyProve = std::function<groth16::Proof(const std::shared_ptr<const circom::ZkeyProver>& key,
                                               std::span<const ff::Fr> witness)>;

class ZkeyLane {
 public:
  struct Request {
    std::shared_ptr<const circom::ZkeyProver> prover;
    std::size_t partitions = 1;
    engine::Priority priority = engine::Priority::NORMAL;
    engine::WitnessSource witness;  // fills partition k (inputs with ONE first, then aux)
  };

  // Empty `prove`: the CPU zkey prover.
  explicit ZkeyLane(ZkeyProve prove = {});
  ~ZkeyLane();  // cancels what is left ("the daemon shut down") and joins its worker
  ZkeyLane(const ZkeyLane&) = delete;
  ZkeyLane& operator=(const ZkeyLane&) = delete;

  std::uint64_t submit(Request request);
  engine::JobState state(std::uint64_t id) const;
  std::size_t partitions_proved(std::uint64_t id) const;            // 0 for an unknown id
  std::optional<engine::JobResult> result(std::uint64_t id) const;  // once finished
  bool cancel(std::uint64_t id);  // true when it was queued or running and now is cancelled
  void forget(std::uint64_t id);

 private:
  struct Job {
    Request request;
    engine::JobResult result;
    std::size_t proved = 0;
    bool cancel = false;
  };
  void work();
  ZkeyProve prove_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::uint64_t next_id_ = 1;
  std::map<std::uint64_t, Job> jobs_;
  std::thread worker_;
};

}  // namespace snarkpipe::service
