// Probe for the G1 MSM's accumulation: affine pair additions with Montgomery's trick, split
// into a forward kernel (prefix products of the denominators, one inversion per thread) and a
// backward kernel (the sums), against the XYZZ mixed-addition loop on the same gathers.
// Answers one question before the MSM is restructured: how many additions per second each
// form reaches on the H200 (gpu-notes item 37). Random field elements stand in for points
// (the arithmetic does not depend on them lying on the curve).
//   nvcc -O3 -std=c++20 -arch=sm_90 -I src -I bench/cuda -o probe bench/cuda/batch_affine_probe.cu
//   ./probe            (prints one JSON object)
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <vector>

#include "cuda/curve.cuh"
#include "probe_common.cuh"

using namespace snarkpipe::cuda;
using P = affine_t<fp_t>;

// Random (x, y) below p: the top limb below p's.
__global__ void gen_points(P* b, std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  P q;
  for (int k = 0; k < 12; ++k) {
    q.x.v[k] = uint32_t(mix(i * 32 + k));
    q.y.v[k] = uint32_t(mix(i * 32 + 16 + k));
  }
  q.x.v[11] %= 0x1a0111eau;
  q.y.v[11] %= 0x1a0111eau;
  q.store(&b[i]);
}
__global__ void gen_idx(uint32_t* idx, std::size_t m, uint32_t nb) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < m) idx[i] = uint32_t(mix(i ^ 0x5555) % nb);
}

// Pair j = k·T + t of thread t (k < K): bases idx[2j], idx[2j+1].
template <int BPS>
__global__ void __launch_bounds__(128, BPS) forward_kernel(const uint32_t* __restrict__ idx, const P* __restrict__ bases,
                                                          fp_t* __restrict__ prefix, fp_t* __restrict__ inv, uint32_t T,
                                                          uint32_t K) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= T) return;
  fp_t acc = fp_t::one();
  for (uint32_t k = 0; k < K; ++k) {
    const std::size_t j = std::size_t(k) * T + t;
    const fp_t x1 = fp_t::load(&bases[idx[2 * j]].x), x2 = fp_t::load(&bases[idx[2 * j + 1]].x);
    acc = fp_t::lazy_mul(acc, fp_t::lazy_sub(x2, x1));
    acc.store(&prefix[j]);
  }
  acc.reduce_lazy().inverse().store(&inv[t]);
}

template <int BPS>
__global__ void __launch_bounds__(128, BPS) backward_kernel(const uint32_t* __restrict__ idx, const P* __restrict__ bases,
                                                           const fp_t* __restrict__ prefix, const fp_t* __restrict__ inv,
                                                           P* __restrict__ out, uint32_t T, uint32_t K) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= T) return;
  const auto add = fp_t::lazy_add, sub = fp_t::lazy_sub, mul = fp_t::lazy_mul;
  fp_t ia = fp_t::load(&inv[t]);
  for (uint32_t k = K; k-- > 0;) {
    const std::size_t j = std::size_t(k) * T + t;
    const P p1 = P::load(&bases[idx[2 * j]]), p2 = P::load(&bases[idx[2 * j + 1]]);
    const fp_t d = sub(p2.x, p1.x);
    const fp_t inv_j = k > 0 ? mul(ia, fp_t::load(&prefix[j - T])) : ia;
    ia = mul(ia, d);
    const fp_t lambda = mul(inv_j, sub(p2.y, p1.y));
    P r;
    r.x = sub(lambda.sqr(), add(p1.x, p2.x));
    r.y = sub(mul(lambda, sub(p1.x, r.x)), p1.y);
    r.x = r.x.reduce_lazy();
    r.y = r.y.reduce_lazy();
    r.store(&out[j]);
  }
}

// The XYZZ loop on the same 2K gathers per thread.
template <int BPS>
__global__ void __launch_bounds__(128, BPS) xyzz_kernel(const uint32_t* __restrict__ idx, const P* __restrict__ bases,
                                                       xyzz_t<fp_t>* __restrict__ out, uint32_t T, uint32_t K) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= T) return;
  xyzz_t<fp_t> acc = xyzz_t<fp_t>::identity();
  P p = P::load(&bases[idx[2 * std::size_t(t)]]);
  for (uint32_t e = 0; e < 2 * K; ++e) {
    const std::size_t j = std::size_t(e >> 1) * T + t;
    P next;
    if (e + 1 < 2 * K) next = P::load(&bases[idx[2 * (std::size_t((e + 1) >> 1) * T + t) + ((e + 1) & 1)]]);
    acc = acc.add_affine_inline(p);
    p = next;
    (void)j;
  }
  acc.store(&out[t]);
}

template <class Kern>
void regs(const char* name, Kern k, bool& first) {
  cudaFuncAttributes a{};
  CK(cudaFuncGetAttributes(&a, k));
  std::printf("%s\"%s\": {\"regs\": %d, \"local_bytes\": %zu}", first ? "" : ", ", name, a.numRegs, a.localSizeBytes);
  first = false;
}

int main() {
  const std::size_t nb = std::size_t(1) << 26, pairs = std::size_t(1) << 25;
  P* bases;
  uint32_t* idx;
  fp_t *prefix, *inv;
  P* out;
  xyzz_t<fp_t>* xout;
  CK(cudaMalloc(&bases, nb * sizeof(P)));
  CK(cudaMalloc(&idx, 2 * pairs * sizeof(uint32_t)));
  CK(cudaMalloc(&prefix, pairs * sizeof(fp_t)));
  CK(cudaMalloc(&inv, pairs * sizeof(fp_t)));
  CK(cudaMalloc(&out, pairs * sizeof(P)));
  CK(cudaMalloc(&xout, pairs * sizeof(xyzz_t<fp_t>)));
  gen_points<<<unsigned(nb / 256), 256>>>(bases, nb);
  gen_idx<<<unsigned(2 * pairs / 256), 256>>>(idx, 2 * pairs, uint32_t(nb));
  CK(cudaDeviceSynchronize());
  auto time = [](auto launch) { return median_ms(launch); };
  std::printf("{\"pairs\": %zu, \"bases\": %zu, \"kernels\": {", pairs, nb);
  bool first = true;
  regs("forward_bps4", forward_kernel<4>, first);
  regs("forward_bps6", forward_kernel<6>, first);
  regs("forward_bps8", forward_kernel<8>, first);
  regs("backward_bps3", backward_kernel<3>, first);
  regs("backward_bps4", backward_kernel<4>, first);
  regs("xyzz_bps4", xyzz_kernel<4>, first);
  std::printf("}, \"results\": [");
  first = true;
  for (uint32_t K : {64u, 128u, 256u, 512u}) {
    const uint32_t T = uint32_t(pairs / K), blocks = (T + 127) / 128;
    const float f4 = time([&] { forward_kernel<4><<<blocks, 128>>>(idx, bases, prefix, inv, T, K); });
    const float f6 = time([&] { forward_kernel<6><<<blocks, 128>>>(idx, bases, prefix, inv, T, K); });
    const float f8 = time([&] { forward_kernel<8><<<blocks, 128>>>(idx, bases, prefix, inv, T, K); });
    forward_kernel<4><<<blocks, 128>>>(idx, bases, prefix, inv, T, K);
    const float b3 = time([&] { backward_kernel<3><<<blocks, 128>>>(idx, bases, prefix, inv, out, T, K); });
    const float b4 = time([&] { backward_kernel<4><<<blocks, 128>>>(idx, bases, prefix, inv, out, T, K); });
    const float x4 = time([&] { xyzz_kernel<4><<<blocks, 128>>>(idx, bases, xout, T, K); });
    CK(cudaGetLastError());
    const float fb = std::min({f4, f6, f8}) + std::min(b3, b4);
    std::printf(
        "%s{\"K\": %u, \"forward_ms\": {\"bps4\": %.3f, \"bps6\": %.3f, \"bps8\": %.3f}, \"backward_ms\": {\"bps3\": "
        "%.3f, \"bps4\": %.3f}, \"xyzz_ms\": %.3f, \"affine_additions_per_s\": %.4g, \"xyzz_additions_per_s\": %.4g}",
        first ? "" : ", ", K, f4, f6, f8, b3, b4, x4, pairs / (fb * 1e-3), 2.0 * pairs / (x4 * 1e-3));
    first = false;
  }
  std::printf("]}\n");
  return 0;
}
