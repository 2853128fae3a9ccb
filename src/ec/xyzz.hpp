// Extended Jacobian "XYZZ" coordinates: (X, Y, ZZ, ZZZ) represents (X/ZZ, Y/ZZZ) with
// ZZ^3 = ZZZ^2; ZZ = 0 is the identity. Cheaper mixed additions than Jacobian (8M+2S), which
// is why MSM buckets use them. Formulas from the EFD (add-2008-s, madd-2008-s, dbl-2008-s-1).
#pragma once

#include "ec/jacobian.hpp"

namespace snarkpipe::ec {

template <class C>
struct XYZZ {
  using F = typename C::F;
  using AffinePoint = Affine<C>;
  F X, Y, ZZ, ZZZ;

  static constexpr XYZZ identity() { return {F::one(), F::one(), F::zero(), F::zero()}; }
  static constexpr XYZZ from_affine(const AffinePoint& p) {
    return p.is_identity() ? identity() : XYZZ{p.x, p.y, F::one(), F::one()};
  }
  constexpr bool is_identity() const { return ZZ.is_zero(); }

  AffinePoint to_affine() const {
    if (is_identity()) return AffinePoint::identity();
    const F inv = (ZZ * ZZZ).inverse();  // one inversion serves both denominators
    return {X * ZZZ * inv, Y * ZZ * inv};
  }
  // Z = ZZ·ZZZ keeps the conversion polynomial: X/ZZ = (X·ZZ·ZZZ^2)/Z^2 and
  // Y/ZZZ = (Y·ZZ^3·ZZZ^2)/Z^3.
  Jacobian<C> to_jacobian() const {
    if (is_identity()) return Jacobian<C>::identity();
    const F zzz2 = ZZZ.square();
    return {X * ZZ * zzz2, Y * ZZ.square() * ZZ * zzz2, ZZ * ZZZ};
  }

  XYZZ dbl() const {
    if (is_identity()) return *this;
    const F u = Y.dbl();
    const F v = u.square();
    const F w = u * v;
    const F s = X * v;
    const F x2 = X.square();
    const F m = x2.dbl() + x2;
    XYZZ r;
    r.X = m.square() - s.dbl();
    r.Y = m * (s - r.X) - w * Y;
    r.ZZ = v * ZZ;
    r.ZZZ = w * ZZZ;
    return r;
  }

  friend XYZZ operator+(const XYZZ& p, const XYZZ& q) {
    if (p.is_identity()) return q;
    if (q.is_identity()) return p;
    const F u1 = p.X * q.ZZ, u2 = q.X * p.ZZ;
    const F s1 = p.Y * q.ZZZ, s2 = q.Y * p.ZZZ;
    const F pp_ = u2 - u1, rr = s2 - s1;
    if (pp_.is_zero()) return rr.is_zero() ? p.dbl() : identity();
    const F pp = pp_.square();
    const F ppp = pp_ * pp;
    const F qq = u1 * pp;
    XYZZ r;
    r.X = rr.square() - ppp - qq.dbl();
    r.Y = rr * (qq - r.X) - s1 * ppp;
    r.ZZ = p.ZZ * q.ZZ * pp;
    r.ZZZ = p.ZZZ * q.ZZZ * ppp;
    return r;
  }

  XYZZ add_affine(const AffinePoint& q) const {
    if (q.is_identity()) return *this;
    if (is_identity()) return from_affine(q);
    const F u2 = q.x * ZZ, s2 = q.y * ZZZ;
    const F pp_ = u2 - X, rr = s2 - Y;
    if (pp_.is_zero()) return rr.is_zero() ? from_affine(q).dbl() : identity();
    const F pp = pp_.square();
    const F ppp = pp_ * pp;
    const F qq = X * pp;
    XYZZ r;
    r.X = rr.square() - ppp - qq.dbl();
    r.Y = rr * (qq - r.X) - Y * ppp;
    r.ZZ = ZZ * pp;
    r.ZZZ = ZZZ * ppp;
    return r;
  }

  XYZZ& operator+=(const XYZZ& q) { return *this = *this + q; }
};

}  // namespace snarkpipe::ec
