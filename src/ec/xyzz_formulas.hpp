// The XYZZ point formulas, written once for both sides: the CPU's ec::XYZZ<C> (ec/xyzz.hpp,
// over src/ff's fields) and the GPU's cuda::xyzz_t<F> (cuda/curve.cuh, over cuda/fields.cuh's)
// instantiate these templates (issue 28), so a fix or an optimisation of a formula reaches
// both and the GPU tests' bit-for-bit comparison with the CPU compares one formula with itself.
//
// (X, Y, ZZ, ZZZ) represents (X/ZZ, Y/ZZZ) with ZZ^3 = ZZZ^2; ZZ = 0 is the identity. Formulas
// from the Explicit-Formulas Database, "shortw-xyzz" (hyperelliptic.org/EFD/g1p/auto-shortw-xyzz),
// with a = 0 (both BLS12-381 groups):
//   dbl-2008-s-1  doubling                          6M + 3S
//   add-2008-s    addition                         12M + 2S
//   madd-2008-s   mixed addition (ZZ2 = ZZZ2 = 1)    8M + 2S   (the MSM buckets' step)
// mdbl-2008-s-1 (doubling an affine point, 4M + 3S) is not used: the one place it would serve
// is madd's rare exceptional case (q added to itself), which doubles from_affine(q) instead.
// The exceptional cases are handled: either input the identity, a point plus itself (a doubling),
// a point plus its negative (the identity).
//
// What a point type provides: members X, Y, ZZ, ZZZ of its field type; static identity() and
// from_affine(q); is_identity(); dbl(), the point's own doubling, which add and add_affine call
// in their exceptional case, so that on the device that case is a call to the __noinline__
// doubling rather than a second doubling inlined into every addition. An affine q has x, y and
// is_identity().
//
// What a field type F provides: +, -, *, dbl(), is_zero(), and through field_ops<F> the square
// and a·b − c·d. The primary field_ops is the CPU's (square(), two products); the device's
// specialisations (cuda/curve.cuh) use sqr() and the fused F::mul_sub (Fp: one Montgomery
// reduction for both products), so the device runs the same operations as with its own copy.
#pragma once

// The formulas are forced inline on the device: the callers choose what is a call (curve.cuh's
// __noinline__ wrappers) and what is inlined (its *_inline forms, the MSM loops). On the CPU the
// compiler chooses, as it did for ec::XYZZ's members. The field hooks are always inlined, like
// the field operators they stand for (out of line, the CPU's Fp square and a·b − c·d became
// calls inside every bucket addition).
#ifdef __CUDACC__
#define SNARKPIPE_XYZZ_INLINE __host__ __device__ __forceinline__
#define SNARKPIPE_XYZZ_FIELD_OP __host__ __device__ __forceinline__
#else
#define SNARKPIPE_XYZZ_INLINE inline
#define SNARKPIPE_XYZZ_FIELD_OP [[gnu::always_inline]] inline
#endif

namespace snarkpipe::ec::xyzz {

// The square and a·b − c·d of a field, as the CPU's fields spell them. A field with other names
// or a fused form specialises this (cuda/curve.cuh does, for the device fields).
template <class F>
struct field_ops {
  SNARKPIPE_XYZZ_FIELD_OP static F sqr(const F& a) { return a.square(); }
  SNARKPIPE_XYZZ_FIELD_OP static F mul_sub(const F& a, const F& b, const F& c, const F& d) { return a * b - c * d; }
};

// dbl-2008-s-1: U = 2Y, V = U^2, W = U·V, S = X·V, M = 3X^2, X3 = M^2 − 2S, Y3 = M(S − X3) − W·Y,
// ZZ3 = V·ZZ, ZZZ3 = W·ZZZ.
template <class Point>
SNARKPIPE_XYZZ_INLINE Point dbl(const Point& p) {
  using F = decltype(Point::X);
  using ops = field_ops<F>;
  if (p.is_identity()) return p;
  const F u = p.Y.dbl();
  const F v = ops::sqr(u);
  const F w = u * v;
  const F s = p.X * v;
  const F x2 = ops::sqr(p.X);
  const F m = x2.dbl() + x2;
  Point r;
  r.X = ops::sqr(m) - s.dbl();
  r.Y = ops::mul_sub(m, s - r.X, w, p.Y);
  r.ZZ = v * p.ZZ;
  r.ZZZ = w * p.ZZZ;
  return r;
}

// add-2008-s: U1 = X1·ZZ2, U2 = X2·ZZ1, S1 = Y1·ZZZ2, S2 = Y2·ZZZ1, P = U2 − U1, R = S2 − S1,
// PP = P^2, PPP = P·PP, Q = U1·PP, X3 = R^2 − PPP − 2Q, Y3 = R(Q − X3) − S1·PPP,
// ZZ3 = ZZ1·ZZ2·PP, ZZZ3 = ZZZ1·ZZZ2·PPP (EFD's P and R are h and rr here). h = 0 means
// X1/ZZ1 = X2/ZZ2: then rr = 0 is a doubling, rr ≠ 0 a point plus its negative.
template <class Point>
SNARKPIPE_XYZZ_INLINE Point add(const Point& p, const Point& q) {
  using F = decltype(Point::X);
  using ops = field_ops<F>;
  if (p.is_identity()) return q;
  if (q.is_identity()) return p;
  const F u1 = p.X * q.ZZ, u2 = q.X * p.ZZ;
  const F s1 = p.Y * q.ZZZ, s2 = q.Y * p.ZZZ;
  const F h = u2 - u1, rr = s2 - s1;
  if (h.is_zero()) return rr.is_zero() ? p.dbl() : Point::identity();
  const F pp = ops::sqr(h);
  const F ppp = h * pp;
  const F qq = u1 * pp;
  Point r;
  r.X = ops::sqr(rr) - ppp - qq.dbl();
  r.Y = ops::mul_sub(rr, qq - r.X, s1, ppp);
  r.ZZ = p.ZZ * q.ZZ * pp;
  r.ZZZ = p.ZZZ * q.ZZZ * ppp;
  return r;
}

// madd-2008-s, p + q for an affine q: add-2008-s with ZZ2 = ZZZ2 = 1 (U1 = X1, S1 = Y1).
template <class Point, class AffinePoint>
SNARKPIPE_XYZZ_INLINE Point add_affine(const Point& p, const AffinePoint& q) {
  using F = decltype(Point::X);
  using ops = field_ops<F>;
  if (q.is_identity()) return p;
  if (p.is_identity()) return Point::from_affine(q);
  const F u2 = q.x * p.ZZ, s2 = q.y * p.ZZZ;
  const F h = u2 - p.X, rr = s2 - p.Y;
  if (h.is_zero()) return rr.is_zero() ? Point::from_affine(q).dbl() : Point::identity();
  const F pp = ops::sqr(h);
  const F ppp = h * pp;
  const F qq = p.X * pp;
  Point r;
  r.X = ops::sqr(rr) - ppp - qq.dbl();
  r.Y = ops::mul_sub(rr, qq - r.X, p.Y, ppp);
  r.ZZ = p.ZZ * pp;
  r.ZZZ = p.ZZZ * ppp;
  return r;
}

}  // namespace snarkpipe::ec::xyzz
