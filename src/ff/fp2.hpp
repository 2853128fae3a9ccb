// Fp2 = Fp[u]/(u^2 + 1): the field of G2's coordinates. Element c0 + c1·u.
#pragma once

#include "ff/fields.hpp"

namespace snarkpipe::ff {

struct Fp2 {
  Fp c0, c1;

  constexpr Fp2() = default;
  constexpr Fp2(const Fp& a, const Fp& b) : c0(a), c1(b) {}

  static constexpr Fp2 zero() { return {}; }
  static constexpr Fp2 one() { return {Fp::one(), Fp::zero()}; }
  static constexpr Fp2 from_hex(std::string_view c0_hex, std::string_view c1_hex) {
    return {Fp::from_hex(c0_hex), Fp::from_hex(c1_hex)};
  }

  constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  constexpr bool is_one() const { return c0.is_one() && c1.is_zero(); }
  friend constexpr bool operator==(const Fp2& a, const Fp2& b) = default;

  friend constexpr Fp2 operator+(const Fp2& a, const Fp2& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  friend constexpr Fp2 operator-(const Fp2& a, const Fp2& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  constexpr Fp2 operator-() const { return {-c0, -c1}; }
  // Karatsuba: three base-field multiplications.
  friend constexpr Fp2 operator*(const Fp2& a, const Fp2& b) {
    const Fp v0 = a.c0 * b.c0;
    const Fp v1 = a.c1 * b.c1;
    return {v0 - v1, (a.c0 + a.c1) * (b.c0 + b.c1) - v0 - v1};
  }
  friend constexpr Fp2 operator*(const Fp2& a, const Fp& s) { return {a.c0 * s, a.c1 * s}; }
  constexpr Fp2& operator+=(const Fp2& b) { return *this = *this + b; }
  constexpr Fp2& operator-=(const Fp2& b) { return *this = *this - b; }
  constexpr Fp2& operator*=(const Fp2& b) { return *this = *this * b; }

  constexpr Fp2 dbl() const { return {c0.dbl(), c1.dbl()}; }
  constexpr Fp2 half() const { return {c0.half(), c1.half()}; }
  // (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u: two multiplications.
  constexpr Fp2 square() const { return {(c0 + c1) * (c0 - c1), (c0 * c1).dbl()}; }
  constexpr Fp2 conjugate() const { return {c0, -c1}; }
  // Multiplication by the cubic/sextic non-residue ξ = 1 + u.
  constexpr Fp2 mul_by_nonresidue() const { return {c0 - c1, c0 + c1}; }
  // x^(p^k): the p-power Frobenius is conjugation.
  constexpr Fp2 frobenius_map(unsigned k) const { return (k & 1) ? conjugate() : *this; }
  constexpr Fp norm() const { return c0.square() + c1.square(); }

  Fp2 inverse() const {
    const Fp t = norm().inverse();
    return {c0 * t, -(c1 * t)};
  }

  template <std::size_t M>
  Fp2 pow(const Limbs<M>& e) const {
    Fp2 r = one();
    for (std::size_t i = bit_length(e); i-- > 0;) {
      r = r.square();
      if (test_bit(e, i)) r *= *this;
    }
    return r;
  }

  // Legendre symbol through the norm: x is a square in Fp2 iff N(x) is a square in Fp.
  int legendre() const { return norm().legendre(); }

  // A square root when one exists. Uses the norm: with a = sqrt(c0^2 + c1^2) in Fp,
  // x0 = sqrt((c0 ± a)/2), x1 = c1/(2·x0).
  std::optional<Fp2> sqrt() const {
    if (c1.is_zero()) {
      if (auto r = c0.sqrt()) return Fp2{*r, Fp::zero()};
      if (auto r = (-c0).sqrt()) return Fp2{Fp::zero(), *r};
      return std::nullopt;
    }
    const auto a = norm().sqrt();
    if (!a) return std::nullopt;
    Fp delta = (c0 + *a).half();
    auto x0 = delta.sqrt();
    if (!x0) {
      delta = (c0 - *a).half();
      x0 = delta.sqrt();
      if (!x0) return std::nullopt;
    }
    const Fp x1 = c1 * x0->dbl().inverse();
    const Fp2 r{*x0, x1};
    if (r.square() != *this) return std::nullopt;
    return r;
  }

  // The Zcash "sign": c1 decides unless it is zero, then c0.
  bool is_lexicographically_largest() const {
    return c1.is_zero() ? c0.is_lexicographically_largest() : c1.is_lexicographically_largest();
  }

  template <class Rng>
  static Fp2 random(Rng& rng) {
    const Fp a = Fp::random(rng);
    return {a, Fp::random(rng)};
  }
};

}  // namespace snarkpipe::ff
