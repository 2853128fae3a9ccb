// snarkjs's Groth16 proving keys (.zkey), as `snarkjs groth16 setup` / `zkey contribute`
// write them (binfile.hpp's container, magic "zkey"):
//
//   1 header          protocol u32: 1 = Groth16 (2 PLONK and 10 FFLONK are refused)
//   2 Groth16 header  n8q u32 ‖ q (n8q bytes LE) ‖ n8r u32 ‖ r (n8r bytes LE) ‖ nVars u32 ‖
//                     nPublic u32 ‖ domainSize u32 ‖ α₁ ‖ β₁ ‖ β₂ ‖ γ₂ ‖ δ₁ ‖ δ₂
//   3 IC              nPublic + 1 G1 points: (β·u_i + α·v_i + w_i)/γ, ONE first
//   4 coefficients    nCoef u32 ‖ nCoef × (matrix u32 (0 = A, 1 = B) ‖ constraint u32 ‖
//                     signal u32 ‖ value, 32 bytes LE); C is left out (the prover takes
//                     c = a·b row by row)
//   5 A, 6 B1         nVars G1 points: u_i(τ), v_i(τ)  (identity for a signal absent there)
//   7 B2              nVars G2 points: v_i(τ)
//   8 C               nVars - nPublic - 1 G1 points: (β·u_j + α·v_j + w_j)/δ per private signal
//   9 H               domainSize G1 points (see prover.hpp for what they are)
//   10 contributions  (not read)
//
// Encodings (ffjavascript's "LEM"): a base-field element is its Montgomery form x·2^384 mod p
// as 48 bytes little-endian, i.e. exactly the six little-endian limbs Fp keeps in memory; a
// G1 point is x ‖ y, a G2 point x.c0 ‖ x.c1 ‖ y.c0 ‖ y.c1; the identity is all zero bytes
// (affine (0, 0)). A coefficient is stored as the integer v·R² mod r (R = 2^256), i.e. the
// Montgomery form of v's Montgomery form, so v = stored·R⁻² (snarkjs multiplies it with a
// canonical witness value in one Montgomery multiplication and gets v·w in Montgomery form).
//
// Checks: protocol; q and r must be BLS12-381's (else UnsupportedCurveError); every count
// against the section sizes; domainSize a power of two up to 2^28; coefficient indices in
// range and values < r; every coordinate < p and every point on its curve; the vk points and
// IC also in the prime-order subgroup, and with check_subgroup every other point too (costly:
// ~40 µs per point). Errors name the section and the byte offset.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "circom/binfile.hpp"
#include "groth16/keys.hpp"

namespace snarkpipe::circom {

struct ZkeyCoefficient {
  std::uint32_t matrix;      // 0 = A, 1 = B
  std::uint32_t constraint;  // row, < domain_size
  std::uint32_t signal;      // wire, < num_vars
  ff::Fr value;
};

struct Zkey {
  std::uint32_t num_vars = 0;    // wires, ONE included
  std::uint32_t num_public = 0;  // public signals, ONE excluded
  std::uint32_t domain_size = 0;
  // α₁, β₁, β₂, γ₂, δ₁, δ₂ and IC; the same meaning as snarkpipe's own keys.
  groth16::VerifyingKey vk;
  std::vector<ZkeyCoefficient> coefficients;
  std::vector<ec::G1Affine> a, b1, c, h;
  std::vector<ec::G2Affine> b2;
};

struct ZkeyReadOptions {
  bool check_subgroup = false;  // for sections 5-9 (the header's points and IC always are)
};

Zkey read_zkey(const std::string& path, const ZkeyReadOptions& opts = {});

// Only sections 1-3: the verifying key (as `snarkjs zkey export verificationkey` reads it).
groth16::VerifyingKey read_zkey_vk(const std::string& path);

// Base-field element from its 48-byte little-endian Montgomery form; false when the limbs
// are not below p.
bool fp_from_lem(const std::uint8_t* b, ff::Fp& out);

}  // namespace snarkpipe::circom
