// The MSM's device code: the signed-digit decomposition of the scalars, the bucket
// accumulation over the sorted (bucket, base) pairs, the bucket sums and the running-sum
// reduction, and the shifted base copies. msm_impl.cuh (GpuMsm<C>) launches them and is the only
// file that includes this header, so that they stay in each MSM unit's translation unit
// (msm_g1.cu, msm_g2.cu), with internal linkage.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuda/curve.cuh"
#include "cuda/msm.hpp"
#include "cuda/tuning.hpp"

namespace snarkpipe::cuda {

// msm_impl.cuh's unnamed namespace (this header is part of an MSM unit's translation unit only).
namespace {

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

}  // namespace

}  // namespace snarkpipe::cuda
