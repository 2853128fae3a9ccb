// Bilinearity, non-degeneracy and the multi-pairing, on fresh random inputs.
#include <gtest/gtest.h>

#include "pairing/pairing.hpp"
#include "ff/random.hpp"
#include "test_seed.hpp"

namespace ec = snarkpipe::ec;
namespace ff = snarkpipe::ff;
using namespace snarkpipe::pairing;
using ec::G1Jacobian;
using ec::G2Jacobian;
using ff::Fr;
using snarkpipe::pairing::pairing;

TEST(Pairing, Bilinearity) {
  ff::SeededRng rng(test_seed("Pairing.Bilinearity"));
  const G1Affine p = G1Affine::generator();
  const G2Affine q = G2Affine::generator();
  const Fp12 e = pairing(p, q);
  for (int i = 0; i < 3; ++i) {
    const Fr a = Fr::random(rng), b = Fr::random(rng);
    const Fp12 lhs = pairing((G1Jacobian::generator() * a).to_affine(), (G2Jacobian::generator() * b).to_affine());
    EXPECT_EQ(lhs, e.pow((a * b).to_repr()));
    // e(aP, Q) = e(P, aQ)
    EXPECT_EQ(pairing((G1Jacobian::generator() * a).to_affine(), q),
              pairing(p, (G2Jacobian::generator() * a).to_affine()));
  }
}

TEST(Pairing, NonDegenerateAndOrderR) {
  const Fp12 e = pairing(G1Affine::generator(), G2Affine::generator());
  EXPECT_FALSE(e.is_one());
  EXPECT_TRUE(e.pow(ec::GROUP_ORDER).is_one());
  EXPECT_TRUE(pairing(G1Affine::identity(), G2Affine::generator()).is_one());
  EXPECT_TRUE(pairing(G1Affine::generator(), G2Affine::identity()).is_one());
}

TEST(Pairing, MultiPairingSharesFinalExponentiation) {
  ff::SeededRng rng(test_seed("Pairing.Multi"));
  const Fr a = Fr::random(rng), b = Fr::random(rng), c = Fr::random(rng);
  const G1Affine pa = (G1Jacobian::generator() * a).to_affine();
  const G2Affine qb = (G2Jacobian::generator() * b).to_affine();
  const G1Affine pc = (G1Jacobian::generator() * c).to_affine();
  const G2Affine q = G2Affine::generator();
  const std::pair<G1Affine, G2Affine> terms[] = {{pa, qb}, {pc, q}};
  EXPECT_EQ(multi_pairing(terms), pairing(pa, qb) * pairing(pc, q));
  // e(aP, bQ) · e(-abP, Q) = 1: the shape of a Groth16 check.
  const G1Affine pab = (G1Jacobian::generator() * (a * b)).to_affine();
  const std::pair<G1Affine, G2Affine> check[] = {{pa, qb}, {-pab, q}};
  EXPECT_TRUE(multi_pairing(check).is_one());
}

TEST(Pairing, ExpByZAgainstPow) {
  // The compressed (Karabina) chain against plain square-and-multiply in Fp12.
  ff::SeededRng rng(test_seed("Pairing.ExpByZ"));
  for (int i = 0; i < 10; ++i) {
    const Fp12 f = Fp12::random(rng);
    Fp12 g = f.conjugate() * f.inverse();
    g = g.frobenius_map(2) * g;  // in the cyclotomic subgroup
    const Fp12 expected = g.pow(ff::from_u64<1>(ec::BLS_Z_ABS)).conjugate();
    EXPECT_EQ(cyclotomic_exp_by_z(g), expected);
  }
  EXPECT_EQ(cyclotomic_exp_by_z(Fp12::one()), Fp12::one());  // the fallback path
  // Final exponentiation against the definition: f^(3·(p^12-1)/r) = g^(3·(p^4-p^2+1)/r)
  // with g = f^((p^6-1)(p^2+1)), checked through e^r = 1 and against a fixed product.
  const Fp12 f = Fp12::random(rng);
  const Fp12 e = final_exponentiation(f);
  EXPECT_TRUE(e.pow(ec::GROUP_ORDER).is_one());
  EXPECT_TRUE(final_exponentiation(Fp12::one()).is_one());
}

// The Miller loop over several terms is the product of the single loops; the first term's
// first line is taken as f directly (f = 1 there), the other terms' first lines go through
// the sparse product, so this checks the one against the other. Identity terms drop out.
TEST(Pairing, MillerLoopTermsMultiply) {
  ff::SeededRng rng(test_seed("Pairing.MillerTerms"));
  for (int i = 0; i < 3; ++i) {
    std::vector<G1Affine> ps;
    std::vector<G2Prepared> qs;
    std::vector<G2Affine> qa;
    for (int j = 0; j < 3; ++j) {
      ps.push_back((G1Jacobian::generator() * Fr::random(rng)).to_affine());
      qa.push_back((G2Jacobian::generator() * Fr::random(rng)).to_affine());
      qs.push_back(G2Prepared::from(qa.back()));
    }
    const G2Prepared inf = G2Prepared::from(G2Affine::identity());
    const std::pair<G1Affine, const G2Prepared*> terms[] = {
        {G1Affine::identity(), &qs[0]}, {ps[1], &inf}, {ps[0], &qs[0]}, {ps[1], &qs[1]}, {ps[2], &qs[2]}};
    const Fp12 expected = miller_loop(ps[0], qa[0]) * miller_loop(ps[1], qa[1]) * miller_loop(ps[2], qa[2]);
    EXPECT_EQ(miller_loop(terms), expected);
    EXPECT_EQ(miller_loop(std::span(terms, 2)), Fp12::one());
  }
}
