// A snarkjs Groth16 key (.zkey) turned into a bellperson key (.params / .vk) and a recorded
// circuit (.snkr1cs), the ceremony kept: every point of the new key is a point of the zkey, or
// a combination of its H points, so no toxic waste is needed and none is learnt.
//
// What carries over unchanged (zkey.hpp's sections, REFERENCE.md §3):
//   α₁, β₁, β₂, γ₂, δ₁, δ₂ and IC           = bellperson's verifying key (so proofs under the
//                                            converted key verify under the original vk.json);
//   C (private signals, (β·u+α·v+w)/δ)      = l;
//   A, B1, B2 (u_i(τ), v_i(τ) per signal)   = a, b_g1, b_g2 with the identities left out (the
//                                            recorded circuit's densities say which exist).
//
// What has to be rebuilt:
// - Rows. snarkjs puts row k of its QAP at ω'^k with ω' its 5-based root of unity; bellperson
//   puts row j at ω^j, ω the 7-based root, and ω' = ω^e (circom/prover.hpp). So the recorded
//   circuit holds snarkjs's row k at row π(k) = e·k mod m, and has m rows (the domain size;
//   the rows no snarkjs row lands on are empty). Its u_i(τ) = Σ_k A[k][i]·L_{π(k)}(τ) is then
//   the zkey's u_i(τ): the same QAP, only listed in another order. Unlike an imported circuit
//   (r1cs.hpp), the input rows are therefore spread among the others, not last.
// - C. The zkey does not store the C matrix (snarkjs's prover takes c = a·b), so it comes from
//   the circom .r1cs the zkey was made for; A and B are checked against the zkey's coefficient
//   section. C cannot be checked from the key alone (no point of the key isolates w_i(τ)): a
//   circuit with the zkey's A and B but another C gives a key whose proofs do not verify, which
//   `snarkpipe convert --wtns` detects by proving once.
// - H. snarkjs's H_i = L'_{2i+1}(τ)/δ (the Lagrange basis of the 2m-point domain ζ^k, ζ = ω'_{2m},
//   at its odd points); bellperson's h_j = τ^j·t(τ)/δ, t(x) = x^m − 1, j < m − 1. The
//   polynomial x^j·t(x) has degree < 2m, so it equals its interpolation on the 2m points: it
//   vanishes at the even points ζ^{2i} (the m-th roots) and is (ζ^{2i+1})^j·(−2) at the odd ones
//   (ζ^m = −1). Hence
//        h_j = Σ_i −2·ζ^{(2i+1)j}·H_i = −2·ζ^j · Σ_i ω'^{ij}·H_i,
//   a size-m DFT of the H points (with ω' = ζ²) followed by a scaling: m/2·log2(m) scalar
//   multiplications by twiddles, each ~210 point operations with the G1 endomorphism (on the
//   2-core development machine under load: 2.4 s at 2^12, 60 s at 2^16, 29.5 min at 2^20).
//
// Errors: ZkeyConvertError names the file and the field where zkey and circuit disagree (signal
// and public counts, domain size, a coefficient of A or B, a point that exists in one and not in
// the other), or why bellperson's format cannot hold the key (a private signal in no
// constraint has an L point at infinity, which bellperson's reader refuses).
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "circom/r1cs.hpp"
#include "circom/zkey.hpp"
#include "circuit/r1cs.hpp"
#include "groth16/keys.hpp"

namespace snarkpipe::circom {

class ZkeyConvertError : public std::runtime_error {
 public:
  ZkeyConvertError(const std::string& file, const std::string& field, const std::string& why);
  const std::string& file() const { return file_; }
  const std::string& field() const { return field_; }

 private:
  std::string file_, field_;
};

// The names the errors use for the two inputs.
struct ZkeyConvertSources {
  std::string zkey = "circuit.zkey";
  std::string circuit = "circuit.r1cs";
};

// progress(phase, done, total): "check", "rows", "h" (done = transform stages finished, of
// log2(m) + 1: the stages, then the scaling and normalization), "queries".
using ZkeyConvertProgress = std::function<void(std::string_view phase, std::size_t done, std::size_t total)>;

struct ConvertedZkey {
  groth16::ProvingKey pk;
  circuit::R1cs r1cs;  // bellperson's row order (above)
};

// Throws ZkeyConvertError on the first disagreement between the zkey and the circom circuit:
// counts, domain size, then A's and B's coefficients row by row (duplicates summed, zeros
// dropped on both sides, as the prover sees them).
void check_zkey_matches_circuit(const Zkey& zkey, const CircomR1cs& circuit, const ZkeyConvertSources& names);

// The circuit's rows (circom's constraints, then the input rows) moved to where bellperson's
// domain evaluates snarkjs's: row k to row e·k mod m, m rows in all.
circuit::R1cs rows_in_bellperson_order(const circuit::R1cs& snarkjs_rows, std::size_t domain_size);

// bellperson's h query (m − 1 points) from the zkey's m H points (above). Multi-threaded (TBB):
// a radix-2 transform over Jacobian points, one batch normalization at the end.
std::vector<ec::G1Affine> h_query_from_zkey(std::span<const ec::G1Affine> zkey_h,
                                            const ZkeyConvertProgress& progress = {});

// The whole conversion: check, rows, queries. The zkey's points are moved out of it.
ConvertedZkey convert_zkey(Zkey&& zkey, const CircomR1cs& circuit, const ZkeyConvertSources& names,
                           const ZkeyConvertProgress& progress = {});

}  // namespace snarkpipe::circom
