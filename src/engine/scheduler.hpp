// The scheduling order of partitions, used for both queues of the engine (waiting for
// synthesis, and synthesized waiting for a device): a higher priority first; within a
// priority, the older job (smaller id) first; within a job, the lower partition index first.
// So a newly submitted CRITICAL job's partitions overtake every queued partition of lower
// priority, while what has already left the queue (a running kernel) is never preempted.
//
// A key names exactly one slot: pushing a key that is already queued is a logic error (cuzk
// silently overwrote jobs that shared a key; here it throws).
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/job.hpp"

namespace snarkpipe::engine {

struct PartitionKey {
  Priority priority = Priority::NORMAL;
  JobId job = 0;
  std::uint32_t partition = 0;

  friend bool operator==(const PartitionKey&, const PartitionKey&) = default;
  // "Comes first": the scheduling order described above.
  friend bool operator<(const PartitionKey& x, const PartitionKey& y) {
    if (x.priority != y.priority) return x.priority > y.priority;
    if (x.job != y.job) return x.job < y.job;
    return x.partition < y.partition;
  }
};

template <class Payload>
class PartitionQueue {
 public:
  void push(const PartitionKey& key, Payload payload) {
    if (!q_.emplace(key, std::move(payload)).second)
      throw std::logic_error("partition queue: job " + std::to_string(key.job) + " partition " +
                             std::to_string(key.partition) + " is already queued");
  }
  bool empty() const { return q_.empty(); }
  std::size_t size() const { return q_.size(); }
  // The next partition in scheduling order (the queue must not be empty).
  const PartitionKey& front() const { return q_.begin()->first; }
  std::pair<PartitionKey, Payload> pop() {
    auto node = q_.extract(q_.begin());
    return {node.key(), std::move(node.mapped())};
  }
  // Removes every queued partition of `job` and hands back their payloads (to release them).
  std::vector<Payload> remove_job(JobId job) {
    std::vector<Payload> out;
    for (auto it = q_.begin(); it != q_.end();) {
      if (it->first.job == job) {
        out.push_back(std::move(it->second));
        it = q_.erase(it);
      } else {
        ++it;
      }
    }
    return out;
  }
  std::vector<PartitionKey> keys() const {
    std::vector<PartitionKey> k;
    for (const auto& [key, _] : q_) k.push_back(key);
    return k;
  }

 private:
  std::map<PartitionKey, Payload> q_;
};

}  // namespace snarkpipe::engine
