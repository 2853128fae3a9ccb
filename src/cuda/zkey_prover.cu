#include "cuda/zkey_prover.hpp"

#include <bit>
#include <chrono>
#include <vector>

#include "base/clock.hpp"
#include "cuda/check.cuh"
#include "cuda/curve.cuh"
#include "cuda/launch.hpp"
#include "cuda/memory.hpp"
#include "cuda/msm.hpp"
#include "cuda/ntt.hpp"
#include "cuda/split_msm.cuh"
#include "cuda/stream.hpp"
#include "groth16/verifier.hpp"

namespace snarkpipe::cuda {

namespace {

using ff::Fr;

// One thread per row k: a = A·w and b = B·w over the row's coefficients, written with
// c = a·b at π(k) = perm·k mod m (snarkjs's row k is the point ω'^k = ω^π(k)).
__global__ void zkey_abc_kernel(const uint32_t* __restrict__ a_ptr, const uint32_t* __restrict__ a_sig,
                                const fr_t* __restrict__ a_val, const uint32_t* __restrict__ b_ptr,
                                const uint32_t* __restrict__ b_sig, const fr_t* __restrict__ b_val,
                                const fr_t* __restrict__ w, std::size_t m, uint64_t perm, fr_t* __restrict__ a,
                                fr_t* __restrict__ b, fr_t* __restrict__ c) {
  const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= m) return;
  fr_t sa = fr_t::zero(), sb = fr_t::zero();
  for (uint32_t i = a_ptr[k]; i < a_ptr[k + 1]; ++i) sa = sa + fr_t::load(&a_val[i]) * fr_t::load(&w[a_sig[i]]);
  for (uint32_t i = b_ptr[k]; i < b_ptr[k + 1]; ++i) sb = sb + fr_t::load(&b_val[i]) * fr_t::load(&w[b_sig[i]]);
  const std::size_t at = std::size_t((perm * k) & (m - 1));
  sa.store(&a[at]);
  sb.store(&b[at]);
  (sa * sb).store(&c[at]);
}

__global__ void zkey_times_kernel(fr_t* __restrict__ v, const fr_t* __restrict__ x, std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) (fr_t::load(&v[i]) * fr_t::load(&x[i])).store(&v[i]);
}

// d_i = a_i·b_i − c_i on the odd coset (snarkjs's joinABC), written after C's scalars.
__global__ void zkey_join_kernel(const fr_t* __restrict__ a, const fr_t* __restrict__ b, const fr_t* __restrict__ c,
                                 std::size_t n, fr_t* __restrict__ d) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) (fr_t::load(&a[i]) * fr_t::load(&b[i]) - fr_t::load(&c[i])).store(&d[i]);
}

// The positions of a query's set density bits: the witness index (or C ‖ H scalar index) of
// each of its non-identity points, in order.
std::vector<uint32_t> columns_of(const circom::ZkeyLayout::Query& q) {
  std::vector<uint32_t> cols;
  for (std::size_t i = 0; i < q.size; ++i)
    if ((q.words[i / 64] >> (i % 64)) & 1) cols.push_back(uint32_t(i));
  return cols;
}

}  // namespace

struct GpuZkeyProver::Impl {
  const circom::ZkeyProver& key;
  int device;
  BufferPool pool;
  Stream stream;
  std::unique_ptr<GpuNtt> ntt;
  std::unique_ptr<GpuMsmG1> a, b1, c_h;
  std::unique_ptr<GpuMsmG2> b2;
  DeviceBuffer a_cols, b1_cols, b2_cols, c_h_cols;
  std::size_t n_a = 0, n_b1 = 0, n_b2 = 0, n_c_h = 0;
  DeviceBuffer a_ptr, a_sig, a_val, b_ptr, b_sig, b_val, twiddles;

  Impl(const circom::ZkeyProver& k, int dev) : key(k), device(dev), pool(dev) {
    SNARKPIPE_CUDA_CHECK(cudaSetDevice(dev));
    stream = Stream(cudaStreamNonBlocking);
    const circom::ZkeyLayout& L = key.layout();
    const std::size_t m = key.domain_size();
    ntt = std::make_unique<GpuNtt>(unsigned(std::countr_zero(m)), dev);
    a = resident(L.a);
    b1 = resident(L.b1);
    c_h = resident(L.c_h);
    b2 = std::make_unique<GpuMsmG2>(L.b2.size(), pool, stream);
    upload(b2->device_bases(), L.b2.data(), L.b2.size() * sizeof(ec::G2Affine));
    n_a = columns(L.a_density, a_cols);
    n_b1 = columns(L.b1_density, b1_cols);
    n_b2 = columns(L.b2_density, b2_cols);
    n_c_h = columns(L.c_h_density, c_h_cols);
    rows(L.a_rows, a_ptr, a_sig, a_val);
    rows(L.b_rows, b_ptr, b_sig, b_val);
    twiddles = pool.acquire(std::max<std::size_t>(m, 1) * sizeof(Fr));
    upload(twiddles.data(), L.coset_twiddles.data(), m * sizeof(Fr));
    SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  ~Impl() { a.reset(), b1.reset(), c_h.reset(), b2.reset(); }

  void upload(void* to, const void* from, std::size_t bytes) {
    if (bytes) SNARKPIPE_CUDA_CHECK(cudaMemcpyAsync(to, from, bytes, cudaMemcpyHostToDevice, stream));
    SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));  // `from` may be a temporary
  }
  std::unique_ptr<GpuMsmG1> resident(const std::vector<ec::G1Affine>& points) {
    auto msm = std::make_unique<GpuMsmG1>(points.size(), pool, stream);
    upload(msm->device_bases(), points.data(), points.size() * sizeof(ec::G1Affine));
    return msm;
  }
  std::size_t columns(const circom::ZkeyLayout::Query& q, DeviceBuffer& out) {
    const std::vector<uint32_t> cols = columns_of(q);
    out = pool.acquire(std::max<std::size_t>(cols.size(), 1) * 4);
    upload(out.data(), cols.data(), cols.size() * 4);
    return cols.size();
  }
  void rows(const circom::ZkeyLayout::Rows& r, DeviceBuffer& ptr, DeviceBuffer& sig, DeviceBuffer& val) {
    ptr = pool.acquire(r.row_ptr.size() * 4);
    sig = pool.acquire(std::max<std::size_t>(r.signal.size(), 1) * 4);
    val = pool.acquire(std::max<std::size_t>(r.value.size(), 1) * sizeof(Fr));
    upload(ptr.data(), r.row_ptr.data(), r.row_ptr.size() * 4);
    upload(sig.data(), r.signal.data(), r.signal.size() * 4);
    upload(val.data(), r.value.data(), r.value.size() * sizeof(Fr));
  }
};

GpuZkeyProver::GpuZkeyProver(const circom::ZkeyProver& key, int device) {
  if (usable_device_count() <= device)
    throw CudaError("GpuZkeyProver", 100, "no usable CUDA device " + std::to_string(device), __FILE__, __LINE__);
  impl_ = std::make_unique<Impl>(key, device);
}

GpuZkeyProver::~GpuZkeyProver() = default;

std::size_t GpuZkeyProver::device_bytes() const { return impl_->pool.bytes_allocated(); }

groth16::Proof GpuZkeyProver::prove(std::span<const Fr> w, const groth16::ProverRandomness& rs,
                                    circom::ZkeyProverTimings* timings) {
  Impl& g = *impl_;
  g.key.check_witness_shape(w);
  SNARKPIPE_CUDA_CHECK(cudaSetDevice(g.device));
  using base::Clock;
  using base::ms_since;
  circom::ZkeyProverTimings t;
  const auto start = Clock::now();
  auto t0 = start;
  const std::size_t m = g.key.domain_size(), nv = w.size(), np = g.key.num_public();
  const unsigned log_m = unsigned(std::countr_zero(m));
  cudaStream_t st = g.stream;

  DeviceBuffer z = g.pool.acquire(nv * sizeof(Fr));
  SNARKPIPE_CUDA_CHECK(cudaMemcpyAsync(z.data(), w.data(), nv * sizeof(Fr), cudaMemcpyHostToDevice, st));
  DeviceBuffer abc[3];
  for (auto& v : abc) v = g.pool.acquire(m * sizeof(Fr));
  zkey_abc_kernel<<<blocks_for(m, 256), 256, 0, st>>>(
      g.a_ptr.as<uint32_t>(), g.a_sig.as<uint32_t>(), g.a_val.as<fr_t>(), g.b_ptr.as<uint32_t>(),
      g.b_sig.as<uint32_t>(), g.b_val.as<fr_t>(), z.as<fr_t>(), m, g.key.layout().perm_mul, abc[0].as<fr_t>(),
      abc[1].as<fr_t>(), abc[2].as<fr_t>());
  SNARKPIPE_CUDA_CHECK_LAUNCH();
  SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(st));
  t.abc_ms = ms_since(t0);

  // Interpolate, shift to the odd coset s·H (the coefficients left bit-reversed, times
  // s^bitrev(q)), evaluate there: snarkjs's ifft, batchApplyKey(inc = w_{2m}), fft.
  t0 = Clock::now();
  using poly::Order;
  for (auto& v : abc) {
    g.ntt->intt(v.as<Fr>(), log_m, Order::Natural, Order::BitReversed, st);
    zkey_times_kernel<<<blocks_for(m, 256), 256, 0, st>>>(v.as<fr_t>(), g.twiddles.as<fr_t>(), m);
    SNARKPIPE_CUDA_CHECK_LAUNCH();
    g.ntt->ntt(v.as<Fr>(), log_m, Order::BitReversed, Order::Natural, st);
  }
  // The C ‖ H scalars: the private signals' values, then d.
  const std::size_t n_private = nv - np - 1;
  DeviceBuffer ch = g.pool.acquire((n_private + m) * sizeof(Fr));
  if (n_private)
    SNARKPIPE_CUDA_CHECK(
        cudaMemcpyAsync(ch.data(), z.as<Fr>() + np + 1, n_private * sizeof(Fr), cudaMemcpyDeviceToDevice, st));
  zkey_join_kernel<<<blocks_for(m, 256), 256, 0, st>>>(abc[0].as<fr_t>(), abc[1].as<fr_t>(), abc[2].as<fr_t>(), m,
                                                       ch.as<fr_t>() + n_private);
  SNARKPIPE_CUDA_CHECK_LAUNCH();
  SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(st));
  for (auto& v : abc) v.reset();
  t.ntt_ms = ms_since(t0);

  t0 = Clock::now();
  const ec::G1Jacobian ch_sum =
      split_msm(*g.c_h, split_scalars(ch.as<fr_t>(), g.c_h_cols.as<uint32_t>(), g.n_c_h, g.pool, st));
  t.c_h_msm_ms = ms_since(t0);
  ch.reset();
  t0 = Clock::now();
  const ec::G1Jacobian a_sum = split_msm(*g.a, split_scalars(z.as<fr_t>(), g.a_cols.as<uint32_t>(), g.n_a, g.pool, st));
  t.a_msm_ms = ms_since(t0);
  t0 = Clock::now();
  const ec::G1Jacobian b1_sum =
      split_msm(*g.b1, split_scalars(z.as<fr_t>(), g.b1_cols.as<uint32_t>(), g.n_b1, g.pool, st));
  t.b1_msm_ms = ms_since(t0);
  t0 = Clock::now();
  const ec::G2Jacobian b2_sum =
      split_msm(*g.b2, split_scalars(z.as<fr_t>(), g.b2_cols.as<uint32_t>(), g.n_b2, g.pool, st));
  t.b2_msm_ms = ms_since(t0);

  const groth16::Proof proof = circom::assemble_zkey_proof(g.key.vk(), a_sum, b1_sum, b2_sum, ch_sum, rs);
  t.total_ms = ms_since(start);
  if (timings) *timings = t;
  return proof;
}

groth16::Proof GpuZkeyProver::prove_checked(std::span<const Fr> w, const groth16::ProverRandomness& rs,
                                            circom::ZkeyProverTimings* timings) {
  const groth16::Proof proof = prove(w, rs, timings);
  const std::vector<Fr> publics(w.begin() + 1, w.begin() + 1 + impl_->key.num_public());
  if (!groth16::verify(impl_->key.prepared_vk(), proof, publics))
    throw groth16::ProverError(
        "the proof does not verify against the key's verifying key: the witness does not satisfy the circuit (or "
        "the witness and key are for different circuits); not returning it");
  return proof;
}

}  // namespace snarkpipe::cuda
