// Affine points (x, y) on y^2 = x^3 + b. The point at infinity is stored as (0, 0), which is
// not on either BLS12-381 curve: the layout blst and sppark use for bases in memory.
#pragma once

namespace snarkpipe::ec {

template <class C>
struct Affine {
  using F = typename C::F;
  F x, y;

  constexpr Affine() = default;
  // The coordinates are stored reduced (Fp keeps its arithmetic results in [0, 2p), see
  // ff/mont_field.hpp), so arrays of affine points can be copied raw to a GPU, whose
  // arithmetic expects reduced limbs.
  constexpr Affine(const F& x_, const F& y_) : x(x_.reduce()), y(y_.reduce()) {}

  static constexpr Affine identity() { return {}; }
  static Affine generator() { return C::generator(); }

  constexpr bool is_identity() const { return x.is_zero() && y.is_zero(); }
  bool is_on_curve() const { return is_identity() || y.square() == x.square() * x + C::b(); }
  constexpr Affine operator-() const { return is_identity() ? *this : Affine{x, -y}; }
  friend constexpr bool operator==(const Affine& a, const Affine& b) = default;
};

}  // namespace snarkpipe::ec
