// Jacobian coordinates: (X, Y, Z) represents (X/Z^2, Y/Z^3); Z = 0 is the identity.
// Formulas for a = 0 curves from the Explicit-Formulas Database (dbl-2009-l, add-2007-bl,
// madd-2007-bl), with the exceptional cases (doubling, P + (-P)) handled.
#pragma once

#include "ec/affine.hpp"

namespace snarkpipe::ec {

template <class C>
struct Jacobian {
  using F = typename C::F;
  using AffinePoint = Affine<C>;
  F X, Y, Z;

  static constexpr Jacobian identity() { return {F::one(), F::one(), F::zero()}; }
  static Jacobian generator() { return from_affine(C::generator()); }
  static constexpr Jacobian from_affine(const AffinePoint& p) {
    return p.is_identity() ? identity() : Jacobian{p.x, p.y, F::one()};
  }

  constexpr bool is_identity() const { return Z.is_zero(); }

  AffinePoint to_affine() const {
    if (is_identity()) return AffinePoint::identity();
    const F zi = Z.inverse();
    const F zi2 = zi.square();
    return {X * zi2, Y * zi2 * zi};
  }

  bool is_on_curve() const {
    if (is_identity()) return true;
    // Y^2 = X^3 + b·Z^6
    const F z2 = Z.square();
    const F z6 = z2.square() * z2;
    return Y.square() == X.square() * X + C::b() * z6;
  }

  constexpr Jacobian operator-() const { return {X, -Y, Z}; }

  friend bool operator==(const Jacobian& p, const Jacobian& q) {
    if (p.is_identity() || q.is_identity()) return p.is_identity() && q.is_identity();
    const F z1z1 = p.Z.square(), z2z2 = q.Z.square();
    return p.X * z2z2 == q.X * z1z1 && p.Y * z2z2 * q.Z == q.Y * z1z1 * p.Z;
  }

  Jacobian dbl() const {
    if (is_identity()) return *this;
    const F a = X.square();
    const F b = Y.square();
    const F c = b.square();
    const F d = ((X + b).square() - a - c).dbl();
    const F e = a.dbl() + a;
    const F f = e.square();
    Jacobian r;
    r.X = f - d.dbl();
    r.Y = e * (d - r.X) - c.dbl().dbl().dbl();
    r.Z = (Y * Z).dbl();
    return r;
  }

  friend Jacobian operator+(const Jacobian& p, const Jacobian& q) {
    if (p.is_identity()) return q;
    if (q.is_identity()) return p;
    const F z1z1 = p.Z.square(), z2z2 = q.Z.square();
    const F u1 = p.X * z2z2, u2 = q.X * z1z1;
    const F s1 = p.Y * q.Z * z2z2, s2 = q.Y * p.Z * z1z1;
    const F h = u2 - u1;
    const F rr = (s2 - s1).dbl();
    if (h.is_zero()) return rr.is_zero() ? p.dbl() : identity();
    const F i = h.dbl().square();
    const F j = h * i;
    const F v = u1 * i;
    Jacobian r;
    r.X = rr.square() - j - v.dbl();
    r.Y = rr * (v - r.X) - (s1 * j).dbl();
    r.Z = ((p.Z + q.Z).square() - z1z1 - z2z2) * h;
    return r;
  }

  // Mixed addition with an affine point (Z2 = 1).
  Jacobian add_affine(const AffinePoint& q) const {
    if (q.is_identity()) return *this;
    if (is_identity()) return from_affine(q);
    const F z1z1 = Z.square();
    const F u2 = q.x * z1z1;
    const F s2 = q.y * Z * z1z1;
    const F h = u2 - X;
    const F rr = (s2 - Y).dbl();
    if (h.is_zero()) return rr.is_zero() ? dbl() : identity();
    const F hh = h.square();
    const F i = hh.dbl().dbl();
    const F j = h * i;
    const F v = X * i;
    Jacobian r;
    r.X = rr.square() - j - v.dbl();
    r.Y = rr * (v - r.X) - (Y * j).dbl();
    r.Z = (Z + h).square() - z1z1 - hh;
    return r;
  }

  Jacobian& operator+=(const Jacobian& q) { return *this = *this + q; }
  friend Jacobian operator-(const Jacobian& p, const Jacobian& q) { return p + (-q); }
};

}  // namespace snarkpipe::ec
