// Multi-scalar multiplication Σ k_i·P_i on the CPU (DESIGN.md §2, src/msm): Pippenger's
// bucket method, generic over the curve (G1Curve, G2Curve).
//
// - Signed c-bit windows (signed_digits.hpp): digits in [-2^(c-1), 2^(c-1)), 2^(c-1)
//   buckets per window; the top window holds only as many buckets as its largest digit.
// - Buckets accumulate in affine form with batched affine additions (batch_affine.hpp,
//   ~6 multiplications per point instead of 10 for a mixed XYZZ addition); a bucket whose
//   batch slot is taken waits for the next batch. Inputs too small to amortize an inversion
//   per batch use XYZZ buckets with mixed additions.
// - Each window's buckets reduce with a running sum (Σ b·B_b = Σ_b Σ_{j>=b} B_j) in XYZZ;
//   windows combine by Horner's rule with c doublings each.
// - Scalars split along the curve's endomorphism (scalar_split.hpp) when that is cheaper:
//   G1 (GLV) 2n points with 128-bit scalars, G2 (GLS) 4n points with 64-bit scalars. The
//   bucket additions stay the same, the windows (and so the bucket reductions) shrink 2-4×.
// - Work runs as (window × chunk of points) tasks on oneTBB.
//
// Plan (msm_plan()): over window sizes c, with and without the split, affine or XYZZ
// buckets, and 1.. chunks of points per window, take the shortest modelled time on the
// available threads: each task costs (points/chunks)·(A + I/batch) + buckets·R, tasks go
// greedily to the least loaded thread, where A is the cost of one bucket addition, I of a
// field inversion, R of reducing one bucket (two XYZZ additions), all measured here
// (pippenger.cpp, Costs); the top window only counts its share of non-zero digits and its
// fewer buckets. c is capped so one window's buckets stay within 4 MB (past that, cache
// misses cost more than the larger window saves). For random 255-bit scalars on one
// thread: G1 c = 11 at 2^12, 13 at 2^16, 16 from 2^18 (GLV up to 2^22 points); G2 c = 11
// at 2^12, 13 at 2^16, 15 from 2^20 (GLS up to ~2^20 points).
//
// Scalars arrive in Montgomery form (as Fr keeps them) and are converted to canonical
// limbs once, in parallel. Zero scalars and bases at infinity contribute nothing.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "ec/curves.hpp"
#include "msm/density.hpp"

namespace snarkpipe::msm {

using ec::Affine;
using ec::Jacobian;
using ff::Fr;

struct MsmConfig {
  // 0: the threads of the calling oneTBB arena (all, by default); otherwise at most this
  // many, and never more than the machine has.
  std::size_t threads = 0;
  // Allow the endomorphism split when the plan prefers it; it holds (D-1)·n extra points
  // (at most 1 GiB) for the duration of the call.
  bool split = true;
};

// Σ scalars[i]·bases[i]. Throws std::invalid_argument when the lengths differ.
template <class C>
Jacobian<C> msm(std::span<const Affine<C>> bases, std::span<const Fr> scalars, const MsmConfig& cfg = {});

// bellperson's density-filtered MSM: bases hold points only for the variables whose density
// bit is set, in variable order; scalars cover every variable. The k-th set bit's scalar
// pairs with bases[k]. Throws std::invalid_argument when density.size != scalars.size() or
// the number of set bits != bases.size().
template <class C>
Jacobian<C> msm_with_density(std::span<const Affine<C>> bases, std::span<const Fr> scalars, DensityView density,
                             const MsmConfig& cfg = {});

// The same sum for a witness that is mostly zeros and ones (REFERENCE.md §4, a PoRep
// partition's aux values): zero scalars are skipped, bases whose scalar is one are summed
// with plain additions, and Pippenger runs only over the other scalars. Same inputs, same
// checks and same result as msm_with_density.
template <class C>
Jacobian<C> msm_split(std::span<const Affine<C>> bases, std::span<const Fr> scalars, DensityView density,
                      const MsmConfig& cfg = {});

// std::vector<bool> densities (packed into words first).
template <class C>
Jacobian<C> msm_with_density(std::span<const Affine<C>> bases, std::span<const Fr> scalars,
                             const std::vector<bool>& density, const MsmConfig& cfg = {}) {
  const std::vector<std::uint64_t> words = pack_density(density);
  return msm_with_density<C>(bases, scalars, DensityView(words, density.size()), cfg);
}
template <class C>
Jacobian<C> msm_split(std::span<const Affine<C>> bases, std::span<const Fr> scalars, const std::vector<bool>& density,
                      const MsmConfig& cfg = {}) {
  const std::vector<std::uint64_t> words = pack_density(density);
  return msm_split<C>(bases, scalars, DensityView(words, density.size()), cfg);
}

// How msm computes a sum of n points on `threads` threads (for benchmarks and tests).
struct MsmPlan {
  unsigned window_bits;  // c
  unsigned windows;      // signed c-bit windows per (part of a) scalar
  unsigned split_parts;  // 1, or 2 (G1, GLV) / 4 (G2) when scalars are split by the endomorphism
  bool affine_buckets;   // batched affine bucket additions, else XYZZ buckets
  std::size_t chunks;    // chunks of points per window (> 1 when windows are too few for the threads)
};
template <class C>
MsmPlan msm_plan(std::size_t n, std::size_t threads = 1, bool allow_split = true);

// Non-template entry points, so vectors convert to spans without naming the curve.
inline ec::G1Jacobian msm_g1(std::span<const ec::G1Affine> bases, std::span<const Fr> scalars,
                             const MsmConfig& cfg = {}) {
  return msm<ec::G1Curve>(bases, scalars, cfg);
}
inline ec::G2Jacobian msm_g2(std::span<const ec::G2Affine> bases, std::span<const Fr> scalars,
                             const MsmConfig& cfg = {}) {
  return msm<ec::G2Curve>(bases, scalars, cfg);
}

}  // namespace snarkpipe::msm
