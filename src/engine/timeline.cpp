#include "engine/timeline.hpp"

#include <algorithm>
#include <map>
#include <optional>

namespace snarkpipe::engine {

std::string_view stage_name(Stage s) {
  switch (s) {
    case Stage::SYNTH_START:
      return "SYNTH_START";
    case Stage::SYNTH_END:
      return "SYNTH_END";
    case Stage::GPU_QUEUE:
      return "GPU_QUEUE";
    case Stage::GPU_START:
      return "GPU_START";
    case Stage::GPU_END:
      return "GPU_END";
    case Stage::FINISH_START:
      return "FINISH_START";
    case Stage::FINISH_END:
      return "FINISH_END";
  }
  return "?";
}

std::string_view bar_name(BarKind k) {
  switch (k) {
    case BarKind::SYNTH:
      return "synth";
    case BarKind::QUEUE:
      return "queue";
    case BarKind::GPU:
      return "gpu";
    case BarKind::FINISH:
      return "finish";
  }
  return "?";
}

void Timeline::set_devices(std::vector<std::string> names) {
  std::lock_guard lock(mu_);
  devices_ = std::move(names);
}

void Timeline::record(JobId job, std::uint32_t partition, Stage stage, int device) {
  if (!enabled_) return;
  std::lock_guard lock(mu_);
  // Taken under the lock so that recording order is time order.
  events_.push_back({job, partition, stage, now(), device});
}

void Timeline::job_submitted(JobId job, Priority priority, std::size_t partitions) {
  std::lock_guard lock(mu_);
  jobs_.push_back({job, priority, partitions, now(), -1, JobState::QUEUED, {}});
}

void Timeline::job_finished(JobId job, JobState state, const std::string& error) {
  std::lock_guard lock(mu_);
  for (auto it = jobs_.rbegin(); it != jobs_.rend(); ++it)
    if (it->job == job) {
      it->finished = now();
      it->state = state;
      it->error = error;
      return;
    }
}

TimelineSnapshot Timeline::snapshot() const {
  std::lock_guard lock(mu_);
  return {events_, jobs_, devices_, now()};
}

std::vector<Bar> TimelineSnapshot::bars() const {
  // Each bar opens at its start stage and closes at the next end stage of the same partition.
  struct Open {
    std::optional<TimelineEvent> synth, queue, gpu, finish;
  };
  std::map<std::pair<JobId, std::uint32_t>, Open> open;
  std::vector<Bar> out;
  auto close = [&](std::optional<TimelineEvent>& from, const TimelineEvent& to, BarKind kind, int device) {
    if (!from) return;
    out.push_back({to.job, to.partition, kind, from->t, to.t, device});
    from.reset();
  };
  for (const auto& e : events) {
    Open& o = open[{e.job, e.partition}];
    switch (e.stage) {
      case Stage::SYNTH_START:
        o.synth = e;
        break;
      case Stage::SYNTH_END:
        close(o.synth, e, BarKind::SYNTH, -1);
        break;
      case Stage::GPU_QUEUE:
        o.queue = e;
        break;
      case Stage::GPU_START:
        close(o.queue, e, BarKind::QUEUE, e.device);
        o.gpu = e;
        break;
      case Stage::GPU_END:
        close(o.gpu, e, BarKind::GPU, e.device);
        break;
      case Stage::FINISH_START:
        o.finish = e;
        break;
      case Stage::FINISH_END:
        close(o.finish, e, BarKind::FINISH, e.device);
        break;
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Bar& a, const Bar& b) { return a.start < b.start; });
  return out;
}

std::vector<JobTotals> TimelineSnapshot::totals() const {
  std::map<JobId, JobTotals> t;
  for (const auto& j : jobs) {
    JobTotals& x = t[j.job];
    x.job = j.job;
    x.state = j.state;
    x.latency = j.finished >= 0 ? j.finished - j.submitted : now - j.submitted;
  }
  for (const auto& b : bars()) {
    auto it = t.find(b.job);
    if (it == t.end()) continue;
    const double d = b.end - b.start;
    switch (b.kind) {
      case BarKind::SYNTH:
        it->second.synth += d;
        break;
      case BarKind::QUEUE:
        it->second.queue += d;
        break;
      case BarKind::GPU:
        it->second.gpu += d;
        break;
      case BarKind::FINISH:
        it->second.finish += d;
        break;
    }
  }
  std::vector<JobTotals> out;
  for (const auto& j : jobs) out.push_back(t[j.job]);
  return out;
}

}  // namespace snarkpipe::engine
