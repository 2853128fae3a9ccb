// Fp6 = Fp2[v]/(v^3 - ξ), ξ = 1 + u. Element c0 + c1·v + c2·v^2.
#pragma once

#include "ff/fp2.hpp"

namespace snarkpipe::ff {

// Frobenius coefficients of the tower, computed once from p (not transcribed):
// v^(p^k) = v·fp6_c1[k], (v^2)^(p^k) = v^2·fp6_c2[k], w^(p^k) = w·fp12_c1[k].
struct TowerConstants {
  Fp2 fp6_c1[6];
  Fp2 fp6_c2[6];
  Fp2 fp12_c1[12];
};
const TowerConstants& tower_constants();

struct Fp6 {
  Fp2 c0, c1, c2;

  static constexpr Fp6 zero() { return {}; }
  static constexpr Fp6 one() { return {Fp2::one(), Fp2::zero(), Fp2::zero()}; }

  constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero() && c2.is_zero(); }
  friend constexpr bool operator==(const Fp6& a, const Fp6& b) = default;

  friend constexpr Fp6 operator+(const Fp6& a, const Fp6& b) { return {a.c0 + b.c0, a.c1 + b.c1, a.c2 + b.c2}; }
  friend constexpr Fp6 operator-(const Fp6& a, const Fp6& b) { return {a.c0 - b.c0, a.c1 - b.c1, a.c2 - b.c2}; }
  constexpr Fp6 operator-() const { return {-c0, -c1, -c2}; }
  constexpr Fp6& operator+=(const Fp6& b) { return *this = *this + b; }
  constexpr Fp6& operator-=(const Fp6& b) { return *this = *this - b; }
  constexpr Fp6 dbl() const { return {c0.dbl(), c1.dbl(), c2.dbl()}; }

  // Karatsuba-style interpolation: six Fp2 multiplications. The pre-additions are Fp2 sums
  // (each component < 2p, Fp's stored form), which the Fp2 product takes as they are.
  friend constexpr Fp6 operator*(const Fp6& a, const Fp6& b) {
    const Fp2 t0 = a.c0 * b.c0, t1 = a.c1 * b.c1, t2 = a.c2 * b.c2;
    return {t0 + ((a.c1 + a.c2) * (b.c1 + b.c2) - t1 - t2).mul_by_nonresidue(),
            (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1 + t2.mul_by_nonresidue(),
            (a.c0 + a.c2) * (b.c0 + b.c2) - t0 - t2 + t1};
  }
  constexpr Fp6& operator*=(const Fp6& b) { return *this = *this * b; }
  friend constexpr Fp6 operator*(const Fp6& a, const Fp2& s) { return {a.c0 * s, a.c1 * s, a.c2 * s}; }

  // Chung–Hasan squaring (SQR2): two multiplications and three squarings in Fp2.
  constexpr Fp6 square() const {
    const Fp2 s0 = c0.square();
    const Fp2 s1 = (c0 * c1).dbl();
    const Fp2 s2 = (c0 - c1 + c2).square();
    const Fp2 s3 = (c1 * c2).dbl();
    const Fp2 s4 = c2.square();
    return {s0 + s3.mul_by_nonresidue(), s1 + s4.mul_by_nonresidue(), s1 + s2 + s3 - s0 - s4};
  }

  // Multiplication by v: (c0, c1, c2) -> (ξ·c2, c0, c1).
  constexpr Fp6 mul_by_nonresidue() const { return {c2.mul_by_nonresidue(), c0, c1}; }

  // Sparse products used by the Miller loop's line functions.
  // this · (a + b·v): five Fp2 multiplications.
  constexpr Fp6 mul_by_01(const Fp2& a, const Fp2& b) const {
    const Fp2 aa = c0 * a, bb = c1 * b;
    return {((c1 + c2) * b - bb).mul_by_nonresidue() + aa, (c0 + c1) * (a + b) - aa - bb, (c0 + c2) * a - aa + bb};
  }
  // this · (b·v): three Fp2 multiplications.
  constexpr Fp6 mul_by_1(const Fp2& b) const { return {(c2 * b).mul_by_nonresidue(), c0 * b, c1 * b}; }

  template <bool VarTime = false>
  Fp6 inverse() const {
    const Fp2 t0 = c0.square() - (c1 * c2).mul_by_nonresidue();
    const Fp2 t1 = c2.square().mul_by_nonresidue() - c0 * c1;
    const Fp2 t2 = c1.square() - c0 * c2;
    const Fp2 d = c0 * t0 + (c2 * t1 + c1 * t2).mul_by_nonresidue();
    const Fp2 inv = d.template inverse<VarTime>();
    return {t0 * inv, t1 * inv, t2 * inv};
  }

  Fp6 frobenius_map(unsigned k) const {
    const auto& t = tower_constants();
    k %= 6;
    return {c0.frobenius_map(k), c1.frobenius_map(k) * t.fp6_c1[k], c2.frobenius_map(k) * t.fp6_c2[k]};
  }

  template <class Rng>
  static Fp6 random(Rng& rng) {
    Fp6 r;
    r.c0 = Fp2::random(rng);
    r.c1 = Fp2::random(rng);
    r.c2 = Fp2::random(rng);
    return r;
  }
};

}  // namespace snarkpipe::ff
