// What a pipeline run achieved, computed from its timeline: how busy each device was and
// the gaps in its work, job latencies and their percentiles, throughput in steady state.
#pragma once

#include <cstddef>
#include <vector>

#include "engine/timeline.hpp"

namespace snarkpipe::engine {

struct IdleGaps {
  std::size_t count = 0;
  double total = 0, largest = 0;  // seconds
};

struct DeviceUse {
  double busy_pct = 0;  // share of [first GPU_START, last GPU_END] spent in start() calls
  IdleGaps gaps;        // the idle stretches in that window longer than the threshold
};

// Device slot `device`'s use. Gaps shorter than `min_gap` seconds (the hand-over from one
// worker to the next under the lock) are counted as busy.
DeviceUse device_use(const TimelineSnapshot& tl, int device, double min_gap = 1e-3);

// The p-th percentile (0..100) by nearest rank; 0 for an empty list.
double percentile(std::vector<double> values, double p);

struct Throughput {
  std::size_t jobs_done = 0;
  // Steady state: (last job end − first job end) / (jobs − 1); with one job, its latency.
  double s_per_proof = 0;
  std::vector<double> latencies;  // seconds, jobs that finished DONE, in submission order
};
Throughput throughput(const TimelineSnapshot& tl);

}  // namespace snarkpipe::engine
