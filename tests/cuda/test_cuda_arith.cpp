// Device field and curve arithmetic against the CPU's, bit for bit, on random inputs and
// the edge cases (zero, p - 1, doubling and P + (-P) inside additions, the identity).
#include <gtest/gtest.h>

#include <vector>

#include "ec/curves.hpp"
#include "ff/fp2.hpp"
#include "ff/random.hpp"
#include "gpu_arith.hpp"
#include "gpu_skip.hpp"
#include "test_seed.hpp"

namespace {

using namespace snarkpipe;
using cuda::testing::FieldOp;
using cuda::testing::PointOp;
using ff::Fp;
using ff::Fp2;
using ff::Fr;
using ff::SeededRng;

constexpr std::size_t N = 4096;

// Inputs go to the device as raw limbs, which its arithmetic expects reduced (< p); the CPU's
// Fp keeps results in [0, 2p) (ff/mont_field.hpp), so every input is reduced before upload.
template <class F>
F minus_one() {
  return (F::zero() - F::one()).reduce();
}

template <class F>
std::vector<F> random_with_edges(SeededRng& rng, std::size_t n) {
  std::vector<F> v(n);
  for (auto& x : v) x = F::random(rng);
  v[0] = F::zero();
  v[1] = F::one();
  v[2] = minus_one<F>();
  v[3] = F::zero();
  v[4] = minus_one<F>();
  // Raw Montgomery limbs full of ones (2^k − 1 below p, p − 1, p − 2): the carry chains of
  // the multiplication and of the squaring's doubled cross products at their longest.
  if constexpr (std::is_same_v<F, Fp2>) {
    // Components at the prime field's edges (p − 1, p − 2, limbs full of ones), paired with
    // each other and with random ones: the double-width Karatsuba's sums at their largest.
    const std::vector<Fp> e = random_with_edges<Fp>(rng, 24);
    for (std::size_t k = 0; k < e.size() && 5 + 2 * k + 1 < n; ++k) {
      v[5 + 2 * k] = Fp2(e[k], e[(k + 7) % e.size()]);
      v[5 + 2 * k + 1] = Fp2(e[k], e[k]);
    }
  }
  if constexpr (requires { typename F::Repr; }) {
    std::size_t at = 5;
    const int bits = int(typename F::Repr{}.size()) * 64;
    for (int k : {32, 64, 96, 128, 191, 224, bits / 2 + 1, bits - 32, bits - 8}) {
      typename F::Repr r{};
      for (int b = 0; b < k; ++b) r[b / 64] |= uint64_t(1) << (b % 64);
      if (ff::compare(r, F::MODULUS) < 0 && at < n) v[at++] = F::from_montgomery(r);
    }
    for (uint64_t d : {1, 2}) {
      typename F::Repr r = F::MODULUS;
      r[0] -= d;  // the low limb of both moduli is odd and > 2
      if (at < n) v[at++] = F::from_montgomery(r);
    }
  }
  for (auto& x : v) x = x.reduce();
  return v;
}

template <class F, class GpuOp>
void check_field(const char* name, GpuOp gpu) {
  SeededRng rng(test_seed(name));
  const std::vector<F> a = random_with_edges<F>(rng, N);
  std::vector<F> b = random_with_edges<F>(rng, N);
  b[3] = minus_one<F>();  // 0 - (p-1), (p-1) + 0 ...
  b[4] = minus_one<F>();  // (p-1) + (p-1)
  const auto add = gpu(FieldOp::Add, a, b), sub = gpu(FieldOp::Sub, a, b), mul = gpu(FieldOp::Mul, a, b);
  const auto neg = gpu(FieldOp::Neg, a, b), sqr = gpu(FieldOp::Sqr, a, b), dbl = gpu(FieldOp::Dbl, a, b);
  const auto mul_sub = gpu(FieldOp::MulSub, a, b);
  for (std::size_t i = 0; i < N; ++i) {
    const std::size_t j = (i + 1) % N;
    ASSERT_EQ(mul_sub[i], a[i] * b[i] - a[j] * b[j]) << name << " mul_sub, i = " << i;
    ASSERT_EQ(add[i], a[i] + b[i]) << name << " add, i = " << i;
    ASSERT_EQ(sub[i], a[i] - b[i]) << name << " sub, i = " << i;
    ASSERT_EQ(mul[i], a[i] * b[i]) << name << " mul, i = " << i;
    ASSERT_EQ(neg[i], -a[i]) << name << " neg, i = " << i;
    ASSERT_EQ(sqr[i], a[i].square()) << name << " sqr, i = " << i;
    ASSERT_EQ(dbl[i], a[i].dbl()) << name << " dbl, i = " << i;
  }
}

template <class F, class GpuOp>
void check_prime_field_extras(const char* name, GpuOp gpu) {
  SeededRng rng(test_seed(name));
  const std::vector<F> a = random_with_edges<F>(rng, 512);
  const auto from = gpu(FieldOp::FromMontgomery, a, a);
  const auto inv = gpu(FieldOp::Inverse, a, a);
  // to_montgomery of the canonical limbs (read as a Montgomery value) gives the element back.
  std::vector<F> canon(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) canon[i] = F::from_montgomery(a[i].to_repr());
  const auto to = gpu(FieldOp::ToMontgomery, canon, canon);
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(from[i].montgomery(), a[i].to_repr()) << name << " from_montgomery, i = " << i;
    ASSERT_EQ(to[i], a[i]) << name << " to_montgomery, i = " << i;
    ASSERT_EQ(inv[i], a[i].inverse()) << name << " inverse, i = " << i;
  }
}

TEST(CudaArith, FrMatchesCpu) {
  SNARKPIPE_REQUIRE_GPU();
  check_field<Fr>("cuda_arith_fr", [](FieldOp op, const std::vector<Fr>& a, const std::vector<Fr>& b) {
    return cuda::testing::fr_op(op, a, b);
  });
  check_prime_field_extras<Fr>(
      "cuda_arith_fr_extras",
      [](FieldOp op, const std::vector<Fr>& a, const std::vector<Fr>& b) { return cuda::testing::fr_op(op, a, b); });
}

TEST(CudaArith, FpMatchesCpu) {
  SNARKPIPE_REQUIRE_GPU();
  check_field<Fp>("cuda_arith_fp", [](FieldOp op, const std::vector<Fp>& a, const std::vector<Fp>& b) {
    return cuda::testing::fp_op(op, a, b);
  });
  check_prime_field_extras<Fp>(
      "cuda_arith_fp_extras",
      [](FieldOp op, const std::vector<Fp>& a, const std::vector<Fp>& b) { return cuda::testing::fp_op(op, a, b); });
}

TEST(CudaArith, Fp2MatchesCpu) {
  SNARKPIPE_REQUIRE_GPU();
  check_field<Fp2>("cuda_arith_fp2", [](FieldOp op, const std::vector<Fp2>& a, const std::vector<Fp2>& b) {
    return cuda::testing::fp2_op(op, a, b);
  });
  SeededRng rng(test_seed("cuda_arith_fp2_inverse"));
  const std::vector<Fp2> a = random_with_edges<Fp2>(rng, 256);
  const auto inv = cuda::testing::fp2_op(FieldOp::Inverse, a, a);
  for (std::size_t i = 0; i < a.size(); ++i) {
    const Fp2 want = a[i].is_zero() ? Fp2::zero() : a[i].inverse();
    ASSERT_EQ(inv[i], want) << "fp2 inverse, i = " << i;
  }
}

// Random points in XYZZ form with random (ZZ, ZZZ) = (λ^2, λ^3), and the exceptional pairs.
template <class C>
struct PointCase {
  std::vector<ec::XYZZ<C>> a, b;
  std::vector<ec::Affine<C>> q;
};

template <class C>
ec::XYZZ<C> rescaled(const ec::Affine<C>& p, const ff::Fp& l0, const ff::Fp& l1) {
  using F = typename C::F;
  F lambda;
  if constexpr (std::is_same_v<F, Fp>) lambda = l0;
  else lambda = F{l0, l1};
  if (p.is_identity()) return ec::XYZZ<C>::identity();
  const F l2 = lambda.square(), l3 = l2 * lambda;
  return {(p.x * l2).reduce(), (p.y * l3).reduce(), l2.reduce(), l3.reduce()};
}

template <class C>
PointCase<C> point_cases(SeededRng& rng, std::size_t n) {
  using J = ec::Jacobian<C>;
  const J g = J::generator();
  const auto step = (g * Fr::random(rng)).to_affine();
  J p = g * Fr::random(rng);
  std::vector<ec::Affine<C>> pts(2 * n);
  for (auto& x : pts) {
    x = p.to_affine();
    p = p.add_affine(step);
  }
  PointCase<C> c;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& pa = pts[2 * i];
    auto pb = pts[2 * i + 1];
    switch (i % 8) {
      case 1:
        pb = pa;
        break;  // doubling inside the addition
      case 2:
        pb = -pa;
        break;  // P + (-P)
      case 3:
        pb = ec::Affine<C>::identity();
        break;  // P + 0
      default:
        break;
    }
    const auto pa_or_0 = i % 8 == 4 ? ec::Affine<C>::identity() : pa;  // 0 + Q
    c.a.push_back(rescaled<C>(pa_or_0, Fp::random(rng), Fp::random(rng)));
    c.b.push_back(rescaled<C>(pb, Fp::random(rng), Fp::random(rng)));
    c.q.push_back(pb);
  }
  return c;
}

template <class C>
void check_points(const char* name) {
  SeededRng rng(test_seed(name));
  const std::size_t n = 512;
  const PointCase<C> c = point_cases<C>(rng, n);
  const auto add = cuda::testing::point_op<C>(PointOp::Add, c.a, c.b, c.q);
  const auto dbl = cuda::testing::point_op<C>(PointOp::Dbl, c.a, c.b, c.q);
  const auto madd = cuda::testing::point_op<C>(PointOp::AddAffine, c.a, c.b, c.q);
  for (std::size_t i = 0; i < n; ++i) {
    const auto e_add = c.a[i] + c.b[i], e_dbl = c.a[i].dbl(), e_madd = c.a[i].add_affine(c.q[i]);
    // Same formulas, so the same coordinates, not only the same point.
    ASSERT_EQ(add[i].to_affine(), e_add.to_affine()) << name << " add, i = " << i;
    ASSERT_TRUE(add[i].X == e_add.X && add[i].Y == e_add.Y && add[i].ZZ == e_add.ZZ && add[i].ZZZ == e_add.ZZZ)
        << name << " add coordinates, i = " << i;
    ASSERT_EQ(dbl[i].to_affine(), e_dbl.to_affine()) << name << " dbl, i = " << i;
    ASSERT_TRUE(dbl[i].X == e_dbl.X && dbl[i].ZZZ == e_dbl.ZZZ) << name << " dbl coordinates, i = " << i;
    ASSERT_EQ(madd[i].to_affine(), e_madd.to_affine()) << name << " add_affine, i = " << i;
    ASSERT_TRUE(madd[i].is_identity() == e_madd.is_identity()) << name << " add_affine identity, i = " << i;
  }
}

TEST(CudaArith, G1PointOpsMatchCpu) {
  SNARKPIPE_REQUIRE_GPU();
  check_points<ec::G1Curve>("cuda_arith_g1");
}

TEST(CudaArith, G2PointOpsMatchCpu) {
  SNARKPIPE_REQUIRE_GPU();
  check_points<ec::G2Curve>("cuda_arith_g2");
}

}  // namespace
