#include "ff/fp12.hpp"

#if defined(SNARKPIPE_INLINE_MUL)
#include "ff/wide_x86_64.hpp"
#endif

namespace snarkpipe::ff {

namespace {

// ξ^((p-1)/d) for d | p-1.
Fp2 xi_power_p_minus_1_over(u64 d) {
  Limbs<6> e = FpParams::modulus;
  e[0] -= 1;
  u64 rem = 0;
  e = div_small(e, d, &rem);
  if (rem != 0) throw std::logic_error("tower constants: d does not divide p-1");
  const Fp2 xi{Fp::one(), Fp::one()};
  return xi.pow(e);
}

TowerConstants compute() {
  // For x^(p^k) with x^n = ξ^m (n | 6): x^(p^(k+1)) = (γ_k·x)^p = conj(γ_k)·γ_1·x, so
  // γ_{k+1} = conj(γ_k)·γ_1, starting from γ_0 = 1 and γ_1 = ξ^(m(p-1)/n).
  auto chain = [](Fp2 g1, Fp2* out, unsigned count) {
    out[0] = Fp2::one();
    for (unsigned k = 1; k < count; ++k) out[k] = out[k - 1].conjugate() * g1;
  };
  TowerConstants t;
  const Fp2 v_gamma = xi_power_p_minus_1_over(3);  // v^3 = ξ
  chain(v_gamma, t.fp6_c1, 6);
  chain(v_gamma.square(), t.fp6_c2, 6);              // (v^2)^(p-1) = ξ^(2(p-1)/3)
  chain(xi_power_p_minus_1_over(6), t.fp12_c1, 12);  // w^6 = ξ
  return t;
}

}  // namespace

const TowerConstants& tower_constants() {
  static const TowerConstants t = compute();
  return t;
}

#if defined(SNARKPIPE_INLINE_MUL)
namespace {

using Wide = Limbs<12>;

// Multiples of C = p·2^381 ≈ 1.23·p^2 (wide_x86_64.hpp); R = 2^384, so p·R = 8C.
constexpr const Wide& C2 = x86::WIDE_C2_FP;
constexpr const Wide& C4 = x86::WIDE_C4_FP;
constexpr const Wide& C7 = x86::WIDE_C7_FP;

// The squarings below keep their Fp2 values reduced (limbs < p, not merely < 2p as Fp
// allows): the double-width bounds of the lazy Fp4 squaring need reduced inputs, and sums
// modulo p keep reduced values reduced at the cost of the usual sums modulo 2p. So the
// chains (Karabina's compressed squarings, one Granger–Scott squaring) reduce their inputs
// once where they start and never again.
namespace reduced {
[[gnu::always_inline]] inline Fp add(const Fp& a, const Fp& b) {
  Limbs<6> r;
  x86::add_mod_6(r, a.montgomery_redundant(), b.montgomery_redundant(), FpParams::modulus);
  return Fp::from_montgomery(r);
}
[[gnu::always_inline]] inline Fp sub(const Fp& a, const Fp& b) {
  Limbs<6> r;
  x86::sub_mod_6(r, a.montgomery_redundant(), b.montgomery_redundant(), FpParams::modulus);
  return Fp::from_montgomery(r);
}
[[gnu::always_inline]] inline Fp2 add(const Fp2& a, const Fp2& b) { return {add(a.c0, b.c0), add(a.c1, b.c1)}; }
[[gnu::always_inline]] inline Fp2 sub(const Fp2& a, const Fp2& b) { return {sub(a.c0, b.c0), sub(a.c1, b.c1)}; }
[[gnu::always_inline]] inline Fp2 mul_by_nonresidue(const Fp2& a) { return {sub(a.c0, a.c1), add(a.c0, a.c1)}; }
}  // namespace reduced

// a^2 for a in Fp2 with reduced components, unreduced: w0 = (a0 + a1)(a0 + p - a1) ≡
// a0^2 - a1^2, in [0, 4p^2) (a0 + p - a1 in one pass, not as a modular negation plus an
// addition); w1 = a0·(2a1), in [0, 2p^2).
[[gnu::always_inline]] inline void fp2_square_wide(const Fp2& a, Wide& w0, Wide& w1) {
  const Limbs<6>&a0 = a.c0.montgomery_redundant(), &a1 = a.c1.montgomery_redundant();
  Limbs<6> s, d, t;
  x86::add_plain_6(s, a0, a1);
  x86::add_p_sub_plain_6(d, a0, a1, FpParams::modulus);
  x86::add_plain_6(t, a1, a1);
  x86::mont_mul_wide_fp(w0, s, d);
  x86::mont_mul_wide_fp(w1, a0, t);
}

[[gnu::always_inline]] inline Fp from_redc2(const Wide& t) {
  Limbs<6> r;
  x86::mont_redc2_fp(r, t);
  return Fp::from_montgomery(r);
}

}  // namespace
#endif

namespace {

// Fp4 squaring: (x + y s)^2 = (x^2 + ξ y^2) + ((x + y)^2 - x^2 - y^2) s.
#if defined(SNARKPIPE_INLINE_MUL)
// Lazy reduction: the three Fp2 squares stay double-width and the two results are
// combined before reducing (four Montgomery reductions instead of six). Each sum gets a
// multiple of C = p·2^381 that keeps it non-negative; all stay below 2p·2^384, which
// mont_redc2_fp reduces exactly (p^2 < 0.82·C):
//   rx.c0 = X0 + Y0 - Y1 + 2C < 8p^2 + 2C,   rx.c1 = X1 + Y0 + Y1 < 8p^2,
//   ry.c0 = S0 - X0 - Y0 + 7C < 4p^2 + 7C,   ry.c1 = S1 - X1 - Y1 + 4C < 2p^2 + 4C.
// The result of an Fp4 squaring, returned by value: default-constructed Fp2 outputs were
// zero-filled first (rep stos, ~35 cycles each) and then overwritten.
struct Fp4Square {
  Fp2 x, y;
};

// Out of line: the ~13 KB body inlined twice into the compressed squaring (and three times
// into the Granger–Scott one) made those slower, not faster (instruction fetch).
// x and y reduced; so is the result (mont_redc2_fp reduces fully).
[[gnu::noinline]] Fp4Square fp4_square(const Fp2& x, const Fp2& y) {
  Wide x0, x1, y0, y1, s0, s1;
  fp2_square_wide(x, x0, x1);
  fp2_square_wide(y, y0, y1);
  fp2_square_wide(reduced::add(x, y), s0, s1);
  // In place (no copies of double-width values): s0, s1 first, while x0, x1 are intact.
  // Fused: one pass over each accumulator (intermediate wrap-around mod 2^768 is harmless:
  // the arithmetic is exact modulo 2^768 and each final value is in the range above).
  x86::wide_add_sub2_fp(s0, C7, x0, y0);
  x86::wide_add_sub2_fp(s1, C4, x1, y1);
  x86::wide_add2_sub_fp(x0, y0, C2, y1);
  x86::wide_add2_fp(x1, y0, y1);
  return {{from_redc2(x0), from_redc2(x1)}, {from_redc2(s0), from_redc2(s1)}};
}
#else
struct Fp4Square {
  Fp2 x, y;
};

inline Fp4Square fp4_square(const Fp2& x, const Fp2& y) {
  const Fp2 x2 = x.square(), y2 = y.square();
  return {x2 + y2.mul_by_nonresidue(), (x + y).square() - x2 - y2};
}
#endif

// 3x - 2c = x + 2(x - c) and 3x + 2c = x + 2(x + c): three Fp2 additions instead of four
// (modulo p where the squarings keep reduced values, see `reduced`).
#if defined(SNARKPIPE_INLINE_MUL)
[[gnu::always_inline]] inline Fp2 three_minus_two(const Fp2& x, const Fp2& c) {
  const Fp2 d = reduced::sub(x, c);
  return reduced::add(reduced::add(d, d), x);
}
[[gnu::always_inline]] inline Fp2 three_plus_two(const Fp2& x, const Fp2& c) {
  const Fp2 d = reduced::add(x, c);
  return reduced::add(reduced::add(d, d), x);
}
[[gnu::always_inline]] inline Fp2 times_nonresidue(const Fp2& x) { return reduced::mul_by_nonresidue(x); }
#else
[[gnu::always_inline]] inline Fp2 three_minus_two(const Fp2& x, const Fp2& c) { return (x - c).dbl() + x; }
[[gnu::always_inline]] inline Fp2 three_plus_two(const Fp2& x, const Fp2& c) { return (x + c).dbl() + x; }
[[gnu::always_inline]] inline Fp2 times_nonresidue(const Fp2& x) { return x.mul_by_nonresidue(); }
#endif

}  // namespace

Fp12 Fp12::cyclotomic_square() const {
  // A = c00 + c11 s, B = c10 + c02 s, C = c01 + c12 s, reduced (see `reduced`).
  const Fp2 c00 = c0.c0.reduce(), c01 = c0.c1.reduce(), c02 = c0.c2.reduce();
  const Fp2 c10 = c1.c0.reduce(), c11 = c1.c1.reduce(), c12 = c1.c2.reduce();
  const Fp4Square a = fp4_square(c00, c11);
  const Fp4Square b = fp4_square(c10, c02);
  const Fp4Square c = fp4_square(c01, c12);
  // A' = 3A^2 - 2·conj(A); B' = 3s·C^2 + 2·conj(B); C' = 3B^2 - 2·conj(C).
  Fp12 r;
  r.c0.c0 = three_minus_two(a.x, c00);
  r.c1.c1 = three_plus_two(a.y, c11);
  r.c1.c0 = three_plus_two(times_nonresidue(c.y), c10);
  r.c0.c2 = three_minus_two(c.x, c02);
  r.c0.c1 = three_minus_two(b.x, c01);
  r.c1.c2 = three_plus_two(b.y, c12);
  return r;
}

Fp12::Compressed Fp12::compressed_square(const Compressed& g) {
  // B = g2 + g3 s, C = g4 + g5 s: B' = 3s·C^2 + 2·conj(B), C' = 3B^2 - 2·conj(C), with
  // s·(cx + cy s) = ξ·cy + cx s. g is reduced (compress() reduces) and so is the result.
  const Fp4Square b = fp4_square(g.g2, g.g3);
  const Fp4Square c = fp4_square(g.g4, g.g5);
#if defined(SNARKPIPE_INLINE_MUL)
  return {Compressed::AlreadyReduced{}, three_plus_two(times_nonresidue(c.y), g.g2), three_minus_two(c.x, g.g3),
          three_minus_two(b.x, g.g4), three_plus_two(b.y, g.g5)};
#else
  return {three_plus_two(times_nonresidue(c.y), g.g2), three_minus_two(c.x, g.g3), three_minus_two(b.x, g.g4),
          three_plus_two(b.y, g.g5)};
#endif
}

bool Fp12::decompress_batch(const Compressed* in, Fp12* out, std::size_t n) {
  constexpr std::size_t MAX = 16;
  if (n > MAX) throw std::invalid_argument("decompress_batch: too many values");
  // g1 = num / (4·g2) = num · conj(g2) / (4·N(g2)): the denominators are the Fp values
  // 4·N(g2), inverted together in Fp (Montgomery's trick: prefix products, one
  // variable-time Fp inversion, 3(n-1) Fp multiplications to peel the inverses off),
  // instead of the same trick over Fp2 with three times the cost per step.
  Fp2 num[MAX];
  Fp den[MAX], prefix[MAX];
  Fp acc = Fp::one();
  for (std::size_t i = 0; i < n; ++i) {
    const Compressed& g = in[i];
    if (g.g2.is_zero()) return false;  // then N(g2) != 0 for every i below
    const Fp2 g4sq = g.g4.square();
    num[i] = g.g5.square().mul_by_nonresidue() + g4sq.dbl() + g4sq - g.g3.dbl();
    den[i] = g.g2.norm().dbl().dbl();
    prefix[i] = acc;
    acc = acc * den[i];
  }
  Fp inv = fp_inverse_vartime(acc);
  for (std::size_t i = n; i-- > 0;) {
    const Compressed& g = in[i];
    const Fp2 g1 = num[i] * (g.g2.conjugate() * (inv * prefix[i]));
    inv = inv * den[i];
    const Fp2 t = g.g3 * g.g4;
    Fp2 g0 = (g1.square().dbl() + g.g2 * g.g5 - (t.dbl() + t)).mul_by_nonresidue();
    g0.c0 = g0.c0 + Fp::one();
    Fp12& r = out[i];
    r.c0.c0 = g0;
    r.c1.c1 = g1;
    r.c1.c0 = g.g2;
    r.c0.c2 = g.g3;
    r.c0.c1 = g.g4;
    r.c1.c2 = g.g5;
  }
  return true;
}

}  // namespace snarkpipe::ff
