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
// subgroup, and throw JsonFormatError naming the file and the field; the verifying key's α, β,
// γ and δ may not be the point at infinity (bellperson refuses them too). Error messages
// describe offending values (describe_json), never echo them whole.
#pragma once

#include <nlohmann/json.hpp>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "groth16/keys.hpp"
#include "groth16/proof.hpp"

namespace snarkpipe::circom {

class JsonFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A snarkjs verifying key. vk.json has no β₁ and δ₁ (only the prover needs them): the
// key read back has them at infinity (the only points of it that may be).
nlohmann::json vk_to_json(const groth16::VerifyingKey& vk);
groth16::VerifyingKey vk_from_json(const nlohmann::json& j, const std::string& what = "vk.json");

nlohmann::json proof_to_json(const groth16::Proof& proof);
// Points at infinity are rejected, as for snarkpipe's binary proofs.
groth16::Proof proof_from_json(const nlohmann::json& j, const std::string& what = "proof.json");

nlohmann::json public_to_json(std::span<const ff::Fr> xs);
std::vector<ff::Fr> public_from_json(const nlohmann::json& j, const std::string& what = "public.json");

// The deepest nesting of arrays and objects a JSON input may have. snarkjs's files nest four
// levels (vk_alphabeta_12); deeper text is refused before it is parsed, so nothing that walks
// a value recursively (nlohmann's dump(), a destructor, a reader) can run out of stack.
inline constexpr std::size_t MAX_JSON_DEPTH = 64;

// Parses JSON text from outside: JsonFormatError "<what>: not JSON: ..." when it is not JSON,
// or when it nests deeper than MAX_JSON_DEPTH (naming the byte offset where it does).
nlohmann::json parse_json_text(std::string_view text, const std::string& what);
// Reads and parses a JSON file, as parse_json_text.
nlohmann::json read_json_file(const std::string& path);
void write_json_file(const std::string& path, const nlohmann::json& j);

// A value from outside, for an error message, in bounded length and without recursion: a
// string, number, boolean or null as JSON (a string cut after 40 characters), an array or
// object by its kind and size ("an array of 3 values").
std::string describe_json(const nlohmann::json& v);

// Decimal strings of canonical base-field integers (up to 115 digits).
std::string fp_to_decimal(const ff::Fp& x);
bool fp_from_decimal(std::string_view s, ff::Fp& out);

}  // namespace snarkpipe::circom
