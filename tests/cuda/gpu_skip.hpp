// GPU tests skip, with the reason, where no CUDA device is usable (CI has none).
#pragma once

#include <gtest/gtest.h>

#include "cuda/device_info.hpp"
#include "cuda/memory.hpp"

#define SNARKPIPE_REQUIRE_GPU()                                                  \
  do {                                                                           \
    if (::snarkpipe::cuda::usable_device_count() == 0)                           \
      GTEST_SKIP() << "no CUDA device: " << ::snarkpipe::cuda::why_no_devices(); \
  } while (0)
