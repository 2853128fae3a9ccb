#include "pairing/pairing.hpp"

#include <bit>

namespace snarkpipe::pairing {

using ff::Fp;
using ff::Fp6;

namespace {

// The twist point T in homogeneous projective coordinates (x = X/Z, y = Y/Z).
struct Projective {
  Fp2 X, Y, Z;
};

// 3·b'·c for the twist b' = 4(1 + u): 12·(1 + u)·c by additions (ξ·c, then ·12 = ·4 + ·8)
// instead of a full Fp2 product.
[[gnu::always_inline]] inline Fp2 mul_by_three_b(const Fp2& c) {
  const Fp2 x4 = c.mul_by_nonresidue().dbl().dbl();
  return x4.dbl() + x4;
}

// Tangent at T, scaled by 2YZ and by w^3 (factors the final exponentiation removes):
//   l0 = Y^2 - 3b'Z^2,  l1 = -3X^2,  l4 = 2YZ,
// and T <- 2T: X' = XY/2·(Y^2 - 9b'Z^2), Y' = ((Y^2 + 9b'Z^2)/2)^2 - 27b'^2·Z^4, Z' = 2Y^3·Z.
G2Prepared::Line doubling_step(Projective& t) {
  const Fp2 a = (t.X * t.Y).half();
  const Fp2 b = t.Y.square();
  const Fp2 c = t.Z.square();
  const Fp2 e = mul_by_three_b(c);
  const Fp2 f = e.dbl() + e;
  const Fp2 g = (b + f).half();
  const Fp2 h = (t.Y + t.Z).square() - (b + c);
  const Fp2 j = t.X.square();
  const Fp2 e2 = e.square();
  t.X = a * (b - f);
  t.Y = g.square() - (e2.dbl() + e2);
  t.Z = b * h;
  return {b - e, -(j.dbl() + j), h};
}

// Chord through T and Q (affine), scaled by λ = x_Q·Z - X:
//   l0 = θ·x_Q - λ·y_Q,  l1 = -θ,  l4 = λ   with θ = y_Q·Z - Y,
// and T <- T + Q (mixed projective addition).
G2Prepared::Line addition_step(Projective& t, const G2Affine& q) {
  const Fp2 theta = q.y * t.Z - t.Y;
  const Fp2 lambda = q.x * t.Z - t.X;
  const Fp2 vv = lambda.square();
  const Fp2 vvv = lambda * vv;
  const Fp2 r = vv * t.X;
  const Fp2 a = theta.square() * t.Z - vvv - r.dbl();
  const G2Prepared::Line line{theta * q.x - lambda * q.y, -theta, lambda};
  t.X = lambda * a;
  t.Y = theta * (r - a) - vvv * t.Y;
  t.Z = vvv * t.Z;
  return line;
}

// evaluate and square stay out of line: inlined, the Miller loop's body was ~25 KB of
// straight-line code and the loop ran ~6 % slower (instruction-fetch bound).
[[gnu::noinline]] Fp12 evaluate(const Fp12& f, const G2Prepared::Line& l, const G1Affine& p) {
  return f.mul_by_014(l.l0, l.l1 * p.x, l.l4 * p.y);
}

[[gnu::noinline]] Fp12 square(const Fp12& f) { return f.square(); }

// The line l0 + l1·x_P·w^2 + l4·y_P·w^3 as an element of Fp12 (what evaluate gives for f = 1).
Fp12 line_value(const G2Prepared::Line& l, const G1Affine& p) {
  Fp12 r = Fp12::zero();
  r.c0.c0 = l.l0;
  r.c0.c1 = l.l1 * p.x;
  r.c1.c1 = l.l4 * p.y;
  return r;
}

constexpr int Z_TOP_BIT = 63;

}  // namespace

G2Prepared G2Prepared::from(const G2Affine& q) {
  G2Prepared prep;
  if (q.is_identity()) {
    prep.infinity = true;
    return prep;
  }
  Projective t{q.x, q.y, Fp2::one()};
  prep.lines.reserve(Z_TOP_BIT + std::popcount(ec::BLS_Z_ABS) - 1);
  for (int i = Z_TOP_BIT - 1; i >= 0; --i) {
    prep.lines.push_back(doubling_step(t));
    if ((ec::BLS_Z_ABS >> i) & 1) prep.lines.push_back(addition_step(t, q));
  }
  return prep;
}

Fp12 miller_loop(std::span<const std::pair<G1Affine, const G2Prepared*>> terms) {
  std::vector<std::pair<G1Affine, const G2Prepared*>> live;
  for (const auto& term : terms) {
    if (!term.first.is_identity() && !term.second->infinity) live.push_back(term);
  }
  Fp12 f = Fp12::one();
  std::size_t k = 0;
  for (int i = Z_TOP_BIT - 1; i >= 0; --i) {
    if (i != Z_TOP_BIT - 1) f = square(f);
    std::size_t first = 0;
    if (i == Z_TOP_BIT - 1 && !live.empty()) {
      // f = 1 here: 1 · line is the line itself, no product.
      f = line_value(live[0].second->lines[k], live[0].first);
      first = 1;
    }
    for (std::size_t j = first; j < live.size(); ++j) f = evaluate(f, live[j].second->lines[k], live[j].first);
    ++k;
    if ((ec::BLS_Z_ABS >> i) & 1) {
      for (const auto& [p, q] : live) f = evaluate(f, q->lines[k], p);
      ++k;
    }
  }
  return ec::BLS_Z_IS_NEGATIVE ? f.conjugate() : f;
}

Fp12 miller_loop(const G1Affine& p, const G2Affine& q) {
  const G2Prepared prep = G2Prepared::from(q);
  const std::pair<G1Affine, const G2Prepared*> term{p, &prep};
  return miller_loop(std::span(&term, 1));
}

namespace {

// |z| by square-and-multiply with Granger–Scott squarings.
Fp12 cyclotomic_exp_by_z_uncompressed(const Fp12& f) {
  Fp12 r = f;
  for (int i = Z_TOP_BIT - 1; i >= 0; --i) {
    r = r.cyclotomic_square();
    if ((ec::BLS_Z_ABS >> i) & 1) r *= f;
  }
  return r;
}

}  // namespace

// f^|z| = Π f^(2^i) over the six set bits i of |z| = 2^63 + 2^62 + 2^60 + 2^57 + 2^48 + 2^16:
// 62 compressed squarings (Fp12::compressed_square), the five powers up to f^(2^62)
// decompressed together with one variable-time inversion, f^(2^63) as the Granger–Scott
// square of f^(2^62) (cheaper than one more compressed squaring plus its decompression),
// five products. Falls back to the uncompressed chain in the (negligible-probability) case
// of a zero g2, and for f = 1.
Fp12 cyclotomic_exp_by_z(const Fp12& f) {
  constexpr int BITS = std::popcount(ec::BLS_Z_ABS);
  static_assert(((ec::BLS_Z_ABS >> (Z_TOP_BIT - 1)) & 3) == 3, "the last power is the square of the one before");
  Fp12::Compressed c = f.compress();
  Fp12::Compressed powers[BITS];
  int n = 0;
  for (int i = 1; i < Z_TOP_BIT; ++i) {
    c = Fp12::compressed_square(c);
    if ((ec::BLS_Z_ABS >> i) & 1) powers[n++] = c;
  }
  Fp12 r;
  Fp12 out[BITS];
  if (!(ec::BLS_Z_ABS & 1) && n == BITS - 1 && Fp12::decompress_batch(powers, out, n)) {
    out[n] = out[n - 1].cyclotomic_square();
    r = out[0];
    for (int k = 1; k <= n; ++k) r *= out[k];
  } else {
    r = cyclotomic_exp_by_z_uncompressed(f);
  }
  return ec::BLS_Z_IS_NEGATIVE ? r.conjugate() : r;
}

Fp12 final_exponentiation(const Fp12& f) {
  // Easy part: f^((p^6 - 1)(p^2 + 1)) lands in the cyclotomic subgroup, where inversion is
  // conjugation and squaring has the cheap Granger–Scott form.
  // The inputs of a pairing are public: the variable-time inversion (inverse_vartime.hpp).
  Fp12 g = f.conjugate() * f.inverse<true>();
  g = g.frobenius_map(2) * g;
  // Hard part, exponent 3·(p^4 - p^2 + 1)/r = (z - 1)^2·(z + p)·(z^2 + p^2 - 1) + 3.
  Fp12 t = cyclotomic_exp_by_z(g) * g.conjugate();                                       // g^(z-1)
  t = cyclotomic_exp_by_z(t) * t.conjugate();                                            // g^((z-1)^2)
  t = cyclotomic_exp_by_z(t) * t.frobenius_map(1);                                       // ·(z + p)
  t = cyclotomic_exp_by_z(cyclotomic_exp_by_z(t)) * t.frobenius_map(2) * t.conjugate();  // ·(z^2 + p^2 - 1)
  return t * g.cyclotomic_square() * g;                                                  // · g^3
}

Fp12 pairing(const G1Affine& p, const G2Affine& q) { return final_exponentiation(miller_loop(p, q)); }

Fp12 multi_pairing(std::span<const std::pair<G1Affine, G2Affine>> terms) {
  std::vector<G2Prepared> prepared;
  prepared.reserve(terms.size());
  std::vector<std::pair<G1Affine, const G2Prepared*>> refs;
  for (const auto& [p, q] : terms) prepared.push_back(G2Prepared::from(q));
  for (std::size_t i = 0; i < terms.size(); ++i) refs.emplace_back(terms[i].first, &prepared[i]);
  return final_exponentiation(miller_loop(refs));
}

}  // namespace snarkpipe::pairing
