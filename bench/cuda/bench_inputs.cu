#include "bench_inputs.hpp"
#include "cuda/check.cuh"
#include "cuda/curve.cuh"

namespace snarkpipe::cuda::bench {

namespace {

__device__ __forceinline__ uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

__global__ void random_scalars_kernel(fr_t* out, std::size_t n, uint64_t seed) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  fr_t x;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const uint64_t w = splitmix64(seed ^ splitmix64(i * 4 + j));
    x.v[2 * j] = uint32_t(w);
    x.v[2 * j + 1] = uint32_t(w >> 32);
  }
  x.v[7] &= 0x7fffffffu;          // < 2^255 < 2r
  x = x + fr_t::zero();           // reduced below r
  if (x.is_zero()) x = fr_t::one();
  x.to_montgomery().store(&out[i]);
}

constexpr unsigned CHUNK = 32;

// Thread t converts points t·CHUNK .. t·CHUNK+CHUNK-1 with one inversion (Montgomery's
// trick), recomputing each sum instead of keeping it.
template <class F>
__global__ void table_bases_kernel(affine_t<F>* out, std::size_t n, const affine_t<F>* lo, const affine_t<F>* hi) {
  const std::size_t first = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) * CHUNK;
  if (first >= n) return;
  const unsigned count = n - first < CHUNK ? unsigned(n - first) : CHUNK;
  auto point = [&](std::size_t i) {
    return xyzz_t<F>::from_affine(affine_t<F>::load(&lo[i & ((1u << TABLE_LO_BITS) - 1)]))
        .add_affine(affine_t<F>::load(&hi[i >> TABLE_LO_BITS]));
  };
  F prefix[CHUNK];
  F acc = F::one();
  for (unsigned k = 0; k < count; ++k) {
    const xyzz_t<F> p = point(first + k);
    acc = acc * (p.ZZ * p.ZZZ);
    prefix[k] = acc;
  }
  F inv = acc.inverse();
  for (unsigned k = count; k-- > 0;) {
    const xyzz_t<F> p = point(first + k);
    const F inv_k = k > 0 ? inv * prefix[k - 1] : inv;  // (ZZ·ZZZ)^-1 of point k
    inv = inv * (p.ZZ * p.ZZZ);
    affine_t<F> a{p.X * p.ZZZ * inv_k, p.Y * p.ZZ * inv_k};
    a.store(&out[first + k]);
  }
}

__global__ void mismatch_kernel(const fr_t* a, const fr_t* b, std::size_t n, unsigned long long* count) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n && !(fr_t::load(&a[i]) == fr_t::load(&b[i]))) atomicAdd(count, 1ull);
}

template <class C>
struct DeviceField;
template <>
struct DeviceField<ec::G1Curve> {
  using type = fp_t;
};
template <>
struct DeviceField<ec::G2Curve> {
  using type = fp2_t;
};

}  // namespace

void random_scalars(ff::Fr* d_out, std::size_t n, std::uint64_t seed, void* stream) {
  random_scalars_kernel<<<unsigned((n + 255) / 256), 256, 0, cudaStream_t(stream)>>>(reinterpret_cast<fr_t*>(d_out),
                                                                                     n, seed);
  SNARKPIPE_CUDA_CHECK_LAUNCH();
}

template <class C>
void table_bases(ec::Affine<C>* d_out, std::size_t n, std::span<const ec::Affine<C>> lo,
                 std::span<const ec::Affine<C>> hi, void* stream) {
  using F = typename DeviceField<C>::type;
  const cudaStream_t st = cudaStream_t(stream);
  void *d_lo = nullptr, *d_hi = nullptr;
  SNARKPIPE_CUDA_CHECK(cudaMalloc(&d_lo, lo.size_bytes()));
  SNARKPIPE_CUDA_CHECK(cudaMalloc(&d_hi, hi.size_bytes()));
  SNARKPIPE_CUDA_CHECK(cudaMemcpyAsync(d_lo, lo.data(), lo.size_bytes(), cudaMemcpyHostToDevice, st));
  SNARKPIPE_CUDA_CHECK(cudaMemcpyAsync(d_hi, hi.data(), hi.size_bytes(), cudaMemcpyHostToDevice, st));
  const std::size_t threads = (n + CHUNK - 1) / CHUNK;
  table_bases_kernel<F><<<unsigned((threads + 63) / 64), 64, 0, st>>>(
      reinterpret_cast<affine_t<F>*>(d_out), n, static_cast<const affine_t<F>*>(d_lo),
      static_cast<const affine_t<F>*>(d_hi));
  SNARKPIPE_CUDA_CHECK_LAUNCH();
  SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(st));
  SNARKPIPE_CUDA_CHECK(cudaFree(d_lo));
  SNARKPIPE_CUDA_CHECK(cudaFree(d_hi));
}

template void table_bases<ec::G1Curve>(ec::Affine<ec::G1Curve>*, std::size_t, std::span<const ec::Affine<ec::G1Curve>>,
                                       std::span<const ec::Affine<ec::G1Curve>>, void*);
template void table_bases<ec::G2Curve>(ec::Affine<ec::G2Curve>*, std::size_t, std::span<const ec::Affine<ec::G2Curve>>,
                                       std::span<const ec::Affine<ec::G2Curve>>, void*);

std::size_t count_mismatches(const ff::Fr* d_a, const ff::Fr* d_b, std::size_t n, void* stream) {
  const cudaStream_t st = cudaStream_t(stream);
  unsigned long long* d_count = nullptr;
  SNARKPIPE_CUDA_CHECK(cudaMalloc(&d_count, sizeof *d_count));
  SNARKPIPE_CUDA_CHECK(cudaMemsetAsync(d_count, 0, sizeof *d_count, st));
  mismatch_kernel<<<unsigned((n + 255) / 256), 256, 0, st>>>(reinterpret_cast<const fr_t*>(d_a),
                                                             reinterpret_cast<const fr_t*>(d_b), n, d_count);
  SNARKPIPE_CUDA_CHECK_LAUNCH();
  unsigned long long count = 0;
  SNARKPIPE_CUDA_CHECK(cudaMemcpyAsync(&count, d_count, sizeof count, cudaMemcpyDeviceToHost, st));
  SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(st));
  SNARKPIPE_CUDA_CHECK(cudaFree(d_count));
  return std::size_t(count);
}

}  // namespace snarkpipe::cuda::bench
