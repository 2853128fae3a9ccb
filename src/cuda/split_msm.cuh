// The 0/1 split of a query's scalars and its MSM: the positions whose scalar is neither 0 nor 1
// go to an MSM, those whose scalar is 1 to a plain sum of bases (about 90 % of a PoRep witness,
// and most of a circom one, is 0 or 1). Shared by the Groth16 prover (prover.cu) and the
// snarkjs-key prover (zkey_prover.cu). Device code: include from .cu files only.
#pragma once

#include <algorithm>
#include <cstdint>

#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "cuda/check.cuh"
#include "cuda/curve.cuh"
#include "cuda/launch.hpp"
#include "cuda/memory.hpp"
#include "cuda/memory_plan.hpp"
#include "cuda/msm.hpp"

namespace snarkpipe::cuda {

namespace split_detail {

// The 0/1 split of a query's scalars x_i = s[cols[i]] (s[i] without cols): full[i] = 1 when
// x_i is neither 0 nor 1, one[i] = 1 when x_i = 1 (about 90 % of a PoRep witness is 0 or 1).
static __global__ void classify_kernel(const fr_t* __restrict__ s, const uint32_t* __restrict__ cols, std::size_t n,
                                       uint8_t* __restrict__ full, uint8_t* __restrict__ one) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const fr_t x = fr_t::load(&s[cols ? cols[i] : i]);
  const bool is_one = x == fr_t::one();
  full[i] = !is_one && !x.is_zero();
  one[i] = is_one;
}

// out[j] = x_{index[j]}, the query's scalar at position index[j] (as in classify_kernel).
static __global__ void gather_full_kernel(const fr_t* __restrict__ s, const uint32_t* __restrict__ cols,
                                          const uint32_t* __restrict__ index, std::size_t n, fr_t* __restrict__ out) {
  const std::size_t j = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n) return;
  const uint32_t i = index[j];
  fr_t::load(&s[cols ? cols[i] : i]).store(&out[j]);
}

}  // namespace split_detail

// The 0/1 split of a query's scalars s[cols[i]] (or s[i] without cols): the positions i
// whose scalar is neither 0 nor 1 (an MSM) and those whose scalar is 1 (a plain sum of
// bases). Reading through cols spares a gathered copy of the query's scalars.
struct SplitScalars {
  DeviceBuffer full_index, one_index;
  uint32_t n_full = 0, n_one = 0;
  const fr_t* s = nullptr;
  const uint32_t* cols = nullptr;
  BufferPool* pool = nullptr;
  cudaStream_t stream = nullptr;
};
inline SplitScalars split_scalars(const fr_t* s, const uint32_t* cols, std::size_t n, BufferPool& pool,
                                  cudaStream_t stream) {
  SplitScalars r;
  r.s = s, r.cols = cols, r.pool = &pool, r.stream = stream;
  if (n == 0) return r;
  DeviceBuffer flags = pool.acquire(2 * n);
  DeviceBuffer counts = pool.acquire(2 * sizeof(uint32_t));
  r.full_index = pool.acquire(n * sizeof(uint32_t));
  r.one_index = pool.acquire(n * sizeof(uint32_t));
  uint8_t* full = flags.as<uint8_t>();
  uint8_t* one = full + n;
  split_detail::classify_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(s, cols, n, full, one);
  SNARKPIPE_CUDA_CHECK_LAUNCH();
  const thrust::counting_iterator<uint32_t> iota(0);
  std::size_t temp_bytes = 0;
  SNARKPIPE_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, temp_bytes, iota, full, r.full_index.as<uint32_t>(),
                                                  counts.as<uint32_t>(), int64_t(n), stream));
  DeviceBuffer temp = pool.acquire(temp_bytes);
  SNARKPIPE_CUDA_CHECK(cub::DeviceSelect::Flagged(temp.data(), temp_bytes, iota, full, r.full_index.as<uint32_t>(),
                                                  counts.as<uint32_t>(), int64_t(n), stream));
  SNARKPIPE_CUDA_CHECK(cub::DeviceSelect::Flagged(temp.data(), temp_bytes, iota, one, r.one_index.as<uint32_t>(),
                                                  counts.as<uint32_t>() + 1, int64_t(n), stream));
  uint32_t host_counts[2];
  SNARKPIPE_CUDA_CHECK(cudaMemcpyAsync(host_counts, counts.data(), sizeof host_counts, cudaMemcpyDeviceToHost, stream));
  SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));
  r.n_full = host_counts[0];
  r.n_one = host_counts[1];
  return r;
}

// The ones' plain sum, then the full scalars' MSM in chunks of SPLIT_CHUNK (each gathered
// into one reused buffer), so the temporaries do not grow with a witness of few 0/1 values.
template <class C>
ec::Jacobian<C> split_msm(GpuMsm<C>& msm, const SplitScalars& sp) {
  ec::Jacobian<C> acc = msm.sum_device(sp.one_index.as<uint32_t>(), sp.n_one);
  if (sp.n_full == 0) return acc;
  const std::size_t chunk = std::min<std::size_t>(sp.n_full, SPLIT_CHUNK);
  DeviceBuffer scalars = sp.pool->acquire(chunk * sizeof(ff::Fr));
  for (std::size_t off = 0; off < sp.n_full; off += chunk) {
    const std::size_t len = std::min(chunk, sp.n_full - off);
    const uint32_t* index = sp.full_index.as<uint32_t>() + off;
    split_detail::gather_full_kernel<<<blocks_for(len, 256), 256, 0, sp.stream>>>(sp.s, sp.cols, index, len,
                                                                                  scalars.as<fr_t>());
    SNARKPIPE_CUDA_CHECK_LAUNCH();
    acc = acc + msm.msm_device(scalars.as<ff::Fr>(), len, {}, index);  // returns when done with scalars
  }
  return acc;
}

}  // namespace snarkpipe::cuda
