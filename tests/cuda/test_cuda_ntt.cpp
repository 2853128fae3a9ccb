// The GPU NTT against the CPU's (src/poly/ntt.hpp), bit for bit, at every size 2^0..2^16
// and at 2^18 and 2^20, for the four transforms in the four orderings (natural or
// bit-reversed in and out) and the fused intt + coset_ntt; round trips; a direct evaluation;
// transforms in flight on several streams at once.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <utility>
#include <vector>

#include "cuda/ntt.hpp"
#include "device_copy.hpp"
#include "ff/random.hpp"
#include "gpu_skip.hpp"
#include "poly/ntt.hpp"
#include "test_seed.hpp"

namespace {

using namespace snarkpipe;
using ff::Fr;
using ff::SeededRng;

std::vector<Fr> random_vector(SeededRng& rng, std::size_t n) {
  std::vector<Fr> v(n);
  for (auto& x : v) x = Fr::random(rng);
  return v;
}

void check_size(cuda::GpuNtt& gpu, SeededRng& rng, unsigned log_n) {
  const std::size_t n = std::size_t(1) << log_n;
  const poly::EvaluationDomain dom(log_n);
  using CpuFn = void (*)(std::span<Fr>, const poly::EvaluationDomain&, poly::Order, poly::Order);
  struct Case {
    const char* name;
    CpuFn cpu;
    void (cuda::GpuNtt::*gpu)(std::span<Fr>, poly::Order, poly::Order);
  };
  using poly::Order;
  const std::pair<Order, Order> orders[] = {{Order::Natural, Order::Natural},
                                            {Order::BitReversed, Order::Natural},
                                            {Order::Natural, Order::BitReversed},
                                            {Order::BitReversed, Order::BitReversed}};
  const Case cases[] = {{"ntt", poly::ntt, &cuda::GpuNtt::ntt},
                        {"intt", poly::intt, &cuda::GpuNtt::intt},
                        {"coset_ntt", poly::coset_ntt, &cuda::GpuNtt::coset_ntt},
                        {"icoset_ntt", poly::icoset_ntt, &cuda::GpuNtt::icoset_ntt}};
  for (const Case& c : cases)
    for (const auto& [in, out] : orders) {
      const std::vector<Fr> x = random_vector(rng, n);
      std::vector<Fr> expect = x, got = x;
      c.cpu(expect, dom, in, out);
      (gpu.*c.gpu)(got, in, out);
      for (std::size_t i = 0; i < n; ++i)
        ASSERT_EQ(got[i], expect[i]) << c.name << " 2^" << log_n << " in " << (in == Order::Natural ? "N" : "R")
                                     << " out " << (out == Order::Natural ? "N" : "R") << " at " << i;
    }
  // The fused evaluations → coset evaluations step against the CPU's intt, then coset_ntt.
  const std::vector<Fr> x = random_vector(rng, n);
  std::vector<Fr> expect = x, got = x;
  poly::intt(expect, dom, poly::Order::Natural, poly::Order::Natural);
  poly::coset_ntt(expect, dom, poly::Order::Natural, poly::Order::Natural);
  gpu.coset_from_evaluations(got);
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_EQ(got[i], expect[i]) << "coset_from_evaluations 2^" << log_n << " at " << i;
}

TEST(CudaNtt, MatchesCpuAtEverySmallSize) {
  SNARKPIPE_REQUIRE_GPU();
  SeededRng rng(test_seed("cuda_ntt_sizes"));
  cuda::GpuNtt gpu(20);
  for (unsigned k = 0; k <= 16; ++k) check_size(gpu, rng, k);
  check_size(gpu, rng, 18);
  check_size(gpu, rng, 20);
}

// Memory tier 4's engine: the twiddles from two small factor tables, the same results.
TEST(CudaNtt, CompactTwiddlesMatchCpuAtEverySize) {
  SNARKPIPE_REQUIRE_GPU();
  SeededRng rng(test_seed("cuda_ntt_compact"));
  cuda::GpuNtt gpu(21, 0, cuda::GpuNtt::Twiddles::compact);
  for (unsigned k = 0; k <= 14; ++k) check_size(gpu, rng, k);
  check_size(gpu, rng, 17);
  check_size(gpu, rng, 21);
  gpu.release_scratch();
  check_size(gpu, rng, 19);  // the scratch comes back when needed
}

// The H computation's six-transform quotient against the seven-transform formula on the CPU
// (coefficients, coset evaluations, (a·b − c)/Z there, coefficients again), on random a, b, c
// (no circuit: the identity holds for any vectors), at sizes that take one, two and three
// stage groups.
TEST(CudaNtt, QuotientCoefficientsMatchTheSevenTransformFormula) {
  SNARKPIPE_REQUIRE_GPU();
  SeededRng rng(test_seed("cuda_ntt_quotient"));
  cuda::GpuNtt gpu(21);
  for (unsigned log_n : {0u, 1u, 2u, 5u, 10u, 11u, 16u, 21u}) {
    const std::size_t n = std::size_t(1) << log_n;
    const poly::EvaluationDomain dom(log_n);
    std::vector<Fr> v[3];
    for (auto& x : v) x = random_vector(rng, n);
    std::vector<Fr> want[3] = {v[0], v[1], v[2]};
    for (auto& x : want) {
      poly::intt(x, dom, poly::Order::Natural, poly::Order::Natural);
      poly::coset_ntt(x, dom, poly::Order::Natural, poly::Order::Natural);
    }
    for (std::size_t i = 0; i < n; ++i) want[0][i] = (want[0][i] * want[1][i] - want[2][i]) * dom.coset_vanishing_inv();
    poly::icoset_ntt(want[0], dom, poly::Order::Natural, poly::Order::Natural);
    cuda::DeviceBuffer d[3] = {to_device(gpu.pool(), v[0]), to_device(gpu.pool(), v[1]), to_device(gpu.pool(), v[2])};
    gpu.quotient_coefficients(d[0].as<Fr>(), d[1].as<Fr>(), d[2].as<Fr>(), log_n, dom.coset_vanishing_inv());
    gpu.synchronize();
    std::vector<Fr> got(n);
    ASSERT_EQ(cudaMemcpy(got.data(), d[0].data(), n * sizeof(Fr), cudaMemcpyDeviceToHost), cudaSuccess);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], want[0][i]) << "quotient 2^" << log_n << " at " << i;
  }
}

TEST(CudaNtt, SmallerTableServesItsSizes) {
  SNARKPIPE_REQUIRE_GPU();
  SeededRng rng(test_seed("cuda_ntt_small_table"));
  cuda::GpuNtt gpu(11);
  for (unsigned k : {1u, 5u, 10u, 11u}) check_size(gpu, rng, k);
  std::vector<Fr> too_big(std::size_t(1) << 12);
  EXPECT_THROW(gpu.ntt(too_big), std::invalid_argument);
  std::vector<Fr> not_pow2(3);
  EXPECT_THROW(gpu.ntt(not_pow2), std::invalid_argument);
}

TEST(CudaNtt, RoundTripsOnDevice) {
  SNARKPIPE_REQUIRE_GPU();
  SeededRng rng(test_seed("cuda_ntt_roundtrip"));
  const unsigned log_n = 21;
  cuda::GpuNtt gpu(log_n);
  const std::vector<Fr> x = random_vector(rng, std::size_t(1) << log_n);
  std::vector<Fr> y = x;
  gpu.ntt(y);
  EXPECT_NE(y, x);
  gpu.intt(y);
  EXPECT_EQ(y, x);
  gpu.coset_ntt(y);
  gpu.icoset_ntt(y);
  EXPECT_EQ(y, x);
  std::vector<Fr> z = x, w = x;
  gpu.coset_from_evaluations(z);  // 2^21: three stage groups on each side of the middle
  gpu.intt(w);
  gpu.coset_ntt(w);
  EXPECT_EQ(z, w);
}

TEST(CudaNtt, TransformsInFlightOnSeveralStreams) {
  SNARKPIPE_REQUIRE_GPU();
  SeededRng rng(test_seed("cuda_ntt_streams"));
  const unsigned log_n = 17;  // two stage groups: each stream needs its own scratch
  const std::size_t n = std::size_t(1) << log_n;
  const poly::EvaluationDomain dom(log_n);
  cuda::GpuNtt gpu(log_n);
  constexpr int K = 4;
  cudaStream_t streams[K];
  Fr* d[K];
  std::vector<Fr> x[K], expect[K];
  for (int k = 0; k < K; ++k) {
    ASSERT_EQ(cudaStreamCreateWithFlags(&streams[k], cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d[k], n * sizeof(Fr)), cudaSuccess);
    x[k] = expect[k] = random_vector(rng, n);
    ASSERT_EQ(cudaMemcpy(d[k], x[k].data(), n * sizeof(Fr), cudaMemcpyHostToDevice), cudaSuccess);
  }
  // Enqueued without waiting in between; stream k runs k+1 transforms back to back.
  for (int round = 0; round < K; ++round)
    for (int k = round; k < K; ++k) {
      if (round % 2 == 0) {
        gpu.coset_ntt(d[k], log_n, poly::Order::Natural, poly::Order::Natural, streams[k]);
        poly::coset_ntt(expect[k], dom, poly::Order::Natural, poly::Order::Natural);
      } else {
        gpu.intt(d[k], log_n, poly::Order::Natural, poly::Order::BitReversed, streams[k]);
        poly::intt(expect[k], dom, poly::Order::Natural, poly::Order::BitReversed);
      }
    }
  for (int k = 0; k < K; ++k) {
    ASSERT_EQ(cudaStreamSynchronize(streams[k]), cudaSuccess);
    std::vector<Fr> got(n);
    ASSERT_EQ(cudaMemcpy(got.data(), d[k], n * sizeof(Fr), cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(got, expect[k]) << "stream " << k;
    cudaFree(d[k]);
    cudaStreamDestroy(streams[k]);
  }
}

TEST(CudaNtt, ForwardEqualsDirectEvaluation) {
  SNARKPIPE_REQUIRE_GPU();
  SeededRng rng(test_seed("cuda_ntt_direct"));
  const unsigned log_n = 13;
  const std::size_t n = std::size_t(1) << log_n;
  const poly::EvaluationDomain dom(log_n);
  cuda::GpuNtt gpu(log_n);
  const std::vector<Fr> coeffs = random_vector(rng, n);
  std::vector<Fr> evals = coeffs, coset = coeffs;
  gpu.ntt(evals);
  gpu.coset_ntt(coset);
  for (std::size_t j : {std::size_t(0), std::size_t(1), std::size_t(777), n - 1}) {
    const Fr at = dom.omega().pow(ff::u64(j));
    Fr acc = Fr::zero(), acc_coset = Fr::zero();
    for (std::size_t i = n; i-- > 0;) {
      acc = acc * at + coeffs[i];
      acc_coset = acc_coset * (at * dom.g()) + coeffs[i];
    }
    EXPECT_EQ(evals[j], acc) << "a(ω^" << j << ")";
    EXPECT_EQ(coset[j], acc_coset) << "a(g·ω^" << j << ")";
  }
}

}  // namespace
