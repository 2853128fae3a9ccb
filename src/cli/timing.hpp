// The CPU benchmarks' timing: `bench cpu` and bench/blst_anchor/compare.cpp (blst timed beside
// snarkpipe) measure the same way.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <vector>

namespace snarkpipe::cli {

// Keeps x (and what it depends on) from being optimized away.
template <class T>
void keep(const T& x) {
  asm volatile("" : : "r"(&x) : "memory");
}

// Runs body(iters) repeatedly: calibrates iters to ~target seconds, then takes the median of
// `runs` timings. Returns nanoseconds per iteration.
template <class Body>
double time_ns(Body body, double target_s, int runs) {
  using Clock = std::chrono::steady_clock;
  std::size_t iters = 1;
  for (;;) {
    const auto t0 = Clock::now();
    body(iters);
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (s > target_s / 4 || iters > (std::size_t(1) << 30)) break;
    iters *= 2;
  }
  std::vector<double> samples;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = Clock::now();
    body(iters);
    samples.push_back(std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / double(iters));
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

}  // namespace snarkpipe::cli
