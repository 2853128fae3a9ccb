#include "cli/progress.hpp"

#include <cstdio>
#include <unistd.h>

#include "base/clock.hpp"

namespace snarkpipe::cli {

using base::Clock;

PhaseProgress::PhaseProgress(std::string title, std::size_t expected_phases, bool quiet)
    : title_(std::move(title)), expected_(expected_phases), quiet_(quiet), tty_(isatty(STDERR_FILENO) != 0) {
  start_ = phase_start_ = Clock::now();
  if (!quiet_ && tty_) {
    ticker_ = std::thread([this] {
      while (!stop_.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        std::lock_guard<std::mutex> lock(mu_);
        if (!current_.empty()) render(false);
      }
    });
  }
}

PhaseProgress::~PhaseProgress() { finish(); }

double PhaseProgress::total_ms() const {
  double t = 0;
  for (const auto& e : done_) t += e.ms;
  return t;
}

void PhaseProgress::close_phase() {
  if (current_.empty()) return;
  const double ms = base::ms_since(phase_start_);
  done_.push_back({current_, ms});
  if (!quiet_) {
    if (tty_) std::fprintf(stderr, "\r\033[K");
    std::fprintf(stderr, "  %-28s %10.1f ms\n", current_.c_str(), ms);
  }
  current_.clear();
}

void PhaseProgress::phase(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  if (done_.empty() && current_.empty() && !quiet_) std::fprintf(stderr, "%s\n", title_.c_str());
  close_phase();
  current_ = name;
  phase_start_ = Clock::now();
  if (!quiet_ && tty_) render(false);
}

void PhaseProgress::finish() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    close_phase();
  }
  if (ticker_.joinable()) {
    stop_ = true;
    ticker_.join();
  }
}

void PhaseProgress::render(bool) {
  constexpr int WIDTH = 24;
  const std::size_t n = done_.size();
  const int filled = expected_ ? int(WIDTH * std::min(n, expected_) / expected_) : 0;
  const double s = std::chrono::duration<double>(Clock::now() - phase_start_).count();
  std::string bar(std::size_t(filled), '#');
  bar.resize(WIDTH, '.');
  std::fprintf(stderr, "\r\033[K  [%s] %zu/%zu %s  %.1f s", bar.c_str(), n + 1, expected_ ? expected_ : n + 1,
               current_.c_str(), s);
  std::fflush(stderr);
}

}  // namespace snarkpipe::cli
