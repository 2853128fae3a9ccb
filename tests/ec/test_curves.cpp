// Group laws, scalar multiplication and subgroup membership on fresh random points.
#include <gtest/gtest.h>

#include "ec/curves.hpp"
#include "ec/encoding.hpp"
#include "ff/random.hpp"
#include "test_seed.hpp"

using namespace snarkpipe::ec;
using snarkpipe::ff::SeededRng;

namespace {

template <class C>
Jacobian<C> random_point(SeededRng& rng) {
  return Jacobian<C>::generator() * Fr::random(rng);
}

template <class C>
Affine<C> random_curve_point(SeededRng& rng) {
  for (;;) {
    if (auto p = point_with_x<C>(C::F::random(rng))) return *p;
  }
}

template <class C>
void check_group_laws(SeededRng& rng) {
  using J = Jacobian<C>;
  using X = XYZZ<C>;
  const J o = J::identity();
  for (int i = 0; i < 10; ++i) {
    const J p = random_point<C>(rng), q = random_point<C>(rng), r = random_point<C>(rng);
    EXPECT_TRUE(p.is_on_curve());
    EXPECT_EQ(p + q, q + p);
    EXPECT_EQ((p + q) + r, p + (q + r));
    EXPECT_EQ(p + o, p);
    EXPECT_EQ(o + p, p);
    EXPECT_TRUE((p + (-p)).is_identity());
    EXPECT_EQ(p + p, p.dbl());
    // Mixed addition, including the exceptional cases.
    const Affine<C> qa = q.to_affine();
    EXPECT_EQ(p.add_affine(qa), p + q);
    EXPECT_EQ(q.add_affine(qa), q.dbl());
    EXPECT_TRUE(q.add_affine(-qa).is_identity());
    // XYZZ agrees with Jacobian.
    const X px = X::from_affine(p.to_affine()), qx = X::from_affine(qa);
    EXPECT_EQ((px + qx).to_jacobian(), p + q);
    EXPECT_EQ(px.add_affine(qa).to_affine(), (p + q).to_affine());
    EXPECT_EQ(px.dbl().to_jacobian(), p.dbl());
    EXPECT_EQ(qx.add_affine(qa).to_jacobian(), q.dbl());
    EXPECT_TRUE(qx.add_affine(-qa).is_identity());
    EXPECT_EQ((px + X::identity()).to_affine(), p.to_affine());
  }
}

// XYZZ with random scalings (X·λ², Y·λ³, λ², λ³) on both inputs, so that no ZZ is one: the
// general formulas (ec/xyzz_formulas.hpp, shared with the GPU) and each exceptional case, the
// same point under two scalings included, against the Jacobian group law.
template <class C>
XYZZ<C> rescaled(const Affine<C>& a, SeededRng& rng) {
  using F = typename C::F;
  F l = F::random(rng);
  while (l.is_zero()) l = F::random(rng);
  const F l2 = l.square(), l3 = l2 * l;
  return {a.x * l2, a.y * l3, l2, l3};
}

template <class C>
void check_xyzz_rescaled(SeededRng& rng) {
  using J = Jacobian<C>;
  using X = XYZZ<C>;
  const auto valid = [](const X& r) {  // ZZ^3 = ZZZ^2, or the identity
    return r.is_identity() || r.ZZ.square() * r.ZZ == r.ZZZ.square();
  };
  for (int i = 0; i < 10; ++i) {
    const J p = random_point<C>(rng), q = random_point<C>(rng);
    const Affine<C> pa = p.to_affine(), qa = q.to_affine();
    const X px = rescaled(pa, rng), px2 = rescaled(pa, rng), qx = rescaled(qa, rng);
    ASSERT_FALSE(px.ZZ == px2.ZZ);  // two different representations of one point
    EXPECT_EQ(px.to_affine(), pa);
    EXPECT_EQ((px + qx).to_jacobian(), p + q);
    EXPECT_TRUE(valid(px + qx));
    EXPECT_EQ(px.dbl().to_jacobian(), p.dbl());
    EXPECT_TRUE(valid(px.dbl()));
    EXPECT_EQ((px + px2).to_jacobian(), p.dbl());                         // the doubling case of add
    EXPECT_TRUE((px + X{px2.X, -px2.Y, px2.ZZ, px2.ZZZ}).is_identity());  // P + (-P)
    EXPECT_EQ(px.add_affine(qa).to_jacobian(), p + q);
    EXPECT_TRUE(valid(px.add_affine(qa)));
    EXPECT_EQ(px.add_affine(pa).to_jacobian(), p.dbl());  // the doubling case of madd
    EXPECT_TRUE(px.add_affine(-pa).is_identity());
    EXPECT_EQ((X::identity() + qx).to_affine(), qa);
    EXPECT_EQ((qx + X::identity()).to_affine(), qa);
    EXPECT_EQ(X::identity().add_affine(qa).to_affine(), qa);
    EXPECT_EQ(qx.add_affine(Affine<C>::identity()).to_affine(), qa);
    EXPECT_TRUE(X::identity().dbl().is_identity());
  }
}

template <class C>
void check_scalar_mul(SeededRng& rng) {
  using J = Jacobian<C>;
  for (int i = 0; i < 5; ++i) {
    const J p = random_point<C>(rng);
    const Fr a = Fr::random(rng), b = Fr::random(rng);
    EXPECT_EQ(p * a + p * b, p * (a + b));
    EXPECT_EQ((p * a) * b, p * (a * b));
    EXPECT_TRUE(mul_bigint(p, GROUP_ORDER).is_identity());  // [r]P = O
    EXPECT_EQ(p * Fr::from_u64(3), p.dbl() + p);
    EXPECT_TRUE((p * Fr::zero()).is_identity());
    EXPECT_EQ(mul_u64(p, 12345), p * Fr::from_u64(12345));
  }
}

template <class C>
void check_subgroup(SeededRng& rng) {
  EXPECT_TRUE(is_in_subgroup(C::generator()));
  EXPECT_TRUE(is_in_subgroup(Affine<C>::identity()));
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(is_in_subgroup(random_point<C>(rng).to_affine()));
    // A random point of the whole curve: the fast test must agree with [r]P = O.
    const Affine<C> q = random_curve_point<C>(rng);
    const bool slow = mul_bigint(Jacobian<C>::from_affine(q), GROUP_ORDER).is_identity();
    EXPECT_FALSE(slow);
    EXPECT_EQ(is_in_subgroup(q), slow);
  }
}

}  // namespace

TEST(G1, GeneratorIsValid) {
  const G1Affine g = G1Affine::generator();
  EXPECT_TRUE(g.is_on_curve());
  EXPECT_TRUE(mul_bigint(G1Jacobian::generator(), GROUP_ORDER).is_identity());
}
TEST(G2, GeneratorIsValid) {
  const G2Affine g = G2Affine::generator();
  EXPECT_TRUE(g.is_on_curve());
  EXPECT_TRUE(mul_bigint(G2Jacobian::generator(), GROUP_ORDER).is_identity());
}
TEST(G1, GroupLaws) {
  SeededRng rng(test_seed("G1.GroupLaws"));
  check_group_laws<G1Curve>(rng);
}
TEST(G2, GroupLaws) {
  SeededRng rng(test_seed("G2.GroupLaws"));
  check_group_laws<G2Curve>(rng);
}
TEST(G1, XyzzRescaledInputs) {
  SeededRng rng(test_seed("G1.XyzzRescaled"));
  check_xyzz_rescaled<G1Curve>(rng);
}
TEST(G2, XyzzRescaledInputs) {
  SeededRng rng(test_seed("G2.XyzzRescaled"));
  check_xyzz_rescaled<G2Curve>(rng);
}
TEST(G1, ScalarMultiplication) {
  SeededRng rng(test_seed("G1.ScalarMul"));
  check_scalar_mul<G1Curve>(rng);
}
TEST(G2, ScalarMultiplication) {
  SeededRng rng(test_seed("G2.ScalarMul"));
  check_scalar_mul<G2Curve>(rng);
}
TEST(G1, SubgroupCheck) {
  SeededRng rng(test_seed("G1.Subgroup"));
  check_subgroup<G1Curve>(rng);
  // Clearing the cofactor h1 = (z-1)^2/3 lands in G1.
  const auto h1 = snarkpipe::ff::parse_hex<2>("396c8c005555e1568c00aaab0000aaab");
  const G1Affine q = random_curve_point<G1Curve>(rng);
  EXPECT_TRUE(is_in_subgroup(mul_bigint(G1Jacobian::from_affine(q), h1).to_affine()));
  // The points of order 3, (0, ±2), are on the curve and outside G1.
  EXPECT_FALSE(is_in_subgroup(G1Affine{Fp::zero(), Fp::from_u64(2)}));
}
TEST(G2, SubgroupCheck) {
  SeededRng rng(test_seed("G2.Subgroup"));
  check_subgroup<G2Curve>(rng);
}
TEST(G2, PsiActsAsZ) {
  // ψ's eigenvalue on G2 is p ≡ z (mod r).
  SeededRng rng(test_seed("G2.Psi"));
  const G2Jacobian p = random_point<G2Curve>(rng);
  EXPECT_EQ(endomorphism_psi(p), mul_by_z(p));
}
TEST(Curves, BatchToAffine) {
  SeededRng rng(test_seed("Curves.BatchToAffine"));
  std::vector<G2Jacobian> ps;
  for (int i = 0; i < 9; ++i) ps.push_back(random_point<G2Curve>(rng));
  ps.push_back(G2Jacobian::identity());
  const auto as = batch_to_affine<G2Curve>(ps);
  for (std::size_t i = 0; i < ps.size(); ++i) EXPECT_EQ(as[i], ps[i].to_affine());
}

TEST(Encoding, RoundTrip) {
  SeededRng rng(test_seed("Encoding.RoundTrip"));
  for (int i = 0; i < 10; ++i) {
    const G1Affine p = random_point<G1Curve>(rng).to_affine();
    EXPECT_EQ(g1_from_bytes(g1_to_compressed(p)).value(), p);
    EXPECT_EQ(g1_from_bytes(g1_to_uncompressed(p)).value(), p);
    EXPECT_EQ(g1_from_bytes(g1_to_compressed(-p)).value(), -p);
    const G2Affine q = random_point<G2Curve>(rng).to_affine();
    EXPECT_EQ(g2_from_bytes(g2_to_compressed(q)).value(), q);
    EXPECT_EQ(g2_from_bytes(g2_to_uncompressed(q)).value(), q);
    EXPECT_EQ(g2_from_bytes(g2_to_compressed(-q)).value(), -q);
  }
  EXPECT_TRUE(g1_from_bytes(g1_to_compressed(G1Affine::identity())).value().is_identity());
  EXPECT_TRUE(g2_from_bytes(g2_to_uncompressed(G2Affine::identity())).value().is_identity());
  EXPECT_EQ(g1_to_compressed(G1Affine::identity())[0], 0xc0);
  EXPECT_EQ(g1_to_uncompressed(G1Affine::identity())[0], 0x40);
}

TEST(Encoding, RejectsWithTheRightError) {
  SeededRng rng(test_seed("Encoding.Rejects"));
  const G1Affine p = random_point<G1Curve>(rng).to_affine();
  auto c = g1_to_compressed(p);
  auto u = g1_to_uncompressed(p);
  EXPECT_EQ(g1_from_bytes(std::span(c.data(), 47)).error(), DecodeError::Length);
  auto bad = u;
  bad[0] |= 0x20;  // sign bit on an uncompressed point
  EXPECT_EQ(g1_from_bytes(bad).error(), DecodeError::Flags);
  bad = u;
  bad[0] |= 0x80;  // compressed flag with the uncompressed length
  EXPECT_EQ(g1_from_bytes(bad).error(), DecodeError::Flags);
  auto inf = g1_to_compressed(G1Affine::identity());
  inf[47] = 1;
  EXPECT_EQ(g1_from_bytes(inf).error(), DecodeError::Flags);
  bad = u;
  bad[95] ^= 1;  // y changed: off the curve
  EXPECT_EQ(g1_from_bytes(bad).error(), DecodeError::NotOnCurve);
  auto big = c;
  for (int i = 1; i < 48; ++i) big[i] = 0xff;
  big[0] = 0x80 | 0x1f;  // x = 2^381 - 1 > p
  EXPECT_EQ(g1_from_bytes(big).error(), DecodeError::CoordinateRange);
  // A point on the curve outside G1.
  const G1Affine q = random_curve_point<G1Curve>(rng);
  EXPECT_EQ(g1_from_bytes(g1_to_compressed(q)).error(), DecodeError::NotInSubgroup);
  EXPECT_EQ(g1_from_bytes(g1_to_uncompressed(q)).error(), DecodeError::NotInSubgroup);
  EXPECT_TRUE(g1_from_bytes(g1_to_uncompressed(q), Validation::SkipSubgroup).ok());
  const G2Affine q2 = random_curve_point<G2Curve>(rng);
  EXPECT_EQ(g2_from_bytes(g2_to_compressed(q2)).error(), DecodeError::NotInSubgroup);
  EXPECT_THROW(g2_from_bytes(g2_to_compressed(q2)).value(), DecodeFailure);
}
