// Multi-scalar multiplication Σ k_i·P_i on the GPU with the bases resident on the device,
// for G1 and G2: the same sum as msm::msm<C> on the CPU (src/msm/pippenger.hpp).
//
// Pippenger with signed c-bit digits, everything on the device but the last few steps:
//  1. digits: each scalar (Montgomery form, as Fr keeps it) becomes canonical and is cut
//     into W = ⌈256/c⌉ signed digits in (-2^(c-1), 2^(c-1)]; digit d of window w gives the
//     pair (bucket w·2^(c-1) + |d| - 1, point index | sign); zero digits go to a sentinel.
//  2. sort: the n·W pairs by bucket (CUB radix sort over the bucket bits only).
//  3. accumulate: the sorted pairs are cut into chunks of K = 128, one thread per chunk
//     (mixed XYZZ additions; every thread the same count, so warps do not wait on their
//     longest bucket), each bucket's piece in a chunk summed into its own slot; the pieces of
//     a bucket (one, unless it spans chunks: repeated scalars, the top window) are then
//     added 8 at a time, level by level, until one is left.
//  4. reduce: per window Σ_b b·B_b, from running sums over slices of S buckets, each slice's
//     sum placed by a short double-and-add, then a tree of plain sums.
//  5. the W window sums come back to the host (one copy), which combines them by Horner's rule.
// Per call the work is O(n·W) on the device and O(W·c) point operations on the host. The
// window c minimizes n·W + 7·W·2^(c-1) (additions plus the reduction's), capped at 22:
// 16 at 2^20 and 2^22, 19 at 2^24, 20 at 2^26, 22 at 2^27.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "cuda/memory.hpp"
#include "ec/curves.hpp"

namespace snarkpipe::cuda {

// Windows of c bits in a 256-bit scalar, as GpuMsm cuts them (signed digits; the copies that
// precompute keeps).
inline unsigned windows_for(unsigned window_bits) { return (256 + window_bits - 1) / window_bits; }

// The widest window GpuMsm takes, and the cost of a bucket in additions, against which the
// window is chosen: c minimizes n·W + BUCKET_COST·W·2^(c−1) over uniform windows (measured
// better than a model over the balanced bucket counts: gpu-notes item 59).
inline constexpr unsigned MSM_MAX_WINDOW_BITS = 22;
inline constexpr double MSM_BUCKET_COST = 7.0;
inline unsigned msm_window_bits(std::size_t n) {
  unsigned best = 2;
  double best_cost = 0;
  for (unsigned c = 2; c <= MSM_MAX_WINDOW_BITS; ++c) {
    const double w = windows_for(c);
    const double cost = double(n) * w + MSM_BUCKET_COST * w * double(1u << (c - 1));
    if (c == 2 || cost < best_cost) best = c, best_cost = cost;
  }
  return best;
}

// How GpuMsm cuts a scalar into windows_for(c) windows when each window has its own buckets:
// the 256 bits spread evenly, so that no top window is left with few bits. Windows [0, wide)
// have `bits` bits, the rest bits − 1 (bits ≤ c). At c = 22 (the 2^27 H MSM): 4 windows of 22
// and 8 of 21 bits, whose digits reach 16.8M buckets in all, instead of 11 of 22 and one of
// 14, 23.1M. Every window's set still spans 2^(bits−1) buckets; the ones no digit reaches
// (the upper half of a narrow window's set) cost the bucket sums and the reduction little,
// their warps passing identities. (Precomputed copies keep c bits per window: there every
// window shares one set of buckets.)
#ifdef __CUDACC__
#define SNARKPIPE_HOST_DEVICE __host__ __device__  // (the digits kernel cuts by the same rules)
#else
#define SNARKPIPE_HOST_DEVICE
#endif
struct WindowLayout {
  unsigned bits = 0, windows = 0, wide = 0;
  SNARKPIPE_HOST_DEVICE unsigned offset(unsigned w) const { return w * (bits - 1) + (w < wide ? w : wide); }
  SNARKPIPE_HOST_DEVICE unsigned width(unsigned w) const { return w < wide ? bits : bits - 1; }
};
inline WindowLayout balanced_windows(unsigned window_bits) {
  const unsigned w = windows_for(window_bits), bits = (256 + w - 1) / w;
  return {bits, w, 256 - w * (bits - 1)};
}
// Every window c bits (the layout precomputed copies need).
inline WindowLayout uniform_windows(unsigned window_bits) {
  const unsigned w = windows_for(window_bits);
  return {window_bits, w, w};
}

struct GpuMsmConfig {
  unsigned window_bits = 0;  // c, 2..22; 0 picks it by size
  bool timings = false;      // record the phases' device times (events) into last_timings()
  // Bound on the sorted entries (scalars × windows) per pass, which the temporaries scale
  // with (16 bytes each for keys and values): above it the windows run in several passes,
  // each with its own sort and reduction. 0: one pass.
  std::size_t max_entries = 0;
};

// Device time of the phases of the last call made with timings on, in milliseconds.
struct GpuMsmTimings {
  float digits = 0, sort = 0, accumulate = 0, bucket_sums = 0, reduce = 0;
  double host_combine = 0;
  unsigned window_bits = 0, windows = 0;
};

// Bases streamed from host memory (a host-resident key, bench gpu's host_pinned inputs) cross
// the bus in pieces of this many G1 points (half as many G2 points: the same bytes) unless
// told otherwise: 3.2 GB, so a 2^27-point query takes four.
inline constexpr std::size_t DEFAULT_STREAM_PIECE_G1_POINTS = std::size_t(1) << 25;

template <class C>
class GpuMsm {
 public:
  using Affine = ec::Affine<C>;
  using Jacobian = ec::Jacobian<C>;

  // Copies the bases to the device, where they stay for every later call.
  explicit GpuMsm(std::span<const Affine> bases, int device = 0);
  // Room for n bases on the device, to be written by the caller through device_bases()
  // (for bases produced on the device); the engine owns that memory.
  GpuMsm(std::size_t n, int device);
  // The same, with the bases' room and every call's temporaries taken from `pool` and the
  // work ordered on `stream` (a cudaStream_t), both the caller's and outliving this object:
  // several MSMs of one prover then share one pool and one stream.
  GpuMsm(std::size_t n, BufferPool& pool, void* stream);
  // The same with the bases' room from `bases_pool` and the temporaries from `pool`: an MSM
  // whose work runs on its own stream beside other streams' gets a pool of its own, since a
  // block one stream gives back may still be read by that stream's queued work.
  GpuMsm(std::size_t n, BufferPool& bases_pool, BufferPool& pool, void* stream);
  ~GpuMsm();
  GpuMsm(const GpuMsm&) = delete;
  GpuMsm& operator=(const GpuMsm&) = delete;

  std::size_t size() const;
  Affine* device_bases();
  // From now on the MSM reads n bases from the caller's device memory (a piece of a key
  // streamed from host memory), which must stay valid and unchanged during each call.
  void use_external_bases(const Affine* d_bases, std::size_t n);

  // Σ scalars[i]·bases[i] over the first scalars.size() bases; std::invalid_argument when
  // there are more scalars than bases.
  Jacobian msm(std::span<const ff::Fr> scalars, const GpuMsmConfig& cfg = {});
  // The same for n scalars already on the device (Montgomery form), ordered on stream();
  // with d_base_index (on the device), scalar i multiplies bases[d_base_index[i]] instead of
  // bases[i] (the full-scalar part of a 0/1 split, compacted); with base_offset, scalar i
  // multiplies bases[base_offset + i] (or bases[base_offset + d_base_index[i]]): an MSM in
  // pieces, to bound the temporaries.
  Jacobian msm_device(const ff::Fr* d_scalars, std::size_t n, const GpuMsmConfig& cfg = {},
                      const std::uint32_t* d_base_index = nullptr, std::size_t base_offset = 0);
  // `count` scalar vectors of n (d_scalars[v·n + i], on the device) against the same first n
  // bases in one pass (one sort, one accumulation and one reduction for all of them):
  // result v = Σ_i d_scalars[v·n + i]·bases[i].
  std::vector<Jacobian> msm_device_batch(const ff::Fr* d_scalars, std::size_t n, unsigned count,
                                         const GpuMsmConfig& cfg = {});
  // Σ bases[d_index[i]] over n indices on the device: the scalars-equal-to-one part of a
  // 0/1 split (one addition per point, no sort).
  Jacobian sum_device(const std::uint32_t* d_index, std::size_t n);

  // Precomputed multiples of fixed bases: keeps W = ⌈256/c⌉ copies of the bases on the
  // device, copy j = 2^(c·j)·P, so that every window of a scalar adds into one shared bucket
  // set (the reduction runs once instead of W times, which lets c grow). Later calls with no
  // window_bits, or with c, use them. c = 0 picks window_bits_for_precomputed(size()).
  // Throws std::runtime_error, naming the bytes, when the device cannot hold W·n points.
  // use_external_bases drops the copies; so does drop_precomputed, which gives their memory back.
  void precompute(unsigned window_bits = 0);
  void drop_precomputed();
  unsigned precomputed_window_bits() const;  // 0: none
  static unsigned window_bits_for_precomputed(std::size_t n);

  static unsigned window_bits_for(std::size_t n);
  const GpuMsmTimings& last_timings() const;

  void* stream() const;  // cudaStream_t
  BufferPool& pool();

 private:
  struct Impl;
  std::vector<Jacobian> run(const ff::Fr* d_scalars, std::size_t n, unsigned vectors, const GpuMsmConfig& cfg,
                            const std::uint32_t* d_base_index, std::size_t base_offset);
  std::vector<Jacobian> run_pass(const ff::Fr* d_scalars, std::size_t n, unsigned vectors, const GpuMsmConfig& cfg,
                                 const WindowLayout& layout, bool shared, unsigned w_begin, unsigned w_end,
                                 const std::uint32_t* d_base_index, std::size_t base_offset);
  std::unique_ptr<Impl> impl_;
};

using GpuMsmG1 = GpuMsm<ec::G1Curve>;
using GpuMsmG2 = GpuMsm<ec::G2Curve>;

}  // namespace snarkpipe::cuda
