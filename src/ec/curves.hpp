// The two groups of BLS12-381 (REFERENCE.md §1):
//   G1 ⊂ E(Fp):  y^2 = x^3 + 4
//   G2 ⊂ E'(Fp2): y^2 = x^3 + 4(1 + u)   (the sextic twist; untwisted by (x/w^2, y/w^3))
// both of prime order r, with the generators the Zcash/IETF specification fixes.
#pragma once

#include "ec/scalar_mul.hpp"
#include "ec/xyzz.hpp"
#include "ff/fp2.hpp"

namespace snarkpipe::ec {

using ff::Fp;
using ff::Fp2;
using ff::Fr;

// |z| where z = -0xd201000000010000 is the BLS parameter.
inline constexpr std::uint64_t BLS_Z_ABS = 0xd201000000010000ULL;
inline constexpr bool BLS_Z_IS_NEGATIVE = true;

struct G1Curve {
  using F = Fp;
  static constexpr Fp b() { return Fp::from_u64(4); }
  static constexpr Affine<G1Curve> generator() {
    return {Fp::from_hex(
                "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"),
            Fp::from_hex(
                "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1")};
  }
};

struct G2Curve {
  using F = Fp2;
  static constexpr Fp2 b() { return {Fp::from_u64(4), Fp::from_u64(4)}; }
  static constexpr Affine<G2Curve> generator() {
    return {Fp2::from_hex(
                "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8",
                "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"),
            Fp2::from_hex(
                "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801",
                "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be")};
  }
};

using G1Affine = Affine<G1Curve>;
using G1Jacobian = Jacobian<G1Curve>;
using G1XYZZ = XYZZ<G1Curve>;
using G2Affine = Affine<G2Curve>;
using G2Jacobian = Jacobian<G2Curve>;
using G2XYZZ = XYZZ<G2Curve>;

// The group order r as an integer (Fr cannot hold it: it is zero there).
inline constexpr ff::Limbs<4> GROUP_ORDER = ff::FrParams::modulus;

// Prime-order subgroup membership by the endomorphism tests (Scott, "A note on group
// membership tests for G1, G2 and GT", 2021):
//   G1: φ(P) = [-z^2]P with φ(x, y) = (β·x, y), β a cube root of unity;
//   G2: ψ(P) = [z]P with ψ the untwist-Frobenius-twist map.
// About one scalar multiplication by a 64-bit sparse scalar each, not a 255-bit one.
bool is_in_subgroup(const G1Affine& p);
bool is_in_subgroup(const G2Affine& p);
G1Jacobian endomorphism_phi(const G1Jacobian& p);
G2Jacobian endomorphism_psi(const G2Jacobian& p);

// Multiplication by z (negative), the building block of the membership tests.
template <class C>
Jacobian<C> mul_by_z(const Jacobian<C>& p) {
  Jacobian<C> r = mul_u64(p, BLS_Z_ABS);
  return BLS_Z_IS_NEGATIVE ? -r : r;
}

// A point of E(Fp) / E'(Fp2) with the given x, if x^3 + b is a square (for tests and
// hashing): usually not in the prime-order subgroup.
template <class C>
std::optional<Affine<C>> point_with_x(const typename C::F& x) {
  auto y = (x.square() * x + C::b()).sqrt();
  if (!y) return std::nullopt;
  return Affine<C>{x, *y};
}

}  // namespace snarkpipe::ec
