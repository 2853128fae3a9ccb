// Fp12 = Fp6[w]/(w^2 - v). Element c0 + c1·w; the pairing's target group GT lives here.
// Over Fp2 the basis is (1, v, v^2, w, vw, v^2w) = (w^0, w^2, w^4, w^1, w^3, w^5).
#pragma once

#include "ff/fp6.hpp"

namespace snarkpipe::ff {

struct Fp12 {
  Fp6 c0, c1;

  static constexpr Fp12 zero() { return {}; }
  static constexpr Fp12 one() { return {Fp6::one(), Fp6::zero()}; }

  constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  bool is_one() const { return *this == one(); }
  friend constexpr bool operator==(const Fp12& a, const Fp12& b) = default;

  friend constexpr Fp12 operator+(const Fp12& a, const Fp12& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  friend constexpr Fp12 operator-(const Fp12& a, const Fp12& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  constexpr Fp12 operator-() const { return {-c0, -c1}; }
  constexpr Fp12& operator+=(const Fp12& b) { return *this = *this + b; }
  constexpr Fp12& operator-=(const Fp12& b) { return *this = *this - b; }
  constexpr Fp12 dbl() const { return {c0.dbl(), c1.dbl()}; }

  // Karatsuba over Fp6: three Fp6 multiplications.
  friend constexpr Fp12 operator*(const Fp12& a, const Fp12& b) {
    const Fp6 t0 = a.c0 * b.c0, t1 = a.c1 * b.c1;
    return {t0 + t1.mul_by_nonresidue(), (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1};
  }
  constexpr Fp12& operator*=(const Fp12& b) { return *this = *this * b; }

  // Complex squaring: two Fp6 multiplications.
  constexpr Fp12 square() const {
    const Fp6 ab = c0 * c1;
    return {(c0 + c1) * (c0 + c1.mul_by_nonresidue()) - ab - ab.mul_by_nonresidue(), ab.dbl()};
  }

  // x^(p^6): an inversion for elements of the cyclotomic subgroup.
  constexpr Fp12 conjugate() const { return {c0, -c1}; }

  // this · (l0 + l1·w^2 + l4·w^3): the shape of a Miller-loop line (coefficients at
  // positions 0, 1 and 4 of the Fp2 basis above). Thirteen Fp2 multiplications.
  constexpr Fp12 mul_by_014(const Fp2& l0, const Fp2& l1, const Fp2& l4) const {
    const Fp6 t0 = c0.mul_by_01(l0, l1);
    const Fp6 t1 = c1.mul_by_1(l4);
    return {t0 + t1.mul_by_nonresidue(), (c0 + c1).mul_by_01(l0, l1 + l4) - t0 - t1};
  }

  // VarTime: through the variable-time Fp inversion (public values only).
  template <bool VarTime = false>
  Fp12 inverse() const {
    const Fp6 t = (c0.square() - c1.square().mul_by_nonresidue()).template inverse<VarTime>();
    return {c0 * t, -(c1 * t)};
  }

  Fp12 frobenius_map(unsigned k) const {
    const auto& t = tower_constants();
    const Fp2& g = t.fp12_c1[k % 12];
    const Fp6 a = c1.frobenius_map(k);
    return {c0.frobenius_map(k), {a.c0 * g, a.c1 * g, a.c2 * g}};
  }

  // Granger–Scott squaring, valid only in the cyclotomic subgroup (after the easy part of
  // the final exponentiation). Views the element as A + B·t + C·t^2 over Fp4 = Fp2[s]/(s^2-ξ),
  // s = w^3, t = w: nine Fp2 squarings instead of twelve multiplications.
  Fp12 cyclotomic_square() const;

  // Karabina's compressed cyclotomic squaring ("Squaring in cyclotomic subgroups", 2010).
  // In the Granger–Scott view A + B·t + C·t^2 above, the squaring's new B and C depend only
  // on B and C: B' = 3s·C^2 + 2·conj(B), C' = 3B^2 - 2·conj(C). So the four Fp2 coefficients
  // g2 + g3·s = B = c1.c0 + c0.c2·s and g4 + g5·s = C = c0.c1 + c1.c2·s square on their own
  // (two Fp4 squarings instead of three), and A = g0 + g1·s = c0.c0 + c1.c1·s is recovered
  // from them afterwards, valid in the cyclotomic subgroup with g2 != 0:
  //   g1 = (ξ·g5^2 + 3·g4^2 - 2·g3) / (4·g2),   g0 = ξ·(2·g1^2 + g2·g5 - 3·g3·g4) + 1.
  // The components are stored reduced (limbs < p, not merely < 2p as Fp allows): the lazy
  // Fp4 squarings of compressed_square need them so, and keep them so. Build one with
  // compress() or the constructor, which reduce; do not assign the members.
  struct Compressed {
    Fp2 g2, g3, g4, g5;
    Compressed() = default;
    Compressed(const Fp2& a, const Fp2& b, const Fp2& c, const Fp2& d)
        : g2(a.reduce()), g3(b.reduce()), g4(c.reduce()), g5(d.reduce()) {}
    struct AlreadyReduced {};
    Compressed(AlreadyReduced, const Fp2& a, const Fp2& b, const Fp2& c, const Fp2& d) : g2(a), g3(b), g4(c), g5(d) {}
    friend bool operator==(const Compressed&, const Compressed&) = default;
  };
  Compressed compress() const { return {c1.c0, c0.c2, c0.c1, c1.c2}; }
  static Compressed compressed_square(const Compressed& g);
  // Decompresses n values with one (variable-time) Fp2 inversion for all of them
  // (Montgomery's trick). Returns false, leaving out unspecified, when some g2 is zero.
  static bool decompress_batch(const Compressed* in, Fp12* out, std::size_t n);

  template <std::size_t M>
  Fp12 pow(const Limbs<M>& e) const {
    Fp12 r = one();
    for (std::size_t i = bit_length(e); i-- > 0;) {
      r = r.square();
      if (test_bit(e, i)) r *= *this;
    }
    return r;
  }

  // The 12 Fp coefficients in the order c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1.
  std::array<Fp, 12> coefficients() const {
    return {c0.c0.c0, c0.c0.c1, c0.c1.c0, c0.c1.c1, c0.c2.c0, c0.c2.c1,
            c1.c0.c0, c1.c0.c1, c1.c1.c0, c1.c1.c1, c1.c2.c0, c1.c2.c1};
  }

  template <class Rng>
  static Fp12 random(Rng& rng) {
    Fp12 r;
    r.c0 = Fp6::random(rng);
    r.c1 = Fp6::random(rng);
    return r;
  }
};

}  // namespace snarkpipe::ff
