// Small pieces the cluster benchmarks share: a percentile of samples and one command's output.
#pragma once

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace snarkpipe::cluster::bench {

// The p-quantile (0..1) of v, nearest rank; 0 for no samples.
inline double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto i = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

// What `command` prints, trailing newlines and spaces removed ("" when it cannot run).
inline std::string shell_line(const std::string& command) {
  std::string out;
  if (FILE* f = ::popen(command.c_str(), "r")) {
    char buf[256];
    while (std::fgets(buf, sizeof buf, f)) out += buf;
    ::pclose(f);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

}  // namespace snarkpipe::cluster::bench
