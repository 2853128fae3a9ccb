// Fp2 = Fp[u]/(u^2 + 1): the field of G2's coordinates. Element c0 + c1·u.
#pragma once

#include "ff/fields.hpp"
#include "ff/inverse_vartime.hpp"

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
  // Both components with reduced limbs (Fp::reduce).
  constexpr Fp2 reduce() const { return {c0.reduce(), c1.reduce()}; }
  constexpr bool is_one() const { return c0.is_one() && c1.is_zero(); }
  friend constexpr bool operator==(const Fp2& a, const Fp2& b) = default;

  [[gnu::always_inline]] friend constexpr Fp2 operator+(const Fp2& a, const Fp2& b) {
    return {a.c0 + b.c0, a.c1 + b.c1};
  }
  [[gnu::always_inline]] friend constexpr Fp2 operator-(const Fp2& a, const Fp2& b) {
    return {a.c0 - b.c0, a.c1 - b.c1};
  }
  [[gnu::always_inline]] constexpr Fp2 operator-() const { return {-c0, -c1}; }
  // Karatsuba: three base-field multiplications.
  friend constexpr Fp2 operator*(const Fp2& a, const Fp2& b) {
#if defined(SNARKPIPE_INLINE_MUL)
    if (!std::is_constant_evaluated()) return mul_sum_of_products(a, b);
#endif
    const Fp v0 = a.c0 * b.c0;
    const Fp v1 = a.c1 * b.c1;
    return {v0 - v1, (a.c0 + a.c1) * (b.c0 + b.c1) - v0 - v1};
  }
#if defined(SNARKPIPE_INLINE_MUL)
  // The product used: each coefficient is one sum of two products with one Montgomery
  // reduction, c0 = (a0·b0 + a1·(2p - b1))/R and c1 = (a0·b1 + a1·b0)/R, the rows of both
  // products feeding one CIOS accumulator (mont_inline_x86_64.hpp, mont_mul2n_fp /
  // mont_mul2x_fp): 2·(12 + 6 + 1)·6 = 228 MULX, more than the 192 multiplications of the
  // lazy Karatsuba below, but as one stream of "MULX, two ADX additions" with no
  // double-width values through memory and no 12-word passes (85 vs 94 ns on the EPYC).
  // Out of line: the two asm statements take 14 registers + rdx, every register when the
  // caller also needs a frame pointer (over-aligned locals), so they are compiled only here.
  static Fp2 mul_sum_of_products(const Fp2& a, const Fp2& b) {
    static_assert(sizeof(Fp) == 48 && sizeof(Fp2) == 96, "Fp2 must be c0 then c1, 12 words");
    return mul_words(a.c0.montgomery_redundant().data(), b.c0.montgomery_redundant().data());
  }
  // The same product of two 12-word operands (c0 words, then c1 words) whose halves may be
  // unreduced, each < 2p (Fp's stored limbs): the kernels' accumulator stays below
  // 5p < 2^384 and each sum of products S below 8p^2 < p·2^384, so the result
  // (S + Qp)/R < 2p is exact in Fp's stored form without a final subtraction (generator,
  // gen_mul2_inline).
  [[gnu::noinline]] static Fp2 mul_words(const u64* x, const u64* y) {
    Limbs<6> r0, r1;
    x86::mont_mul2n_fp(r0, x, y);
    x86::mont_mul2x_fp(r1, x, y);
    return {Fp::from_montgomery(r0), Fp::from_montgomery(r1)};
  }
  // Karatsuba with lazy reduction (the product before mul_sum_of_products; kept as a
  // second implementation for the tests): the three products stay double-width (768 bits),
  // c0 = a0·b0 - a1·b1 (+ C, a multiple of p that keeps it non-negative) and
  // c1 = (a0 + a1)(b0 + b1) - a0·b0 - a1·b1 are formed before reducing, so two Montgomery
  // reductions instead of three. Both stay below p·2^384, so each reduction is exact
  // after one conditional subtraction (mont_inline_x86_64.hpp).
  static Fp2 mul_lazy(const Fp2& a, const Fp2& b) {
    Limbs<6> sa, sb;
    x86::add_plain_6(sa, a.c0.montgomery(), a.c1.montgomery());
    x86::add_plain_6(sb, b.c0.montgomery(), b.c1.montgomery());
    Limbs<12> t0, t1, t2;
    x86::mont_mul_wide_fp(t0, a.c0.montgomery(), b.c0.montgomery());
    x86::mont_mul_wide_fp(t1, a.c1.montgomery(), b.c1.montgomery());
    x86::mont_mul_wide_fp(t2, sa, sb);
    x86::wide_sub_fp(t2, t0);
    x86::wide_sub_fp(t2, t1);
    x86::wide_add_c_fp(t0);
    x86::wide_sub_fp(t0, t1);
    Limbs<6> r0, r1;
    x86::mont_redc_fp(r0, t0);
    x86::mont_redc_fp(r1, t2);
    return {Fp::from_montgomery(r0), Fp::from_montgomery(r1)};
  }
#endif
  friend constexpr Fp2 operator*(const Fp2& a, const Fp& s) { return {a.c0 * s, a.c1 * s}; }
  [[gnu::always_inline]] constexpr Fp2& operator+=(const Fp2& b) { return *this = *this + b; }
  [[gnu::always_inline]] constexpr Fp2& operator-=(const Fp2& b) { return *this = *this - b; }
  constexpr Fp2& operator*=(const Fp2& b) { return *this = *this * b; }

  [[gnu::always_inline]] constexpr Fp2 dbl() const { return {c0.dbl(), c1.dbl()}; }
  constexpr Fp2 half() const { return {c0.half(), c1.half()}; }
  // (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u: two multiplications.
  constexpr Fp2 square() const {
#if defined(SNARKPIPE_INLINE_MUL)
    if (!std::is_constant_evaluated()) return square_unreduced_operands();
#endif
    return {(c0 + c1) * (c0 - c1), (c0 * c1).dbl()};
  }
#if defined(SNARKPIPE_INLINE_MUL)
  // The same two products with operands partly unreduced. The components are Fp's stored
  // limbs, each < 2p; s = c0 + c1 mod 2p (< 2p), d = c0 + 2p - c1 and t = 2·c0 are plain
  // 6-word sums (< 4p). The inline Montgomery multiplication takes them as they are: its
  // accumulator stays below (its memory operand) + p ≤ 5p < 2^384, and each product is
  // below 8p² < p·R, so the result (ab + Qp)/R < 8p²/R + p < 2p, Fp's stored form.
  Fp2 square_unreduced_operands() const {
    const Limbs<6>&a0 = c0.montgomery_redundant(), &a1 = c1.montgomery_redundant();
    Limbs<6> d, t, r0, r1;
    const Fp s = c0 + c1;
    x86::add_p_sub_plain_6(d, a0, a1, Fp::BOUND);
    x86::add_plain_6(t, a0, a0);
    x86::mont_mul_fp(r0, s.montgomery_redundant(), d);
    x86::mont_mul_fp(r1, t, a1);
    return {Fp::from_montgomery(r0), Fp::from_montgomery(r1)};
  }
#endif
  [[gnu::always_inline]] constexpr Fp2 conjugate() const { return {c0, -c1}; }
  // Multiplication by the cubic/sextic non-residue ξ = 1 + u.
  [[gnu::always_inline]] constexpr Fp2 mul_by_nonresidue() const { return {c0 - c1, c0 + c1}; }
  // x^(p^k): the p-power Frobenius is conjugation.
  constexpr Fp2 frobenius_map(unsigned k) const { return (k & 1) ? conjugate() : *this; }
  constexpr Fp norm() const { return c0.square() + c1.square(); }

  // VarTime: the Fp inversion by divsteps (inverse_vartime.hpp), for public values only.
  template <bool VarTime = false>
  Fp2 inverse() const {
    const Fp n = norm();
    const Fp t = VarTime ? fp_inverse_vartime(n) : n.inverse();
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
