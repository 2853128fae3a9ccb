// Merkle trees of arity 2^k hashed with Poseidon (Filecoin's replica and column trees are
// 8-ary): natively the tree, its paths and the root a path implies; in a circuit the root
// from a leaf, the siblings and the index bits, and the inclusion gadget exposing root and
// index; and the native trace of the root gadget for the fast witness path.
//
// A node is poseidon_hash(children) with the arity's parameters (poseidon.hpp). Position:
// at level l (0 = the leaves) the node is child number (index >> (k·l)) mod 2^k of its parent,
// i.e. the index bits k·l .. k·l + k − 1, little-endian — the same bits that address the leaf
// in a binary tree over as many leaves. The path lists, per level, the 2^k − 1 siblings in
// child order with the node's own slot left out.
//
// In a circuit, per level: the one-hot selector of the node's slot from its k bits
// (2^k − k − 1 products: 4 for arity 8), the children in order (2 constraints for each slot
// but the first and last, 1 for those: 14 for arity 8), then the hash (384 for arity 8):
// 402 constraints per level of an 8-ary tree.
//
// Public inputs of poseidon_merkle_inclusion, in allocation order: the root, then the leaf
// index Σ_j index_bit_j · 2^j.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "gadgets/poseidon.hpp"

namespace snarkpipe::gadgets {

struct PoseidonPath {
  std::uint64_t index = 0;
  std::vector<std::vector<Fr>> siblings;  // per level (0 = the leaf level), arity − 1 each
};

// log2 of an arity 2^k with k in 1..4, else std::invalid_argument.
unsigned poseidon_tree_bits(std::size_t arity);

// The root a leaf and its path imply in a tree of the given arity.
Fr poseidon_root_from_path(std::size_t arity, const Fr& leaf, const PoseidonPath& path);

class PoseidonTree {
 public:
  // A full tree over arity^depth leaves (depth >= 1, at most 2^32 leaves).
  PoseidonTree(std::size_t arity, std::vector<Fr> leaves);

  std::size_t arity() const { return arity_; }
  std::size_t depth() const { return levels_.size() - 1; }
  std::size_t num_leaves() const { return levels_[0].size(); }
  const Fr& leaf(std::size_t i) const { return levels_[0].at(i); }
  const Fr& root() const { return levels_.back()[0]; }
  PoseidonPath path(std::uint64_t index) const;  // std::out_of_range beyond the leaves

 private:
  std::size_t arity_;
  std::vector<std::vector<Fr>> levels_;
};

// The root in a circuit. siblings: per level arity − 1 allocated values; index_bits: k per
// level (else std::invalid_argument).
Num poseidon_merkle_root_gadget(ConstraintSystem& cs, std::string_view name, std::size_t arity, const Num& leaf,
                                std::span<const std::vector<AllocatedNum>> siblings,
                                std::span<const Boolean> index_bits);

// The root gadget, then the root and the index as public inputs (2 constraints).
Num poseidon_merkle_inclusion(ConstraintSystem& cs, std::string_view name, std::size_t arity, const Num& leaf,
                              std::span<const std::vector<AllocatedNum>> siblings,
                              std::span<const Boolean> index_bits);

namespace native {

// The values poseidon_merkle_root_gadget allocates (selectors, ordered children, hashes),
// in its order; returns the root. The siblings and index bits are the caller's to write.
Fr poseidon_merkle_root_trace(std::size_t arity, const Fr& leaf, const PoseidonPath& path, AuxWriter& out);

}  // namespace native

}  // namespace snarkpipe::gadgets
