// snarkpipe hash: Filecoin's hashes from the command line (issue 24).
//
//   snarkpipe hash poseidon --arity A X1 ... XA [--hex]
//
// Poseidon over BLS12-381's scalar field exactly as Filecoin's neptune computes it
// (gadgets/poseidon.hpp: Strength::Standard, the Merkle-tree domain tag 2^A − 1): the digest
// of A field elements, printed in decimal (and with --hex as 0x-hex, big-endian, 64 digits).
// Inputs are decimal or 0x-hex (big-endian) integers below r.
#include <cctype>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "gadgets/poseidon.hpp"

namespace snarkpipe::cli {

namespace {

using ff::Fr;

constexpr const char* R_DECIMAL = "52435875175126190479447740508185965837690552500527637822603658699938581184513";

struct PoseidonOptions {
  std::size_t arity = 0;
  std::vector<std::string> inputs;
  bool hex = false;
};

// A decimal or 0x-hex integer below r; std::invalid_argument naming the input otherwise.
Fr parse_element(const std::string& s, std::size_t position) {
  const std::string which = "input " + std::to_string(position) + " (\"" + s + "\")";
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    std::string digits = s.substr(2);
    for (char c : digits) {
      if (!std::isxdigit(static_cast<unsigned char>(c))) throw std::invalid_argument(which + " is not a hex number");
    }
    const auto first = digits.find_first_not_of('0');
    digits = first == std::string::npos ? "0" : digits.substr(first);
    if (digits.size() > 64) throw std::invalid_argument(which + " is not below the field modulus r = " + R_DECIMAL);
    ff::Limbs<4> r{};
    for (std::size_t i = 0; i < digits.size(); ++i) {
      const char c = digits[digits.size() - 1 - i];
      const std::uint64_t d =
          std::uint64_t(std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : std::tolower(c) - 'a' + 10);
      r[i / 16] |= d << (4 * (i % 16));
    }
    const auto v = Fr::from_repr(r);
    if (!v) throw std::invalid_argument(which + " is not below the field modulus r = " + R_DECIMAL);
    return *v;
  }
  if (s.empty()) throw std::invalid_argument(which + " is empty");
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) {
      throw std::invalid_argument(which + " is not a number (decimal, or hex with 0x)");
    }
  }
  const auto first = s.find_first_not_of('0');
  const std::string digits = first == std::string::npos ? "0" : s.substr(first);
  const auto v = digits.size() > 80 ? std::nullopt : Fr::from_decimal(digits);
  if (!v) throw std::invalid_argument(which + " is not below the field modulus r = " + R_DECIMAL);
  return *v;
}

int run_poseidon(const PoseidonOptions& o) {
  if (o.arity < 1 || o.arity > gadgets::POSEIDON_MAX_ARITY) {
    throw std::invalid_argument("arity " + std::to_string(o.arity) + " is not supported: neptune's arities are 1.." +
                                std::to_string(gadgets::POSEIDON_MAX_ARITY) + " (Filecoin uses 2, 8 and 11)");
  }
  if (o.inputs.size() != o.arity) {
    throw std::invalid_argument("--arity " + std::to_string(o.arity) + " takes " + std::to_string(o.arity) +
                                " inputs; got " + std::to_string(o.inputs.size()));
  }
  std::vector<Fr> in;
  for (std::size_t i = 0; i < o.inputs.size(); ++i) in.push_back(parse_element(o.inputs[i], i + 1));
  const Fr digest = gadgets::native::poseidon_hash(gadgets::poseidon_params(o.arity), in);
  std::printf("%s\n", digest.to_decimal().c_str());
  if (o.hex) std::printf("0x%s\n", digest.to_hex().c_str());
  return 0;
}

}  // namespace

std::vector<Command> register_hash_commands(CLI::App& app) {
  auto* hash = app.add_subcommand("hash", "Filecoin's hashes: Poseidon as neptune computes it");
  hash->require_subcommand(1);
  hash->footer("Run `snarkpipe hash poseidon --help` for its options.");

  auto o = std::make_shared<PoseidonOptions>();
  auto* c =
      hash->add_subcommand("poseidon", "The Poseidon digest of field elements (Filecoin's neptune, BLS12-381 Fr)");
  c->footer(
      "Neptune's Poseidon (Strength::Standard, Merkle-tree domain tag 2^A - 1, R_F = 8): the state\n"
      "[2^A - 1, X1, ..., XA] permuted, element 1 kept. Filecoin hashes its 8-ary trees with A = 8,\n"
      "columns with A = 11 and comm_r = Poseidon(comm_c, comm_r_last) with A = 2. Inputs are integers\n"
      "below r (decimal, or 0x-hex, big-endian); the digest is printed in decimal, and with --hex also\n"
      "as 0x-hex (big-endian, 64 digits; Filecoin's byte form is the little-endian reverse).\n"
      "Examples:\n"
      "  snarkpipe hash poseidon --arity 2 0 1\n"
      "    (neptune's test vector: 0x396508d75e76a56b739e0fd902efe161a6fba9339d05a69d2e203c369a02e7ff)\n"
      "  snarkpipe hash poseidon --arity 8 0 1 2 3 4 5 6 7 --hex");
  c->add_option("--arity", o->arity, "Number of inputs A (neptune's arities 1..36)")->required();
  c->add_option("inputs", o->inputs, "The A inputs X1 ... XA (decimal or 0x-hex)");
  c->add_flag("--hex", o->hex, "Also print the digest as 0x-hex");
  return {{c, [o] { return run_poseidon(*o); }}};
}

}  // namespace snarkpipe::cli
