// Probe: the BLS12-381 Fp Montgomery multiplication on the FP64 pipes, and beside the integer
// one (gpu-notes items 52-53). Item 51 measured that ~128 DFMAs per integer Fp product run
// beside it for −7 % of its rate; this asks what a whole FP64 product costs and what the two
// together reach. The products themselves (two forms) are in fp64_mont.cuh, shared with the
// CPU check fp64_mont_host_check.cpp.
//   nvcc -O3 -std=c++20 -arch=sm_90 -I src -I bench/cuda -o fp64_mont_probe bench/cuda/fp64_mont_probe.cu
//   ./fp64_mont_probe        (checks both forms against fp_t, then prints one JSON object)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "fp64_fp_t.cuh"
#include "probe_common.cuh"

using namespace snarkpipe::cuda;

using fp64::f64x8;

// FORM 0: mont_mul_5op (columns as doubles), 1: mont_mul_bits (columns as integers).
template <int FORM>
__device__ __forceinline__ f64x8 mont_mul(const f64x8& a, const f64x8& b, const fp64::Constants& k) {
  return FORM == 0 ? fp64::mont_mul_5op(a, b, k) : fp64::mont_mul_bits(a, b, k);
}

// Every thread: one product of random x, y, and a chain of `len` products from them; both
// against fp_t's. Counts mismatches.
template <int FORM>
__global__ void check_kernel(unsigned len, fp64::Constants k, unsigned* bad) {
  const uint64_t t = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  fp_t x = random_fp(t * 1009 + 1), y = random_fp(t * 2003 + 7);
  if (t == 0) x = fp_t::zero();
  if (t == 1) y = fp_t::one();
  if (t == 2) {  // p − 1 in both
    for (int i = 0; i < 12; ++i) x.v[i] = y.v[i] = FpParams32::mod(i);
    x.v[0] -= 1, y.v[0] -= 1;
  }
  const fp_t want = x * y;
  f64x8 fx = to_f64(x), fy = to_f64(y);
  if (!(from_f64(to_f64(x)) == x)) atomicAdd(bad, 1u);
  if (!(reduce_once(from_f64(mont_mul<FORM>(fx, fy, k))) == want)) atomicAdd(bad, 1u);
  fp_t chain = x;
  f64x8 fchain = fx;
  for (unsigned i = 0; i < len; ++i) {
    chain = chain * y;
    fchain = mont_mul<FORM>(fchain, fy, k);
  }
  if (!(reduce_once(from_f64(fchain)) == chain)) atomicAdd(bad, 1u);
}

// K chains of FP64 products and I chains of integer products per thread.
template <int FORM, int K, int I>
__global__ void __launch_bounds__(256) rate_kernel(unsigned iters, fp64::Constants kc, fp_t* out) {
  const uint64_t t = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const fp_t b = random_fp(t * 977 + 5);
  f64x8 fa[K > 0 ? K : 1];
  fp_t ia[I > 0 ? I : 1];
  const f64x8 fb = to_f64(b);
#pragma unroll
  for (int k = 0; k < K; ++k) fa[k] = to_f64(random_fp(t * 131 + 17 * k));
#pragma unroll
  for (int k = 0; k < I; ++k) ia[k] = random_fp(t * 313 + 19 * k);
  for (unsigned i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < K; ++k) fa[k] = mont_mul<FORM>(fa[k], fb, kc);
#pragma unroll
    for (int k = 0; k < I; ++k) ia[k] = ia[k] * b;
  }
  fp_t s = fp_t::zero();
#pragma unroll
  for (int k = 0; k < K; ++k) s = s + from_f64(fa[k]);
#pragma unroll
  for (int k = 0; k < I; ++k) s = s + ia[k];
  s.store(&out[t]);
}

template <int FORM, int K, int I>
void measure(unsigned blocks, unsigned iters, const fp64::Constants& kc, fp_t* out, bool& first) {
  const float median = median_ms([&] { rate_kernel<FORM, K, I><<<blocks, 256>>>(iters, kc, out); });
  cudaFuncAttributes at{};
  CK(cudaFuncGetAttributes(&at, rate_kernel<FORM, K, I>));
  const double threads = double(blocks) * 256, m = median;
  std::printf("%s{\"form\": \"%s\", \"fp64_chains\": %d, \"int_chains\": %d, \"regs\": %d, \"local_bytes\": %zu, \"ms\": %.3f, "
              "\"fp64_mul_per_s\": %.4g, \"int_mul_per_s\": %.4g, \"total_mul_per_s\": %.4g}",
              first ? "" : ", ", FORM == 0 ? "5op" : "bits", K, I, at.numRegs, at.localSizeBytes, m, K * iters * threads / (m * 1e-3),
              I * iters * threads / (m * 1e-3), (K + I) * iters * threads / (m * 1e-3));
  first = false;
}

int main() {
  const fp64::Constants kc = fp_constants();

  unsigned* bad;
  CK(cudaMalloc(&bad, 2 * sizeof(unsigned)));
  CK(cudaMemset(bad, 0, 2 * sizeof(unsigned)));
  const unsigned check_threads = 1 << 16;
  check_kernel<0><<<check_threads / 256, 256>>>(200, kc, bad);
  check_kernel<1><<<check_threads / 256, 256>>>(200, kc, bad + 1);
  CK(cudaDeviceSynchronize());
  unsigned mismatches[2] = {};
  CK(cudaMemcpy(mismatches, bad, sizeof mismatches, cudaMemcpyDeviceToHost));

  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const unsigned blocks = unsigned(sms) * 8, iters = 1024;
  fp_t* out;
  CK(cudaMalloc(&out, std::size_t(blocks) * 256 * sizeof(fp_t)));
  std::printf("{\"checked_threads\": %u, \"chain\": 200, \"mismatches_5op\": %u, \"mismatches_bits\": %u, "
              "\"sms\": %d, \"blocks\": %u, \"iters\": %u, \"results\": [",
              check_threads, mismatches[0], mismatches[1], sms, blocks, iters);
  bool first = true;
  measure<0, 0, 4>(blocks, iters, kc, out, first);
  measure<0, 2, 0>(blocks, iters, kc, out, first);
  measure<1, 2, 0>(blocks, iters, kc, out, first);
  measure<1, 4, 0>(blocks, iters, kc, out, first);
  measure<0, 1, 2>(blocks, iters, kc, out, first);
  measure<1, 1, 2>(blocks, iters, kc, out, first);
  measure<1, 1, 1>(blocks, iters, kc, out, first);
  measure<1, 2, 2>(blocks, iters, kc, out, first);
  std::printf("]}\n");
  return mismatches[0] == 0 && mismatches[1] == 0 ? 0 : 1;
}
