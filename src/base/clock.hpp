// The one clock the program times its phases with, and the one conversion to milliseconds.
#pragma once

#include <chrono>

namespace snarkpipe::base {

using Clock = std::chrono::steady_clock;

// Milliseconds from t0 until now.
inline double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

}  // namespace snarkpipe::base
