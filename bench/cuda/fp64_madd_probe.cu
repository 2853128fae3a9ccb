// Probe: the G1 XYZZ mixed addition (the MSM's bucket step) with FP64 products
// (fp64_mont.cuh's madd) against the integer one (curve.cuh), alone and as two kernels on two
// streams at once — the two-kernel hybrid accumulation of gpu-notes item 52, reduced to its
// arithmetic: does an SM holding blocks of both run more additions per second than either?
// Both kinds take chunks from one queue (as a hybrid MSM would), with grids sized so that each
// SM holds blocks of both; the output says how many SMs did and how the chunks split.
// Random field elements stand in for points (the formulas are the same functions of them; no
// exceptional case occurs). The integer kernel is bounded as the MSM's G1 loop is (4 blocks
// of 128 per SM) or at 2. Checked first: 64-addition chains from the same start, every coordinate
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

// Persistent kernels over a shared queue of chunks (each chunk: 128 threads × CHUNK_ADDS additions
// from fresh accumulators), as a hybrid accumulation would split the MSM's sorted chunks: blocks
// of both kinds take chunks until none is left, so the faster pipe takes more of them. Each
// block records its SM and how many chunks it ran, which shows whether the kinds co-resided.
constexpr unsigned CHUNK_ADDS = 64;

struct Queue {
  unsigned* next;      // the next chunk to hand out
  unsigned* done;      // [0]: chunks run by integer blocks, [1]: by FP64 blocks
  unsigned* per_sm;    // [sm * 2 + kind]: blocks of each kind that ran on each SM
};

__device__ inline unsigned smid() {
  unsigned r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}

__device__ inline unsigned take(const Queue& q) {
  __shared__ unsigned c;
  __syncthreads();
  if (threadIdx.x == 0) c = atomicAdd(q.next, 1u);
  __syncthreads();
  return c;
}

template <int MIN_BLOCKS>
__global__ void __launch_bounds__(128, MIN_BLOCKS) int_kernel(unsigned chunks, const P* pts, X* out, Queue q) {
  if (threadIdx.x == 0) atomicAdd(&q.per_sm[smid() * 2], 1u);
  unsigned mine = 0;
  for (unsigned chunk; (chunk = take(q)) < chunks; ++mine) {
    const unsigned t = chunk * 128 + threadIdx.x;
    X acc = X::from_affine(pts[t % POINTS]);
    for (unsigned i = 0; i < CHUNK_ADDS; ++i) acc = acc.add_affine_inline(P::load(&pts[(t + i + 1) % POINTS]));
    acc.store(&out[t]);
  }
  if (threadIdx.x == 0) atomicAdd(&q.done[0], mine);
}

// The one-kernel hybrid: the integer addition with NF of its nine products on the FP64 pipes
// (s2 = y·ZZZ beside u2 = x·ZZ; then qq = X·pp beside ppp and ZZ·pp; then ZZZ·ppp beside the
// Y product), each through the conversions to and from 48-bit limbs.
template <bool BITS>
__device__ __forceinline__ fp_t mul64(const fp_t& a, const fp_t& b, const fp64::Constants& k) {
  const fp64::f64x8 r = BITS ? fp64::mont_mul_bits(to_f64(a), to_f64(b), k) : fp64::mont_mul_5op(to_f64(a), to_f64(b), k);
  return reduce_once(from_f64(r));
}

template <int NF, bool BITS>
__device__ __forceinline__ X madd_hybrid(const X& a, const P& q, const fp64::Constants& k) {
  const fp_t u2 = q.x * a.ZZ, s2 = NF >= 1 ? mul64<BITS>(q.y, a.ZZZ, k) : q.y * a.ZZZ;
  const fp_t h = u2 - a.X, rr = s2 - a.Y;
  const fp_t pp = h.sqr();
  const fp_t ppp = h * pp;
  const fp_t qq = NF >= 2 ? mul64<BITS>(a.X, pp, k) : a.X * pp;
  X r;
  r.X = rr.sqr() - ppp - qq.dbl();
  r.Y = fp_t::mul_sub(rr, qq - r.X, a.Y, ppp);
  r.ZZ = a.ZZ * pp;
  r.ZZZ = NF >= 3 ? mul64<BITS>(a.ZZZ, ppp, k) : a.ZZZ * ppp;
  return r;
}

template <int MIN_BLOCKS, int NF, bool BITS>
__global__ void __launch_bounds__(128, MIN_BLOCKS) hybrid_kernel(unsigned chunks, const P* pts, fp64::Constants k,
                                                                 X* out, Queue q) {
  if (threadIdx.x == 0) atomicAdd(&q.per_sm[smid() * 2], 1u);
  unsigned mine = 0;
  for (unsigned chunk; (chunk = take(q)) < chunks; ++mine) {
    const unsigned t = chunk * 128 + threadIdx.x;
    X acc = X::from_affine(pts[t % POINTS]);
    for (unsigned i = 0; i < CHUNK_ADDS; ++i) acc = madd_hybrid<NF, BITS>(acc, P::load(&pts[(t + i + 1) % POINTS]), k);
    acc.store(&out[t]);
  }
  if (threadIdx.x == 0) atomicAdd(&q.done[0], mine);
}

// The hybrid's chains checked against the integer addition's.
template <int NF, bool BITS>
__global__ void check_hybrid(const P* pts, fp64::Constants k, unsigned* bad) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  X acc = X::from_affine(pts[t % POINTS]), h = acc;
  for (unsigned i = 0; i < 64; ++i) {
    const unsigned j = (t + 7 * i + 1) % POINTS;
    acc = acc.add_affine(pts[j]);
    h = madd_hybrid<NF, BITS>(h, pts[j], k);
  }
  if (!(acc.X == h.X && acc.Y == h.Y && acc.ZZ == h.ZZ && acc.ZZZ == h.ZZZ)) atomicAdd(bad, 1u);
}

template <int MIN_BLOCKS>
__global__ void __launch_bounds__(128, MIN_BLOCKS) fp64_kernel(unsigned chunks, const P* pts, const P64* pts64,
                                                               fp64::Constants k, X* out, Queue q) {
  if (threadIdx.x == 0) atomicAdd(&q.per_sm[smid() * 2 + 1], 1u);
  unsigned mine = 0;
  for (unsigned chunk; (chunk = take(q)) < chunks; ++mine) {
    const unsigned t = chunk * 128 + threadIdx.x;
    fp64::xyzz64 acc = start64(pts[t % POINTS]);
    for (unsigned i = 0; i < CHUNK_ADDS; ++i) {
      const P64& p = pts64[(t + i + 1) % POINTS];
      acc = fp64::madd(acc, p.x, p.y, k);
    }
    X r{to_fp(acc.X), to_fp(acc.Y), to_fp(acc.ZZ), to_fp(acc.ZZZ)};
    r.store(&out[t]);
  }
  if (threadIdx.x == 0) atomicAdd(&q.done[1], mine);
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
  check_hybrid<3, false><<<64, 128>>>(pts, kc, bad);
  check_hybrid<3, true><<<64, 128>>>(pts, kc, bad);
  unsigned mismatches = 0;
  CK(cudaMemcpy(&mismatches, bad, sizeof mismatches, cudaMemcpyDeviceToHost));

  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  // The integer kernel at the MSM's bound (4 blocks of 128 per SM, 128 registers) and freer;
  // the FP64 kernel unbounded (its 254 registers allow 2 blocks) and held to 128 registers.
  const auto int4 = int_kernel<4>;
  const auto int2 = int_kernel<2>;
  const auto fp_free = fp64_kernel<1>;
  const auto fp_4 = fp64_kernel<4>;
  // The one-kernel hybrids: {blocks per SM bound, FP64 products of nine, bit-pattern form}.
  const void* hybrids[] = {(const void*)hybrid_kernel<4, 1, false>, (const void*)hybrid_kernel<4, 2, false>,
                           (const void*)hybrid_kernel<4, 3, false>, (const void*)hybrid_kernel<4, 2, true>,
                           (const void*)hybrid_kernel<3, 2, false>, (const void*)hybrid_kernel<3, 3, false>};
  const char* hybrid_names[] = {"hybrid 4/SM, 1 of 9 products in FP64 (5op)", "hybrid 4/SM, 2 in FP64 (5op)",
                                "hybrid 4/SM, 3 in FP64 (5op)", "hybrid 4/SM, 2 in FP64 (bits)",
                                "hybrid 3/SM, 2 in FP64 (5op)", "hybrid 3/SM, 3 in FP64 (5op)"};
  const unsigned chunks = unsigned(sms) * 4 * 16;
  X* out;
  CK(cudaMalloc(&out, std::size_t(chunks) * 128 * sizeof(X)));
  unsigned* counters;
  CK(cudaMalloc(&counters, (3 + 2 * std::size_t(sms)) * sizeof(unsigned)));
  Queue q{counters, counters + 1, counters + 3};
  cudaStream_t s1, s2;
  CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cudaEvent_t go, d1, d2;
  CK(cudaEventCreate(&go));
  CK(cudaEventCreate(&d1));
  CK(cudaEventCreate(&d2));
  std::printf("{\"mismatches\": %u, \"sms\": %d, \"chunks\": %u, \"adds_per_chunk\": %u, \"kernels\": {", mismatches, sms,
              chunks, 128 * CHUNK_ADDS);
  const std::pair<const char*, const void*> kernels[] = {
      {"int_4", (const void*)int4}, {"int_2", (const void*)int2}, {"fp64_free", (const void*)fp_free}, {"fp64_128", (const void*)fp_4}};
  for (std::size_t i = 0; i < 4; ++i) {
    cudaFuncAttributes a{};
    CK(cudaFuncGetAttributes(&a, kernels[i].second));
    int occ = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernels[i].second, 128, 0));
    std::printf("%s\"%s\": {\"regs\": %d, \"local_bytes\": %zu, \"max_blocks_per_sm\": %d}", i ? ", " : "", kernels[i].first,
                a.numRegs, a.localSizeBytes, occ);
  }
  for (int i = 0; i < 6; ++i) {
    cudaFuncAttributes a{};
    CK(cudaFuncGetAttributes(&a, hybrids[i]));
    std::printf(", \"%s\": {\"regs\": %d, \"local_bytes\": %zu}", hybrid_names[i], a.numRegs, a.localSizeBytes);
  }
  std::printf("}, \"results\": [");
  // Each configuration: blocks per SM of the integer kernel (bounded 4 or 2) and of the FP64
  // kernel (free or held to 128 registers); launched on two streams from one event.
  struct Config {
    const char* name;
    unsigned int_blocks, fp_blocks;
    bool int_bound4, fp_128;
  };
  const Config configs[] = {
      {"int 4/SM", 4, 0, true, false},          {"int 2/SM", 2, 0, false, false},
      {"fp64 2/SM", 0, 2, false, false},        {"fp64(128 regs) 4/SM", 0, 4, false, true},
      {"int 2 + fp64 1", 2, 1, false, false},   {"int(128 regs) 2 + fp64 1", 2, 1, true, false},   {"int 3 + fp64(128) 1", 3, 1, true, true},
      {"int 2 + fp64(128) 2", 2, 2, false, true}, {"int 3 + fp64 0 (3/SM)", 3, 0, true, false},
  };
  bool first = true;
  for (const Config& c : configs) {
    std::vector<unsigned> host(3 + 2 * std::size_t(sms));
    const float ms = median_ms([&] {
      CK(cudaMemsetAsync(counters, 0, host.size() * sizeof(unsigned)));
      CK(cudaEventRecord(go, 0));
      CK(cudaStreamWaitEvent(s1, go));
      CK(cudaStreamWaitEvent(s2, go));
      if (c.int_blocks) {
        if (c.int_bound4) int4<<<c.int_blocks * sms, 128, 0, s1>>>(chunks, pts, out, q);
        else int2<<<c.int_blocks * sms, 128, 0, s1>>>(chunks, pts, out, q);
      }
      if (c.fp_blocks) {
        if (c.fp_128) fp_4<<<c.fp_blocks * sms, 128, 0, s2>>>(chunks, pts, pts64, kc, out, q);
        else fp_free<<<c.fp_blocks * sms, 128, 0, s2>>>(chunks, pts, pts64, kc, out, q);
      }
      CK(cudaEventRecord(d1, s1));
      CK(cudaEventRecord(d2, s2));
      CK(cudaStreamWaitEvent(0, d1));
      CK(cudaStreamWaitEvent(0, d2));
    });
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(host.data(), counters, host.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    // SMs that held blocks of both kinds in the last run.
    unsigned both = 0, max_int = 0, max_fp = 0;
    for (int s = 0; s < sms; ++s) {
      both += host[3 + 2 * s] && host[4 + 2 * s];
      max_int = std::max(max_int, host[3 + 2 * s]);
      max_fp = std::max(max_fp, host[4 + 2 * s]);
    }
    const double adds = double(chunks) * 128 * CHUNK_ADDS;
    std::printf("%s{\"config\": \"%s\", \"ms\": %.3f, \"adds_per_s\": %.4g, \"int_chunks\": %u, \"fp64_chunks\": %u, "
                "\"sms_with_both\": %u, \"max_int_blocks_on_an_sm\": %u, \"max_fp64_blocks_on_an_sm\": %u}",
                first ? "" : ", ", c.name, ms, adds / (ms * 1e-3), host[1], host[2], both, max_int, max_fp);
    first = false;
  }
  for (int i = 0; i < 6; ++i) {
    const unsigned blocks = (i < 4 ? 4 : 3) * unsigned(sms);
    const float ms = median_ms([&] {
      CK(cudaMemsetAsync(counters, 0, (3 + 2 * std::size_t(sms)) * sizeof(unsigned)));
      void* args[] = {(void*)&chunks, (void*)&pts, (void*)&kc, (void*)&out, (void*)&q};
      CK(cudaLaunchKernel(hybrids[i], blocks, 128, args, 0, 0));
    });
    const double adds = double(chunks) * 128 * CHUNK_ADDS;
    std::printf(", {\"config\": \"%s\", \"ms\": %.3f, \"adds_per_s\": %.4g}", hybrid_names[i], ms, adds / (ms * 1e-3));
  }
  std::printf("]}\n");
  return mismatches == 0 ? 0 : 1;
}
