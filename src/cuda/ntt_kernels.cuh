// The NTT's device code: the stage kernels (radix-4 butterflies on tiles in shared memory, the
// bit reversal and coset scaling folded into the first group), the builders of the twiddle and
// coset tables, and the element-wise passes. ntt.cu (GpuNtt) launches them and is the only file
// that includes this header, so that they stay in its translation unit, with internal linkage.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuda/fields.cuh"

namespace snarkpipe::cuda {

// ntt.cu's unnamed namespace (this header is part of that translation unit only).
namespace {

// Blocks of 256 threads held per SM: 3 caps the stage kernels at 85 registers (a few bytes of
// spills) so that a block's loads and stores overlap two others' arithmetic; measured 7 %
// faster than 2 blocks (2^27: 49.4 → 46.0 ms, bench/results/notes/gpu-notes, session 3); 4 blocks
// (64 registers, 80-230 bytes of spills) measured the same (item 39).
constexpr int STAGE_BLOCKS_PER_SM = 3;
// Coset powers g^i = G_lo[i mod 2^COSET_LO_BITS] · G_hi[i >> COSET_LO_BITS].
constexpr unsigned COSET_LO_BITS = 12;

__global__ void product_table_kernel(fr_t* out, std::size_t count, const fr_t* lo, const fr_t* hi, unsigned lo_bits) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const fr_t v = fr_t::load(&lo[i & ((std::size_t(1) << lo_bits) - 1)]) * fr_t::load(&hi[i >> lo_bits]);
  v.store(&out[i]);
}

// out[2^t + i] = ω_{2^(t+1)}^i = powers[i·2^(max_log−1−t)] for t < max_log, i < 2^t
// (powers[j] = ω_N^j, j < N/2); out[0] = powers[0] = 1, unused.
__global__ void stage_twiddles_kernel(const fr_t* __restrict__ powers, unsigned max_log, fr_t* __restrict__ out) {
  const std::size_t idx = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >> max_log) return;
  if (idx == 0) {
    fr_t::load(&powers[0]).store(&out[0]);
    return;
  }
  const unsigned t = 63 - __clzll((long long)idx);
  const std::size_t i = idx - (std::size_t(1) << t);
  fr_t::load(&powers[i << (max_log - 1 - t)]).store(&out[idx]);
}

enum class Scale : int { None, Constant, CosetForward, CosetInverse };

// Programmatic dependent launch (Hopper): a transform's kernels wait for their predecessor's
// completion with griddepcontrol.wait, and let their successor be scheduled once every block
// of theirs has started, so that its blocks take the slots the tail of this one leaves free
// and its launch latency is hidden (2^20: −1.3 %, gpu-notes item 35). Without the launch
// attribute (a plain <<<>>> launch) both are no-ops.
__device__ __forceinline__ void wait_for_predecessor() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Where a stage's twiddles come from: stage t's ω_{2^(t+1)}^i (i < 2^t), fully reduced (the
// lazy multiplications take it as their first operand).
//   DenseTwiddles:   W[2^t + i], every stage's table in N entries (2^27: 4 GiB per direction).
//   CompactTwiddles: ω_N^e with e = i·2^(max_log−1−t), as lo[e mod 2^13]·hi[e >> 13]: two
//                    tables of 256 KiB that stay in L2, one more multiplication per twiddle.
//                    For cards whose memory cannot spare the dense tables (memory tier 4).
constexpr unsigned TWIDDLE_LO_BITS = 13;
struct DenseTwiddles {
  const fr_t* W;
  __device__ __forceinline__ fr_t operator()(unsigned t, std::size_t i) const {
    return fr_t::load(&W[(std::size_t(1) << t) + i]);
  }
};
struct CompactTwiddles {
  const fr_t* lo;
  const fr_t* hi;
  unsigned max_log;
  __device__ __forceinline__ fr_t operator()(unsigned t, std::size_t i) const {
    const std::size_t e = i << (max_log - 1 - t);
    return fr_t::load(&lo[e & ((std::size_t(1) << TWIDDLE_LO_BITS) - 1)]) * fr_t::load(&hi[e >> TWIDDLE_LO_BITS]);
  }
};

// Stages t0 .. t0+s-1 of a radix-2 transform of 2^log_n elements, on tiles in shared memory.
// A tile is the 2^s elements base + mid·2^t0 (mid < 2^s) for 2^log_L consecutive values of
// the low t0 bits; element (mid, l) sits at tile[mid·L + l]. Decimation in time (bit-reversed
// in, natural out) runs the stages upward, in frequency (natural in, bit-reversed out)
// downward, either with the table it is given (ω for forward transforms, ω^-1 for inverse
// ones); values leave run_stages in [0, 2r) (lazy). W holds every stage's twiddles densely: stage t's
// ω_{2^(t+1)}^i (i < 2^t) at W[2^t + i], so that a stage's loads are consecutive (one table
// of ω_N^i read at a stage-dependent stride put each twiddle of the later groups in its own
// DRAM sector: 6-8 GB of reads at 2^27, gpu-notes item 29). The twiddle of
// butterfly k in a stage of half-size h is W[h + k] = ω_{2h}^k.
// run_stages transforms a tile already in shared memory (the caller synchronized after the
// load) and returns after a barrier; stages_kernel loads, transforms and stores one group.
template <bool DIT, class Twiddles>
__device__ __forceinline__ void run_stages(fr_t* tile, unsigned t0, unsigned s, unsigned log_L, unsigned lb,
                                           const Twiddles& W) {
  const unsigned L = 1u << log_L;
  const unsigned tile_n = 1u << (s + log_L);
  // The twiddle of butterfly k in stage u (half-size 2^(t0+u)): ω_{2^(t0+u+1)}^((k·2^t0) + lb·L + l).
  auto twiddle = [&](unsigned k, unsigned u, unsigned l) {
    const std::size_t exponent = (std::size_t(k) << t0) + (std::size_t(lb) << log_L) + l;
    return W(t0 + u, exponent);
  };
  const bool from_zero = t0 == 0;  // stage u = 0 of the transform has the twiddle 1
  const auto add = fr_t::lazy_add, sub = fr_t::lazy_sub, mul = fr_t::lazy_mul;
  // Stages two at a time (radix 4: four elements in registers, three twiddles, four
  // multiplications): half the shared-memory round trips and barriers of radix 2.
  for (unsigned step = 0; step < s;) {
    if (step + 1 < s) {
      const unsigned u = DIT ? step : s - 2 - step;  // the lower stage of the pair
      const bool first_pair = from_zero && u == 0;   // uniform over the block
      for (unsigned q = threadIdx.x; q < tile_n / 4; q += blockDim.x) {
        const unsigned l = q & (L - 1), bq = q >> log_L;
        const unsigned k = bq & ((1u << u) - 1), grp = bq >> u;
        const unsigned h = 1u << (u + log_L);
        const unsigned e0 = (((grp << (u + 2)) + k) << log_L) + l;
        const fr_t w_lo = twiddle(k, u, l), w_a = twiddle(k, u + 1, l), w_b = twiddle(k + (1u << u), u + 1, l);
        fr_t x0 = fr_t::load(&tile[e0]), x1 = fr_t::load(&tile[e0 + h]);
        fr_t x2 = fr_t::load(&tile[e0 + 2 * h]), x3 = fr_t::load(&tile[e0 + 3 * h]);
        // Values stay in [0, 2r) inside the tile (fr_t::lazy_*: no final subtraction in the
        // multiplications); the twiddle is the multiplication's first operand, as lazy_mul needs.
        if (first_pair) {
          // Stages 0 and 1 of the whole transform: w_lo = w_a = 1, so one multiplication
          // (by the fourth root of unity w_b) instead of four.
          if (DIT) {
            const fr_t y0 = add(x0, x1), y1 = sub(x0, x1), y2 = add(x2, x3), c3 = mul(w_b, sub(x2, x3));
            x0 = add(y0, y2), x2 = sub(y0, y2), x1 = add(y1, c3), x3 = sub(y1, c3);
          } else {
            const fr_t y0 = add(x0, x2), y2 = sub(x0, x2), y1 = add(x1, x3), y3 = mul(w_b, sub(x1, x3));
            x0 = add(y0, y1), x1 = sub(y0, y1), x2 = add(y2, y3), x3 = sub(y2, y3);
          }
        } else if (DIT) {
          // stage u: (x0, x1), (x2, x3) by w_lo; stage u+1: (x0, x2) by w_a, (x1, x3) by w_b.
          const fr_t b1 = mul(w_lo, x1), b3 = mul(w_lo, x3);
          const fr_t y0 = add(x0, b1), y1 = sub(x0, b1), y2 = add(x2, b3), y3 = sub(x2, b3);
          const fr_t c2 = mul(w_a, y2), c3 = mul(w_b, y3);
          x0 = add(y0, c2), x2 = sub(y0, c2), x1 = add(y1, c3), x3 = sub(y1, c3);
        } else {
          // stage u+1 first: (x0, x2) by w_a, (x1, x3) by w_b; then stage u by w_lo.
          const fr_t y0 = add(x0, x2), y2 = mul(w_a, sub(x0, x2)), y1 = add(x1, x3), y3 = mul(w_b, sub(x1, x3));
          x0 = add(y0, y1), x1 = mul(w_lo, sub(y0, y1)), x2 = add(y2, y3), x3 = mul(w_lo, sub(y2, y3));
        }
        x0.store(&tile[e0]);
        x1.store(&tile[e0 + h]);
        x2.store(&tile[e0 + 2 * h]);
        x3.store(&tile[e0 + 3 * h]);
      }
      step += 2;
    } else {
      const unsigned u = DIT ? step : s - 1 - step;
      for (unsigned q = threadIdx.x; q < tile_n / 2; q += blockDim.x) {
        const unsigned l = q & (L - 1), bq = q >> log_L;
        const unsigned k = bq & ((1u << u) - 1), grp = bq >> u;
        const unsigned e0 = (((grp << (u + 1)) + k) << log_L) + l;
        const unsigned e1 = e0 + (1u << (u + log_L));
        const fr_t w = twiddle(k, u, l);
        const fr_t a = fr_t::load(&tile[e0]);
        const fr_t b = fr_t::load(&tile[e1]);
        if (from_zero && u == 0) {  // stage 0: the twiddle is 1
          add(a, b).store(&tile[e0]);
          sub(a, b).store(&tile[e1]);
        } else if (DIT) {
          const fr_t bw = mul(w, b);
          add(a, bw).store(&tile[e0]);
          sub(a, bw).store(&tile[e1]);
        } else {
          add(a, b).store(&tile[e0]);
          mul(w, sub(a, b)).store(&tile[e1]);
        }
      }
      step += 1;
    }
    __syncthreads();
  }
}

// Global memory ↔ shared tile, element e at at(e). run_stages leaves its values in [0, 2r)
// (lazy), so the store reduces them: what leaves a kernel is always in [0, r).
template <class At>
__device__ __forceinline__ void load_tile(fr_t* tile, unsigned tile_n, At at) {
  for (unsigned e = threadIdx.x; e < tile_n; e += blockDim.x) fr_t::load(at(e)).store(&tile[e]);
}
template <class At>
__device__ __forceinline__ void store_tile(const fr_t* tile, unsigned tile_n, At at) {
  for (unsigned e = threadIdx.x; e < tile_n; e += blockDim.x) fr_t::load(&tile[e]).reduce_lazy().store(at(e));
}

template <bool DIT, class Twiddles>
__global__ void __launch_bounds__(256, STAGE_BLOCKS_PER_SM)
    stages_kernel(const fr_t* src, fr_t* dst, unsigned t0, unsigned s, unsigned log_L, Twiddles W) {
  extern __shared__ fr_t tile[];
  wait_for_predecessor();
  const unsigned L = 1u << log_L;
  const unsigned tile_n = 1u << (s + log_L);
  const unsigned lo_shift = t0 - log_L;
  const unsigned hi = blockIdx.x >> lo_shift, lb = blockIdx.x & ((1u << lo_shift) - 1);
  const std::size_t base = (std::size_t(hi) << (t0 + s)) + (std::size_t(lb) << log_L);
  auto offset = [&](unsigned e) { return base + (std::size_t(e >> log_L) << t0) + (e & (L - 1)); };
  load_tile(tile, tile_n, [&](unsigned e) { return &src[offset(e)]; });
  __syncthreads();
  run_stages<DIT>(tile, t0, s, log_L, lb, W);
  store_tile(tile, tile_n, [&](unsigned e) { return &dst[offset(e)]; });
}

// The first group of stages (t0 = 0: contiguous tiles of 2^s). With `permute`, the
// transform's bit reversal is folded into its memory side, so that natural order in and out
// costs no separate permutation pass: block b holds tile B = rev(b) (over log_n − s bits),
// whose element e is logical position j = B·2^s + e, stored at rev(j) = rev_s(e)·2^(log_n−s) + b:
//   DIT (forward): tile[e] = src[rev(j)] (times g^rev(j) for a coset), out to dst[j];
//   DIF (inverse): tile[e] = src[j], out to dst[rev(j)] times c (m^-1), or c·g^-rev(j).
// A warp's 32 accesses are 32-byte sectors 2^(log_n−s) elements apart, but blocks b, b+1, ...
// run together and touch the neighbouring sectors of the same lines, which L2 then serves.
// Without `permute`, block b holds tile b in place (bit-reversed input for DIT, bit-reversed
// output for DIF): position j then holds coefficient rev(j), which the coset factors follow.
template <bool DIT, class Twiddles>
__global__ void __launch_bounds__(256, STAGE_BLOCKS_PER_SM)
    first_stages_kernel(const fr_t* src, fr_t* dst, unsigned log_n, unsigned s, Twiddles W, Scale mode, fr_t c,
                        const fr_t* __restrict__ glo, const fr_t* __restrict__ ghi, bool permute) {
  extern __shared__ fr_t tile[];
  wait_for_predecessor();
  const unsigned tile_n = 1u << s, rest = log_n - s;
  const uint32_t b = blockIdx.x;
  const uint32_t B = !permute || rest == 0 ? b : __brev(b) >> (32 - rest);
  const std::size_t base = std::size_t(B) << s;
  const uint32_t mask = (uint32_t(1) << COSET_LO_BITS) - 1;
  // Where element e lives outside the tile, and which coefficient sits there.
  auto outside = [&](unsigned e) { return permute ? (std::size_t(__brev(e) >> (32 - s)) << rest) + b : base + e; };
  auto coefficient = [&](unsigned e) {
    return permute ? outside(e) : std::size_t(__brev(uint32_t(base + e)) >> (32 - log_n));
  };
  // The coset factor g^i (or g^-i) of coefficient i.
  auto coset = [&](std::size_t i) { return fr_t::load(&glo[i & mask]) * fr_t::load(&ghi[i >> COSET_LO_BITS]); };
  if (DIT) {
    for (unsigned e = threadIdx.x; e < tile_n; e += blockDim.x) {
      fr_t v = fr_t::load(&src[outside(e)]);
      if (mode == Scale::CosetForward) v *= coset(coefficient(e));
      v.store(&tile[e]);
    }
  } else {
    load_tile(tile, tile_n, [&](unsigned e) { return &src[base + e]; });
  }
  __syncthreads();
  run_stages<DIT>(tile, 0, s, 0, 0, W);
  if (DIT) {
    store_tile(tile, tile_n, [&](unsigned e) { return &dst[base + e]; });
  } else if (mode == Scale::None) {
    store_tile(tile, tile_n, [&](unsigned e) { return &dst[outside(e)]; });
  } else {
    // The scale is the multiplication's first operand: the product of a lazy value by a
    // reduced one, fully reduced (see mont_t::lazy_mul). For CosetInverse, ghi carries c.
    for (unsigned e = threadIdx.x; e < tile_n; e += blockDim.x) {
      const fr_t f = mode == Scale::CosetInverse ? coset(coefficient(e)) : c;
      (f * fr_t::load(&tile[e])).store(&dst[outside(e)]);
    }
  }
}

// x[i] *= g^i (CosetForward) or c·g^-i (CosetInverse, c carried by ghi: scaled_hi) or c
// (Constant), for the orderings whose scaling cannot ride on the first group's memory side.
__global__ void scale_kernel(fr_t* x, std::size_t n, Scale mode, fr_t c, const fr_t* __restrict__ glo,
                             const fr_t* __restrict__ ghi) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint32_t mask = (uint32_t(1) << COSET_LO_BITS) - 1;
  fr_t f = c;
  if (mode != Scale::Constant) f = fr_t::load(&glo[i & mask]) * fr_t::load(&ghi[i >> COSET_LO_BITS]);
  (f * fr_t::load(&x[i])).store(&x[i]);
}

// out[i] = in[i]·c: a high coset table with a constant folded in (GpuNtt::Impl::scaled_hi).
__global__ void scale_table_kernel(fr_t* __restrict__ out, const fr_t* __restrict__ in, std::size_t n, fr_t c) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) (fr_t::load(&in[i]) * c).store(&out[i]);
}

// a[i] ← a[i]·b[i].
__global__ void pointwise_mul_kernel(fr_t* __restrict__ a, const fr_t* __restrict__ b, std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  (fr_t::load(&a[i]) * fr_t::load(&b[i])).store(&a[i]);
}

// a[i] ← a[i] − c[i].
__global__ void sub_kernel(fr_t* __restrict__ a, const fr_t* __restrict__ c, std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  (fr_t::load(&a[i]) - fr_t::load(&c[i])).store(&a[i]);
}

// In-place bit-reversal permutation over log_n bits (bit-reversed in and out only).
__global__ void bit_reverse_kernel(fr_t* x, std::size_t n, unsigned log_n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const std::size_t j = __brev(uint32_t(i)) >> (32 - log_n);
  if (i < j) {
    const fr_t a = fr_t::load(&x[i]), b = fr_t::load(&x[j]);
    b.store(&x[i]);
    a.store(&x[j]);
  }
}

// Evaluations on H to evaluations on the coset gH (intt, then coset_ntt) meet in the middle
// on the first group's contiguous tiles: the inverse's last stages (DIF, so its output is in
// bit-reversed order), the scaling of position j by m^-1·g^rev(j) (it holds coefficient
// rev(j); m^-1 is carried by ghi, scaled_hi), then the forward's first stages (DIT, which
// wants bit-reversed input), all on one tile in shared memory: the two permutations and two
// passes over memory of the separate transforms disappear.
template <class Twiddles>
__global__ void __launch_bounds__(256, STAGE_BLOCKS_PER_SM)
    to_coset_middle_kernel(const fr_t* src, fr_t* dst, unsigned log_n, unsigned s, Twiddles W_inv, Twiddles W_fwd,
                           const fr_t* __restrict__ glo, const fr_t* __restrict__ ghi) {
  extern __shared__ fr_t tile[];
  wait_for_predecessor();
  const unsigned tile_n = 1u << s;
  const std::size_t base = std::size_t(blockIdx.x) << s;
  load_tile(tile, tile_n, [&](unsigned e) { return &src[base + e]; });
  __syncthreads();
  run_stages<false>(tile, 0, s, 0, 0, W_inv);
  const uint32_t mask = (uint32_t(1) << COSET_LO_BITS) - 1;
  for (unsigned e = threadIdx.x; e < tile_n; e += blockDim.x) {
    const uint32_t k = __brev(uint32_t(base + e)) >> (32 - log_n);  // the coefficient index
    ((fr_t::load(&glo[k & mask]) * fr_t::load(&ghi[k >> COSET_LO_BITS])) * fr_t::load(&tile[e]))
        .store(&tile[e]);  // the reduced factor first (see the first group's inverse store)
  }
  __syncthreads();
  run_stages<true>(tile, 0, s, 0, 0, W_fwd);
  store_tile(tile, tile_n, [&](unsigned e) { return &dst[base + e]; });
}

}  // namespace

}  // namespace snarkpipe::cuda
