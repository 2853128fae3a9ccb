#include "ff/fp12.hpp"

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
  chain(v_gamma.square(), t.fp6_c2, 6);             // (v^2)^(p-1) = ξ^(2(p-1)/3)
  chain(xi_power_p_minus_1_over(6), t.fp12_c1, 12); // w^6 = ξ
  return t;
}

}  // namespace

const TowerConstants& tower_constants() {
  static const TowerConstants t = compute();
  return t;
}

Fp12 Fp12::cyclotomic_square() const {
  // Fp4 squaring: (x + y s)^2 = (x^2 + ξ y^2) + ((x + y)^2 - x^2 - y^2) s.
  auto fp4_square = [](const Fp2& x, const Fp2& y, Fp2& rx, Fp2& ry) {
    const Fp2 x2 = x.square(), y2 = y.square();
    rx = x2 + y2.mul_by_nonresidue();
    ry = (x + y).square() - x2 - y2;
  };
  // A = c00 + c11 s, B = c10 + c02 s, C = c01 + c12 s.
  const Fp2 &c00 = c0.c0, &c01 = c0.c1, &c02 = c0.c2;
  const Fp2 &c10 = c1.c0, &c11 = c1.c1, &c12 = c1.c2;
  Fp2 ax, ay, bx, by, cx, cy;
  fp4_square(c00, c11, ax, ay);
  fp4_square(c10, c02, bx, by);
  fp4_square(c01, c12, cx, cy);
  // A' = 3A^2 - 2·conj(A); B' = 3s·C^2 + 2·conj(B); C' = 3B^2 - 2·conj(C).
  auto three = [](const Fp2& x) { return x.dbl() + x; };
  Fp12 r;
  r.c0.c0 = three(ax) - c00.dbl();
  r.c1.c1 = three(ay) + c11.dbl();
  r.c1.c0 = three(cy.mul_by_nonresidue()) + c10.dbl();
  r.c0.c2 = three(cx) - c02.dbl();
  r.c0.c1 = three(bx) - c01.dbl();
  r.c1.c2 = three(by) + c12.dbl();
  return r;
}

}  // namespace snarkpipe::ff
