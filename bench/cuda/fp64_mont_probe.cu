// Probe: the BLS12-381 Fp Montgomery multiplication on the FP64 pipes, and beside the integer
// one (gpu-notes item 52). Item 51 measured that ~128 DFMAs per integer Fp product run beside
// it for −7 % of its rate; this asks what a whole FP64 product costs and what the two together
// reach.
//
// Representation: 8 limbs of 48 bits held exactly in doubles (value = Σ d_k·2^(48k)), the same
// Montgomery form as fp_t (R = 2^384 = 2^(8·48)), values kept below 2p (lazy).
// An exact 48×48-bit product in two FMAs rounding toward zero:
//   hi = fma_rz(a, b, 2^100) − 2^100 = ⌊ab/2^48⌋·2^48   (ab < 2^96: the sum's ulp is 2^48)
//   lo = fma_rz(a, b, −hi) = ab − hi ∈ [0, 2^48)        (exact)
// lo goes to column i+j, hi·2^-48 to column i+j+1; a column sums at most 32 terms < 2^48 and a
// carry below 2^5, so it stays an exact integer ≤ 2^53. Montgomery reduction row by row: m_i =
// (col_i mod 2^48)·n' mod 2^48 in 64-bit integers, m_i·p into the columns, col_i/2^48 (exact,
// col_i is then ≡ 0 mod 2^48) into col_{i+1}; the result is columns 8..16, carried in 64-bit
// integers into 48-bit limbs: < (4p² + R·p)/R < 2p since 4p < R.
//   nvcc -O3 -std=c++20 -arch=sm_90 -I src -o fp64_mont_probe bench/cuda/fp64_mont_probe.cu
//   ./fp64_mont_probe        (checks against fp_t, then prints one JSON object)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda/fields.cuh"

using namespace snarkpipe::cuda;

#define CK(x)                                                                   \
  do {                                                                          \
    cudaError_t e_ = (x);                                                       \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));             \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

constexpr uint64_t MASK48 = (uint64_t(1) << 48) - 1;
__constant__ double P48[8];   // p in 48-bit limbs
__constant__ uint64_t NP48;   // −p^-1 mod 2^48

struct f64x8 {
  double d[8];
};

__device__ uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

__device__ fp_t element(uint64_t seed) {
  fp_t x;
  for (int j = 0; j < 12; ++j) x.v[j] = uint32_t(mix(seed + j));
  x.v[11] &= 0x0fffffffu;  // below p
  return x;
}

// 12 × 32 bits → 8 × 48 bits.
__device__ f64x8 to_f64(const fp_t& a) {
  f64x8 r;
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    const int bit = 48 * k, w = bit / 32, sh = bit % 32;
    uint64_t v = uint64_t(a.v[w]) >> sh | uint64_t(a.v[w + 1]) << (32 - sh);
    if (sh > 16 && w + 2 < 12) v |= uint64_t(a.v[w + 2]) << (64 - sh);
    r.d[k] = double(v & MASK48);
  }
  return r;
}

__device__ fp_t from_f64(const f64x8& a) {
  uint64_t l[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) l[k] = uint64_t(a.d[k]);
  fp_t r;
#pragma unroll
  for (int w = 0; w < 12; ++w) {
    const int bit = 32 * w, k = bit / 48, sh = bit % 48;
    uint64_t v = l[k] >> sh;
    if (sh > 16 && k + 1 < 8) v |= l[k + 1] << (48 - sh);
    r.v[w] = uint32_t(v);
  }
  return r;
}

// col[k] += lo(x·y), col[k+1] += hi(x·y).
__device__ __forceinline__ void mac(double x, double y, double& lo_col, double& hi_col) {
  const double C = 0x1p100;
  const double hi = __dsub_rz(__fma_rz(x, y, C), C);
  const double lo = __fma_rz(x, y, -hi);
  lo_col = __dadd_rn(lo_col, lo);
  hi_col = __fma_rn(hi, 0x1p-48, hi_col);
}

__device__ __forceinline__ f64x8 mont_mul(const f64x8& a, const f64x8& b) {
  double col[17];
#pragma unroll
  for (int k = 0; k < 17; ++k) col[k] = 0;
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) mac(a.d[i], b.d[j], col[i + j], col[i + j + 1]);
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const uint64_t c = uint64_t(col[i]);
    const double m = double(((c & MASK48) * NP48) & MASK48);
#pragma unroll
    for (int j = 0; j < 8; ++j) mac(m, P48[j], col[i + j], col[i + j + 1]);
    col[i + 1] = __fma_rn(col[i], 0x1p-48, col[i + 1]);  // col[i] ≡ 0 mod 2^48 now
  }
  f64x8 r;
  uint64_t carry = 0;
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    const uint64_t v = uint64_t(col[8 + k]) + carry;
    r.d[k] = double(v & MASK48);
    carry = v >> 48;
  }
  // col[16] and the last carry are 0 for a result below 2^384 (it is below 2p).
  return r;
}

// value mod p for a value below 2p.
__device__ fp_t reduce_once(const fp_t& a) {
  fp_t d;
  uint32_t borrow = 0;
  for (int i = 0; i < 12; ++i) {
    const uint64_t t = uint64_t(a.v[i]) - FpParams32::mod(i) - borrow;
    d.v[i] = uint32_t(t);
    borrow = uint32_t(t >> 63);
  }
  return borrow ? a : d;
}

// Every thread: one product of random x, y, and a chain of `len` products from them; both
// against fp_t's. Counts mismatches.
__global__ void check_kernel(unsigned len, unsigned* bad) {
  const uint64_t t = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  fp_t x = element(t * 1009 + 1), y = element(t * 2003 + 7);
  if (t == 0) x = fp_t::zero();
  if (t == 1) y = fp_t::one();
  if (t == 2) {  // p − 1 in both
    for (int i = 0; i < 12; ++i) x.v[i] = y.v[i] = FpParams32::mod(i);
    x.v[0] -= 1, y.v[0] -= 1;
  }
  const fp_t want = x * y;
  f64x8 fx = to_f64(x), fy = to_f64(y);
  if (!(from_f64(to_f64(x)) == x)) atomicAdd(bad, 1u);
  if (!(reduce_once(from_f64(mont_mul(fx, fy))) == want)) atomicAdd(bad, 1u);
  fp_t chain = x;
  f64x8 fchain = fx;
  for (unsigned i = 0; i < len; ++i) {
    chain = chain * y;
    fchain = mont_mul(fchain, fy);
  }
  if (!(reduce_once(from_f64(fchain)) == chain)) atomicAdd(bad, 1u);
}

// K chains of FP64 products and I chains of integer products per thread.
template <int K, int I>
__global__ void __launch_bounds__(256) rate_kernel(unsigned iters, fp_t* out) {
  const uint64_t t = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const fp_t b = element(t * 977 + 5);
  f64x8 fa[K > 0 ? K : 1];
  fp_t ia[I > 0 ? I : 1];
  const f64x8 fb = to_f64(b);
#pragma unroll
  for (int k = 0; k < K; ++k) fa[k] = to_f64(element(t * 131 + 17 * k));
#pragma unroll
  for (int k = 0; k < I; ++k) ia[k] = element(t * 313 + 19 * k);
  for (unsigned i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < K; ++k) fa[k] = mont_mul(fa[k], fb);
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

template <int K, int I>
void measure(unsigned blocks, unsigned iters, fp_t* out, bool& first) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  rate_kernel<K, I><<<blocks, 256>>>(iters, out);
  std::vector<float> ms;
  for (int r = 0; r < 5; ++r) {
    CK(cudaEventRecord(a));
    rate_kernel<K, I><<<blocks, 256>>>(iters, out);
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float x;
    CK(cudaEventElapsedTime(&x, a, b));
    ms.push_back(x);
  }
  CK(cudaGetLastError());
  std::sort(ms.begin(), ms.end());
  cudaFuncAttributes at{};
  CK(cudaFuncGetAttributes(&at, rate_kernel<K, I>));
  const double threads = double(blocks) * 256, m = ms[2];
  std::printf("%s{\"fp64_chains\": %d, \"int_chains\": %d, \"regs\": %d, \"local_bytes\": %zu, \"ms\": %.3f, "
              "\"fp64_mul_per_s\": %.4g, \"int_mul_per_s\": %.4g, \"total_mul_per_s\": %.4g}",
              first ? "" : ", ", K, I, at.numRegs, at.localSizeBytes, m, K * iters * threads / (m * 1e-3),
              I * iters * threads / (m * 1e-3), (K + I) * iters * threads / (m * 1e-3));
  first = false;
}

int main() {
  // p in 48-bit limbs and −p^-1 mod 2^48 (Newton's iteration for p^-1 mod 2^64).
  uint32_t p32[13] = {};
  for (int i = 0; i < 12; ++i) p32[i] = FpParams32::mod(i);
  double p48[8];
  for (int k = 0; k < 8; ++k) {
    const int bit = 48 * k, w = bit / 32, sh = bit % 32;
    uint64_t v = uint64_t(p32[w]) >> sh | uint64_t(p32[w + 1]) << (32 - sh);
    if (sh > 16 && w + 2 < 13) v |= uint64_t(p32[w + 2]) << (64 - sh);
    p48[k] = double(v & MASK48);
  }
  const uint64_t p0 = uint64_t(p32[0]) | uint64_t(p32[1]) << 32;
  uint64_t inv = 1;
  for (int i = 0; i < 7; ++i) inv *= 2 - p0 * inv;
  const uint64_t np = (0 - inv) & MASK48;
  CK(cudaMemcpyToSymbol(P48, p48, sizeof p48));
  CK(cudaMemcpyToSymbol(NP48, &np, sizeof np));

  unsigned* bad;
  CK(cudaMalloc(&bad, sizeof(unsigned)));
  CK(cudaMemset(bad, 0, sizeof(unsigned)));
  const unsigned check_threads = 1 << 16;
  check_kernel<<<check_threads / 256, 256>>>(200, bad);
  CK(cudaDeviceSynchronize());
  unsigned mismatches = 0;
  CK(cudaMemcpy(&mismatches, bad, sizeof mismatches, cudaMemcpyDeviceToHost));

  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const unsigned blocks = unsigned(sms) * 8, iters = 1024;
  fp_t* out;
  CK(cudaMalloc(&out, std::size_t(blocks) * 256 * sizeof(fp_t)));
  std::printf("{\"checked_threads\": %u, \"chain\": 200, \"mismatches\": %u, \"sms\": %d, \"blocks\": %u, "
              "\"iters\": %u, \"results\": [",
              check_threads, mismatches, sms, blocks, iters);
  bool first = true;
  measure<0, 4>(blocks, iters, out, first);
  measure<4, 0>(blocks, iters, out, first);
  measure<2, 0>(blocks, iters, out, first);
  measure<1, 4>(blocks, iters, out, first);
  measure<2, 4>(blocks, iters, out, first);
  measure<1, 2>(blocks, iters, out, first);
  measure<2, 2>(blocks, iters, out, first);
  measure<1, 1>(blocks, iters, out, first);
  measure<1, 3>(blocks, iters, out, first);
  measure<2, 3>(blocks, iters, out, first);
  measure<2, 6>(blocks, iters, out, first);
  std::printf("]}\n");
  return mismatches == 0 ? 0 : 1;
}
