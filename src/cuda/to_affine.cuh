// XYZZ points to affine on the device, TO_AFFINE_CHUNK points per thread sharing one
// inversion (setup's fixed-base tables, the MSM's precomputed base copies).
#pragma once

#include "cuda/curve.cuh"

namespace snarkpipe::cuda {

inline constexpr unsigned TO_AFFINE_CHUNK = 32;

// One thread per TO_AFFINE_CHUNK points: u_i = 1/ZZZ_i by one inversion (prefix products kept in the
// output's y slots), then x = X·ZZ²·u², y = Y·u; the identity becomes (0, 0).
template <class F>
__global__ void __launch_bounds__(128)
    to_affine_kernel(const xyzz_t<F>* __restrict__ in, std::size_t n, affine_t<F>* __restrict__ out) {
  const std::size_t first = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) * TO_AFFINE_CHUNK;
  if (first >= n) return;
  const std::size_t last = min(first + TO_AFFINE_CHUNK, n);
  F acc = F::one();
  for (std::size_t i = first; i < last; ++i) {
    acc.store(&out[i].y);  // the product of the earlier ZZZ
    const F zzz = F::load(&in[i].ZZZ);
    if (!zzz.is_zero()) acc *= zzz;
  }
  F inv = acc.inverse();
  for (std::size_t i = last; i-- > first;) {
    const F zzz = F::load(&in[i].ZZZ);
    if (zzz.is_zero()) {
      affine_t<F>{F::zero(), F::zero()}.store(&out[i]);
      continue;
    }
    const F u = inv * F::load(&out[i].y);
    inv *= zzz;
    const F zz = F::load(&in[i].ZZ);
    const F x = F::load(&in[i].X) * (zz * u).sqr();
    const F y = F::load(&in[i].Y) * u;
    affine_t<F>{x, y}.store(&out[i]);
  }
}

}  // namespace snarkpipe::cuda
