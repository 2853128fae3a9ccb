#include "ec/curves.hpp"

#include <stdexcept>

namespace snarkpipe::ec {

namespace {

struct EndomorphismConstants {
  Fp beta;    // cube root of unity with φ(P) = [-z^2]P on G1
  Fp2 psi_x;  // ξ^(-(p-1)/3)
  Fp2 psi_y;  // ξ^(-(p-1)/2)
};

G1Jacobian phi_with(const G1Jacobian& p, const Fp& beta) { return {p.X * beta, p.Y, p.Z}; }

EndomorphismConstants compute() {
  EndomorphismConstants c;
  // The two non-trivial cube roots of unity are (-1 ± sqrt(-3))/2; keep the one whose
  // eigenvalue on G1 is -z^2 (the other one's is z^2 - 1).
  const Fp sqrt_m3 = *(-Fp::from_u64(3)).sqrt();
  const G1Jacobian g = G1Jacobian::generator();
  const G1Jacobian target = -mul_by_z(mul_by_z(g));
  c.beta = Fp::zero();
  for (const Fp cand : {(sqrt_m3 - Fp::one()).half(), (-sqrt_m3 - Fp::one()).half()}) {
    if (phi_with(g, cand) == target) c.beta = cand;
  }
  if (c.beta.is_zero()) throw std::logic_error("G1 endomorphism: no cube root of unity matches");

  ff::Limbs<6> e = ff::FpParams::modulus;
  e[0] -= 1;
  const Fp2 xi{Fp::one(), Fp::one()};
  c.psi_x = xi.pow(ff::div_small(e, 3)).inverse();
  c.psi_y = xi.pow(ff::div_small(e, 2)).inverse();
  return c;
}

const EndomorphismConstants& constants() {
  static const EndomorphismConstants c = compute();
  return c;
}

}  // namespace

G1Jacobian endomorphism_phi(const G1Jacobian& p) { return phi_with(p, constants().beta); }

// In Jacobian coordinates ψ acts coordinate-wise: X -> conj(X)·cx, Y -> conj(Y)·cy,
// Z -> conj(Z), because (conj(X)·cx)/conj(Z)^2 = conj(X/Z^2)·cx, and likewise for Y.
G2Jacobian endomorphism_psi(const G2Jacobian& p) {
  const auto& c = constants();
  return {p.X.conjugate() * c.psi_x, p.Y.conjugate() * c.psi_y, p.Z.conjugate()};
}

bool is_in_subgroup(const G1Affine& p) {
  if (p.is_identity()) return true;
  const G1Jacobian q = G1Jacobian::from_affine(p);
  return endomorphism_phi(q) == -mul_by_z(mul_by_z(q));
}

bool is_in_subgroup(const G2Affine& p) {
  if (p.is_identity()) return true;
  const G2Jacobian q = G2Jacobian::from_affine(p);
  return endomorphism_psi(q) == mul_by_z(q);
}

}  // namespace snarkpipe::ec
