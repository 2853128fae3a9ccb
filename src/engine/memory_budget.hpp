// A memory budget (host RAM, or one device's memory): every partition in flight and every
// resident (keys, recorded circuits, pooled buffers) reserves its bytes before it allocates
// and releases them when it frees. A reservation that does not fit is refused (try_reserve)
// or waited for (reserve): backpressure instead of running out of memory. The peak of the
// reservations is kept, so tests and benchmarks can check the limit was never exceeded.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <limits>
#include <mutex>
#include <string>

namespace snarkpipe::engine {

class MemoryBudget {
 public:
  static constexpr std::uint64_t UNLIMITED = std::numeric_limits<std::uint64_t>::max();

  MemoryBudget(std::string name, std::uint64_t limit) : name_(std::move(name)), limit_(limit) {}
  MemoryBudget(const MemoryBudget&) = delete;
  MemoryBudget& operator=(const MemoryBudget&) = delete;

  // Reserves `bytes` when used + bytes <= limit; otherwise reserves nothing.
  bool try_reserve(std::uint64_t bytes);
  // Waits until `bytes` fit, then reserves them; false when `timeout` passed first.
  bool reserve(std::uint64_t bytes, std::chrono::milliseconds timeout);
  // Throws std::logic_error when releasing more than is reserved (an accounting bug).
  void release(std::uint64_t bytes);

  const std::string& name() const { return name_; }
  std::uint64_t limit() const { return limit_; }
  std::uint64_t used() const;
  std::uint64_t peak() const;
  std::uint64_t available() const;

 private:
  const std::string name_;
  const std::uint64_t limit_;
  mutable std::mutex mu_;
  std::condition_variable released_;
  std::uint64_t used_ = 0, peak_ = 0;
};

// "1.5 GiB", "300 MiB", "12 B": for messages and tables.
std::string format_bytes(std::uint64_t bytes);

}  // namespace snarkpipe::engine
