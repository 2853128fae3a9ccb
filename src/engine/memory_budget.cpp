#include "engine/memory_budget.hpp"

#include <cstdio>
#include <stdexcept>

namespace snarkpipe::engine {

bool MemoryBudget::try_reserve(std::uint64_t bytes) {
  std::lock_guard lock(mu_);
  if (bytes > limit_ - used_) return false;
  used_ += bytes;
  if (used_ > peak_) peak_ = used_;
  return true;
}

bool MemoryBudget::reserve(std::uint64_t bytes, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  if (!released_.wait_for(lock, timeout, [&] { return bytes <= limit_ - used_; })) return false;
  used_ += bytes;
  if (used_ > peak_) peak_ = used_;
  return true;
}

void MemoryBudget::release(std::uint64_t bytes) {
  {
    std::lock_guard lock(mu_);
    if (bytes > used_)
      throw std::logic_error("memory budget '" + name_ + "': releasing " + std::to_string(bytes) + " bytes, only " +
                             std::to_string(used_) + " reserved");
    used_ -= bytes;
  }
  released_.notify_all();
}

std::uint64_t MemoryBudget::used() const {
  std::lock_guard lock(mu_);
  return used_;
}

std::uint64_t MemoryBudget::peak() const {
  std::lock_guard lock(mu_);
  return peak_;
}

std::uint64_t MemoryBudget::available() const {
  std::lock_guard lock(mu_);
  return limit_ - used_;
}

std::string format_bytes(std::uint64_t bytes) {
  if (bytes == MemoryBudget::UNLIMITED) return "unlimited";
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = double(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.2f %s", v, units[u]);
  return buf;
}

}  // namespace snarkpipe::engine
