// Fixed-base scalar multiplication on the GPU, for setup: k_i·G for hundreds of millions of
// k_i and one G (every proving-key point is a multiple of a generator).
//
// k = Σ_j d_j·2^(12j) with 22 unsigned 12-bit digits, so k·G = Σ_j T[j][d_j] with the table
// T[j][d] = d·2^(12j)·G (22 × 4095 affine points: 8.6 MB for G1, in L2): 22 mixed additions
// per scalar and no doublings. Then XYZZ → affine with one inversion per 32 points
// (Montgomery's trick: x = X·ZZ²·u², y = Y·u for u = 1/ZZZ). Scalars go through the device in
// batches of 2^22; results come back in order.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "ec/curves.hpp"

namespace snarkpipe::cuda {

template <class C>
class GpuFixedBase {
 public:
  // Builds the table (on the CPU) and copies it to the device. Throws CudaError.
  explicit GpuFixedBase(const ec::Affine<C>& base, int device = 0);
  ~GpuFixedBase();
  GpuFixedBase(const GpuFixedBase&) = delete;
  GpuFixedBase& operator=(const GpuFixedBase&) = delete;

  // k·base for every k (Montgomery-form Fr, as the CPU keeps them), affine, in order.
  std::vector<ec::Affine<C>> batch_mul(std::span<const ff::Fr> scalars);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

using GpuFixedBaseG1 = GpuFixedBase<ec::G1Curve>;
using GpuFixedBaseG2 = GpuFixedBase<ec::G2Curve>;

}  // namespace snarkpipe::cuda
