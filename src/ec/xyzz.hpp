// Extended Jacobian "XYZZ" coordinates on the CPU: (X, Y, ZZ, ZZZ) represents (X/ZZ, Y/ZZZ)
// with ZZ^3 = ZZZ^2; ZZ = 0 is the identity. Cheaper mixed additions than Jacobian (8M+2S),
// which is why MSM buckets use them. The group law is ec/xyzz_formulas.hpp's (EFD add-2008-s,
// madd-2008-s, dbl-2008-s-1), one template for this type and the GPU's; the conversions out of
// XYZZ are the CPU's alone.
#pragma once

#include "ec/jacobian.hpp"
#include "ec/xyzz_formulas.hpp"

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

  // The formulas are ec/xyzz_formulas.hpp's, shared with the device's xyzz_t (cuda/curve.cuh).
  XYZZ dbl() const { return xyzz::dbl(*this); }
  friend XYZZ operator+(const XYZZ& p, const XYZZ& q) { return xyzz::add(p, q); }
  XYZZ add_affine(const AffinePoint& q) const { return xyzz::add_affine(*this, q); }
  XYZZ& operator+=(const XYZZ& q) { return *this = *this + q; }
};

}  // namespace snarkpipe::ec
