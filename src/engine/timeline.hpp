// The engine's timeline (lesson 10): per partition SYNTH_START/END, GPU_QUEUE (synthesized,
// waiting for a device), GPU_START/END (start() under the device lock) and FINISH_START/END
// (finish and self-verification in the finalizer), with timestamps in seconds since the
// engine started; per job its submission, end and state. Bars pair the events into
// intervals, the form the waterfall (waterfall.hpp) and the metrics (pipeline_metrics.hpp)
// use. A retried partition has one bar per attempt.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "engine/job.hpp"

namespace snarkpipe::engine {

enum class Stage : std::uint8_t { SYNTH_START, SYNTH_END, GPU_QUEUE, GPU_START, GPU_END, FINISH_START, FINISH_END };
std::string_view stage_name(Stage s);  // "SYNTH_START", ...

struct TimelineEvent {
  JobId job = 0;
  std::uint32_t partition = 0;
  Stage stage = Stage::SYNTH_START;
  double t = 0;     // seconds since the engine started
  int device = -1;  // the engine's device slot for GPU_START/END and FINISH_*, else -1
};

struct JobTimes {
  JobId job = 0;
  Priority priority = Priority::NORMAL;
  std::size_t partitions = 0;
  double submitted = 0;
  double finished = -1;  // -1 while not terminal
  JobState state = JobState::QUEUED;
  std::string error;
};

enum class BarKind : std::uint8_t { SYNTH, QUEUE, GPU, FINISH };
std::string_view bar_name(BarKind k);  // "synth", "queue", "gpu", "finish"

struct Bar {
  JobId job = 0;
  std::uint32_t partition = 0;
  BarKind kind = BarKind::SYNTH;
  double start = 0, end = 0;
  int device = -1;
};

// Per job: wall latency and the sums of its partitions' bars (seconds).
struct JobTotals {
  JobId job = 0;
  JobState state = JobState::QUEUED;
  double latency = 0, synth = 0, queue = 0, gpu = 0, finish = 0;
};

struct TimelineSnapshot {
  std::vector<TimelineEvent> events;  // in recording order (time order)
  std::vector<JobTimes> jobs;         // in submission order
  std::vector<std::string> devices;   // device slot -> name
  double now = 0;

  // Events paired into intervals (an interval still open is left out), sorted by start.
  std::vector<Bar> bars() const;
  std::vector<JobTotals> totals() const;
};

class Timeline {
 public:
  explicit Timeline(bool enabled = true) : enabled_(enabled), t0_(std::chrono::steady_clock::now()) {}

  double now() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count(); }
  void set_devices(std::vector<std::string> names);
  void record(JobId job, std::uint32_t partition, Stage stage, int device = -1);
  void job_submitted(JobId job, Priority priority, std::size_t partitions);
  void job_finished(JobId job, JobState state, const std::string& error);
  TimelineSnapshot snapshot() const;

 private:
  const bool enabled_;
  const std::chrono::steady_clock::time_point t0_;
  mutable std::mutex mu_;
  std::vector<TimelineEvent> events_;
  std::vector<JobTimes> jobs_;
  std::vector<std::string> devices_;
};

}  // namespace snarkpipe::engine
