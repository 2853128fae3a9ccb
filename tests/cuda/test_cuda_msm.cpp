// The GPU MSM against the CPU's (src/msm/pippenger.hpp), equal after conversion to affine:
// G1 and G2, sizes powers of two and not, every window size the edge cases reach, and the
// edge cases themselves (zero scalars, all ones, r - 1, repeated bases, bases at infinity,
// n = 1, fewer scalars than resident bases, one bucket holding every point); pieces, index
// lists and plain sums; several scalar vectors in one pass; precomputed base copies.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuda/msm.hpp"
#include "device_copy.hpp"
#include "ec/scalar_mul.hpp"
#include "ff/random.hpp"
#include "gpu_skip.hpp"
#include "msm/pippenger.hpp"
#include "test_seed.hpp"

namespace {

using namespace snarkpipe;
using ec::Affine;
using ec::Jacobian;
using ff::Fr;
using ff::SeededRng;

// Points on a random progression a0·G + i·(δ·G): additions only, then one batch inversion.
template <class C>
std::vector<Affine<C>> random_bases(SeededRng& rng, std::size_t n) {
  const Jacobian<C> g = Jacobian<C>::generator();
  const Affine<C> step = (g * Fr::random(rng)).to_affine();
  Jacobian<C> p = g * Fr::random(rng);
  std::vector<Jacobian<C>> pts(n);
  for (auto& x : pts) {
    x = p;
    p = p.add_affine(step);
  }
  return ec::batch_to_affine<C>(pts);
}

std::vector<Fr> random_scalars(SeededRng& rng, std::size_t n) {
  std::vector<Fr> v(n);
  for (auto& x : v) x = Fr::random(rng);
  return v;
}

Fr r_minus_1() { return Fr::zero() - Fr::one(); }

template <class C>
void expect_same(cuda::GpuMsm<C>& gpu, std::span<const Affine<C>> bases, std::span<const Fr> scalars,
                 const std::string& what, unsigned window_bits = 0) {
  const Jacobian<C> want = msm::msm<C>(bases.subspan(0, scalars.size()), scalars);
  const Jacobian<C> got = gpu.msm(scalars, cuda::GpuMsmConfig{window_bits});
  ASSERT_EQ(got.to_affine(), want.to_affine()) << what << " (n = " << scalars.size() << ", c = " << window_bits << ")";
}

template <class C>
void random_sizes(const char* name, std::initializer_list<std::size_t> sizes) {
  SeededRng rng(test_seed(name));
  std::size_t max_n = 0;
  for (auto n : sizes) max_n = std::max(max_n, n);
  const auto bases = random_bases<C>(rng, max_n);
  cuda::GpuMsm<C> gpu(bases);
  for (std::size_t n : sizes) {
    const auto scalars = random_scalars(rng, n);
    expect_same<C>(gpu, bases, scalars, "random");
  }
}

TEST(CudaMsm, G1RandomSizes) {
  SNARKPIPE_REQUIRE_GPU();
  random_sizes<ec::G1Curve>("cuda_msm_g1_sizes", {1, 2, 3, 7, 64, 100, 1000, 1024, 4097, 20000, 65536});
}

TEST(CudaMsm, G2RandomSizes) {
  SNARKPIPE_REQUIRE_GPU();
  random_sizes<ec::G2Curve>("cuda_msm_g2_sizes", {1, 5, 300, 4096, 10007});
}

TEST(CudaMsm, EveryWindowSize) {
  SNARKPIPE_REQUIRE_GPU();
  SeededRng rng(test_seed("cuda_msm_windows"));
  const std::size_t n = 3000;
  const auto bases = random_bases<ec::G1Curve>(rng, n);
  cuda::GpuMsmG1 gpu(bases);
  for (unsigned c = 2; c <= 22; ++c) expect_same<ec::G1Curve>(gpu, bases, random_scalars(rng, n), "window", c);
  const auto b2 = random_bases<ec::G2Curve>(rng, 700);
  cuda::GpuMsmG2 gpu2(b2);
  for (unsigned c : {3u, 9u, 16u}) expect_same<ec::G2Curve>(gpu2, b2, random_scalars(rng, 700), "G2 window", c);
  EXPECT_THROW(gpu.msm(random_scalars(rng, 4), cuda::GpuMsmConfig{23}), std::invalid_argument);
  EXPECT_THROW(gpu.msm(random_scalars(rng, n + 1)), std::invalid_argument);
}

template <class C>
void edge_cases(const char* name) {
  SeededRng rng(test_seed(name));
  const std::size_t n = 2500;
  auto bases = random_bases<C>(rng, n);
  // Repeated bases and bases at infinity among the others.
  for (std::size_t i = 0; i < n; i += 97) bases[i] = bases[(i * 7 + 3) % n];
  for (std::size_t i = 5; i < n; i += 211) bases[i] = Affine<C>::identity();
  cuda::GpuMsm<C> gpu(bases);

  std::vector<Fr> zeros(n, Fr::zero()), ones(n, Fr::one()), top(n, r_minus_1());
  expect_same<C>(gpu, bases, zeros, "all zero");
  expect_same<C>(gpu, bases, ones, "all one");
  expect_same<C>(gpu, bases, top, "all r - 1");
  for (unsigned c : {4u, 13u, 20u}) expect_same<C>(gpu, bases, ones, "all one, one bucket", c);

  std::vector<Fr> mixed = random_scalars(rng, n);
  for (std::size_t i = 0; i < n; i += 3) mixed[i] = Fr::zero();
  for (std::size_t i = 1; i < n; i += 5) mixed[i] = Fr::one();
  for (std::size_t i = 2; i < n; i += 7) mixed[i] = r_minus_1();
  for (std::size_t i = 4; i < n; i += 11) mixed[i] = Fr::from_u64(i);
  expect_same<C>(gpu, bases, mixed, "mixed");

  // The same point with scalars k and r - k: the sum is the identity.
  std::vector<Affine<C>> pair = {bases[1], bases[1]};
  cuda::GpuMsm<C> gpu_pair(pair);
  const Fr k = Fr::random(rng);
  const std::vector<Fr> cancel = {k, Fr::zero() - k};
  EXPECT_TRUE(gpu_pair.msm(cancel).is_identity());

  // n = 1 against a scalar multiplication, and fewer scalars than resident bases.
  const std::vector<Fr> one_scalar = {k};
  EXPECT_EQ(gpu.msm(one_scalar).to_affine(), (Jacobian<C>::from_affine(bases[0]) * k).to_affine());
  EXPECT_TRUE(gpu.msm(std::span<const Fr>()).is_identity());
  expect_same<C>(gpu, bases, std::span<const Fr>(mixed).subspan(0, 1234), "prefix");
}

TEST(CudaMsm, G1EdgeCases) {
  SNARKPIPE_REQUIRE_GPU();
  edge_cases<ec::G1Curve>("cuda_msm_g1_edges");
}

TEST(CudaMsm, G2EdgeCases) {
  SNARKPIPE_REQUIRE_GPU();
  edge_cases<ec::G2Curve>("cuda_msm_g2_edges");
}

TEST(CudaMsm, ReusesItsMemory) {
  SNARKPIPE_REQUIRE_GPU();
  SeededRng rng(test_seed("cuda_msm_pool"));
  const std::size_t n = 5000;
  const auto bases = random_bases<ec::G1Curve>(rng, n);
  cuda::GpuMsmG1 gpu(bases);
  expect_same<ec::G1Curve>(gpu, bases, random_scalars(rng, n), "first");
  const std::size_t allocations = gpu.pool().allocations();
  for (int i = 0; i < 3; ++i) expect_same<ec::G1Curve>(gpu, bases, random_scalars(rng, n), "again");
  EXPECT_EQ(gpu.pool().allocations(), allocations) << "a repeated call allocated device memory";
}

TEST(CudaMsm, BalancedWindows) {
  for (unsigned c = 2; c <= 22; ++c) {
    const cuda::WindowLayout l = cuda::balanced_windows(c);
    EXPECT_EQ(l.windows, cuda::windows_for(c)) << c;
    EXPECT_LE(l.bits, c) << c;
    EXPECT_GE(l.wide, 1u) << c;
    EXPECT_LE(l.wide, l.windows) << c;
    unsigned covered = 0;
    for (unsigned w = 0; w < l.windows; ++w) {
      EXPECT_EQ(l.offset(w), covered) << c << " window " << w;
      EXPECT_GE(l.width(w), l.bits - 1);
      covered += l.width(w);
    }
    EXPECT_EQ(covered, 256u) << c;  // exactly: the top digit's carry needs bit 255 (0 for r < 2^255)
    EXPECT_EQ(l.offset(l.windows), 256u) << c;
  }
  const cuda::WindowLayout h = cuda::balanced_windows(22);  // the 2^27 H MSM's
  EXPECT_EQ(h.bits, 22u);
  EXPECT_EQ(h.wide, 4u);
  std::size_t buckets = 0;  // that digits reach (signed digits: 2^(width − 1) per window)
  for (unsigned w = 0; w < h.windows; ++w) buckets += std::size_t(1) << (h.width(w) - 1);
  EXPECT_EQ(buckets, (std::size_t(4) << 21) + (std::size_t(8) << 20));
  EXPECT_EQ(cuda::balanced_windows(17).bits, 16u);  // 16 windows either way: 16 bits suffice
}

TEST(CudaMsm, WindowChoice) {
  EXPECT_EQ(cuda::GpuMsmG1::window_bits_for(std::size_t(1) << 20), 16u);
  EXPECT_EQ(cuda::GpuMsmG1::window_bits_for(std::size_t(1) << 24), 19u);
  EXPECT_EQ(cuda::GpuMsmG1::window_bits_for(std::size_t(1) << 27), 22u);
  EXPECT_GE(cuda::GpuMsmG1::window_bits_for(1), 2u);
}

}  // namespace

namespace {

// Pieces (base_offset), compacted indices (d_base_index) and plain sums (sum_device), the
// forms the prover's 0/1 split and bounded-memory H MSM use, against the CPU.
template <class C>
void offsets_and_indices(const char* name) {
  SeededRng rng(test_seed(name));
  const std::size_t n = 5000;
  const auto bases = random_bases<C>(rng, n);
  cuda::GpuMsm<C> gpu(bases);
  const auto scalars = random_scalars(rng, n);
  const cuda::DeviceBuffer d_scalars = to_device(gpu.pool(), scalars);
  const std::span<const Affine<C>> b(bases);
  const std::span<const Fr> k(scalars);
  // A piece [1234, 1234 + 2000).
  EXPECT_EQ(gpu.msm_device(d_scalars.template as<Fr>() + 1234, 2000, {}, nullptr, 1234).to_affine(),
            msm::msm<C>(b.subspan(1234, 2000), k.subspan(1234, 2000)).to_affine());
  // Every third base, by index, with repeats; and their plain sum.
  std::vector<std::uint32_t> index;
  for (std::uint32_t i = 0; i < n; i += 3) index.push_back(i);
  index.push_back(7);
  index.push_back(7);
  std::vector<Affine<C>> picked;
  for (auto i : index) picked.push_back(bases[i]);
  const std::vector<Fr> some(scalars.begin(), scalars.begin() + index.size());
  const cuda::DeviceBuffer d_index = to_device(gpu.pool(), index);
  EXPECT_EQ(
      gpu.msm_device(d_scalars.template as<Fr>(), index.size(), {}, d_index.template as<std::uint32_t>()).to_affine(),
      msm::msm<C>(std::span<const Affine<C>>(picked), std::span<const Fr>(some)).to_affine());
  Jacobian<C> sum = Jacobian<C>::identity();
  for (const auto& p : picked) sum = sum.add_affine(p);
  EXPECT_EQ(gpu.sum_device(d_index.template as<std::uint32_t>(), index.size()).to_affine(), sum.to_affine());
  EXPECT_TRUE(gpu.sum_device(d_index.template as<std::uint32_t>(), 0).is_identity());
}

// Several scalar vectors against the same bases in one pass (msm_device_batch), and the
// precomputed base copies (precompute): each result against the CPU, with the edge scalars
// (0, 1, r − 1, repeated bases) mixed in, and the two together.
template <class C>
void batch_and_precomputed(const char* name) {
  SeededRng rng(test_seed(name));
  const std::size_t n = 3001;
  const auto bases = random_bases<C>(rng, n);
  cuda::GpuMsm<C> gpu(bases);
  const std::span<const Affine<C>> b(bases);
  constexpr unsigned K = 3;
  std::vector<Fr> all(K * n);
  for (auto& x : all) x = Fr::random(rng);
  for (std::size_t i = 0; i < n; i += 7) all[i] = Fr::zero();
  for (std::size_t i = 3; i < n; i += 11) all[n + i] = Fr::one();
  for (std::size_t i = 5; i < n; i += 13) all[2 * n + i] = r_minus_1();
  const cuda::DeviceBuffer d = to_device(gpu.pool(), all);
  const Fr* d_all = d.template as<Fr>();
  std::vector<Affine<C>> want(K);
  for (unsigned v = 0; v < K; ++v) want[v] = msm::msm<C>(b, std::span<const Fr>(all).subspan(v * n, n)).to_affine();
  auto check = [&](const std::vector<Jacobian<C>>& got, const std::string& what) {
    ASSERT_EQ(got.size(), K) << what;
    for (unsigned v = 0; v < K; ++v) EXPECT_EQ(got[v].to_affine(), want[v]) << what << ", vector " << v;
  };
  check(gpu.msm_device_batch(d_all, n, K), "batch");
  check(gpu.msm_device_batch(d_all, n, K, cuda::GpuMsmConfig{7}), "batch, c = 7");
  EXPECT_TRUE(gpu.msm_device_batch(d_all, 0, K)[2].is_identity());
  // Windows in passes (max_entries): 3 windows per pass, one window per pass, and a batch.
  for (std::size_t per : {std::size_t(3), std::size_t(1)}) {
    cuda::GpuMsmConfig split;
    split.max_entries = n * per;
    EXPECT_EQ(gpu.msm_device(d_all + 2 * n, n, split).to_affine(), want[2]) << per << " window(s) per pass";
  }
  cuda::GpuMsmConfig split_batch;
  split_batch.max_entries = n * K * 4;
  check(gpu.msm_device_batch(d_all, n, K, split_batch), "batch, 4 windows per pass");

  for (unsigned c : {5u, 13u}) {
    gpu.precompute(c);
    ASSERT_EQ(gpu.precomputed_window_bits(), c);
    for (unsigned v = 0; v < K; ++v)
      EXPECT_EQ(gpu.msm_device(d_all + v * n, n).to_affine(), want[v]) << "precomputed c = " << c << ", vector " << v;
    check(gpu.msm_device_batch(d_all, n, K), "precomputed batch, c = " + std::to_string(c));
    // A piece and an index list through the copies.
    EXPECT_EQ(gpu.msm_device(d_all + 100, 900, {}, nullptr, 100).to_affine(),
              msm::msm<C>(b.subspan(100, 900), std::span<const Fr>(all).subspan(100, 900)).to_affine())
        << "precomputed piece, c = " << c;
    cuda::GpuMsmConfig split;
    split.max_entries = n * 2;
    EXPECT_EQ(gpu.msm_device(d_all + n, n, split).to_affine(), want[1]) << "precomputed in passes, c = " << c;
    // Another window than the copies' falls back to the plain path.
    EXPECT_EQ(gpu.msm_device(d_all, n, cuda::GpuMsmConfig{c + 1}).to_affine(), want[0]) << "c + 1 beside copies";
  }
  gpu.precompute();  // the default window for n
  EXPECT_EQ(gpu.precomputed_window_bits(), cuda::GpuMsm<C>::window_bits_for_precomputed(n));
  EXPECT_EQ(gpu.msm_device(d_all + n, n).to_affine(), want[1]) << "precomputed, default window";
  // Every base equal, every scalar 1: one bucket holds every copy's point of window 0.
  std::vector<Affine<C>> same(64, bases[0]);
  cuda::GpuMsm<C> one(same);
  one.precompute(4);
  const std::vector<Fr> ones(64, Fr::one());
  EXPECT_EQ(one.msm(ones).to_affine(), (Jacobian<C>::from_affine(bases[0]) * Fr::from_u64(64)).to_affine());
}

TEST(CudaMsm, BatchAndPrecomputedBases) {
  SNARKPIPE_REQUIRE_GPU();
  batch_and_precomputed<ec::G1Curve>("CudaMsm.BatchAndPrecomputedBases.G1");
  batch_and_precomputed<ec::G2Curve>("CudaMsm.BatchAndPrecomputedBases.G2");
}

TEST(CudaMsm, PiecesIndicesAndSums) {
  SNARKPIPE_REQUIRE_GPU();
  offsets_and_indices<ec::G1Curve>("CudaMsm.PiecesIndicesAndSums.G1");
  offsets_and_indices<ec::G2Curve>("CudaMsm.PiecesIndicesAndSums.G2");
}

}  // namespace
