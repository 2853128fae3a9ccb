// Progress on long steps: a phase list with a live bar on a terminal (stderr), plain lines
// otherwise (logs, CI). Each phase's wall time is kept for the final report.
#pragma once

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace snarkpipe::cli {

class PhaseProgress {
 public:
  // `title` heads the display; `expected_phases` sizes the bar (0 if unknown).
  PhaseProgress(std::string title, std::size_t expected_phases, bool quiet = false);
  ~PhaseProgress();
  PhaseProgress(const PhaseProgress&) = delete;
  PhaseProgress& operator=(const PhaseProgress&) = delete;

  // Ends the current phase (if any) and starts `name`.
  void phase(const std::string& name);
  // Ends the current phase and the display.
  void finish();

  struct Entry {
    std::string name;
    double ms;
  };
  const std::vector<Entry>& entries() const { return done_; }
  double total_ms() const;

 private:
  void render(bool final_line);
  void close_phase();

  std::string title_;
  std::size_t expected_;
  bool quiet_, tty_;
  std::mutex mu_;
  std::string current_;
  std::chrono::steady_clock::time_point start_, phase_start_;
  std::vector<Entry> done_;
  std::atomic<bool> stop_{false};
  std::thread ticker_;
};

}  // namespace snarkpipe::cli
