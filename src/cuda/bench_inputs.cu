#include "cuda/bench_inputs.hpp"

#include <vector>

#include "cuda/base_streamer.cuh"
#include "cuda/check.cuh"
#include "cuda/curve.cuh"
#include "cuda/stream.hpp"

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
  x.v[7] &= 0x7fffffffu;  // < 2^255 < 2r
  x = x + fr_t::zero();   // reduced below r
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

}  // namespace

void random_scalars(ff::Fr* d_out, std::size_t n, std::uint64_t seed, void* stream) {
  random_scalars_kernel<<<unsigned((n + 255) / 256), 256, 0, cudaStream_t(stream)>>>(reinterpret_cast<fr_t*>(d_out), n,
                                                                                     seed);
  SNARKPIPE_CUDA_CHECK_LAUNCH();
}

template <class C>
void table_bases(ec::Affine<C>* d_out, std::size_t n, std::span<const ec::Affine<C>> lo,
                 std::span<const ec::Affine<C>> hi, void* stream) {
  using F = device_field_t<C>;
  const cudaStream_t st = cudaStream_t(stream);
  void *d_lo = nullptr, *d_hi = nullptr;
  SNARKPIPE_CUDA_CHECK(cudaMalloc(&d_lo, lo.size_bytes()));
  SNARKPIPE_CUDA_CHECK(cudaMalloc(&d_hi, hi.size_bytes()));
  SNARKPIPE_CUDA_CHECK(cudaMemcpyAsync(d_lo, lo.data(), lo.size_bytes(), cudaMemcpyHostToDevice, st));
  SNARKPIPE_CUDA_CHECK(cudaMemcpyAsync(d_hi, hi.data(), hi.size_bytes(), cudaMemcpyHostToDevice, st));
  const std::size_t threads = (n + CHUNK - 1) / CHUNK;
  table_bases_kernel<F><<<unsigned((threads + 63) / 64), 64, 0, st>>>(reinterpret_cast<affine_t<F>*>(d_out), n,
                                                                      static_cast<const affine_t<F>*>(d_lo),
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

namespace {

std::string version_string(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

}  // namespace

std::vector<float> time_on_stream(void* stream, unsigned warmup, unsigned runs, const std::function<void()>& f) {
  const cudaStream_t st = cudaStream_t(stream);
  for (unsigned i = 0; i < warmup; ++i) f();
  SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(st));
  Timer timer;
  std::vector<float> ms;
  for (unsigned i = 0; i < runs; ++i) {
    timer.start(st);
    f();
    timer.stop(st);
    ms.push_back(timer.elapsed_ms());
  }
  return ms;
}

void copy_to_host(void* dst, const void* d_src, std::size_t bytes, void* stream) {
  SNARKPIPE_CUDA_CHECK(cudaMemcpyAsync(dst, d_src, bytes, cudaMemcpyDeviceToHost, cudaStream_t(stream)));
  SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(cudaStream_t(stream)));
}

void copy_on_device(void* d_dst, const void* d_src, std::size_t bytes, void* stream) {
  SNARKPIPE_CUDA_CHECK(cudaMemcpyAsync(d_dst, d_src, bytes, cudaMemcpyDeviceToDevice, cudaStream_t(stream)));
}

std::string runtime_version() {
  int v = 0;
  SNARKPIPE_CUDA_CHECK(cudaRuntimeGetVersion(&v));
  return version_string(v);
}

std::string driver_api_version() {
  int v = 0;
  SNARKPIPE_CUDA_CHECK(cudaDriverGetVersion(&v));
  return version_string(v);
}

namespace {

template <class F>
__device__ __forceinline__ F random_element(uint64_t seed) {
  F x;
#pragma unroll
  for (int j = 0; j < F::N; ++j) x.v[j] = uint32_t(splitmix64(seed + j));
  x.v[F::N - 1] &= 0x0fffffffu;  // below the modulus for both fields
  return x;
}

template <class F, int OP>
__global__ void __launch_bounds__(256) rate_kernel(unsigned iters, F* out) {
  const uint64_t t = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  F a[4], b = random_element<F>(t * 977 + 5);
#pragma unroll
  for (int k = 0; k < 4; ++k) a[k] = random_element<F>(t * 131 + 17 * k);
  for (unsigned i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < 4; ++k) a[k] = OP == 0 ? a[k] * b : a[k].sqr();
  }
  (a[0] + a[1] + a[2] + a[3]).store(&out[t]);
}

__global__ void __launch_bounds__(256) fp2_rate_kernel(unsigned iters, fp2_t* out) {
  const uint64_t t = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  fp2_t a[2], b{random_element<fp_t>(t * 977 + 5), random_element<fp_t>(t * 979 + 3)};
#pragma unroll
  for (int k = 0; k < 2; ++k) a[k] = {random_element<fp_t>(t * 131 + 17 * k), random_element<fp_t>(t * 133 + 7 * k)};
  for (unsigned i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < 2; ++k) a[k] = a[k] * b;
  }
  (a[0] + a[1]).c0.store(&out[t].c0);
}

__global__ void __launch_bounds__(128) g1_add_rate_kernel(unsigned iters, const g1_affine_t* pts, g1_xyzz_t* out) {
  const uint64_t t = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  g1_xyzz_t acc = g1_xyzz_t::from_affine(g1_affine_t::load(&pts[t % 64]));
  for (unsigned i = 0; i < iters; ++i) acc = acc.add_affine(g1_affine_t::load(&pts[(t + i + 1) % 64]));
  acc.store(&out[t]);
}

}  // namespace

template <class C>
std::vector<float> host_streamed_msm_ms(const ec::Affine<C>* d_bases, const ff::Fr* d_scalars, std::size_t n,
                                        std::size_t piece_points, unsigned warmup, unsigned runs,
                                        ec::Jacobian<C>& result) {
  const Stream own(cudaStreamDefault);  // this measurement's alone
  const cudaStream_t st = own;
  PinnedBuffer host;
  host.reserve(n * sizeof(ec::Affine<C>));
  SNARKPIPE_CUDA_CHECK(cudaMemcpyAsync(host.data(), d_bases, n * sizeof(ec::Affine<C>), cudaMemcpyDeviceToHost, st));
  SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(st));
  int device = 0;
  SNARKPIPE_CUDA_CHECK(cudaGetDevice(&device));
  BufferPool pool(device);
  BaseStreamer streamer(pool, st, piece_points ? piece_points : DEFAULT_STREAM_PIECE_G1_POINTS);
  const ec::Affine<C>* points = host.as<const ec::Affine<C>>();
  return time_on_stream(st, warmup, runs, [&] {
    result = streamer.run<C>(points, n, [&](GpuMsm<C>& msm, std::size_t off, std::size_t len) {
      return msm.msm_device(d_scalars + off, len);
    });
  });
}

template std::vector<float> host_streamed_msm_ms<ec::G1Curve>(const ec::Affine<ec::G1Curve>*, const ff::Fr*,
                                                              std::size_t, std::size_t, unsigned, unsigned,
                                                              ec::Jacobian<ec::G1Curve>&);
template std::vector<float> host_streamed_msm_ms<ec::G2Curve>(const ec::Affine<ec::G2Curve>*, const ff::Fr*,
                                                              std::size_t, std::size_t, unsigned, unsigned,
                                                              ec::Jacobian<ec::G2Curve>&);

float op_rate_ms(RateOp op, unsigned blocks, unsigned iters) {
  const Stream own(cudaStreamDefault);  // this measurement's alone
  const cudaStream_t st = own;
  const std::size_t threads = std::size_t(blocks) * 256;
  fp2_t* out = nullptr;
  SNARKPIPE_CUDA_CHECK(cudaMallocAsync(&out, threads * sizeof(g1_xyzz_t), st));
  g1_affine_t* pts = nullptr;
  if (op == RateOp::g1_add_affine) {
    // 64 multiples of the generator, made on the host.
    std::vector<ec::G1Affine> host(64);
    ec::G1Jacobian p = ec::G1Jacobian::generator();
    for (auto& h : host) h = (p = p.dbl() + ec::G1Jacobian::generator()).to_affine();
    SNARKPIPE_CUDA_CHECK(cudaMallocAsync(&pts, 64 * sizeof(g1_affine_t), st));
    SNARKPIPE_CUDA_CHECK(cudaMemcpyAsync(pts, host.data(), 64 * sizeof(g1_affine_t), cudaMemcpyHostToDevice, st));
  }
  auto launch = [&] {
    switch (op) {
      case RateOp::fr_mul:
        rate_kernel<fr_t, 0><<<blocks, 256, 0, st>>>(iters, reinterpret_cast<fr_t*>(out));
        break;
      case RateOp::fp_mul:
        rate_kernel<fp_t, 0><<<blocks, 256, 0, st>>>(iters, reinterpret_cast<fp_t*>(out));
        break;
      case RateOp::fp_sqr:
        rate_kernel<fp_t, 1><<<blocks, 256, 0, st>>>(iters, reinterpret_cast<fp_t*>(out));
        break;
      case RateOp::fp2_mul:
        fp2_rate_kernel<<<blocks, 256, 0, st>>>(iters, out);
        break;
      case RateOp::g1_add_affine:
        g1_add_rate_kernel<<<blocks * 2, 128, 0, st>>>(iters, pts, reinterpret_cast<g1_xyzz_t*>(out));
        break;
    }
    SNARKPIPE_CUDA_CHECK_LAUNCH();
  };
  const float ms = time_on_stream(st, 1, 1, launch).front();
  SNARKPIPE_CUDA_CHECK(cudaFreeAsync(out, st));
  if (pts) SNARKPIPE_CUDA_CHECK(cudaFreeAsync(pts, st));
  SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(st));
  return ms;
}

}  // namespace snarkpipe::cuda::bench
