// The optimal-ate pairing on BLS12-381: e: G1 × G2 -> GT ⊂ Fp12.
//
// Convention: e(P, Q) = f_{z,Q}(P)^(3·(p^12-1)/r), the cube of the textbook reduced pairing,
// because the final exponentiation's hard part uses the Hayashida–Hayasaka–Teruya chain
// (exponent 3·(p^4-p^2+1)/r). blst, zkcrypto/bls12_381 and noble-curves compute the same
// value (cubing is a bijection on GT, so it is still a non-degenerate bilinear pairing).
#pragma once

#include <span>
#include <utility>
#include <vector>

#include "ec/curves.hpp"
#include "ff/fp12.hpp"

namespace snarkpipe::pairing {

using ec::G1Affine;
using ec::G2Affine;
using ff::Fp12;
using ff::Fp2;

// The line functions of a Miller loop for a fixed Q, precomputed once (a prepared
// verifying key keeps β, γ and δ in this form). Each line is l0 + (l1·x_P)·w^2 + (l4·y_P)·w^3.
struct G2Prepared {
  struct Line {
    Fp2 l0, l1, l4;
  };
  std::vector<Line> lines;
  bool infinity = false;

  static G2Prepared from(const G2Affine& q);
};

// The product of f_{z,Q_i}(P_i) over all pairs, with one shared squaring per step.
Fp12 miller_loop(std::span<const std::pair<G1Affine, const G2Prepared*>> terms);
Fp12 miller_loop(const G1Affine& p, const G2Affine& q);

Fp12 final_exponentiation(const Fp12& f);

Fp12 pairing(const G1Affine& p, const G2Affine& q);

// Π e(P_i, Q_i) with a single final exponentiation (Groth16 verification is one of these).
Fp12 multi_pairing(std::span<const std::pair<G1Affine, G2Affine>> terms);

// Raising to z (negative) inside the cyclotomic subgroup: |z| by cyclotomic squarings,
// then a conjugation for the sign.
Fp12 cyclotomic_exp_by_z(const Fp12& f);

}  // namespace snarkpipe::pairing
