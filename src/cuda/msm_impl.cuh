// The definitions of GpuMsm<C> (msm.hpp), included by one .cu per curve (msm_g1.cu,
// msm_g2.cu) so that the two instantiations compile in parallel.
#pragma once

#include <algorithm>
#include <bit>
#include <chrono>
#include <climits>
#include <cstring>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <stdexcept>
#include <vector>

#include "cuda/check.cuh"
#include "cuda/launch.hpp"
#include "cuda/curve.cuh"
#include "cuda/msm.hpp"
#include "cuda/stream.hpp"
#include "cuda/tuning.hpp"
#include "cuda/to_affine.cuh"

namespace snarkpipe::cuda {

namespace {

using ff::Fr;

constexpr unsigned MAX_WINDOW_BITS = MSM_MAX_WINDOW_BITS;
constexpr uint32_t SIGN_BIT = 0x80000000u;
// Sorted pairs per accumulation thread (K): long enough that a thread's few bucket changes
// (stores of its piece sums) cost little against its K additions, short enough for
// ≥ 10^5 threads at 2^20. 256 halves the bucket sums' work but slows the accumulation as
// much (G1 2^27 724.2 → 723.6 ms, 2^24 and G2 slower); 64 is slower (gpu-notes item 61).
constexpr uint32_t SEGMENT = tuning::msm_segment;
// Buckets per running-sum thread (S) and points per thread in the final plain sums: short,
// because these kernels have few threads and their time is the length of one thread's chain.
constexpr uint32_t SLICE = 16;
constexpr uint32_t GROUP = 8;
// Segment sums of one bucket are added FAN_IN at a time, level by level, so that a bucket
// holding many segments (the top window's few buckets, repeated scalars) is no long chain.
constexpr uint32_t FAN_IN = 8;
// The reduction's cost per bucket in mixed additions (measured 2026-11-30 on the H200:
// bucket sums plus running sums ≈ 7 additions' time per bucket).
constexpr double BUCKET_COST = MSM_BUCKET_COST;
constexpr unsigned POINT_THREADS = 128;
// G1's point-gathering loops (accumulate_kernel, indexed_sum_kernel) load the next base one
// addition ahead, so that the gather of a random base from HBM overlaps the current addition,
// and are compiled for 4 blocks of POINT_THREADS per SM (≤ 128 registers, ~220 bytes of
// spills): 2.6 % faster at 2^27 than 3 blocks (168 registers) or than no bound (172, 2
// blocks). G2 loads in place: 48 more registers pushed its 255-register loop into spills
// (2^24 451 → 519 ms).
template <class F>
constexpr bool prefetch_bases = sizeof(F) == sizeof(fp_t);
template <class F>
// G1: 3 blocks of 128 per SM (≤ 168 registers). With the Fp product inlined, 4 (128 registers)
// was as fast (gpu-notes item 44); with it called, 3 is 3.6 % faster at 2^27 (item 57).
constexpr int gather_blocks_per_sm = prefetch_bases<F> ? tuning::g1_gather_blocks : 1;

// Window w of scalar i of vector v (scalars[v·n + i]), as `layout` cuts the scalar: key =
// bucket set·2^(c-1) + |d| − 1 with c = layout.bits (or the sentinel for d = 0), value = the
// base's index with the sign of d in the top bit. Each (vector, window) has its own bucket
// set, set = v·windows + w; with precomputed base copies (copy_stride > 0, uniform windows)
// every window of a vector shares one set, set = v, and window w reads copy w, 2^(c·w)·P, at
// index w·copy_stride + base. Stored window-major, [(v·windows + w)·n + i].
// Only windows [w_begin, w_end) are written (a pass of a window-split MSM; the carries of the
// windows below still count), as windows = w_end − w_begin.
__global__ void digits_kernel(const fr_t* __restrict__ scalars, uint32_t n, unsigned vectors, WindowLayout layout,
                              unsigned w_begin, unsigned w_end, uint32_t copy_stride, uint32_t sentinel,
                              const uint32_t* __restrict__ base_index, uint32_t* __restrict__ keys,
                              uint32_t* __restrict__ vals) {
  const unsigned windows = w_end - w_begin;
  const std::size_t s = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= std::size_t(n) * vectors) return;
  const uint32_t v = uint32_t(s / n), i = uint32_t(s % n);
  const fr_t k = fr_t::load(&scalars[s]).from_montgomery();
  const uint32_t half = 1u << (layout.bits - 1);  // the sets' stride
  const uint32_t base = base_index ? base_index[i] : i;
  uint32_t carry = 0;
  for (unsigned w = 0; w < w_end; ++w) {
    const unsigned width = layout.width(w);
    const unsigned bit = layout.offset(w), limb = bit >> 5, sh = bit & 31;
    uint32_t lo = 0, hi = 0;
#pragma unroll
    for (unsigned j = 0; j < 8; ++j) {
      if (j == limb) lo = k.v[j];
      if (j == limb + 1) hi = k.v[j];
    }
    uint32_t d = uint32_t(((uint64_t(hi) << 32 | lo) >> sh) & ((uint64_t(1) << width) - 1)) + carry;
    const bool neg = d > (1u << (width - 1));
    carry = neg ? 1u : 0u;
    if (neg) d = (1u << width) - d;
    if (w < w_begin) continue;
    const uint32_t set = copy_stride ? v : v * windows + (w - w_begin);
    const std::size_t at = (std::size_t(v) * windows + (w - w_begin)) * n + i;
    keys[at] = d == 0 ? sentinel : set * half + d - 1;
    vals[at] = (base + (copy_stride ? w * copy_stride : 0u)) | (neg ? SIGN_BIT : 0u);
  }
}

// Copy j of the bases from copy j − 1: 2^c·P, c doublings (affine in, XYZZ out).
template <class F>
__global__ void __launch_bounds__(POINT_THREADS)
    shift_kernel(const affine_t<F>* __restrict__ in, std::size_t n, unsigned c, xyzz_t<F>* __restrict__ out) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  xyzz_t<F> p = xyzz_t<F>::from_affine(affine_t<F>::load(&in[i]));
  for (unsigned k = 0; k < c; ++k) p = p.dbl();
  p.store(&out[i]);
}

// One thread per SEGMENT indices: the sum of bases[index[i]] over its chunk.
template <class F>
__global__ void __launch_bounds__(POINT_THREADS, gather_blocks_per_sm<F>)
    indexed_sum_kernel(const uint32_t* __restrict__ index, uint32_t n, const affine_t<F>* __restrict__ bases,
                       xyzz_t<F>* __restrict__ out) {
  const uint32_t chunk = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t first = chunk * SEGMENT;
  if (first >= n) return;
  const uint32_t last = min(first + SEGMENT, n);
  xyzz_t<F> acc = xyzz_t<F>::identity();
  affine_t<F> p, p_next;
  if constexpr (prefetch_bases<F>) p = affine_t<F>::load(&bases[index[first]]);
  for (uint32_t i = first; i < last; ++i) {
    if constexpr (prefetch_bases<F>) {
      if (i + 1 < last) p_next = affine_t<F>::load(&bases[index[i + 1]]);
    } else {
      p = affine_t<F>::load(&bases[index[i]]);
    }
    acc = acc.add_affine_inline(p);
    if constexpr (prefetch_bases<F>) p = p_next;
  }
  acc.store(&out[chunk]);
}

// First and one-past-last position of each bucket's run in the sorted keys (runs of empty
// buckets stay 0, 0).
__global__ void bucket_bounds_kernel(const uint32_t* __restrict__ keys, uint32_t total, uint32_t sentinel,
                                     uint32_t* __restrict__ start, uint32_t* __restrict__ end) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= total) return;
  const uint32_t key = keys[i];
  if (key == sentinel) return;
  if (i == 0 || keys[i - 1] != key) start[key] = i;
  if (i + 1 == total || keys[i + 1] != key) end[key] = i + 1;
}

// Bucket b's run [start, end) meets ⌈…⌉ chunks of SEGMENT sorted entries: its pieces.
__global__ void piece_count_kernel(const uint32_t* __restrict__ start, const uint32_t* __restrict__ end,
                                   uint32_t buckets, uint32_t* __restrict__ count) {
  const uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b > buckets) return;
  count[b] = b == buckets || end[b] == start[b] ? 0 : (end[b] - 1) / SEGMENT - start[b] / SEGMENT + 1;
}

// One thread per chunk of SEGMENT consecutive sorted entries: every thread runs the same
// number of mixed additions (a warp is not held back by its longest bucket), and the sum of
// each bucket's piece inside the chunk goes to that bucket's slot offsets[b] + (chunk −
// first chunk of b), so the pieces of one bucket are contiguous and in key order.
template <class F>
__global__ void __launch_bounds__(POINT_THREADS, gather_blocks_per_sm<F>)
    accumulate_kernel(const uint32_t* __restrict__ keys, const uint32_t* __restrict__ vals, uint32_t total,
                      uint32_t sentinel, const uint32_t* __restrict__ start, const uint32_t* __restrict__ offsets,
                      const affine_t<F>* __restrict__ bases, xyzz_t<F>* __restrict__ partials) {
  const uint32_t chunk = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t first = chunk * SEGMENT;
  if (first >= total) return;
  const uint32_t last = min(first + SEGMENT, total);
  uint32_t key = keys[first];
  if (key == sentinel) return;
  xyzz_t<F> acc = xyzz_t<F>::identity();
  auto flush = [&](uint32_t k) { acc.store(&partials[offsets[k] + chunk - start[k] / SEGMENT]); };
  // The next entry's key and value, and for G1 its base, are loaded one addition ahead
  // (see prefetch_bases).
  uint32_t k = key, v = vals[first];
  affine_t<F> p;
  if constexpr (prefetch_bases<F>) p = affine_t<F>::load(&bases[v & ~SIGN_BIT]);
  for (uint32_t i = first; i < last; ++i) {
    uint32_t k_next = sentinel, v_next = 0;
    affine_t<F> p_next;
    if (i + 1 < last) {
      k_next = keys[i + 1];
      v_next = vals[i + 1];
      // (a sentinel entry's value is a valid index too)
      if constexpr (prefetch_bases<F>) p_next = affine_t<F>::load(&bases[v_next & ~SIGN_BIT]);
    }
    if (k != key) {
      flush(key);
      if (k == sentinel) return;
      key = k;
      acc = xyzz_t<F>::identity();
    }
    if constexpr (!prefetch_bases<F>) p = affine_t<F>::load(&bases[v & ~SIGN_BIT]);
    p.y = p.y.cneg((v & SIGN_BIT) != 0);
    // The addition inlined: ptxas then allocates the loop's registers as one, and the
    // accumulator no longer goes through the stack as the call's argument and result.
    acc = acc.add_affine_inline(p);
    k = k_next, v = v_next;
    if constexpr (prefetch_bases<F>) p = p_next;
  }
  flush(key);
}

template <class F>
__global__ void __launch_bounds__(POINT_THREADS)
    bucket_sum_kernel(const uint32_t* __restrict__ offsets, uint32_t buckets, const xyzz_t<F>* __restrict__ partials,
                      xyzz_t<F>* __restrict__ out) {
  const uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= buckets) return;
  xyzz_t<F> acc = xyzz_t<F>::identity();
  for (uint32_t s = offsets[b]; s < offsets[b + 1]; ++s)
    acc = xyzz_t<F>::add_inline(acc, xyzz_t<F>::load(&partials[s]));
  acc.store(&out[b]);
}

// The next level's segment counts: ⌈(this level's segments of bucket b) / FAN_IN⌉.
__global__ void regroup_count_kernel(const uint32_t* __restrict__ offsets, uint32_t buckets,
                                     uint32_t* __restrict__ count) {
  const uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b > buckets) return;
  count[b] = b == buckets ? 0 : (offsets[b + 1] - offsets[b] + FAN_IN - 1) / FAN_IN;
}

// One thread per next-level segment: the sum of at most FAN_IN consecutive segment sums of
// one bucket.
template <class F>
__global__ void __launch_bounds__(POINT_THREADS)
    regroup_kernel(const uint32_t* __restrict__ offsets_in, const uint32_t* __restrict__ offsets_out, uint32_t buckets,
                   const xyzz_t<F>* __restrict__ in, xyzz_t<F>* __restrict__ out) {
  const uint32_t s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= offsets_out[buckets]) return;
  uint32_t lo = 0, hi = buckets;
  while (lo < hi) {
    const uint32_t mid = (lo + hi + 1) / 2;
    if (offsets_out[mid] <= s) lo = mid;
    else hi = mid - 1;
  }
  const uint32_t first = offsets_in[lo] + (s - offsets_out[lo]) * FAN_IN;
  const uint32_t last = min(first + FAN_IN, offsets_in[lo + 1]);
  xyzz_t<F> acc = xyzz_t<F>::load(&in[first]);
  for (uint32_t i = first + 1; i < last; ++i) acc = xyzz_t<F>::add_inline(acc, xyzz_t<F>::load(&in[i]));
  acc.store(&out[s]);
}

// Thread (w, j), over the points X_{jS+i} (i < S) of window w:
//   T_j = Σ_i X_{jS+i},   Z_j = Σ_i (i+1)·X_{jS+i} + (off − 1)·T_j   (off is 0 or 1),
// so that Σ_b (b + off)·X_b = Σ_j Z_j + S·Σ_j j·T_j: the second sum is the same problem,
// S times smaller, on the T_j with off = 0 (msm_device runs it level by level).
template <class F>
__global__ void __launch_bounds__(POINT_THREADS)
    slice_kernel(const xyzz_t<F>* __restrict__ x, uint32_t per_window, uint32_t windows, uint32_t slice, uint32_t off,
                 xyzz_t<F>* __restrict__ z, xyzz_t<F>* __restrict__ t_out) {
  const uint32_t slices = per_window / slice;
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= windows * slices) return;
  const uint32_t w = t / slices, j = t % slices;
  const xyzz_t<F>* b = x + std::size_t(w) * per_window + std::size_t(j) * slice;
  xyzz_t<F> run = xyzz_t<F>::identity(), sum = xyzz_t<F>::identity();
  for (uint32_t i = slice; i-- > 0;) {
    run = xyzz_t<F>::add_inline(run, xyzz_t<F>::load(&b[i]));
    sum = xyzz_t<F>::add_inline(sum, run);
  }
  if (off == 0) sum += -run;
  sum.store(&z[t]);
  run.store(&t_out[t]);
}

// out[w][g] = Σ in[w][g·GROUP .. (g+1)·GROUP) over `count` points per window.
template <class F>
__global__ void __launch_bounds__(POINT_THREADS)
    group_sum_kernel(const xyzz_t<F>* __restrict__ in, uint32_t count, uint32_t windows, xyzz_t<F>* __restrict__ out) {
  const uint32_t groups = (count + GROUP - 1) / GROUP;
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= windows * groups) return;
  const uint32_t w = t / groups, g = t % groups;
  const uint32_t first = g * GROUP, last = min(first + GROUP, count);
  xyzz_t<F> acc = xyzz_t<F>::identity();
  for (uint32_t i = first; i < last; ++i)
    acc = xyzz_t<F>::add_inline(acc, xyzz_t<F>::load(&in[std::size_t(w) * count + i]));
  acc.store(&out[t]);
}

class EventTimer {
 public:
  EventTimer(bool on, cudaStream_t s) : on_(on), stream_(s) {}
  void mark() {
    if (!on_) return;
    Event e(cudaEventDefault);
    SNARKPIPE_CUDA_CHECK(cudaEventRecord(e, stream_));
    events_.push_back(std::move(e));
  }
  // Milliseconds between mark i and mark i + 1 (after the stream has synchronized).
  float span(std::size_t i) const {
    if (!on_ || i + 1 >= events_.size()) return 0;
    return elapsed_ms(events_[i], events_[i + 1]);
  }

 private:
  bool on_;
  cudaStream_t stream_;
  std::vector<Event> events_;
};

}  // namespace

template <class C>
struct GpuMsm<C>::Impl {
  int device;
  std::size_t n;
  std::unique_ptr<BufferPool> own_pool;  // when the caller gives none; outlives the buffers
  BufferPool& pool;
  Stream own_stream;  // when the caller gives none
  cudaStream_t stream = nullptr;
  DeviceBuffer bases;
  const void* external = nullptr;  // use_external_bases: the caller's device memory instead
  // precompute(): windows_for(pre_c) copies of the n bases, copy j = 2^(pre_c·j)·P, back to back.
  DeviceBuffer copies;
  unsigned pre_c = 0;
  PinnedBuffer staging;
  GpuMsmTimings timings;

  const void* base_ptr() const { return external ? external : bases.data(); }

  Impl(std::size_t count, int dev)
      : device(dev), n(count), own_pool(std::make_unique<BufferPool>(dev)), pool(*own_pool) {
    SNARKPIPE_CUDA_CHECK(cudaSetDevice(dev));
    own_stream = Stream(cudaStreamNonBlocking);
    stream = own_stream;
    bases = pool.acquire(std::max<std::size_t>(count, 1) * sizeof(ec::Affine<C>));
  }
  Impl(std::size_t count, BufferPool& bases_pool, BufferPool& work, cudaStream_t s)
      : device(work.device()), n(count), pool(work), stream(s) {
    SNARKPIPE_CUDA_CHECK(cudaSetDevice(device));
    bases = bases_pool.acquire(std::max<std::size_t>(count, 1) * sizeof(ec::Affine<C>));
  }
  ~Impl() {
    copies.reset();
    bases.reset();
  }
};

template <class C>
GpuMsm<C>::GpuMsm(std::span<const Affine> bases, int device) : impl_(std::make_unique<Impl>(bases.size(), device)) {
  const std::size_t bytes = bases.size() * sizeof(Affine);
  if (bytes == 0) return;
  impl_->staging.reserve(bytes);
  std::memcpy(impl_->staging.data(), bases.data(), bytes);
  SNARKPIPE_CUDA_CHECK(
      cudaMemcpyAsync(impl_->bases.data(), impl_->staging.data(), bytes, cudaMemcpyHostToDevice, impl_->stream));
  SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(impl_->stream));
}

template <class C>
GpuMsm<C>::GpuMsm(std::size_t n, int device) : impl_(std::make_unique<Impl>(n, device)) {}

template <class C>
GpuMsm<C>::GpuMsm(std::size_t n, BufferPool& pool, void* stream)
    : impl_(std::make_unique<Impl>(n, pool, pool, cudaStream_t(stream))) {}

template <class C>
GpuMsm<C>::GpuMsm(std::size_t n, BufferPool& bases_pool, BufferPool& pool, void* stream)
    : impl_(std::make_unique<Impl>(n, bases_pool, pool, cudaStream_t(stream))) {}

template <class C>
GpuMsm<C>::~GpuMsm() = default;

template <class C>
std::size_t GpuMsm<C>::size() const {
  return impl_->n;
}
template <class C>
void GpuMsm<C>::use_external_bases(const Affine* d_bases, std::size_t n) {
  impl_->external = d_bases;
  impl_->n = n;
  drop_precomputed();  // the copies were of the old bases
}

template <class C>
void GpuMsm<C>::drop_precomputed() {
  impl_->copies.reset();
  impl_->pre_c = 0;
}

template <class C>
unsigned GpuMsm<C>::window_bits_for_precomputed(std::size_t n) {
  // One bucket set for every window: the reduction costs 2^(c-1) buckets once, not per window.
  unsigned best = 2;
  double best_cost = 0;
  for (unsigned c = 2; c <= MAX_WINDOW_BITS; ++c) {
    const double cost = double(n) * windows_for(c) + BUCKET_COST * double(1u << (c - 1));
    if (c == 2 || cost < best_cost) best = c, best_cost = cost;
  }
  return best;
}

template <class C>
void GpuMsm<C>::precompute(unsigned window_bits) {
  using F = device_field_t<C>;
  Impl& m = *impl_;
  const unsigned c = window_bits ? window_bits : window_bits_for_precomputed(m.n);
  if (c < 2 || c > MAX_WINDOW_BITS) throw std::invalid_argument("GpuMsm::precompute: window_bits must be 2..22");
  const unsigned W = windows_for(c);
  if (std::size_t(W) * m.n >= SIGN_BIT)
    throw std::invalid_argument("GpuMsm::precompute: windows × bases must stay below 2^31");
  SNARKPIPE_CUDA_CHECK(cudaSetDevice(m.device));
  drop_precomputed();
  if (m.n == 0) return;
  const std::size_t bytes = std::size_t(W) * m.n * sizeof(affine_t<F>);
  try {
    m.copies = m.pool.acquire(bytes);
  } catch (const std::exception& e) {
    throw std::runtime_error("GpuMsm::precompute: " + std::to_string(W) + " copies of " + std::to_string(m.n) +
                             " bases need " + std::to_string(bytes >> 20) + " MiB of device memory: " + e.what());
  }
  affine_t<F>* out = m.copies.template as<affine_t<F>>();
  SNARKPIPE_CUDA_CHECK(
      cudaMemcpyAsync(out, m.base_ptr(), m.n * sizeof(affine_t<F>), cudaMemcpyDeviceToDevice, m.stream));
  DeviceBuffer tmp = m.pool.acquire(m.n * sizeof(xyzz_t<F>));
  for (unsigned j = 1; j < W; ++j) {
    shift_kernel<F><<<blocks_for(m.n, POINT_THREADS), POINT_THREADS, 0, m.stream>>>(out + (j - 1) * m.n, m.n, c,
                                                                                    tmp.as<xyzz_t<F>>());
    SNARKPIPE_CUDA_CHECK_LAUNCH();
    to_affine_kernel<F><<<blocks_for(blocks_for(m.n, TO_AFFINE_CHUNK), 128), 128, 0, m.stream>>>(tmp.as<xyzz_t<F>>(),
                                                                                                 m.n, out + j * m.n);
    SNARKPIPE_CUDA_CHECK_LAUNCH();
  }
  SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(m.stream));  // tmp goes back to the pool
  m.pre_c = c;
}

template <class C>
unsigned GpuMsm<C>::precomputed_window_bits() const {
  return impl_->pre_c;
}

template <class C>
typename GpuMsm<C>::Affine* GpuMsm<C>::device_bases() {
  return impl_->bases.template as<Affine>();
}
template <class C>
void* GpuMsm<C>::stream() const {
  return impl_->stream;
}
template <class C>
BufferPool& GpuMsm<C>::pool() {
  return impl_->pool;
}
template <class C>
const GpuMsmTimings& GpuMsm<C>::last_timings() const {
  return impl_->timings;
}

template <class C>
unsigned GpuMsm<C>::window_bits_for(std::size_t n) {
  return msm_window_bits(n);
}

template <class C>
typename GpuMsm<C>::Jacobian GpuMsm<C>::msm(std::span<const Fr> scalars, const GpuMsmConfig& cfg) {
  Impl& m = *impl_;
  if (scalars.size() > m.n) throw std::invalid_argument("GpuMsm: more scalars than bases");
  if (scalars.empty()) return Jacobian::identity();
  SNARKPIPE_CUDA_CHECK(cudaSetDevice(m.device));
  const std::size_t bytes = scalars.size() * sizeof(Fr);
  DeviceBuffer d = m.pool.acquire(bytes);
  m.staging.reserve(bytes);
  std::memcpy(m.staging.data(), scalars.data(), bytes);
  SNARKPIPE_CUDA_CHECK(cudaMemcpyAsync(d.data(), m.staging.data(), bytes, cudaMemcpyHostToDevice, m.stream));
  return msm_device(d.template as<Fr>(), scalars.size(), cfg);  // synchronizes before returning
}

template <class C>
typename GpuMsm<C>::Jacobian GpuMsm<C>::sum_device(const uint32_t* d_index, std::size_t n) {
  using F = device_field_t<C>;
  using P = xyzz_t<F>;
  Impl& m = *impl_;
  if (n == 0) return Jacobian::identity();
  if (n > UINT32_MAX) throw std::invalid_argument("GpuMsm::sum_device: more than 2^32 indices");
  SNARKPIPE_CUDA_CHECK(cudaSetDevice(m.device));
  cudaStream_t st = m.stream;
  uint32_t count = blocks_for(n, SEGMENT);
  DeviceBuffer a = m.pool.acquire(std::size_t(count) * sizeof(P));
  DeviceBuffer b = m.pool.acquire(std::size_t(blocks_for(count, GROUP)) * sizeof(P));
  indexed_sum_kernel<F><<<blocks_for(count, POINT_THREADS), POINT_THREADS, 0, st>>>(
      d_index, uint32_t(n), static_cast<const affine_t<F>*>(m.base_ptr()), a.as<P>());
  SNARKPIPE_CUDA_CHECK_LAUNCH();
  P* in = a.as<P>();
  P* out = b.as<P>();
  while (count > 1) {
    const uint32_t groups = blocks_for(count, GROUP);
    group_sum_kernel<F><<<blocks_for(groups, POINT_THREADS), POINT_THREADS, 0, st>>>(in, count, 1, out);
    SNARKPIPE_CUDA_CHECK_LAUNCH();
    std::swap(in, out);
    count = groups;
  }
  ec::XYZZ<C> sum;
  static_assert(sizeof(ec::XYZZ<C>) == sizeof(P));
  SNARKPIPE_CUDA_CHECK(cudaMemcpyAsync(&sum, in, sizeof(P), cudaMemcpyDeviceToHost, st));
  SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(st));
  return sum.to_jacobian();
}

template <class C>
typename GpuMsm<C>::Jacobian GpuMsm<C>::msm_device(const Fr* d_scalars, std::size_t n, const GpuMsmConfig& cfg,
                                                   const uint32_t* d_base_index, std::size_t base_offset) {
  if (n + base_offset > impl_->n) throw std::invalid_argument("GpuMsm: more scalars than bases");
  if (n == 0) return Jacobian::identity();
  return run(d_scalars, n, 1, cfg, d_base_index, base_offset)[0];
}

template <class C>
std::vector<typename GpuMsm<C>::Jacobian> GpuMsm<C>::msm_device_batch(const Fr* d_scalars, std::size_t n,
                                                                      unsigned count, const GpuMsmConfig& cfg) {
  if (n > impl_->n) throw std::invalid_argument("GpuMsm: more scalars than bases");
  if (n == 0 || count == 0) return std::vector<Jacobian>(count, Jacobian::identity());
  return run(d_scalars, n, count, cfg, nullptr, 0);
}

// The MSM for `vectors` scalar vectors of n (scalars[v·n + i]) against the same bases: the
// windows in passes of at most cfg.max_entries / (n·vectors) windows each (all in one pass
// without a bound), each pass one digit decomposition, one sort, one accumulation and one
// reduction over every vector's bucket sets; the passes' partial sums added on the host.
template <class C>
std::vector<typename GpuMsm<C>::Jacobian> GpuMsm<C>::run(const Fr* d_scalars, std::size_t n, unsigned vectors,
                                                         const GpuMsmConfig& cfg, const uint32_t* d_base_index,
                                                         std::size_t base_offset) {
  Impl& m = *impl_;
  // Precomputed copies serve every call that does not ask for another window.
  const bool shared = m.pre_c != 0 && (cfg.window_bits == 0 || cfg.window_bits == m.pre_c);
  const unsigned asked = shared ? m.pre_c : cfg.window_bits ? cfg.window_bits : window_bits_for(n);
  if (asked < 2 || asked > MAX_WINDOW_BITS) throw std::invalid_argument("GpuMsm: window_bits must be 2..22");
  const WindowLayout layout = shared ? uniform_windows(asked) : balanced_windows(asked);
  const unsigned W = layout.windows;
  const std::size_t per_vector_window = n * vectors;
  const unsigned per_pass =
      cfg.max_entries ? unsigned(std::clamp<std::size_t>(cfg.max_entries / per_vector_window, 1, W)) : W;
  if (cfg.timings) m.timings = {};
  std::vector<Jacobian> results(vectors, Jacobian::identity());
  for (unsigned wb = 0; wb < W; wb += per_pass) {
    const std::vector<Jacobian> part =
        run_pass(d_scalars, n, vectors, cfg, layout, shared, wb, std::min(W, wb + per_pass), d_base_index, base_offset);
    for (unsigned v = 0; v < vectors; ++v) results[v] += part[v];
  }
  return results;
}

// One pass of run: windows [w_begin, w_end).
template <class C>
std::vector<typename GpuMsm<C>::Jacobian> GpuMsm<C>::run_pass(const Fr* d_scalars, std::size_t n, unsigned vectors,
                                                              const GpuMsmConfig& cfg, const WindowLayout& layout,
                                                              bool shared, unsigned w_begin, unsigned w_end,
                                                              const uint32_t* d_base_index, std::size_t base_offset) {
  using F = device_field_t<C>;
  using P = xyzz_t<F>;
  Impl& m = *impl_;
  const unsigned W = w_end - w_begin;  // this pass's windows
  const uint32_t half = 1u << (layout.bits - 1);
  const unsigned sets = vectors * (shared ? 1u : W);  // bucket sets ("windows" of the reduction)
  if (std::size_t(sets) * half >= SIGN_BIT) throw std::invalid_argument("GpuMsm: too many buckets for one pass");
  const uint32_t B = sets * half;  // buckets; B is also the sentinel key
  if (std::size_t(n) * W * vectors > std::size_t(INT_MAX))
    throw std::invalid_argument("GpuMsm: n·windows·vectors exceeds 2^31 (set max_entries)");
  const uint32_t total = uint32_t(n * W * vectors);
  const int key_bits = std::bit_width(B);
  const std::size_t max_segments = total / SEGMENT + B + 1;
  SNARKPIPE_CUDA_CHECK(cudaSetDevice(m.device));
  cudaStream_t st = m.stream;
  EventTimer timer(cfg.timings, st);

  DeviceBuffer keys0 = m.pool.acquire(total * sizeof(uint32_t)), keys1 = m.pool.acquire(total * sizeof(uint32_t));
  DeviceBuffer vals0 = m.pool.acquire(total * sizeof(uint32_t)), vals1 = m.pool.acquire(total * sizeof(uint32_t));
  DeviceBuffer start = m.pool.acquire((B + 1) * sizeof(uint32_t)), end = m.pool.acquire((B + 1) * sizeof(uint32_t));
  DeviceBuffer counts = m.pool.acquire((B + 1) * sizeof(uint32_t)),
               offsets = m.pool.acquire((B + 1) * sizeof(uint32_t));

  timer.mark();
  digits_kernel<<<blocks_for(n * vectors, 256), 256, 0, st>>>(
      reinterpret_cast<const fr_t*>(d_scalars), uint32_t(n), vectors, layout, w_begin, w_end,
      shared ? uint32_t(m.n) : 0u, B, d_base_index, keys0.as<uint32_t>(), vals0.as<uint32_t>());
  SNARKPIPE_CUDA_CHECK_LAUNCH();
  timer.mark();

  cub::DoubleBuffer<uint32_t> keys(keys0.as<uint32_t>(), keys1.as<uint32_t>());
  cub::DoubleBuffer<uint32_t> vals(vals0.as<uint32_t>(), vals1.as<uint32_t>());
  std::size_t sort_bytes = 0, scan_bytes = 0, max_bytes = 0;
  SNARKPIPE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys, vals, int(total), 0, key_bits, st));
  SNARKPIPE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts.as<uint32_t>(), offsets.as<uint32_t>(),
                                                     int(B + 1), st));
  SNARKPIPE_CUDA_CHECK(
      cub::DeviceReduce::Max(nullptr, max_bytes, counts.as<uint32_t>(), end.as<uint32_t>() + B, int(B + 1), st));
  DeviceBuffer temp = m.pool.acquire(std::max({sort_bytes, scan_bytes, max_bytes}));
  SNARKPIPE_CUDA_CHECK(
      cub::DeviceRadixSort::SortPairs(temp.data(), sort_bytes, keys, vals, int(total), 0, key_bits, st));
  timer.mark();

  SNARKPIPE_CUDA_CHECK(cudaMemsetAsync(start.data(), 0, (B + 1) * sizeof(uint32_t), st));
  SNARKPIPE_CUDA_CHECK(cudaMemsetAsync(end.data(), 0, (B + 1) * sizeof(uint32_t), st));
  bucket_bounds_kernel<<<blocks_for(total, 256), 256, 0, st>>>(keys.Current(), total, B, start.as<uint32_t>(),
                                                               end.as<uint32_t>());
  SNARKPIPE_CUDA_CHECK_LAUNCH();
  piece_count_kernel<<<blocks_for(B + 1, 256), 256, 0, st>>>(start.as<uint32_t>(), end.as<uint32_t>(), B,
                                                             counts.as<uint32_t>());
  SNARKPIPE_CUDA_CHECK_LAUNCH();
  // The most pieces any bucket has (into the unused end[B]), read back below.
  SNARKPIPE_CUDA_CHECK(
      cub::DeviceReduce::Max(temp.data(), max_bytes, counts.as<uint32_t>(), end.as<uint32_t>() + B, int(B + 1), st));
  uint32_t max_pieces = 0;
  SNARKPIPE_CUDA_CHECK(
      cudaMemcpyAsync(&max_pieces, end.as<uint32_t>() + B, sizeof max_pieces, cudaMemcpyDeviceToHost, st));
  SNARKPIPE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.data(), scan_bytes, counts.as<uint32_t>(),
                                                     offsets.as<uint32_t>(), int(B + 1), st));
  DeviceBuffer partials = m.pool.acquire(max_segments * sizeof(P));
  accumulate_kernel<F><<<blocks_for(blocks_for(total, SEGMENT), POINT_THREADS), POINT_THREADS, 0, st>>>(
      keys.Current(), vals.Current(), total, B, start.as<uint32_t>(), offsets.as<uint32_t>(),
      static_cast<const affine_t<F>*>(shared ? m.copies.data() : m.base_ptr()) + base_offset, partials.as<P>());
  SNARKPIPE_CUDA_CHECK_LAUNCH();
  timer.mark();

  // Levels of FAN_IN-way sums while some bucket has more than FAN_IN pieces (rare for random
  // scalars: only repeated scalars or the top window's few buckets make long ones), then one
  // thread per bucket sums what is left.
  SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(st));  // for max_pieces (the accumulation was queued first)
  const std::size_t level_segments = max_segments / FAN_IN + 2 * (std::size_t(B) + 1);
  DeviceBuffer level, offsets2 = m.pool.acquire((B + 1) * sizeof(uint32_t));
  if (max_pieces > FAN_IN) level = m.pool.acquire(level_segments * sizeof(P));
  P* cur = partials.as<P>();
  P* next = level.as<P>();
  uint32_t* offs_cur = offsets.as<uint32_t>();
  uint32_t* offs_next = offsets2.as<uint32_t>();
  for (std::size_t per_bucket = max_pieces; per_bucket > FAN_IN; per_bucket = (per_bucket + FAN_IN - 1) / FAN_IN) {
    regroup_count_kernel<<<blocks_for(B + 1, 256), 256, 0, st>>>(offs_cur, B, counts.as<uint32_t>());
    SNARKPIPE_CUDA_CHECK_LAUNCH();
    SNARKPIPE_CUDA_CHECK(
        cub::DeviceScan::ExclusiveSum(temp.data(), scan_bytes, counts.as<uint32_t>(), offs_next, int(B + 1), st));
    regroup_kernel<F>
        <<<blocks_for(level_segments, POINT_THREADS), POINT_THREADS, 0, st>>>(offs_cur, offs_next, B, cur, next);
    SNARKPIPE_CUDA_CHECK_LAUNCH();
    std::swap(cur, next);
    std::swap(offs_cur, offs_next);
  }
  DeviceBuffer buckets = m.pool.acquire(std::size_t(B) * sizeof(P));
  bucket_sum_kernel<F><<<blocks_for(B, POINT_THREADS), POINT_THREADS, 0, st>>>(offs_cur, B, cur, buckets.as<P>());
  SNARKPIPE_CUDA_CHECK_LAUNCH();
  timer.mark();

  // Σ_b (b+1)·B_b per window, level by level (slice_kernel): level L leaves Σ_j Z_j per
  // window in sums[L]; the host adds them up as Σ_L S^L·sums[L] (Horner).
  std::vector<unsigned> slice_per_level;
  for (uint32_t count = half;;) {
    const uint32_t slice = std::min(SLICE, count);
    slice_per_level.push_back(slice);
    if (count == slice) break;
    count /= slice;
  }
  const std::size_t levels = slice_per_level.size();
  const uint32_t first_slices = half / slice_per_level[0];
  DeviceBuffer zbuf = m.pool.acquire(std::size_t(sets) * first_slices * sizeof(P));
  DeviceBuffer tbuf[2] = {m.pool.acquire(std::size_t(sets) * first_slices * sizeof(P)),
                          m.pool.acquire(std::size_t(sets) * std::max<uint32_t>(first_slices / SLICE, 1) * sizeof(P))};
  DeviceBuffer red = m.pool.acquire(std::size_t(sets) * ((first_slices + GROUP - 1) / GROUP) * sizeof(P));
  DeviceBuffer red2 = m.pool.acquire(std::size_t(sets) * ((first_slices + GROUP - 1) / GROUP) * sizeof(P));
  DeviceBuffer sums = m.pool.acquire(levels * sets * sizeof(P));
  {
    const P* x = buckets.as<P>();
    uint32_t count = half;
    for (std::size_t level = 0; level < levels; ++level) {
      const uint32_t slice = slice_per_level[level], slices = count / slice;
      P* t_out = tbuf[level % 2].as<P>();
      slice_kernel<F><<<blocks_for(std::size_t(sets) * slices, POINT_THREADS), POINT_THREADS, 0, st>>>(
          x, count, sets, slice, level == 0 ? 1u : 0u, zbuf.as<P>(), t_out);
      SNARKPIPE_CUDA_CHECK_LAUNCH();
      P* in = zbuf.as<P>();
      P* out = red.as<P>();
      P* spare = red2.as<P>();
      for (uint32_t c2 = slices; c2 > 1;) {
        const uint32_t groups = (c2 + GROUP - 1) / GROUP;
        group_sum_kernel<F>
            <<<blocks_for(std::size_t(sets) * groups, POINT_THREADS), POINT_THREADS, 0, st>>>(in, c2, sets, out);
        SNARKPIPE_CUDA_CHECK_LAUNCH();
        in = out;
        std::swap(out, spare);
        c2 = groups;
      }
      SNARKPIPE_CUDA_CHECK(
          cudaMemcpyAsync(sums.as<P>() + level * sets, in, sets * sizeof(P), cudaMemcpyDeviceToDevice, st));
      x = t_out;
      count = slices;
    }
  }
  timer.mark();

  std::vector<ec::XYZZ<C>> level_sums(levels * sets);
  static_assert(sizeof(ec::XYZZ<C>) == sizeof(P));
  SNARKPIPE_CUDA_CHECK(
      cudaMemcpyAsync(level_sums.data(), sums.data(), levels * sets * sizeof(P), cudaMemcpyDeviceToHost, st));
  SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(st));

  const auto t0 = std::chrono::steady_clock::now();
  std::vector<Jacobian> set_sums(sets, Jacobian::identity());
  for (unsigned w = 0; w < sets; ++w) {
    Jacobian acc = Jacobian::identity();
    for (std::size_t level = levels; level-- > 0;) {
      if (level + 1 < levels)
        for (uint32_t k = slice_per_level[level]; k > 1; k /= 2) acc = acc.dbl();
      acc += level_sums[level * sets + w].to_jacobian();
    }
    set_sums[w] = acc;
  }
  // Per vector: its one set (precomputed copies) or Σ_w 2^offset(w)·(window w's sum).
  std::vector<Jacobian> results(vectors, Jacobian::identity());
  for (unsigned v = 0; v < vectors; ++v) {
    if (shared) {
      results[v] = set_sums[v];
      continue;
    }
    Jacobian acc = Jacobian::identity();
    for (unsigned w = w_end; w-- > 0;) {  // windows below w_begin are this pass's zeros
      for (unsigned i = 0; i < layout.width(w); ++i) acc = acc.dbl();
      if (w >= w_begin) acc += set_sums[v * W + (w - w_begin)];
    }
    results[v] = acc;
  }
  const auto t1 = std::chrono::steady_clock::now();

  if (cfg.timings) {
    GpuMsmTimings& t = m.timings;  // summed over the passes
    t.digits += timer.span(0);
    t.sort += timer.span(1);
    t.accumulate += timer.span(2);
    t.bucket_sums += timer.span(3);
    t.reduce += timer.span(4);
    t.host_combine += std::chrono::duration<double, std::milli>(t1 - t0).count();
    t.window_bits = layout.bits;
    t.windows = w_end;
  }
  return results;
}

}  // namespace snarkpipe::cuda
