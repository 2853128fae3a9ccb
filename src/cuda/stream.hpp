// CUDA streams and events that release themselves, and a timer of two events. Move-only; an
// empty handle (default-constructed or moved from) holds nothing and releases nothing, so a
// member can be made later, once cudaSetDevice has chosen the device it belongs to. Each
// converts to the raw handle for the runtime's calls; creation goes through SNARKPIPE_CUDA_CHECK.
#pragma once

#include <cuda_runtime.h>

#include <utility>

#include "cuda/check.cuh"

namespace snarkpipe::cuda {

class Stream {
 public:
  Stream() = default;
  // A stream on the current device with cudaStreamCreateWithFlags' flags.
  explicit Stream(unsigned flags) { SNARKPIPE_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, flags)); }
  // ... at a priority (cudaDeviceGetStreamPriorityRange: lower numbers run first).
  Stream(unsigned flags, int priority) { SNARKPIPE_CUDA_CHECK(cudaStreamCreateWithPriority(&s_, flags, priority)); }
  Stream(Stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  Stream& operator=(Stream&& o) noexcept {
    std::swap(s_, o.s_);
    return *this;
  }
  ~Stream() {
    if (s_) cudaStreamDestroy(s_);
  }

  cudaStream_t get() const { return s_; }
  operator cudaStream_t() const { return s_; }
  explicit operator bool() const { return s_ != nullptr; }

 private:
  cudaStream_t s_ = nullptr;
};

class Event {
 public:
  Event() = default;
  // An event on the current device with cudaEventCreateWithFlags' flags (cudaEventDisableTiming
  // where only the order matters: recording one is then cheaper).
  explicit Event(unsigned flags) { SNARKPIPE_CUDA_CHECK(cudaEventCreateWithFlags(&e_, flags)); }
  Event(Event&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  Event& operator=(Event&& o) noexcept {
    std::swap(e_, o.e_);
    return *this;
  }
  ~Event() {
    if (e_) cudaEventDestroy(e_);
  }

  cudaEvent_t get() const { return e_; }
  operator cudaEvent_t() const { return e_; }
  explicit operator bool() const { return e_ != nullptr; }

 private:
  cudaEvent_t e_ = nullptr;
};

// Milliseconds between two timing events, both already passed by their streams.
inline float elapsed_ms(cudaEvent_t from, cudaEvent_t to) {
  float ms = 0;
  SNARKPIPE_CUDA_CHECK(cudaEventElapsedTime(&ms, from, to));
  return ms;
}

// The device time of what a stream runs between start() and stop().
class Timer {
 public:
  Timer() : start_(cudaEventDefault), stop_(cudaEventDefault) {}
  void start(cudaStream_t s) { SNARKPIPE_CUDA_CHECK(cudaEventRecord(start_, s)); }
  void stop(cudaStream_t s) { SNARKPIPE_CUDA_CHECK(cudaEventRecord(stop_, s)); }
  // Waits for the stop to pass.
  float elapsed_ms() const {
    SNARKPIPE_CUDA_CHECK(cudaEventSynchronize(stop_));
    return cuda::elapsed_ms(start_, stop_);
  }

 private:
  Event start_, stop_;
};

}  // namespace snarkpipe::cuda
