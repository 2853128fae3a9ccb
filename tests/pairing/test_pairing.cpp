// Bilinearity, non-degeneracy and the multi-pairing, on fresh random inputs.
#include <gtest/gtest.h>

#include "pairing/pairing.hpp"
#include "ff/random.hpp"
#include "test_seed.hpp"

namespace ec = snarkpipe::ec;
namespace ff = snarkpipe::ff;
using namespace snarkpipe::pairing;
using snarkpipe::pairing::pairing;
using ec::G1Jacobian;
using ec::G2Jacobian;
using ff::Fr;

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
    EXPECT_EQ(pairing((G1Jacobian::generator() * a).to_affine(), q), pairing(p, (G2Jacobian::generator() * a).to_affine()));
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
