// Probe: the G1 XYZZ mixed addition (the MSM's bucket step) with FP64 products
// (fp64_mont.cuh's madd) against the integer one (curve.cuh), alone and as two kernels on two
// streams at once — the two-kernel hybrid accumulation of gpu-notes item 52, reduced to its
// arithmetic: does an SM holding blocks of both run more additions per second than either?
// Random field elements stand in for points (the formulas are the same functions of them; no
// exceptional case occurs). The integer kernel is bounded as the MSM's G1 loop is (4 blocks
// of 128 per SM). Checked first: 64-addition chains from the same start, every coordinate
// equal after reduction.
//   nvcc -O3 -std=c++20 -arch=sm_90 -I src -I bench/cuda -o fp64_madd_probe bench/cuda/fp64_madd_probe.cu
//   ./fp64_madd_probe        (prints one JSON object; exit 1 on a mismatch)
#include "cuda/curve.cuh"
#include "fp64_fp_t.cuh"
#include "probe_common.cuh"

using namespace snarkpipe::cuda;
using P = affine_t<fp_t>;
using X = xyzz_t<fp_t>;
constexpr unsigned POINTS = 64;

// An f64x8 value below 2p as a reduced fp_t.
__device__ fp_t to_fp(const fp64::f64x8& a) { return reduce_once(from_f64(a)); }

struct P64 {
  fp64::f64x8 x, y;
};

__global__ void make_points(P* pts, P64* pts64) {
  const unsigned i = threadIdx.x;
  P p{random_fp(1000 + 31 * i), random_fp(5000 + 37 * i)};
  pts[i] = p;
  pts64[i] = {to_f64(p.x), to_f64(p.y)};
}

__device__ fp64::xyzz64 start64(const P& p) {
  const fp64::f64x8 one = to_f64(fp_t::one());
  return {to_f64(p.x), to_f64(p.y), one, one};
}

__global__ void check_kernel(const P* pts, const P64* pts64, fp64::Constants k, unsigned* bad) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  X acc = X::from_affine(pts[t % POINTS]);
  fp64::xyzz64 acc64 = start64(pts[t % POINTS]);
  for (unsigned i = 0; i < 64; ++i) {
    const unsigned j = (t + 7 * i + 1) % POINTS;
    acc = acc.add_affine(pts[j]);
    acc64 = fp64::madd(acc64, pts64[j].x, pts64[j].y, k);
  }
  if (!(to_fp(acc64.X) == acc.X && to_fp(acc64.Y) == acc.Y && to_fp(acc64.ZZ) == acc.ZZ && to_fp(acc64.ZZZ) == acc.ZZZ))
    atomicAdd(bad, 1u);
}

__global__ void __launch_bounds__(128, 4) int_kernel(unsigned iters, const P* pts, X* out) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  X acc = X::from_affine(pts[t % POINTS]);
  for (unsigned i = 0; i < iters; ++i) acc = acc.add_affine_inline(P::load(&pts[(t + i + 1) % POINTS]));
  acc.store(&out[t]);
}

__global__ void __launch_bounds__(128) fp64_kernel(unsigned iters, const P* pts, const P64* pts64,
                                                   fp64::Constants k, X* out) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  fp64::xyzz64 acc = start64(pts[t % POINTS]);
  for (unsigned i = 0; i < iters; ++i) {
    const P64& q = pts64[(t + i + 1) % POINTS];
    acc = fp64::madd(acc, q.x, q.y, k);
  }
  X r{to_fp(acc.X), to_fp(acc.Y), to_fp(acc.ZZ), to_fp(acc.ZZZ)};
  r.store(&out[t]);
}

template <class Kern>
int occupancy(Kern k) {
  int b = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, k, 128, 0));
  return b;
}

int main() {
  const fp64::Constants kc = fp_constants();
  P* pts;
  P64* pts64;
  CK(cudaMalloc(&pts, POINTS * sizeof(P)));
  CK(cudaMalloc(&pts64, POINTS * sizeof(P64)));
  make_points<<<1, POINTS>>>(pts, pts64);
  unsigned* bad;
  CK(cudaMalloc(&bad, sizeof(unsigned)));
  CK(cudaMemset(bad, 0, sizeof(unsigned)));
  check_kernel<<<64, 128>>>(pts, pts64, kc, bad);
  unsigned mismatches = 0;
  CK(cudaMemcpy(&mismatches, bad, sizeof mismatches, cudaMemcpyDeviceToHost));

  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int occ_int = occupancy(int_kernel), occ_fp = occupancy(fp64_kernel);
  cudaFuncAttributes ai{}, af{};
  CK(cudaFuncGetAttributes(&ai, int_kernel));
  CK(cudaFuncGetAttributes(&af, fp64_kernel));
  // Each kernel alone with two waves of its blocks, then both at once on two streams with
  // half of each one's blocks (so that each SM can hold blocks of both).
  const unsigned iters = 512;
  const unsigned bi = unsigned(sms * occ_int * 2), bf = unsigned(sms * occ_fp * 2);
  X* out;
  CK(cudaMalloc(&out, std::size_t(std::max(bi, bf)) * 128 * 2 * sizeof(X)));
  cudaStream_t s1, s2;
  CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  const float t_int = median_ms([&] { int_kernel<<<bi, 128>>>(iters, pts, out); });
  const float t_fp = median_ms([&] { fp64_kernel<<<bf, 128>>>(iters, pts, pts64, kc, out); });
  // Both: each stream waits on the default stream's event so the timing covers them.
  cudaEvent_t go, d1, d2;
  CK(cudaEventCreate(&go));
  CK(cudaEventCreate(&d1));
  CK(cudaEventCreate(&d2));
  const unsigned hi = bi / 2, hf = bf / 2;
  const float t_both = median_ms([&] {
    CK(cudaEventRecord(go, 0));
    CK(cudaStreamWaitEvent(s1, go));
    CK(cudaStreamWaitEvent(s2, go));
    int_kernel<<<hi, 128, 0, s1>>>(iters, pts, out);
    fp64_kernel<<<hf, 128, 0, s2>>>(iters, pts, pts64, kc, out + std::size_t(bi) * 128);
    CK(cudaEventRecord(d1, s1));
    CK(cudaEventRecord(d2, s2));
    CK(cudaStreamWaitEvent(0, d1));
    CK(cudaStreamWaitEvent(0, d2));
  });
  const double adds_int = double(bi) * 128 * iters, adds_fp = double(bf) * 128 * iters;
  const double adds_both = (double(hi) + double(hf)) * 128 * iters;
  std::printf("{\"mismatches\": %u, \"sms\": %d, \"iters\": %u, "
              "\"int\": {\"regs\": %d, \"local_bytes\": %zu, \"blocks_per_sm\": %d, \"blocks\": %u, \"ms\": %.3f, \"adds_per_s\": %.4g}, "
              "\"fp64\": {\"regs\": %d, \"local_bytes\": %zu, \"blocks_per_sm\": %d, \"blocks\": %u, \"ms\": %.3f, \"adds_per_s\": %.4g}, "
              "\"both\": {\"int_blocks\": %u, \"fp64_blocks\": %u, \"ms\": %.3f, \"adds_per_s\": %.4g}}\n",
              mismatches, sms, iters, ai.numRegs, ai.localSizeBytes, occ_int, bi, t_int, adds_int / (t_int * 1e-3),
              af.numRegs, af.localSizeBytes, occ_fp, bf, t_fp, adds_fp / (t_fp * 1e-3), hi, hf, t_both,
              adds_both / (t_both * 1e-3));
  return mismatches == 0 ? 0 : 1;
}
