// snarkjs's JSON files for Groth16 on BLS12-381 (`"curve": "bls12381"`):
//
//   vk.json     {"protocol": "groth16", "curve": "bls12381", "nPublic": n,
//                "vk_alpha_1": G1, "vk_beta_2": G2, "vk_gamma_2": G2, "vk_delta_2": G2,
//                "vk_alphabeta_12": GT, "IC": [G1 × (n + 1)]}
//   proof.json  {"pi_a": G1, "pi_b": G2, "pi_c": G1, "protocol": "groth16", "curve": "bls12381"}
//   public.json ["x1", ..., "xn"]   (the public signals after ONE)
//
// Numbers are decimal strings of canonical integers. G1 = [x, y, z] and G2 = [[x.c0, x.c1],
// [y.c0, y.c1], [z.c0, z.c1]] in Jacobian coordinates (snarkjs writes z = 1, and
// ["0", "1", "0"] for the identity); GT = e(α, β) as [[[c0.c0.c0, c0.c0.c1], [c0.c1.*],
// [c0.c2.*]], [[c1.c0.*], [c1.c1.*], [c1.c2.*]]] over Fp12 = Fp6[w], Fp6 = Fp2[v] (the same
// tower as ff/fp12.hpp). Readers check every coordinate < p, the curve equation and the
// subgroup, and throw JsonFormatError naming the file and the field.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "groth16/keys.hpp"
#include "groth16/proof.hpp"

namespace snarkpipe::circom {

class JsonFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A snarkjs verifying key. vk.json has no β₁ and δ₁ (only the prover needs them): the
// key read back has them at infinity.
nlohmann::json vk_to_json(const groth16::VerifyingKey& vk);
groth16::VerifyingKey vk_from_json(const nlohmann::json& j, const std::string& what = "vk.json");

nlohmann::json proof_to_json(const groth16::Proof& proof);
// Points at infinity are rejected, as for snarkpipe's binary proofs.
groth16::Proof proof_from_json(const nlohmann::json& j, const std::string& what = "proof.json");

nlohmann::json public_to_json(std::span<const ff::Fr> xs);
std::vector<ff::Fr> public_from_json(const nlohmann::json& j, const std::string& what = "public.json");

// Parses a JSON file; JsonFormatError when it is not JSON.
nlohmann::json read_json_file(const std::string& path);
void write_json_file(const std::string& path, const nlohmann::json& j);

// Decimal strings of canonical base-field integers (up to 115 digits).
std::string fp_to_decimal(const ff::Fp& x);
bool fp_from_decimal(std::string_view s, ff::Fp& out);

}  // namespace snarkpipe::circom
