// Test-only CUDA faults (issue 27): makes SNARKPIPE_CUDA_CHECK report failures the runtime did
// not, so a test on a real device can see the engine retry a partition, take a device out of
// service and finish on the CPU. Off unless a test arms it; then each checked call costs one
// relaxed atomic load. Plain C++ (no CUDA headers), so host-only tests can arm it.
#pragma once

#include <atomic>

namespace snarkpipe::cuda::fault_injection {

inline std::atomic<long> calls_to_skip{0};      // checked calls that still succeed first
inline std::atomic<long> calls_to_fail{0};      // then this many fail
inline std::atomic<long> failures_reported{0};  // how many have failed so far

// From now on: `skip` checked calls pass, then the next `fail` calls fail.
inline void fail_checked_calls(long skip, long fail) {
  calls_to_skip.store(skip);
  failures_reported.store(0);
  calls_to_fail.store(fail);
}
inline void disarm() { calls_to_fail.store(0); }

// Whether this checked call is to fail.
inline bool fire() {
  if (calls_to_fail.load(std::memory_order_relaxed) <= 0) return false;
  if (calls_to_skip.fetch_sub(1) > 0) return false;
  if (calls_to_fail.fetch_sub(1) <= 0) return false;
  failures_reported.fetch_add(1);
  return true;
}

}  // namespace snarkpipe::cuda::fault_injection
