// MSM layer: Pippenger, density-filtered and 0/1-split MSMs, fixed-base tables, all against
// naive Σ k_i·P_i on fresh random inputs (the seed is printed; SNARKPIPE_TEST_SEED replays).
#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <vector>

#include "ec/curves.hpp"
#include "ff/random.hpp"
#include "msm/fixed_base.hpp"
#include "msm/pippenger.hpp"
#include "msm/scalar_split.hpp"
#include "msm/signed_digits.hpp"
#include "test_seed.hpp"

using namespace snarkpipe;
using ec::Affine;
using ec::G1Curve;
using ec::G2Curve;
using ec::Jacobian;
using ff::Fr;
using ff::SeededRng;
using msm::MsmConfig;

namespace {

template <class C>
Jacobian<C> naive(std::span<const Affine<C>> bases, std::span<const Fr> scalars) {
  Jacobian<C> acc = Jacobian<C>::identity();
  for (std::size_t i = 0; i < bases.size(); ++i) acc += Jacobian<C>::from_affine(bases[i]) * scalars[i];
  return acc;
}

// Random points a_i·G with their discrete logs, so Σ k_i·P_i = (Σ k_i·a_i)·G can be checked
// with one scalar multiplication. The a_i form a random progression a_0 + i·δ so that the
// points come from additions (cheap) rather than one scalar multiplication each.
template <class C>
struct Bases {
  std::vector<Affine<C>> points;
  std::vector<Fr> dlogs;
};

template <class C>
Bases<C> random_bases(SeededRng& rng, std::size_t n) {
  const Fr a0 = Fr::random(rng), delta = Fr::random(rng);
  const Jacobian<C> g = Jacobian<C>::generator();
  const Affine<C> step = (g * delta).to_affine();
  std::vector<Jacobian<C>> pts(n);
  Bases<C> b;
  b.dlogs.resize(n);
  Jacobian<C> p = g * a0;
  Fr a = a0;
  for (std::size_t i = 0; i < n; ++i) {
    pts[i] = p;
    b.dlogs[i] = a;
    p = p.add_affine(step);
    a += delta;
  }
  b.points = ec::batch_to_affine<C>(pts);
  return b;
}

template <class C>
Jacobian<C> by_dlogs(const Bases<C>& b, std::span<const Fr> scalars) {
  Fr s = Fr::zero();
  for (std::size_t i = 0; i < scalars.size(); ++i) s += b.dlogs[i] * scalars[i];
  return Jacobian<C>::generator() * s;
}

const MsmConfig NO_SPLIT{0, false};

std::vector<Fr> random_scalars(SeededRng& rng, std::size_t n) {
  std::vector<Fr> s(n);
  for (auto& x : s) x = Fr::random(rng);
  return s;
}

Fr pow2(unsigned k) { return Fr::from_u64(2).pow(std::uint64_t(k)); }

// Scalars of the extreme kinds: 0, 1, r-1, powers of two, random.
std::vector<Fr> edge_scalars(SeededRng& rng, std::size_t n) {
  std::vector<Fr> s(n);
  for (std::size_t i = 0; i < n; ++i) {
    switch (i % 5) {
      case 0:
        s[i] = Fr::zero();
        break;
      case 1:
        s[i] = Fr::one();
        break;
      case 2:
        s[i] = -Fr::one();
        break;
      case 3:
        s[i] = pow2(unsigned(rng.next_u64() % 255));
        break;
      default:
        s[i] = Fr::random(rng);
        break;
    }
  }
  return s;
}

// A PoRep-like witness: ~90 % zeros and ones, the rest random or small.
std::vector<Fr> zero_one_witness(SeededRng& rng, std::size_t n) {
  std::vector<Fr> s(n);
  for (auto& x : s) {
    const std::uint64_t r = rng.next_u64() % 100;
    x = r < 45 ? Fr::zero() : r < 90 ? Fr::one() : r < 95 ? Fr::from_u64(rng.next_u64() % 8) : Fr::random(rng);
  }
  return s;
}

}  // namespace

TEST(SignedWindows, DigitsReconstructTheScalar) {
  SeededRng rng(test_seed("SignedWindows"));
  std::vector<Fr> ks = {Fr::zero(), Fr::one(), -Fr::one(), pow2(254), pow2(128), -pow2(200)};
  for (int i = 0; i < 20; ++i) ks.push_back(Fr::random(rng));
  for (unsigned c = 2; c <= msm::SignedWindows::MAX_BITS; ++c) {
    const msm::SignedWindows sw(c);
    ASSERT_LE(sw.windows() * c, 256u + c) << "c=" << c;
    for (const Fr& k : ks) {
      const auto kp = sw.prepare(k);
      Fr sum = Fr::zero();
      for (unsigned w = 0; w < sw.windows(); ++w) {
        const std::int32_t d = sw.digit(kp, w);
        const std::int64_t lo = w + 1 == sw.windows() ? 0 : -(std::int64_t(1) << (c - 1));
        ASSERT_GE(d, lo) << "c=" << c << " w=" << w;
        ASSERT_LE(std::int64_t(d), std::int64_t(sw.max_digit(w))) << "c=" << c << " w=" << w;
        const Fr df = d >= 0 ? Fr::from_u64(std::uint64_t(d)) : -Fr::from_u64(std::uint64_t(-std::int64_t(d)));
        sum += df * pow2(c * w);
      }
      ASSERT_EQ(sum, k) << "c=" << c;
    }
  }
}

TEST(Glv, SplitRecombines) {
  SeededRng rng(test_seed("Glv.SplitRecombines"));
  using msm::detail::GLV_LAMBDA;
  using msm::detail::GLV_MAX_PART;
  const Fr lambda = *Fr::from_repr(GLV_LAMBDA);
  // λ is a primitive cube root of unity mod r.
  EXPECT_EQ(lambda * lambda + lambda + Fr::one(), Fr::zero());
  std::vector<Fr> ks = {Fr::zero(),         Fr::one(),       -Fr::one(), lambda,    lambda + Fr::one(),
                        lambda - Fr::one(), lambda * lambda, -lambda,    pow2(128), pow2(254)};
  for (int i = 0; i < 2000; ++i) ks.push_back(Fr::random(rng));
  for (const Fr& k : ks) {
    const auto parts = msm::detail::glv_split(k.to_repr());
    ASSERT_LT(snarkpipe::ff::compare(parts.k1, GLV_LAMBDA), 0);
    ASSERT_LE(snarkpipe::ff::compare(parts.k2, GLV_MAX_PART), 0);
    ASSERT_EQ(*Fr::from_repr(parts.k1) + lambda * *Fr::from_repr(parts.k2), k);
  }
}

TEST(Gls, SplitRecombines) {
  SeededRng rng(test_seed("Gls.SplitRecombines"));
  const Fr z = Fr::from_u64(msm::detail::Z_ABS);
  std::vector<Fr> ks = {Fr::zero(), Fr::one(), -Fr::one(), z, z - Fr::one(), z * z, z * z * z, -z};
  for (int i = 0; i < 2000; ++i) ks.push_back(Fr::random(rng));
  for (const Fr& k : ks) {
    const auto a = msm::detail::gls_split(k.to_repr());
    Fr sum = Fr::zero(), zj = Fr::one();
    for (const auto& part : a) {
      ASSERT_LE(snarkpipe::ff::compare(part, msm::detail::GLS_MAX_PART), 0);
      sum += *Fr::from_repr(part) * zj;
      zj *= z;
    }
    ASSERT_EQ(sum, k);
  }
}

TEST(Msm, PlanChoices) {
  unsigned prev = 0;
  for (unsigned logn = 2; logn <= 26; logn += 2) {
    const unsigned c = msm::msm_plan<G1Curve>(std::size_t(1) << logn).window_bits;
    EXPECT_GE(c, prev);
    prev = c;
  }
  const auto p16 = msm::msm_plan<G1Curve>(1 << 16);
  EXPECT_GE(p16.window_bits, 11u);
  EXPECT_LE(p16.window_bits, 14u);
  EXPECT_TRUE(p16.affine_buckets);
  // The sizes the tests below use reach every method: XYZZ and affine buckets, with and
  // without the endomorphism split, on both curves.
  EXPECT_FALSE(msm::msm_plan<G1Curve>(7).affine_buckets);
  EXPECT_FALSE(msm::msm_plan<G2Curve>(7).affine_buckets);
  EXPECT_EQ(msm::msm_plan<G1Curve>(1000).split_parts, 2u);
  EXPECT_EQ(msm::msm_plan<G2Curve>(1000).split_parts, 4u);
  EXPECT_EQ(msm::msm_plan<G1Curve>(1000, 1, false).split_parts, 1u);
  EXPECT_TRUE(msm::msm_plan<G1Curve>(40000, 1, false).affine_buckets);
  EXPECT_TRUE(msm::msm_plan<G2Curve>(5000, 1, false).affine_buckets);
  EXPECT_TRUE(msm::msm_plan<G1Curve>(5000).affine_buckets);
  EXPECT_TRUE(msm::msm_plan<G2Curve>(5000).affine_buckets);
  EXPECT_EQ(msm::msm_plan<G1Curve>(std::size_t(1) << 24).split_parts, 1u);
  EXPECT_EQ(msm::msm_plan<G2Curve>(std::size_t(1) << 24).split_parts, 1u);
  // Many threads and few windows: windows split into chunks of points.
  EXPECT_GT(msm::msm_plan<G1Curve>(std::size_t(1) << 20, 64).chunks, 1u);
}

TEST(Msm, G1MatchesNaive) {
  SeededRng rng(test_seed("Msm.G1MatchesNaive"));
  for (std::size_t n : {0, 1, 2, 3, 7, 100, 1000}) {
    const auto b = random_bases<G1Curve>(rng, n);
    const auto s = random_scalars(rng, n);
    const auto got = msm::msm<G1Curve>(b.points, s);
    EXPECT_EQ(got, naive<G1Curve>(b.points, s)) << "n=" << n;
    EXPECT_EQ(got, by_dlogs(b, s)) << "n=" << n;
    EXPECT_EQ(msm::msm<G1Curve>(b.points, s, NO_SPLIT), got) << "n=" << n;
  }
  for (std::size_t n : {5000, 40000}) {
    const auto b = random_bases<G1Curve>(rng, n);
    const auto s = random_scalars(rng, n);
    const auto want = by_dlogs(b, s);
    EXPECT_EQ(msm::msm_g1(b.points, s), want) << "n=" << n;
    EXPECT_EQ(msm::msm_g1(b.points, s, NO_SPLIT), want) << "n=" << n;
  }
}

TEST(Msm, G2MatchesNaive) {
  SeededRng rng(test_seed("Msm.G2MatchesNaive"));
  for (std::size_t n : {0, 1, 2, 7, 100}) {
    const auto b = random_bases<G2Curve>(rng, n);
    const auto s = random_scalars(rng, n);
    const auto want = naive<G2Curve>(b.points, s);
    EXPECT_EQ(msm::msm<G2Curve>(b.points, s), want) << "n=" << n;
    EXPECT_EQ(msm::msm<G2Curve>(b.points, s, NO_SPLIT), want) << "n=" << n;
  }
  for (std::size_t n : {1000, 5000}) {
    const auto b = random_bases<G2Curve>(rng, n);
    const auto s = random_scalars(rng, n);
    const auto want = by_dlogs(b, s);
    EXPECT_EQ(msm::msm_g2(b.points, s), want) << "n=" << n;
    EXPECT_EQ(msm::msm_g2(b.points, s, NO_SPLIT), want) << "n=" << n;
  }
}

TEST(Msm, ThreadCountsAgree) {
  SeededRng rng(test_seed("Msm.ThreadCountsAgree"));
  const std::size_t n = 3000;
  const auto b = random_bases<G1Curve>(rng, n);
  const auto s = random_scalars(rng, n);
  const auto want = by_dlogs(b, s);
  for (std::size_t t : {1, 2, 3}) EXPECT_EQ(msm::msm<G1Curve>(b.points, s, MsmConfig{t}), want) << "threads=" << t;
}

// In an arena wider than the machine (oneTBB allows it, with a warning) the plan sees many
// threads for few windows and splits each window into chunks of points.
TEST(Msm, ChunkedWindowsAgree) {
  SeededRng rng(test_seed("Msm.ChunkedWindowsAgree"));
  const std::size_t n1 = 1 << 15, n2 = 1 << 14;
  ASSERT_GT(msm::msm_plan<G1Curve>(n1, 32).chunks, 1u);
  ASSERT_GT(msm::msm_plan<G2Curve>(n2, 32).chunks, 1u);
  const auto b = random_bases<G1Curve>(rng, n1);
  const auto s = random_scalars(rng, n1);
  const auto b2 = random_bases<G2Curve>(rng, n2);
  const auto s2 = random_scalars(rng, n2);
  tbb::task_arena wide(32);
  wide.execute([&] {
    EXPECT_EQ(msm::msm<G1Curve>(b.points, s), by_dlogs(b, s));
    EXPECT_EQ(msm::msm<G2Curve>(b2.points, s2), by_dlogs(b2, s2));
  });
}

TEST(Msm, EdgeScalarsAndInfinity) {
  SeededRng rng(test_seed("Msm.EdgeScalarsAndInfinity"));
  for (std::size_t n : {5, 40, 700, 4000}) {
    auto b = random_bases<G1Curve>(rng, n);
    const auto s = edge_scalars(rng, n);
    for (std::size_t i = 0; i < n; i += 7) {
      b.points[i] = Affine<G1Curve>::identity();
      b.dlogs[i] = Fr::zero();
    }
    EXPECT_EQ(msm::msm<G1Curve>(b.points, s), by_dlogs(b, s)) << "n=" << n;
    EXPECT_EQ(msm::msm<G1Curve>(b.points, s, NO_SPLIT), by_dlogs(b, s)) << "n=" << n;
    if (n <= 40) {
      EXPECT_EQ(msm::msm<G1Curve>(b.points, s), naive<G1Curve>(b.points, s)) << "n=" << n;
    }
  }
  // All zero scalars, all bases at infinity, a single base at infinity.
  const auto b = random_bases<G1Curve>(rng, 300);
  EXPECT_TRUE(msm::msm<G1Curve>(b.points, std::vector<Fr>(300)).is_identity());
  const std::vector<Affine<G1Curve>> inf(300);
  EXPECT_TRUE(msm::msm<G1Curve>(inf, random_scalars(rng, 300)).is_identity());
  EXPECT_TRUE(msm::msm<G1Curve>(std::span(inf).first(1), std::vector<Fr>{Fr::random(rng)}).is_identity());
}

// Repeated bases: P many times (doublings inside the batched bucket additions, and buckets
// hit so often that they spill into the XYZZ overflow), P next to -P (sums at infinity).
TEST(Msm, RepeatedBases) {
  SeededRng rng(test_seed("Msm.RepeatedBases"));
  const auto one = random_bases<G1Curve>(rng, 2);
  const Affine<G1Curve> p = one.points[0], q = one.points[1];
  for (std::size_t n : {50, 3000}) {
    // Same P, scalars from a set of three values: buckets see P, 2P, ... in every window.
    std::vector<Affine<G1Curve>> same(n, p);
    const Fr vals[3] = {Fr::random(rng), Fr::random(rng), Fr::from_u64(5)};
    std::vector<Fr> s(n);
    Fr total = Fr::zero();
    for (std::size_t i = 0; i < n; ++i) total += s[i] = vals[rng.next_u64() % 3];
    EXPECT_EQ(msm::msm<G1Curve>(same, s), Jacobian<G1Curve>::from_affine(p) * total) << "n=" << n;
    EXPECT_EQ(msm::msm<G1Curve>(same, s, NO_SPLIT), Jacobian<G1Curve>::from_affine(p) * total) << "n=" << n;
    // Same P, random scalars.
    const auto r = random_scalars(rng, n);
    total = Fr::zero();
    for (const Fr& x : r) total += x;
    EXPECT_EQ(msm::msm<G1Curve>(same, r), Jacobian<G1Curve>::from_affine(p) * total) << "n=" << n;
    // P, -P, Q alternating with equal scalars for P and -P: P and -P cancel in their buckets.
    std::vector<Affine<G1Curve>> mix(n);
    std::vector<Fr> ms(n);
    Fr tq = Fr::zero();
    for (std::size_t i = 0; i < n; ++i) {
      const Fr k = vals[i / 3 % 3];
      mix[i] = i % 3 == 0 ? p : i % 3 == 1 ? -p : q;
      ms[i] = k;
      if (i % 3 == 2) tq += k;
    }
    // The P/-P pairs cancel only when both are present: drop a trailing unmatched P.
    Jacobian<G1Curve> want = Jacobian<G1Curve>::from_affine(q) * tq;
    if (n % 3 == 1) want += Jacobian<G1Curve>::from_affine(p) * ms[n - 1];
    EXPECT_EQ(msm::msm<G1Curve>(mix, ms), want) << "n=" << n;
    EXPECT_EQ(msm::msm<G1Curve>(mix, ms, NO_SPLIT), want) << "n=" << n;
  }
  // G2: the same P many times.
  const auto b2 = random_bases<G2Curve>(rng, 1);
  std::vector<Affine<G2Curve>> same2(2000, b2.points[0]);
  std::vector<Fr> s2(2000);
  Fr t2 = Fr::zero();
  for (auto& x : s2) t2 += x = Fr::from_u64(1 + rng.next_u64() % 4);
  EXPECT_EQ(msm::msm<G2Curve>(same2, s2), Jacobian<G2Curve>::from_affine(b2.points[0]) * t2);
  EXPECT_EQ(msm::msm<G2Curve>(same2, s2, NO_SPLIT), Jacobian<G2Curve>::from_affine(b2.points[0]) * t2);
}

TEST(Msm, LengthMismatchThrows) {
  const std::vector<Affine<G1Curve>> b(3);
  const std::vector<Fr> s(4);
  EXPECT_THROW(msm::msm<G1Curve>(b, s), std::invalid_argument);
}

namespace {

template <class C>
struct DensityCase {
  std::vector<bool> density;
  Bases<C> bases;            // one per set bit
  std::vector<Fr> scalars;   // one per variable
  std::vector<Fr> selected;  // the scalars of the set bits
};

template <class C>
DensityCase<C> density_case(SeededRng& rng, std::size_t vars, unsigned percent_set) {
  DensityCase<C> d;
  d.density.resize(vars);
  std::size_t set = 0;
  for (std::size_t i = 0; i < vars; ++i) set += d.density[i] = rng.next_u64() % 100 < percent_set;
  d.bases = random_bases<C>(rng, set);
  d.scalars = zero_one_witness(rng, vars);
  for (std::size_t i = 0; i < vars; ++i) {
    if (d.density[i]) d.selected.push_back(d.scalars[i]);
  }
  return d;
}

}  // namespace

TEST(MsmDensity, MatchesPlainMsmOverSelectedPairs) {
  SeededRng rng(test_seed("MsmDensity.MatchesPlainMsmOverSelectedPairs"));
  for (std::size_t vars : {0, 1, 63, 64, 65, 1000, 20000}) {
    for (unsigned pct : {25u, 100u}) {
      const auto d = density_case<G1Curve>(rng, vars, pct);
      const auto want = by_dlogs(d.bases, d.selected);
      ASSERT_EQ(msm::msm<G1Curve>(d.bases.points, d.selected), want);
      EXPECT_EQ(msm::msm_with_density<G1Curve>(d.bases.points, d.scalars, d.density), want) << vars << "/" << pct;
      EXPECT_EQ(msm::msm_split<G1Curve>(d.bases.points, d.scalars, d.density), want) << vars << "/" << pct;
      const auto words = msm::pack_density(d.density);
      const msm::DensityView view(words, vars);
      EXPECT_EQ(msm::msm_split<G1Curve>(d.bases.points, d.scalars, view, MsmConfig{1}), want);
      EXPECT_EQ(msm::msm_with_density<G1Curve>(d.bases.points, d.scalars, view, MsmConfig{2}), want);
      EXPECT_EQ(msm::msm_split<G1Curve>(d.bases.points, d.scalars, view, NO_SPLIT), want);
    }
  }
  const auto d2 = density_case<G2Curve>(rng, 3000, 30);
  const auto want2 = by_dlogs(d2.bases, d2.selected);
  EXPECT_EQ(msm::msm_with_density<G2Curve>(d2.bases.points, d2.scalars, d2.density), want2);
  EXPECT_EQ(msm::msm_split<G2Curve>(d2.bases.points, d2.scalars, d2.density), want2);
}

// The split's sum of ones meets the exceptional cases: the same base many times (doubling),
// P next to -P (infinity), bases at infinity; and all-one, all-zero witnesses.
TEST(MsmDensity, SplitEdgeCases) {
  SeededRng rng(test_seed("MsmDensity.SplitEdgeCases"));
  const auto pq = random_bases<G1Curve>(rng, 2);
  const Affine<G1Curve> p = pq.points[0];
  const std::size_t n = 2000;
  std::vector<bool> all(n, true);
  std::vector<Affine<G1Curve>> same(n, p), mix(n);
  for (std::size_t i = 0; i < n; ++i) {
    mix[i] = i % 4 == 0 ? p : i % 4 == 1 ? -p : i % 4 == 2 ? pq.points[1] : Affine<G1Curve>{};
  }
  const std::vector<Fr> ones(n, Fr::one()), zeros(n);
  const auto g = [](const Affine<G1Curve>& a) { return Jacobian<G1Curve>::from_affine(a); };
  EXPECT_EQ(msm::msm_split<G1Curve>(same, ones, all), g(p) * Fr::from_u64(n));
  EXPECT_EQ(msm::msm_split<G1Curve>(mix, ones, all), g(pq.points[1]) * Fr::from_u64(n / 4));
  EXPECT_TRUE(msm::msm_split<G1Curve>(same, zeros, all).is_identity());
  const auto w = zero_one_witness(rng, n);
  EXPECT_EQ(msm::msm_split<G1Curve>(mix, w, all), naive<G1Curve>(mix, w));
}

TEST(MsmDensity, MismatchThrows) {
  const std::vector<Affine<G1Curve>> b(2);
  const std::vector<Fr> s(4);
  const std::vector<bool> two_of_four = {true, false, true, false};
  const std::vector<bool> three_of_four = {true, true, true, false};
  const std::vector<bool> two_of_five = {true, false, true, false, false};
  EXPECT_NO_THROW(msm::msm_with_density<G1Curve>(b, s, two_of_four));
  EXPECT_THROW(msm::msm_with_density<G1Curve>(b, s, three_of_four), std::invalid_argument);
  EXPECT_THROW(msm::msm_with_density<G1Curve>(b, s, two_of_five), std::invalid_argument);
  EXPECT_THROW(msm::msm_split<G1Curve>(b, s, three_of_four), std::invalid_argument);
  EXPECT_THROW(msm::msm_split<G1Curve>(b, s, two_of_five), std::invalid_argument);
  const std::vector<std::uint64_t> words = {0b0101};
  EXPECT_THROW(msm::DensityView(words, 65), std::invalid_argument);
  EXPECT_THROW(msm::DensityView(words, 2), std::invalid_argument);  // bit 2 past size
}

TEST(FixedBase, BatchMulMatchesScalarMul) {
  SeededRng rng(test_seed("FixedBase.BatchMulMatchesScalarMul"));
  const auto g1 = Jacobian<G1Curve>::generator() * Fr::random(rng);
  for (unsigned w : {2u, 5u, 8u, 12u}) {
    const msm::FixedBaseTable<G1Curve> table(g1.to_affine(), w);
    auto ks = edge_scalars(rng, 2100);
    const auto out = msm::batch_mul(table, std::span<const Fr>(ks));
    ASSERT_EQ(out.size(), ks.size());
    const std::size_t checks = w == 8 ? ks.size() : 60;
    for (std::size_t i = 0; i < checks; ++i) {
      EXPECT_EQ(Jacobian<G1Curve>::from_affine(out[i]), g1 * ks[i]) << "w=" << w << " i=" << i;
    }
    EXPECT_EQ(table.mul(ks[4]), g1 * ks[4]);
  }
  const auto g2 = Jacobian<G2Curve>::generator() * Fr::random(rng);
  const msm::FixedBaseTable<G2Curve> t2(g2.to_affine(), 7, MsmConfig{1});
  const auto ks = edge_scalars(rng, 300);
  const auto out2 = msm::batch_mul(t2, std::span<const Fr>(ks), MsmConfig{2});
  for (std::size_t i = 0; i < ks.size(); i += 3) EXPECT_EQ(Jacobian<G2Curve>::from_affine(out2[i]), g2 * ks[i]);
  // The recommended window grows with the count and stays within its cap.
  EXPECT_LE(msm::fixed_base_window<G1Curve>(100), msm::fixed_base_window<G1Curve>(1 << 20));
  EXPECT_LE(msm::fixed_base_window<G2Curve>(std::size_t(1) << 30), 16u);
  // The identity as base, and no scalars.
  const msm::FixedBaseTable<G1Curve> t0(Affine<G1Curve>::identity(), 6);
  for (const auto& a : msm::batch_mul(t0, std::span<const Fr>(ks))) EXPECT_TRUE(a.is_identity());
  EXPECT_TRUE(msm::batch_mul(t0, std::span<const Fr>()).empty());
}
