// Host memory over a benchmark run, sampled every 50 ms by a thread: the peak of the process's
// private memory (RssAnon + RssShmem of /proc/self/status: what it holds itself, page-locked
// buffers included, without the page cache of the files it maps) and the peak of the
// machine's memory in use (MemTotal − MemAvailable of /proc/meminfo: everything the kernel
// cannot hand back, other processes included). ru_maxrss (peak_rss_bytes) also counts mapped
// file pages, which the kernel may drop; records carry all three.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>

namespace snarkpipe::cli {

// A "Key:  N kB" line's value in bytes from a /proc file (0 when absent).
inline std::uint64_t proc_kib_field(const char* path, const char* key) {
  std::FILE* f = std::fopen(path, "r");
  if (!f) return 0;
  char line[256];
  std::uint64_t v = 0;
  const std::size_t n = std::strlen(key);
  while (std::fgets(line, sizeof line, f))
    if (std::strncmp(line, key, n) == 0 && line[n] == ':') {
      v = std::strtoull(line + n + 1, nullptr, 10) * 1024;
      break;
    }
  std::fclose(f);
  return v;
}

inline std::uint64_t private_rss_bytes() {
  return proc_kib_field("/proc/self/status", "RssAnon") + proc_kib_field("/proc/self/status", "RssShmem");
}

inline std::uint64_t machine_used_bytes() {
  const std::uint64_t total = proc_kib_field("/proc/meminfo", "MemTotal"),
                      avail = proc_kib_field("/proc/meminfo", "MemAvailable");
  return total > avail ? total - avail : 0;
}

class MemorySampler {
 public:
  MemorySampler()
      : thread_([this] {
          while (!stop_.load()) {
            sample();
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
          }
        }) {}
  ~MemorySampler() {
    stop_ = true;
    thread_.join();
  }
  MemorySampler(const MemorySampler&) = delete;
  MemorySampler& operator=(const MemorySampler&) = delete;

  std::uint64_t peak_private_bytes() { return sample(), peak_private_.load(); }
  // Of which anonymous memory alone (RssAnon: heap and page-locked buffers, not tmpfs files).
  std::uint64_t peak_anonymous_bytes() { return sample(), peak_anon_.load(); }
  std::uint64_t peak_machine_used_bytes() { return sample(), peak_machine_.load(); }
  // Peaks from now on (a sweep's next run): each restarts at the present values.
  void restart() {
    peak_anon_ = 0, peak_private_ = 0, peak_machine_ = 0;
    sample();
  }

 private:
  void sample() {
    const std::uint64_t a = proc_kib_field("/proc/self/status", "RssAnon");
    const std::uint64_t p = a + proc_kib_field("/proc/self/status", "RssShmem"), m = machine_used_bytes();
    std::uint64_t cur = peak_anon_.load();
    while (a > cur && !peak_anon_.compare_exchange_weak(cur, a)) {}
    cur = peak_private_.load();
    while (p > cur && !peak_private_.compare_exchange_weak(cur, p)) {}
    cur = peak_machine_.load();
    while (m > cur && !peak_machine_.compare_exchange_weak(cur, m)) {}
  }
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> peak_private_{0}, peak_anon_{0}, peak_machine_{0};
  std::thread thread_;
};

}  // namespace snarkpipe::cli
