#include "circom/snarkjs_json.hpp"

#include <fstream>
#include <iterator>

#include "pairing/pairing.hpp"

namespace snarkpipe::circom {

namespace {

using ec::G1Affine;
using ec::G2Affine;
using ff::Fp;
using ff::Fp2;
using ff::Fr;
using nlohmann::json;

[[noreturn]] void fail(const std::string& what, const std::string& field, const std::string& why) {
  throw JsonFormatError(what + ": " + field + ": " + why);
}

Fp parse_fp(const json& v, const std::string& what, const std::string& field) {
  std::string s;
  if (v.is_string()) s = v.get<std::string>();
  else if (v.is_number_unsigned()) s = std::to_string(v.get<std::uint64_t>());
  else fail(what, field, "expected a decimal string, got " + describe_json(v));
  Fp x;
  if (!fp_from_decimal(s, x)) fail(what, field, "'" + s + "' is not a decimal integer below p");
  return x;
}

Fp2 parse_fp2(const json& v, const std::string& what, const std::string& field) {
  if (!v.is_array() || v.size() != 2) fail(what, field, "expected [c0, c1]");
  return {parse_fp(v[0], what, field + "[0]"), parse_fp(v[1], what, field + "[1]")};
}

// Jacobian (x, y, z) -> affine, checked.
template <class Aff, class F>
Aff to_checked_affine(const F& x, const F& y, const F& z, const std::string& what, const std::string& field) {
  if (z.is_zero()) return Aff::identity();
  const F zi = z.inverse(), zi2 = zi.square();
  Aff p{x * zi2, y * zi2 * zi};
  if (!p.is_on_curve()) fail(what, field, "the point is not on the curve");
  if (!ec::is_in_subgroup(p)) fail(what, field, "the point is not in the prime-order subgroup");
  return p;
}

G1Affine parse_g1(const json& v, const std::string& what, const std::string& field) {
  if (!v.is_array() || (v.size() != 3 && v.size() != 2)) fail(what, field, "expected a G1 point [x, y, z]");
  const Fp z = v.size() == 3 ? parse_fp(v[2], what, field + "[2]") : Fp::one();
  return to_checked_affine<G1Affine>(parse_fp(v[0], what, field + "[0]"), parse_fp(v[1], what, field + "[1]"), z, what,
                                     field);
}

G2Affine parse_g2(const json& v, const std::string& what, const std::string& field) {
  if (!v.is_array() || (v.size() != 3 && v.size() != 2))
    fail(what, field, "expected a G2 point [[x0, x1], [y0, y1], [z0, z1]]");
  const Fp2 z = v.size() == 3 ? parse_fp2(v[2], what, field + "[2]") : Fp2::one();
  return to_checked_affine<G2Affine>(parse_fp2(v[0], what, field + "[0]"), parse_fp2(v[1], what, field + "[1]"), z,
                                     what, field);
}

json g1_json(const G1Affine& p) {
  if (p.is_identity()) return json::array({"0", "1", "0"});
  return json::array({fp_to_decimal(p.x), fp_to_decimal(p.y), "1"});
}

json fp2_json(const Fp2& x) { return json::array({fp_to_decimal(x.c0), fp_to_decimal(x.c1)}); }

json g2_json(const G2Affine& p) {
  if (p.is_identity()) return json::array({json::array({"0", "0"}), json::array({"1", "0"}), json::array({"0", "0"})});
  return json::array({fp2_json(p.x), fp2_json(p.y), json::array({"1", "0"})});
}

json fp6_json(const ff::Fp6& x) { return json::array({fp2_json(x.c0), fp2_json(x.c1), fp2_json(x.c2)}); }

const json& field_of(const json& j, const char* key, const std::string& what) {
  if (!j.is_object()) throw JsonFormatError(what + ": expected a JSON object");
  const auto it = j.find(key);
  if (it == j.end()) fail(what, key, "missing");
  return *it;
}

void expect_groth16_bls(const json& j, const std::string& what) {
  if (const auto it = j.find("protocol"); it != j.end() && *it != "groth16")
    fail(what, "protocol", describe_json(*it) + " is not \"groth16\"");
  if (const auto it = j.find("curve"); it != j.end() && *it != "bls12381")
    fail(what, "curve", "curve not supported: " + describe_json(*it) + " (snarkpipe supports only \"bls12381\")");
}

}  // namespace

std::string fp_to_decimal(const Fp& x) { return x.to_decimal(); }

bool fp_from_decimal(std::string_view s, Fp& out) {
  if (s.empty() || s.size() > 120) return false;
  ff::Limbs<6> r{};
  for (char ch : s) {
    if (ch < '0' || ch > '9') return false;
    std::uint64_t carry = std::uint64_t(ch - '0');
    for (auto& limb : r) {
      const ff::u128 t = ff::u128(limb) * 10 + carry;
      limb = std::uint64_t(t);
      carry = std::uint64_t(t >> 64);
    }
    if (carry) return false;
  }
  const auto x = Fp::from_repr(r);
  if (!x) return false;
  out = *x;
  return true;
}

json vk_to_json(const groth16::VerifyingKey& vk) {
  const ff::Fp12 ab = pairing::pairing(vk.alpha_g1, vk.beta_g2);
  json ic = json::array();
  for (const auto& p : vk.ic) ic.push_back(g1_json(p));
  return json{{"protocol", "groth16"},
              {"curve", "bls12381"},
              {"nPublic", vk.ic.empty() ? 0 : vk.ic.size() - 1},
              {"vk_alpha_1", g1_json(vk.alpha_g1)},
              {"vk_beta_2", g2_json(vk.beta_g2)},
              {"vk_gamma_2", g2_json(vk.gamma_g2)},
              {"vk_delta_2", g2_json(vk.delta_g2)},
              {"vk_alphabeta_12", json::array({fp6_json(ab.c0), fp6_json(ab.c1)})},
              {"IC", ic}};
}

groth16::VerifyingKey vk_from_json(const json& j, const std::string& what) {
  expect_groth16_bls(j, what);
  groth16::VerifyingKey vk;
  vk.alpha_g1 = parse_g1(field_of(j, "vk_alpha_1", what), what, "vk_alpha_1");
  vk.beta_g2 = parse_g2(field_of(j, "vk_beta_2", what), what, "vk_beta_2");
  vk.gamma_g2 = parse_g2(field_of(j, "vk_gamma_2", what), what, "vk_gamma_2");
  vk.delta_g2 = parse_g2(field_of(j, "vk_delta_2", what), what, "vk_delta_2");
  // At infinity any of these makes a pairing term 1, and proofs can be forged.
  if (vk.alpha_g1.is_identity()) fail(what, "vk_alpha_1", "the point at infinity");
  if (vk.beta_g2.is_identity()) fail(what, "vk_beta_2", "the point at infinity");
  if (vk.gamma_g2.is_identity()) fail(what, "vk_gamma_2", "the point at infinity");
  if (vk.delta_g2.is_identity()) fail(what, "vk_delta_2", "the point at infinity");
  const json& ic = field_of(j, "IC", what);
  if (!ic.is_array() || ic.empty()) fail(what, "IC", "expected a non-empty array of G1 points");
  for (std::size_t i = 0; i < ic.size(); ++i) vk.ic.push_back(parse_g1(ic[i], what, "IC[" + std::to_string(i) + "]"));
  if (const auto it = j.find("nPublic");
      it != j.end() && (!it->is_number_unsigned() || it->get<std::uint64_t>() + 1 != ic.size()))
    fail(what, "nPublic",
         describe_json(*it) + " does not match IC's " + std::to_string(ic.size()) + " points (nPublic + 1)");
  return vk;
}

json proof_to_json(const groth16::Proof& p) {
  return json{{"pi_a", g1_json(p.a)},
              {"pi_b", g2_json(p.b)},
              {"pi_c", g1_json(p.c)},
              {"protocol", "groth16"},
              {"curve", "bls12381"}};
}

groth16::Proof proof_from_json(const json& j, const std::string& what) {
  expect_groth16_bls(j, what);
  groth16::Proof p;
  p.a = parse_g1(field_of(j, "pi_a", what), what, "pi_a");
  p.b = parse_g2(field_of(j, "pi_b", what), what, "pi_b");
  p.c = parse_g1(field_of(j, "pi_c", what), what, "pi_c");
  if (p.a.is_identity()) fail(what, "pi_a", "the point at infinity");
  if (p.b.is_identity()) fail(what, "pi_b", "the point at infinity");
  if (p.c.is_identity()) fail(what, "pi_c", "the point at infinity");
  return p;
}

json public_to_json(std::span<const Fr> xs) {
  json j = json::array();
  for (const auto& x : xs) j.push_back(x.to_decimal());
  return j;
}

std::vector<Fr> public_from_json(const json& j, const std::string& what) {
  if (!j.is_array()) throw JsonFormatError(what + ": expected an array of decimal strings");
  std::vector<Fr> xs;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const json& v = j[i];
    const std::string s = v.is_string()            ? v.get<std::string>()
                          : v.is_number_unsigned() ? std::to_string(v.get<std::uint64_t>())
                                                   : "";
    const auto x = Fr::from_decimal(s);
    if (!x) fail(what, "[" + std::to_string(i) + "]", describe_json(v) + " is not a decimal integer below r");
    xs.push_back(*x);
  }
  return xs;
}

json parse_json_text(std::string_view text, const std::string& what) {
  // The nesting, counted outside strings, before nlohmann sees the text.
  std::size_t depth = 0;
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (ch == '\\') escaped = true;
      else if (ch == '"') in_string = false;
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '[' || ch == '{') {
      if (++depth > MAX_JSON_DEPTH)
        throw JsonFormatError(what + ": arrays and objects nest deeper than " + std::to_string(MAX_JSON_DEPTH) +
                              " levels (at byte offset " + std::to_string(i) + ")");
    } else if ((ch == ']' || ch == '}') && depth > 0) {
      --depth;
    }
  }
  try {
    return json::parse(text);
  } catch (const std::exception& e) {
    throw JsonFormatError(what + ": not JSON: " + e.what());
  }
}

json read_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw JsonFormatError("cannot read " + path);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) throw JsonFormatError("cannot read " + path);
  return parse_json_text(text, path);
}

std::string describe_json(const json& v) {
  constexpr std::size_t MAX_CHARS = 40;
  switch (v.type()) {
    case json::value_t::array:
      return "an array of " + std::to_string(v.size()) + (v.size() == 1 ? " value" : " values");
    case json::value_t::object:
      return "an object of " + std::to_string(v.size()) + (v.size() == 1 ? " member" : " members");
    case json::value_t::string: {
      const std::string& s = v.get_ref<const std::string&>();
      if (s.size() <= MAX_CHARS) return json(s).dump(-1, ' ', false, json::error_handler_t::replace);
      return json(s.substr(0, MAX_CHARS)).dump(-1, ' ', false, json::error_handler_t::replace) + " (cut; " +
             std::to_string(s.size()) + " bytes)";
    }
    case json::value_t::discarded:
      return "nothing";
    default:  // a number, a boolean or null
      return v.dump();
  }
}

void write_json_file(const std::string& path, const json& j) {
  std::ofstream out(path);
  out << j.dump(1) << "\n";
  if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace snarkpipe::circom
