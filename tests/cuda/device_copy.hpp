// Test inputs copied to the device into a buffer from a pool (throws when the copy fails,
// which fails the test that called it).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "cuda/memory.hpp"

template <class T>
snarkpipe::cuda::DeviceBuffer to_device(snarkpipe::cuda::BufferPool& pool, const std::vector<T>& v) {
  snarkpipe::cuda::DeviceBuffer d = pool.acquire(std::max<std::size_t>(v.size(), 1) * sizeof(T));
  if (cudaMemcpy(d.data(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice) != cudaSuccess)
    throw std::runtime_error("copying a test input to the device failed");
  return d;
}
