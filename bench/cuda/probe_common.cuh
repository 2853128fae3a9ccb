// What the standalone probes in bench/cuda share: an error check, a hash for deterministic
// random inputs, random field elements, and a kernel timing (median of 5 after a warm-up).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda/fields.cuh"

#define CK(x)                                                                   \
  do {                                                                          \
    cudaError_t e_ = (x);                                                       \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));             \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

// splitmix64.
__host__ __device__ inline uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// A pseudo-random Fp element below p (its top limb below p's).
__device__ inline snarkpipe::cuda::fp_t random_fp(uint64_t seed) {
  snarkpipe::cuda::fp_t x;
  for (int j = 0; j < 12; ++j) x.v[j] = uint32_t(mix(seed + j));
  x.v[11] &= 0x0fffffffu;
  return x;
}

// Milliseconds of launch() on the default stream: a warm-up, then the median of 5.
template <class Launch>
float median_ms(Launch launch) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  launch();
  std::vector<float> ms;
  for (int r = 0; r < 5; ++r) {
    CK(cudaEventRecord(a));
    launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float x;
    CK(cudaEventElapsedTime(&x, a, b));
    ms.push_back(x);
  }
  CK(cudaGetLastError());
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  std::sort(ms.begin(), ms.end());
  return ms[2];
}
