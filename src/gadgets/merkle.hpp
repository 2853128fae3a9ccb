// Binary SHA-256 Merkle trees: leaves are 32-byte values, a node is SHA-256(left ‖ right)
// over the 64-byte concatenation (two compressions, the second over constant padding).
// Natively: the tree, its paths and the root a path implies. In a circuit: the root from a
// leaf, its path and its position, and the inclusion gadget that exposes root and position.
//
// Position: index bit j (little-endian, j = 0 at the leaf level) is 1 when the node on the
// path at level j is a right child, so its parent is H(sibling_j ‖ node), else H(node ‖ sibling_j).
//
// Public inputs of merkle_inclusion, in allocation order (after ONE):
//   root_hi = big-endian integer of root bytes 0..15
//   root_lo = big-endian integer of root bytes 16..31
//   index   = Σ_j index_bit_j · 2^j  (the leaf index)
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "gadgets/num.hpp"
#include "gadgets/sha256.hpp"

namespace snarkpipe::gadgets {

Sha256Digest merkle_node(const Sha256Digest& left, const Sha256Digest& right);

struct MerklePath {
  std::uint64_t index = 0;
  std::vector<Sha256Digest> siblings;  // siblings[j] at level j (0 = the leaf level)
};

// The root a leaf and its path imply.
Sha256Digest merkle_root_from_path(const Sha256Digest& leaf, const MerklePath& path);

class MerkleTree {
 public:
  // A full tree over 2^depth leaves, depth in 1..30 (else std::invalid_argument).
  explicit MerkleTree(std::vector<Sha256Digest> leaves);

  std::size_t depth() const { return levels_.size() - 1; }
  std::size_t num_leaves() const { return levels_[0].size(); }
  const Sha256Digest& leaf(std::size_t i) const { return levels_[0].at(i); }
  const Sha256Digest& root() const { return levels_.back()[0]; }
  // The path of leaf `index` (std::out_of_range beyond the leaves).
  MerklePath path(std::uint64_t index) const;

 private:
  std::vector<std::vector<Sha256Digest>> levels_;  // levels_[0] the leaves, back() the root
};

// H(left ‖ right) in a circuit: 256 + 256 bits in, 256 bits out.
std::vector<Boolean> merkle_node_gadget(ConstraintSystem& cs, std::string_view name, std::span<const Boolean> left,
                                        std::span<const Boolean> right);

// The root (256 bits) from the leaf's bits, its siblings' bits and its index bits; one
// conditional swap (512 constraints) and one node hash per level. Sizes: leaf 256,
// siblings.size() == index_bits.size(), each sibling 256 (else std::invalid_argument).
std::vector<Boolean> merkle_root_gadget(ConstraintSystem& cs, std::string_view name, std::span<const Boolean> leaf,
                                        std::span<const std::vector<Boolean>> siblings,
                                        std::span<const Boolean> index_bits);

// merkle_root_gadget, then the root and the index as public inputs (layout above; depth up
// to 254). Returns the root bits.
std::vector<Boolean> merkle_inclusion(ConstraintSystem& cs, std::string_view name, std::span<const Boolean> leaf,
                                      std::span<const std::vector<Boolean>> siblings,
                                      std::span<const Boolean> index_bits);

// The public inputs merkle_inclusion exposes, from the known root and index.
std::vector<Fr> merkle_public_inputs(const Sha256Digest& root, std::uint64_t index);

}  // namespace snarkpipe::gadgets
