// Merkle trees of arity 2^k hashed with Poseidon, as Filecoin's (rust-fil-proofs) trees:
// natively the tree, its paths and the root a path implies; in a circuit the root from a
// leaf, the siblings and the index bits, the inclusion gadget, and rust-fil-proofs' whole
// PoR circuit; and the native trace of the root gadget for the fast witness path.
//
// A node is poseidon_hash(children) with the arity's parameters (poseidon.hpp). Levels may
// have different arities (Filecoin's base / sub / top trees: a 32 GiB sector's TreeR is
// 8-ary base trees under one 8-ary sub level); a path's level l has arity
// siblings[l].size() + 1. Position: the index bits are consumed from the least significant
// end, k_l bits for level l (arity 2^k_l), and spell the node's slot among its parent's
// children, as in rust-fil-proofs; the siblings list, per level, the other children in order.
//
// In a circuit, per level (storage-proofs-core gadgets/insertion.rs `insert`, then the hash):
// the children in order from the node, the siblings and the level's bits, each a new
// variable through `pick` ((b − a)·bit = b − c, 1 constraint): 2 picks for arity 2, 8 for
// arity 4, and for arity 8 the bits' NOR and AND (1 each) and 20 picks; the general
// algorithm (a select tree per slot, arity·(arity − 1) picks) for arity 16. Then the Poseidon
// hash with its allocated digest: 313 / 385 / 527 constraints per level of arity 2 / 4 / 8,
// 314 / 387 / 530 with the level's index bits' booleanity where the bits are allocated.
//
// rust-fil-proofs' PoR circuit (gadgets/por.rs PoRCircuit), which poseidon_por_circuit
// mirrors allocation for allocation: the leaf; per level its index bits (booleans), then its
// siblings, the insertion and the hash; the path bits packed into public inputs (254 bits an
// input, little-endian; 1 constraint each); the root allocated and constrained equal to the
// computed one (1); unless the root is private, the root as a public input (1). Public inputs
// after ONE: the packed index, then the root. storage-proofs-core/tests/por_circuit.rs's
// counts for 64 leaves per base tree: base 2 1,887, base 4 1,164, base 8 1,063; 8-2 1,377,
// 8-8 1,593, 8-4-2 and 8-2-4 1,764, 8-8-2 1,907; private roots one less.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
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

// The root a leaf and its path imply, each level's arity from its siblings (2, 4, 8 or 16;
// else std::invalid_argument); the overload with an arity requires every level to have it.
Fr poseidon_root_from_path(const Fr& leaf, const PoseidonPath& path);
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

// The children of one level in order (rust-fil-proofs' insert): the node in the slot the bits
// spell (little-endian), the siblings around it. bits: log2(siblings.size() + 1) of them,
// allocated (not constants) for arity 8; std::invalid_argument otherwise.
std::vector<Num> poseidon_insert(ConstraintSystem& cs, std::string_view name, const Num& node,
                                 std::span<const AllocatedNum> siblings, std::span<const Boolean> bits);

// The root in a circuit. siblings: per level arity − 1 allocated values (each level's arity
// from its siblings; with the `arity` overload all must have it); index_bits: k per level
// (else std::invalid_argument). The root is the last hash's allocated digest.
Num poseidon_merkle_root_gadget(ConstraintSystem& cs, std::string_view name, const Num& leaf,
                                std::span<const std::vector<AllocatedNum>> siblings,
                                std::span<const Boolean> index_bits);
Num poseidon_merkle_root_gadget(ConstraintSystem& cs, std::string_view name, std::size_t arity, const Num& leaf,
                                std::span<const std::vector<AllocatedNum>> siblings,
                                std::span<const Boolean> index_bits);

// The root gadget with pre-allocated siblings and bits, then PoRCircuit's tail: the index
// bits packed into public inputs, the root allocated (value `root`, or the computed root's
// when absent and known) and equal to the computed one, and unless private_root, exposed as
// a public input. Returns the allocated root. At most 254 · 8 index bits.
AllocatedNum poseidon_merkle_inclusion(ConstraintSystem& cs, std::string_view name, const Num& leaf,
                                       std::span<const std::vector<AllocatedNum>> siblings,
                                       std::span<const Boolean> index_bits,
                                       const std::optional<Fr>& root = std::nullopt, bool private_root = false);

// rust-fil-proofs' PoRCircuit for a Poseidon tree whose levels have the given arities (the
// base levels, then sub, then top), allocation for allocation. leaf/path/root: the witness
// (all present, or all absent for setup; the path must have the shape). Returns the
// allocated root.
AllocatedNum poseidon_por_circuit(ConstraintSystem& cs, std::string_view name, std::span<const std::size_t> arities,
                                  const std::optional<Fr>& leaf, const std::optional<PoseidonPath>& path,
                                  const std::optional<Fr>& root, bool private_root);
// The public inputs poseidon_por_circuit exposes (after ONE): the packed index bits, then
// the root unless private.
std::vector<Fr> poseidon_por_public_inputs(std::span<const std::size_t> arities, std::uint64_t index, const Fr& root,
                                           bool private_root);

namespace native {

// The values poseidon_merkle_root_gadget allocates (insertions, hashes), in its order;
// returns the root. The siblings and index bits are the caller's to write.
Fr poseidon_merkle_root_trace(const Fr& leaf, const PoseidonPath& path, AuxWriter& out);
Fr poseidon_merkle_root_trace(std::size_t arity, const Fr& leaf, const PoseidonPath& path, AuxWriter& out);

}  // namespace native

}  // namespace snarkpipe::gadgets
