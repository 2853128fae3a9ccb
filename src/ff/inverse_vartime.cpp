// Variable-time Fp inversion by divsteps (Bernstein & Yang, "Fast constant-time gcd
// computation and modular inversion", 2019), in the variable-time form: eta = -delta, runs
// of zero bits of g skipped with one shift, and g += w·f with w = -g/f mod 2^k cancelling up
// to k <= 6 low bits at once (each set bit of w is one divstep with g odd).
//
// Numbers are signed, in seven 62-bit limbs (limbs 0..5 in [0, 2^62), limb 6 signed).
// Invariants: f ≡ d·x and g ≡ e·x (mod p), |f|, |g| <= p, d and e in (-p, p).
#include "ff/inverse_vartime.hpp"

#include <bit>

namespace snarkpipe::ff {

namespace {

using i64 = std::int64_t;
using i128 = __int128;

constexpr u64 M62 = (u64(1) << 62) - 1;
constexpr int L = 7;

struct S62 {
  i64 v[L];
};

constexpr S62 to_s62(const Limbs<6>& a) {
  S62 r{};
  r.v[0] = i64(a[0] & M62);
  r.v[1] = i64(((a[0] >> 62) | (a[1] << 2)) & M62);
  r.v[2] = i64(((a[1] >> 60) | (a[2] << 4)) & M62);
  r.v[3] = i64(((a[2] >> 58) | (a[3] << 6)) & M62);
  r.v[4] = i64(((a[3] >> 56) | (a[4] << 8)) & M62);
  r.v[5] = i64(((a[4] >> 54) | (a[5] << 10)) & M62);
  r.v[6] = i64(a[5] >> 52);
  return r;
}

// For a normalized value in [0, 2^384).
Limbs<6> from_s62(const S62& x) {
  const u64* v = reinterpret_cast<const u64*>(x.v);
  return {v[0] | (v[1] << 62),        (v[1] >> 2) | (v[2] << 60), (v[2] >> 4) | (v[3] << 58),
          (v[3] >> 6) | (v[4] << 56), (v[4] >> 8) | (v[5] << 54), (v[5] >> 10) | (v[6] << 52)};
}

constexpr S62 P62 = to_s62(FpParams::modulus);
// p^-1 mod 2^62 (FpParams::inv is -p^-1 mod 2^64).
constexpr u64 PINV62 = (u64(0) - FpParams::inv) & M62;
static_assert(((FpParams::modulus[0] * PINV62) & M62) == 1);

// R^3 mod p in Montgomery form's raw limbs: mont(R^2, R^2) = R^3.
constexpr Limbs<6> R3 = [] {
  Limbs<6> r{};
  mont_mul_portable<6>(r, Fp::R2, Fp::R2, FpParams::modulus, FpParams::inv);
  return r;
}();

// The transition matrix of 62 divsteps: 2^62·(f', g') = (u f + v g, q f + r g).
struct Matrix {
  i64 u, v, q, r;
};

// 62 divsteps on the low words of f and g (f odd). Returns the new eta.
i64 divsteps_62_var(i64 eta, u64 f, u64 g, Matrix& t) {
  u64 u = 1, v = 0, q = 0, r = 1;  // wrap-around arithmetic; the final values fit in 63 bits
  int i = 62;
  for (;;) {
    const int zeros = std::countr_zero(g | (~u64(0) << i));
    g >>= zeros;
    u <<= zeros;
    v <<= zeros;
    eta -= zeros;
    i -= zeros;
    if (i == 0) break;
    // g is odd here.
    if (eta < 0) {
      eta = -eta;
      u64 tmp = f;
      f = g;
      g = u64(0) - tmp;
      tmp = u;
      u = q;
      q = u64(0) - tmp;
      tmp = v;
      v = r;
      r = u64(0) - tmp;
    }
    // Up to min(eta + 1, i, 6) steps of "g odd: g += f; halve" at once.
    const int limit = (int(eta) + 1) > i ? i : int(eta) + 1;
    const u64 mask = (~u64(0) >> (64 - limit)) & 63;
    const u64 finv = f * (2 - f * f);  // f^-1 mod 2^6 (f·f ≡ 1 mod 8 for odd f)
    const u64 w = (u64(0) - g * finv) & mask;
    g += f * w;
    q += u * w;
    r += v * w;
  }
  t = {i64(u), i64(v), i64(q), i64(r)};
  return eta;
}

// (f, g) <- (u f + v g, q f + r g) / 2^62, exact.
void update_fg(S62& f, S62& g, const Matrix& t) {
  i128 cf = i128(t.u) * f.v[0] + i128(t.v) * g.v[0];
  i128 cg = i128(t.q) * f.v[0] + i128(t.r) * g.v[0];
  cf >>= 62;
  cg >>= 62;
  for (int k = 1; k < L; ++k) {
    cf += i128(t.u) * f.v[k] + i128(t.v) * g.v[k];
    cg += i128(t.q) * f.v[k] + i128(t.r) * g.v[k];
    f.v[k - 1] = i64(u64(cf) & M62);
    g.v[k - 1] = i64(u64(cg) & M62);
    cf >>= 62;
    cg >>= 62;
  }
  f.v[L - 1] = i64(cf);
  g.v[L - 1] = i64(cg);
}

// x - p when that is >= 0, else x (x normalized, in (-p, 2p)).
void reduce_once(S62& x) {
  S62 y;
  i64 c = 0;
  for (int k = 0; k < L - 1; ++k) {
    c += x.v[k] - P62.v[k];
    y.v[k] = i64(u64(c) & M62);
    c >>= 62;
  }
  c += x.v[L - 1] - P62.v[L - 1];
  y.v[L - 1] = c;
  if (c >= 0) x = y;
}

// (d, e) <- (u d + v e, q d + r e) / 2^62 mod p, staying in (-p, p).
void update_de(S62& d, S62& e, const Matrix& t) {
  i128 cd = i128(t.u) * d.v[0] + i128(t.v) * e.v[0];
  i128 ce = i128(t.q) * d.v[0] + i128(t.r) * e.v[0];
  // Add md·p, me·p (md, me in [0, 2^62)) so that the low 62 bits vanish.
  const u64 md = ((u64(0) - u64(cd)) * PINV62) & M62;
  const u64 me = ((u64(0) - u64(ce)) * PINV62) & M62;
  cd += i128(md) * P62.v[0];
  ce += i128(me) * P62.v[0];
  cd >>= 62;
  ce >>= 62;
  for (int k = 1; k < L; ++k) {
    cd += i128(t.u) * d.v[k] + i128(t.v) * e.v[k] + i128(md) * P62.v[k];
    ce += i128(t.q) * d.v[k] + i128(t.r) * e.v[k] + i128(me) * P62.v[k];
    d.v[k - 1] = i64(u64(cd) & M62);
    e.v[k - 1] = i64(u64(ce) & M62);
    cd >>= 62;
    ce >>= 62;
  }
  d.v[L - 1] = i64(cd);
  e.v[L - 1] = i64(ce);
  // |u| + |v| <= 2^62 and |d|, |e| < p, so the results are in (-p, 2p).
  reduce_once(d);
  reduce_once(e);
}

bool is_zero(const S62& x) {
  i64 acc = 0;
  for (int k = 0; k < L; ++k) acc |= x.v[k];
  return acc == 0;
}

// s·x mod p into [0, p), for s = ±1 and x in (-p, p).
Limbs<6> finish(const S62& x, bool negate) {
  S62 y;
  i64 c = 0;
  for (int k = 0; k < L; ++k) {
    c += negate ? -x.v[k] : x.v[k];
    y.v[k] = k < L - 1 ? i64(u64(c) & M62) : c;
    c >>= 62;
  }
  if (y.v[L - 1] < 0) {
    c = 0;
    for (int k = 0; k < L; ++k) {
      c += y.v[k] + P62.v[k];
      y.v[k] = k < L - 1 ? i64(u64(c) & M62) : c;
      c >>= 62;
    }
  }
  return from_s62(y);
}

}  // namespace

Fp fp_inverse_vartime(const Fp& x) {
  if (x.is_zero()) return Fp::zero();
  // x is a·R in Montgomery form; the divsteps give (aR)^-1, and mont((aR)^-1, R^3) = a^-1·R.
  S62 f = P62, g = to_s62(x.montgomery());
  S62 d{}, e{};
  e.v[0] = 1;
  i64 eta = -1;
  // 18 batches of 62 divsteps always suffice for 381-bit inputs (Bernstein–Yang bound
  // (49·381 + 57)/17 < 1116); the cap only guards the loop.
  for (int batch = 0; batch < 40; ++batch) {
    Matrix t;
    eta = divsteps_62_var(eta, u64(f.v[0]), u64(g.v[0]), t);
    update_de(d, e, t);
    update_fg(f, g, t);
    if (is_zero(g)) {
      // f = ±1 (gcd 1 with the prime p) and f ≡ d·x: x^-1 = ±d.
      const Limbs<6> inv = finish(d, f.v[L - 1] < 0);
      return Fp::from_montgomery(inv) * Fp::from_montgomery(R3);
    }
  }
  return x.inverse();  // not reached
}

}  // namespace snarkpipe::ff
