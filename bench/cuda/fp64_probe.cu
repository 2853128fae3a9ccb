// Probe for the FP64 pipes as a second multiplier (gpu-notes item 51): the Fp multiplication
// throughput kernel (4 independent chains of a·b per thread, as `bench gpu --rates`) with D
// DFMAs interleaved per iteration.
// If the integer multiplication keeps its time while D grows, the DFMAs ride on free issue
// slots and pipes; the D at which it starts to slow is the FP64 work an Fp product can carry.
//   nvcc -O3 -std=c++20 -arch=sm_90 -I src -I bench/cuda -o fp64_probe bench/cuda/fp64_probe.cu
//   ./fp64_probe            (prints one JSON object)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_common.cuh"

using namespace snarkpipe::cuda;

// MULS: whether the Fp chains run; D DFMAs per iteration, over 8 independent chains (so the
// registers do not grow with D).
constexpr int CHAINS = 8;
template <bool MULS, int D>
__global__ void __launch_bounds__(256, 2) mixed_kernel(unsigned iters, fp_t* out, double* dout) {
  const uint64_t t = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  fp_t a[4], b = random_fp(t * 977 + 5);
  for (int k = 0; k < 4; ++k) a[k] = random_fp(t * 131 + 17 * k);
  double x[CHAINS];
  const double y = 0.9999999 + 1e-9 * double(t & 7), z = 1e-7;
#pragma unroll
  for (int k = 0; k < CHAINS; ++k) x[k] = 1.0 + k;
  for (unsigned i = 0; i < iters; ++i) {
    if constexpr (MULS) {
#pragma unroll
      for (int k = 0; k < 4; ++k) a[k] = a[k] * b;
    }
#pragma unroll
    for (int r = 0; r < D / CHAINS; ++r)
#pragma unroll
      for (int k = 0; k < CHAINS; ++k) x[k] = fma(x[k], y, z);
  }
  if constexpr (MULS) (a[0] + a[1] + a[2] + a[3]).store(&out[t]);
  double s = 0;
#pragma unroll
  for (int k = 0; k < CHAINS; ++k) s += x[k];
  dout[t] = s;
}

template <bool MULS, int D>
float time_kernel(unsigned blocks, unsigned iters, fp_t* out, double* dout) {
  return median_ms([&] { mixed_kernel<MULS, D><<<blocks, 256>>>(iters, out, dout); });
}

template <int D>
void row(unsigned blocks, unsigned iters, fp_t* out, double* dout, bool& first) {
  const double threads = double(blocks) * 256;
  const float both = time_kernel<true, D>(blocks, iters, out, dout);
  const float dfma_only = D > 0 ? time_kernel<false, D>(blocks, iters, out, dout) : 0.f;
  cudaFuncAttributes at{};
  CK(cudaFuncGetAttributes(&at, mixed_kernel<true, D>));
  std::printf("%s{\"dfma_per_4_fp_muls\": %d, \"regs\": %d, \"local_bytes\": %zu, \"ms\": %.3f, \"fp_mul_per_s\": %.4g, \"dfma_per_s\": %.4g, "
              "\"dfma_alone_ms\": %.3f, \"dfma_alone_per_s\": %.4g}",
              first ? "" : ", ", D, at.numRegs, at.localSizeBytes, both, 4.0 * iters * threads / (both * 1e-3),
              double(D) * iters * threads / (both * 1e-3), dfma_only,
              D > 0 ? double(D) * iters * threads / (dfma_only * 1e-3) : 0.0);
  first = false;
}

int main() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const unsigned blocks = unsigned(sms) * 8, iters = 2048;
  fp_t* out;
  double* dout;
  CK(cudaMalloc(&out, std::size_t(blocks) * 256 * sizeof(fp_t)));
  CK(cudaMalloc(&dout, std::size_t(blocks) * 256 * sizeof(double)));
  std::printf("{\"sms\": %d, \"blocks\": %u, \"threads_per_block\": 256, \"iters\": %u, \"results\": [", sms, blocks, iters);
  bool first = true;
  row<0>(blocks, iters, out, dout, first);
  row<8>(blocks, iters, out, dout, first);
  row<16>(blocks, iters, out, dout, first);
  row<32>(blocks, iters, out, dout, first);
  row<64>(blocks, iters, out, dout, first);
  row<128>(blocks, iters, out, dout, first);
  row<256>(blocks, iters, out, dout, first);
  row<512>(blocks, iters, out, dout, first);
  row<1024>(blocks, iters, out, dout, first);
  std::printf("]}\n");
  return 0;
}
