// Evaluation domains: roots of unity, the coset, the vanishing polynomial and the Lagrange
// basis, on fresh random points and polynomials.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "ff/random.hpp"
#include "poly/domain.hpp"
#include "test_seed.hpp"

using snarkpipe::ff::Fr;
using snarkpipe::ff::SeededRng;
using snarkpipe::poly::EvaluationDomain;

namespace {

Fr horner(const std::vector<Fr>& coeffs, const Fr& x) {
  Fr acc = Fr::zero();
  for (std::size_t i = coeffs.size(); i-- > 0;) acc = acc * x + coeffs[i];
  return acc;
}

std::vector<Fr> random_vector(SeededRng& rng, std::size_t n) {
  std::vector<Fr> v(n);
  for (Fr& x : v) x = Fr::random(rng);
  return v;
}

}  // namespace

TEST(EvaluationDomain, RootsOfUnity) {
  for (std::size_t k = 0; k <= EvaluationDomain::MAX_LOG_SIZE; ++k) {
    const EvaluationDomain d(k);
    ASSERT_EQ(d.m(), std::size_t(1) << k);
    EXPECT_EQ(d.log_m(), k);
    EXPECT_EQ(d.omega().pow(snarkpipe::ff::u64(d.m())), Fr::one()) << k;
    if (k > 0) {
      EXPECT_EQ(d.omega().pow(snarkpipe::ff::u64(d.m() / 2)), -Fr::one()) << k;
    }
    EXPECT_EQ(d.omega() * d.omega_inv(), Fr::one());
    EXPECT_EQ(d.m_inv() * Fr::from_u64(d.m()), Fr::one());
    EXPECT_EQ(d.g(), Fr::from_u64(7));
    EXPECT_EQ(d.g() * d.g_inv(), Fr::one());
    EXPECT_EQ(d.coset_vanishing(), Fr::from_u64(7).pow(snarkpipe::ff::u64(d.m())) - Fr::one());
    EXPECT_EQ(d.coset_vanishing() * d.coset_vanishing_inv(), Fr::one());
  }
  // The 2^28-th root squares down to every smaller domain's root (bellperson's convention).
  Fr w = EvaluationDomain(28).omega();
  for (std::size_t k = 28; k-- > 0;) {
    w = w.square();
    EXPECT_EQ(w, EvaluationDomain(k).omega()) << k;
  }
  // 7 is not a square, so the coset 7·H misses H: t(7) = 7^m − 1 ≠ 0.
  EXPECT_EQ(Fr::from_u64(7).legendre(), -1);
}

TEST(EvaluationDomain, ForSize) {
  EXPECT_EQ(EvaluationDomain::for_size(0).m(), 1u);
  EXPECT_EQ(EvaluationDomain::for_size(1).m(), 1u);
  EXPECT_EQ(EvaluationDomain::for_size(2).m(), 2u);
  EXPECT_EQ(EvaluationDomain::for_size(3).m(), 4u);
  EXPECT_EQ(EvaluationDomain::for_size(1000).m(), 1024u);
  EXPECT_EQ(EvaluationDomain::for_size(1024).m(), 1024u);
  EXPECT_EQ(EvaluationDomain::for_size(1025).log_m(), 11u);
  EXPECT_EQ(EvaluationDomain::for_size(std::size_t(1) << 28).log_m(), 28u);
  EXPECT_THROW(EvaluationDomain::for_size((std::size_t(1) << 28) + 1), std::out_of_range);
  EXPECT_THROW(EvaluationDomain(29), std::out_of_range);
  EXPECT_THROW(EvaluationDomain(33), std::out_of_range);
}

TEST(EvaluationDomain, VanishingPolynomial) {
  SeededRng rng(test_seed("EvaluationDomain.VanishingPolynomial"));
  const EvaluationDomain d(5);
  const Fr tau = Fr::random(rng);
  EXPECT_EQ(d.vanishing_at(tau), tau.pow(snarkpipe::ff::u64(32)) - Fr::one());
  for (std::size_t i = 0; i < d.m(); ++i) EXPECT_TRUE(d.vanishing_at(d.omega().pow(snarkpipe::ff::u64(i))).is_zero());
}

TEST(EvaluationDomain, LagrangeBasisInterpolates) {
  SeededRng rng(test_seed("EvaluationDomain.LagrangeBasisInterpolates"));
  for (std::size_t k : {0u, 1u, 2u, 5u, 9u, 13u}) {
    const EvaluationDomain d(k);
    const Fr tau = Fr::random(rng);
    const std::vector<Fr> l = d.lagrange_at(tau);
    ASSERT_EQ(l.size(), d.m());
    Fr sum = Fr::zero();
    for (const Fr& x : l) sum += x;
    EXPECT_EQ(sum, Fr::one()) << k;
    if (k <= 9) {  // Σ L_i(τ)·f(ω^i) = f(τ), with f(ω^i) by Horner: O(m^2)
      const std::vector<Fr> f = random_vector(rng, d.m());
      Fr interpolated = Fr::zero(), w = Fr::one();
      for (std::size_t i = 0; i < d.m(); ++i) {
        interpolated += l[i] * horner(f, w);
        w *= d.omega();
      }
      EXPECT_EQ(interpolated, horner(f, tau)) << k;
    }
    // The formula itself, at one index.
    const std::size_t i = std::size_t(rng.next_u64() % d.m());
    const Fr wi = d.omega().pow(snarkpipe::ff::u64(i));
    EXPECT_EQ(l[i], d.vanishing_at(tau) * d.m_inv() * wi * (tau - wi).inverse());
  }
}

TEST(EvaluationDomain, LagrangeBasisAtARootOfUnity) {
  SeededRng rng(test_seed("EvaluationDomain.LagrangeBasisAtARootOfUnity"));
  for (std::size_t k : {0u, 1u, 4u, 13u}) {
    const EvaluationDomain d(k);
    const std::size_t j = std::size_t(rng.next_u64() % d.m());
    const std::vector<Fr> l = d.lagrange_at(d.omega().pow(snarkpipe::ff::u64(j)));
    for (std::size_t i = 0; i < d.m(); ++i) ASSERT_EQ(l[i], i == j ? Fr::one() : Fr::zero()) << k << " " << i;
  }
}
