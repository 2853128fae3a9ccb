// What the benchmark commands measure with: wall clock, medians, peak RSS, load average.
#pragma once

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/clock.hpp"
#include "base/process.hpp"

namespace snarkpipe::cli {

using base::Clock;
using base::ms_since;

// The median (upper middle for an even count); 0 for none.
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The process's peak resident set so far, in bytes.
inline std::uint64_t peak_rss_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return std::uint64_t(u.ru_maxrss) * 1024;  // Linux reports KiB
}

using base::current_rss_bytes;  // the process's resident set now, in bytes

// 16 → "16", 1.5 → "1.5": a number as a user would type it on a command line.
inline std::string plain_number(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", x);
  return b;
}

// The 1-minute load average (-1 when unknown): benchmarks on a shared machine record it.
inline double load_average() {
  double l[1] = {-1};
  return getloadavg(l, 1) == 1 ? l[0] : -1;
}

}  // namespace snarkpipe::cli
