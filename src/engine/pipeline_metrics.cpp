#include "engine/pipeline_metrics.hpp"

#include <algorithm>
#include <cmath>

namespace snarkpipe::engine {

DeviceUse device_use(const TimelineSnapshot& tl, int device, double min_gap) {
  std::vector<std::pair<double, double>> iv;
  for (const auto& b : tl.bars())
    if (b.kind == BarKind::GPU && b.device == device) iv.emplace_back(b.start, b.end);
  DeviceUse u;
  if (iv.empty()) return u;
  std::sort(iv.begin(), iv.end());
  const double window =
      std::max_element(iv.begin(), iv.end(), [](auto& a, auto& b) { return a.second < b.second; })->second -
      iv.front().first;
  double busy = 0, cur_s = iv.front().first, cur_e = iv.front().second;
  auto gap = [&](double g) {
    if (g >= min_gap) {
      ++u.gaps.count;
      u.gaps.total += g;
      u.gaps.largest = std::max(u.gaps.largest, g);
    } else {
      busy += g;
    }
  };
  for (std::size_t i = 1; i < iv.size(); ++i) {
    if (iv[i].first > cur_e) {
      busy += cur_e - cur_s;
      gap(iv[i].first - cur_e);
      cur_s = iv[i].first;
      cur_e = iv[i].second;
    } else {
      cur_e = std::max(cur_e, iv[i].second);
    }
  }
  busy += cur_e - cur_s;
  u.busy_pct = window > 0 ? 100.0 * busy / window : 100.0;
  return u;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double rank = std::ceil(p / 100.0 * double(v.size()));
  const std::size_t i = rank < 1 ? 0 : std::min(v.size() - 1, std::size_t(rank) - 1);
  return v[i];
}

Throughput throughput(const TimelineSnapshot& tl) {
  Throughput t;
  std::vector<double> ends;
  for (const auto& j : tl.jobs)
    if (j.state == JobState::DONE) {
      t.latencies.push_back(j.finished - j.submitted);
      ends.push_back(j.finished);
    }
  t.jobs_done = ends.size();
  std::sort(ends.begin(), ends.end());
  if (ends.size() >= 2) t.s_per_proof = (ends.back() - ends.front()) / double(ends.size() - 1);
  else if (ends.size() == 1) t.s_per_proof = t.latencies.front();
  return t;
}

}  // namespace snarkpipe::engine
