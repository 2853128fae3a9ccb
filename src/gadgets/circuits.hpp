// Ready-made circuits over the SHA-256 gadgets, for tests, benchmarks and the command line.
// Each is built with a witness (proving) or without one (setup, recording), and can draw a
// deterministic random witness from a seed; public_inputs() computes natively the public
// inputs (excluding ONE) the circuit exposes, for a verifier or an end-to-end test.
//
// Sha256PreimageCircuit(num_blocks): knowledge of a preimage of preimage_len(num_blocks) =
//   64·num_blocks - 9 bytes (the longest message whose padding fits num_blocks blocks)
//   whose SHA-256 digest is public. Public inputs:
//     [0] big-endian integer of digest bytes 0..15,  [1] of digest bytes 16..31.
// MerkleSha256Circuit(depth): a 32-byte leaf at a position in a binary SHA-256 Merkle tree
//   of the given depth (merkle.hpp). Public inputs:
//     [0] root bytes 0..15,  [1] root bytes 16..31 (big-endian integers),  [2] leaf index.
//   Private: the leaf, the depth siblings, the depth index bits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "gadgets/merkle.hpp"

namespace snarkpipe::gadgets {

class Sha256PreimageCircuit final : public circuit::Circuit {
 public:
  static constexpr std::size_t NUM_PUBLIC_INPUTS = 2;

  // num_blocks >= 1; a preimage, when given, has preimage_len(num_blocks) bytes
  // (else std::invalid_argument).
  Sha256PreimageCircuit(std::size_t num_blocks, std::optional<std::vector<std::uint8_t>> preimage);

  static std::size_t preimage_len(std::size_t num_blocks) { return 64 * num_blocks - 9; }
  static std::vector<std::uint8_t> random_preimage(std::size_t num_blocks, std::uint64_t seed);
  static std::vector<Fr> public_inputs(std::span<const std::uint8_t> preimage);

  std::size_t num_blocks() const { return num_blocks_; }
  const std::optional<std::vector<std::uint8_t>>& preimage() const { return preimage_; }

  void synthesize(ConstraintSystem& cs) const override;

 private:
  std::size_t num_blocks_;
  std::optional<std::vector<std::uint8_t>> preimage_;
};

struct MerkleWitness {
  Sha256Digest leaf{};
  MerklePath path;  // path.siblings.size() == depth, path.index < 2^depth
};

class MerkleSha256Circuit final : public circuit::Circuit {
 public:
  static constexpr std::size_t NUM_PUBLIC_INPUTS = 3;
  static constexpr std::size_t MAX_DEPTH = 64;

  // depth in 1..MAX_DEPTH; a witness, when given, matches it (else std::invalid_argument).
  MerkleSha256Circuit(std::size_t depth, std::optional<MerkleWitness> witness);

  // A random leaf, index and siblings (the root follows from them).
  static MerkleWitness random_witness(std::size_t depth, std::uint64_t seed);
  static std::vector<Fr> public_inputs(const MerkleWitness& witness);

  std::size_t depth() const { return depth_; }
  const std::optional<MerkleWitness>& witness() const { return witness_; }

  void synthesize(ConstraintSystem& cs) const override;

 private:
  std::size_t depth_;
  std::optional<MerkleWitness> witness_;
};

}  // namespace snarkpipe::gadgets
