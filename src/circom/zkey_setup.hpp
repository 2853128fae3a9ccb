// A snarkjs Groth16 key (.zkey) for a circom circuit from one party's toxic waste τ, α, β,
// γ, δ: the key `snarkjs groth16 setup` followed by one `zkey contribute` would give for a
// powers of tau with the same τ, α, β, built directly (snarkjs's ceremony takes hours at
// 2^20 and more). INSECURE for production (whoever knows the waste can forge proofs): for
// tests and benchmarks.
//
// snarkjs's construction (zkey_new.js), with row k of the QAP at ω'^k (prover.hpp: snarkjs's
// 5-based roots of unity) and L_k the Lagrange basis of the m-point domain at τ:
//   u_i, v_i, w_i = Σ_k A/B/C[k][i]·L_k(τ), rows = circom's constraints then one row
//                   A[nConstraints + i][i] = 1 per public signal, ONE included;
//   A_i = u_i·G1, B1_i = v_i·G1, B2_i = v_i·G2 (the identity where the signal is absent);
//   IC_i = (β·u_i + α·v_i + w_i)/γ·G1 for ONE and the public signals;
//   C_j  = (β·u_j + α·v_j + w_j)/δ·G1 for the private signals;
//   H_j  = L'_{2j+1}(τ)/δ·G1 for j < m, L' the Lagrange basis of the 2m-point domain: the
//          prover's d_j are a·b − c at the odd 2m-th roots ω'_{2m}^{2j+1}, where a·b − c is
//          h·t, so Σ d_j·H_j = h(τ)·t(τ)/δ.
//   coefficients: A's and B's entries, constraint by constraint (A's then B's), the input
//          rows last: snarkjs's order, which its multi-threaded prover relies on.
#pragma once

#include <string_view>

#include "circom/r1cs.hpp"
#include "circom/zkey.hpp"
#include "groth16/setup.hpp"

namespace snarkpipe::circom {

// progress(phase) at the start of each phase ("lagrange", "qap", "a", "b1", "b2", "c", "ic",
// "h"). The fixed-base multiplications go to `multipliers` when set (a GPU's, see
// cli/backend_choice.hpp), else to the CPU's tables. Throws groth16::SetupError when the
// circuit is too large for a snarkjs key (domain over 2^28, more than 2^32 - 1 signals).
Zkey zkey_from_toxic_waste(const CircomR1cs& circuit, const groth16::ToxicWaste& waste,
                           const groth16::SetupMultipliers& multipliers = {},
                           const groth16::SetupProgress& progress = {});

}  // namespace snarkpipe::circom
