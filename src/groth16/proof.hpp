// A Groth16 proof and its 192-byte encoding: A (G1, compressed 48) ‖ B (G2, compressed 96)
// ‖ C (G1, compressed 48), as bellperson writes it. A multi-partition proof is the
// partitions' proofs concatenated in order.
#pragma once

#include <array>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "ec/encoding.hpp"

namespace snarkpipe::groth16 {

struct Proof {
  ec::G1Affine a;
  ec::G2Affine b;
  ec::G1Affine c;

  static constexpr std::size_t BYTES = 192;
  std::array<std::uint8_t, BYTES> to_bytes() const;
  // Full validation: flags, range, curve, subgroup; points at infinity are rejected as
  // bellperson does. Throws ProofFormatError naming the point and the failed check.
  static Proof from_bytes(std::span<const std::uint8_t> bytes);
  friend bool operator==(const Proof&, const Proof&) = default;
};

class ProofFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Concatenated partition proofs <-> bytes (length must be a multiple of 192).
std::vector<std::uint8_t> encode_proofs(std::span<const Proof> proofs);
std::vector<Proof> decode_proofs(std::span<const std::uint8_t> bytes);

}  // namespace snarkpipe::groth16
