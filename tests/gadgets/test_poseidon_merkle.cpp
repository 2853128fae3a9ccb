// Poseidon Merkle trees: the native tree against a direct recursive computation, every path
// of small trees, mixed-arity paths; the insertion (rust-fil-proofs' insert) in every slot;
// the root and inclusion gadgets against the native root for random trees and positions
// (arities 2, 4, 8, 16), the recorded circuit and the native trace; rust-fil-proofs' PoR
// circuit with the constraint counts storage-proofs-core/tests/por_circuit.rs asserts for its
// Poseidon trees; and the failures a wrong witness must cause.
#include <gtest/gtest.h>

#include <string>

#include "circuit/recording_cs.hpp"
#include "circuit/spmv.hpp"
#include "circuit/witness_cs.hpp"
#include "gadget_test_util.hpp"
#include "gadgets/poseidon_merkle.hpp"
#include "test_seed.hpp"

using namespace snarkpipe::gadgets;
using namespace gadget_test;
using snarkpipe::circuit::ConstraintSystem;
using snarkpipe::circuit::RecordingConstraintSystem;
using snarkpipe::circuit::WitnessConstraintSystem;

namespace {

std::vector<Fr> random_frs(SeededRng& rng, std::size_t n) {
  std::vector<Fr> v(n);
  for (Fr& x : v) x = Fr::random(rng);
  return v;
}

// The root by definition: hash the arity subtrees' roots.
Fr recursive_root(std::size_t arity, std::span<const Fr> leaves) {
  if (leaves.size() == 1) return leaves[0];
  const std::size_t part = leaves.size() / arity;
  std::vector<Fr> children;
  for (std::size_t c = 0; c < arity; ++c) children.push_back(recursive_root(arity, leaves.subspan(c * part, part)));
  return native::poseidon_hash_reference(poseidon_params(arity), children);
}

// A tree whose level l (0 = leaves) groups arities[l] consecutive nodes: rust-fil-proofs'
// base / sub / top trees (base trees are consecutive leaf ranges).
struct MixedTree {
  std::vector<std::size_t> arities;
  std::vector<std::vector<Fr>> levels;

  MixedTree(std::vector<std::size_t> a, std::vector<Fr> leaves) : arities(std::move(a)) {
    levels.push_back(std::move(leaves));
    for (std::size_t ar : arities) {
      const auto& below = levels.back();
      std::vector<Fr> above;
      for (std::size_t i = 0; i < below.size(); i += ar) {
        above.push_back(native::poseidon_hash_reference(poseidon_params(ar), std::span(below).subspan(i, ar)));
      }
      levels.push_back(std::move(above));
    }
  }
  const Fr& root() const { return levels.back()[0]; }
  PoseidonPath path(std::uint64_t index) const {
    PoseidonPath p;
    p.index = index;
    std::uint64_t at = index;
    for (std::size_t l = 0; l < arities.size(); ++l) {
      const std::uint64_t first = at / arities[l] * arities[l];
      std::vector<Fr> s;
      for (std::uint64_t c = first; c < first + arities[l]; ++c) {
        if (c != at) s.push_back(levels[l][c]);
      }
      p.siblings.push_back(std::move(s));
      at /= arities[l];
    }
    return p;
  }
};

struct Synthesized {
  AllocatedNum root;
  std::vector<Boolean> index_bits;
  std::size_t aux_before_root = 0;  // leaf, siblings and bits
};

// leaf, siblings level by level, index bits, then the inclusion gadget.
Synthesized synthesize(ConstraintSystem& cs, std::size_t arity, std::size_t depth, const std::optional<Fr>& leaf,
                       const std::optional<PoseidonPath>& path) {
  const unsigned k = poseidon_tree_bits(arity);
  const AllocatedNum leaf_num = AllocatedNum::alloc(cs, "leaf", leaf);
  std::vector<std::vector<AllocatedNum>> siblings(depth);
  for (std::size_t l = 0; l < depth; ++l) {
    for (std::size_t c = 0; c + 1 < arity; ++c) {
      std::optional<Fr> v;
      if (path) v = path->siblings[l][c];
      siblings[l].push_back(AllocatedNum::alloc(cs, "sibling " + std::to_string(l) + "." + std::to_string(c), v));
    }
  }
  std::vector<Boolean> bits;
  for (std::size_t j = 0; j < k * depth; ++j) {
    std::optional<bool> b;
    if (path) b = ((path->index >> j) & 1) != 0;
    bits.push_back(Boolean::alloc(cs, "index bit " + std::to_string(j), b));
  }
  const std::size_t before = 1 + depth * (arity - 1) + k * depth;
  const AllocatedNum root = poseidon_merkle_inclusion(cs, "inclusion", Num::of(leaf_num), siblings, bits);
  return {root, bits, before};
}

}  // namespace

TEST(PoseidonTreeNative, MatchesRecursiveRootAndEveryPathVerifies) {
  SeededRng rng(test_seed("PoseidonTreeNative.MatchesRecursiveRootAndEveryPathVerifies"));
  for (const auto& [arity, depth] : {std::pair<std::size_t, std::size_t>{2, 4}, {4, 2}, {8, 2}, {16, 1}}) {
    SCOPED_TRACE("arity " + std::to_string(arity) + " depth " + std::to_string(depth));
    std::size_t n = 1;
    for (std::size_t d = 0; d < depth; ++d) n *= arity;
    const auto leaves = random_frs(rng, n);
    const PoseidonTree tree(arity, leaves);
    EXPECT_EQ(tree.depth(), depth);
    EXPECT_EQ(tree.root(), recursive_root(arity, leaves));
    for (std::uint64_t i = 0; i < n; ++i) {
      const PoseidonPath p = tree.path(i);
      ASSERT_EQ(p.siblings.size(), depth);
      EXPECT_EQ(poseidon_root_from_path(arity, leaves[i], p), tree.root()) << i;
    }
    EXPECT_THROW(tree.path(n), std::out_of_range);
  }
  EXPECT_THROW(PoseidonTree(8, random_frs(rng, 16)), std::invalid_argument);
  EXPECT_THROW(PoseidonTree(3, random_frs(rng, 9)), std::invalid_argument);
  EXPECT_THROW(PoseidonTree(8, random_frs(rng, 1)), std::invalid_argument);
}

// Paths whose levels have different arities (base, sub, top).
TEST(PoseidonTreeNative, MixedArityPaths) {
  SeededRng rng(test_seed("PoseidonTreeNative.MixedArityPaths"));
  const MixedTree tree({8, 8, 4, 2}, random_frs(rng, 8 * 8 * 4 * 2));
  for (int rep = 0; rep < 20; ++rep) {
    const std::uint64_t i = rng.next_u64() % tree.levels[0].size();
    const PoseidonPath p = tree.path(i);
    EXPECT_EQ(poseidon_root_from_path(tree.levels[0][i], p), tree.root()) << i;
    EXPECT_THROW(poseidon_root_from_path(8, tree.levels[0][i], p), std::invalid_argument);
  }
  PoseidonPath bad = tree.path(0);
  bad.siblings[0].pop_back();  // 7 children: not a power of two
  EXPECT_THROW(poseidon_root_from_path(tree.levels[0][0], bad), std::invalid_argument);
}

// The insertion puts the node in the slot its bits spell, for every slot, at the counts of
// insertion.rs (2, 8, 22 and 240 constraints for arities 2, 4, 8, 16).
TEST(PoseidonMerkleGadget, InsertEverySlot) {
  SeededRng rng(test_seed("PoseidonMerkleGadget.InsertEverySlot"));
  for (const auto& [arity, cost] : {std::pair<std::size_t, std::size_t>{2, 2}, {4, 8}, {8, 22}, {16, 240}}) {
    const unsigned k = poseidon_tree_bits(arity);
    for (std::size_t slot = 0; slot < arity; ++slot) {
      TestConstraintSystem cs;
      const auto values = random_frs(rng, arity);
      const AllocatedNum node = AllocatedNum::alloc(cs, "node", values[0]);
      std::vector<AllocatedNum> sib;
      for (std::size_t i = 1; i < arity; ++i)
        sib.push_back(AllocatedNum::alloc(cs, "sibling " + std::to_string(i), values[i]));
      std::vector<Boolean> bits;
      for (unsigned j = 0; j < k; ++j)
        bits.push_back(Boolean::alloc(cs, "index bit " + std::to_string(j), ((slot >> j) & 1) != 0));
      const std::size_t before = cs.num_constraints();
      const std::vector<Num> out = poseidon_insert(cs, "insert", Num::of(node), sib, bits);
      EXPECT_EQ(cs.num_constraints() - before, cost) << arity;
      EXPECT_TRUE(cs.is_satisfied());
      ASSERT_EQ(out.size(), arity);
      for (std::size_t pos = 0; pos < arity; ++pos) {
        const Fr expected = pos < slot ? values[pos + 1] : pos == slot ? values[0] : values[pos];
        EXPECT_EQ(cs.eval(out[pos].lc()), expected) << "arity " << arity << " slot " << slot << " pos " << pos;
      }
    }
  }
  TestConstraintSystem cs;
  const AllocatedNum node = AllocatedNum::alloc(cs, "node", Fr::one());
  std::vector<AllocatedNum> sib(7, node);
  std::vector<Boolean> two(2, Boolean::constant(true));
  EXPECT_THROW(poseidon_insert(cs, "i", Num::of(node), sib, two), std::invalid_argument);
  std::vector<Boolean> constant_bits(3, Boolean::constant(false));
  EXPECT_THROW(poseidon_insert(cs, "i", Num::of(node), sib, constant_bits), std::invalid_argument);
}

TEST(PoseidonMerkleGadget, RootMatchesNativeAndTraceMatchesWitness) {
  SeededRng rng(test_seed("PoseidonMerkleGadget.RootMatchesNativeAndTraceMatchesWitness"));
  const std::pair<std::size_t, std::size_t> insert_cost[] = {{2, 2}, {4, 8}, {8, 22}, {16, 240}};
  for (const auto& [arity, depth] : {std::pair<std::size_t, std::size_t>{2, 3}, {4, 2}, {8, 2}, {16, 1}}) {
    SCOPED_TRACE("arity " + std::to_string(arity) + " depth " + std::to_string(depth));
    std::size_t n = 1;
    for (std::size_t d = 0; d < depth; ++d) n *= arity;
    const auto leaves = random_frs(rng, n);
    const PoseidonTree tree(arity, leaves);
    const std::uint64_t index = rng.next_u64() % n;
    const PoseidonPath path = tree.path(index);

    TestConstraintSystem cs;
    const Synthesized s = synthesize(cs, arity, depth, leaves[index], path);
    EXPECT_TRUE(cs.is_satisfied()) << *cs.which_is_unsatisfied();
    EXPECT_EQ(cs.eval(s.root.lc()), tree.root());
    // rust-fil-proofs' order: the packed index, then the root.
    ASSERT_EQ(cs.num_inputs(), 3u);
    EXPECT_EQ(cs.inputs()[1], Fr::from_u64(index));
    EXPECT_EQ(cs.inputs()[2], tree.root());

    // Recording and the witness system: the same circuit, satisfied.
    RecordingConstraintSystem rec;
    synthesize(rec, arity, depth, std::nullopt, std::nullopt);
    const std::size_t constraints = rec.num_constraints();
    EXPECT_EQ(constraints, cs.num_constraints());
    const auto r1cs = rec.finish();
    WitnessConstraintSystem ws;
    synthesize(ws, arity, depth, leaves[index], path);
    EXPECT_TRUE(snarkpipe::circuit::is_satisfied(r1cs, ws.inputs(), ws.aux()).ok());
    const unsigned k = poseidon_tree_bits(arity);
    std::size_t insert = 0;
    for (const auto& [a, c] : insert_cost) {
      if (a == arity) insert = c;
    }
    const std::size_t per_level = insert + poseidon_hash_constraints(poseidon_params(arity));
    // + the index bits' booleanity, the packing, the root equality and the root input.
    EXPECT_EQ(constraints, depth * (per_level + k) + 3);
    std::printf("[count] poseidon merkle arity %zu: %zu constraints per level (%zu with its bits)\n", arity, per_level,
                per_level + k);

    // The trace writes what the root gadget allocates after the leaf, siblings and bits (the
    // tail allocates the root once more).
    std::vector<Fr> traced(ws.aux().begin(), ws.aux().begin() + std::ptrdiff_t(s.aux_before_root));
    traced.resize(ws.aux().size());
    AuxWriter w(traced.data() + s.aux_before_root);
    EXPECT_EQ(native::poseidon_merkle_root_trace(arity, leaves[index], path, w), tree.root());
    EXPECT_EQ(s.aux_before_root + w.size() + 1, traced.size());
    traced.back() = tree.root();
    EXPECT_TRUE(traced == ws.aux());
  }
}

// storage-proofs-core/tests/por_circuit.rs: PoRCircuit over Poseidon trees with 64 leaves per
// base tree (times the sub and top arities), 3 public inputs (ONE, the packed index, the
// root); every challenge satisfied; and the private-root variants (1 input, one constraint
// less).
TEST(PoseidonPorCircuit, RustFilProofsConstraintCounts) {
  SeededRng rng(test_seed("PoseidonPorCircuit.RustFilProofsConstraintCounts"));
  struct Shape {
    const char* name;
    std::vector<std::size_t> arities;  // base levels, then sub, then top
    std::size_t constraints;
    std::optional<std::size_t> private_constraints;
  };
  const Shape shapes[] = {
      {"base 2", {2, 2, 2, 2, 2, 2}, 1887, 1886},
      {"base 4", {4, 4, 4}, 1164, 1163},
      {"base 8", {8, 8}, 1063, 1062},
      {"sub 8 2", {8, 8, 2}, 1377, std::nullopt},
      {"top 8 4 2", {8, 8, 4, 2}, 1764, std::nullopt},
      {"sub 8 8 (32 GiB)", {8, 8, 8}, 1593, std::nullopt},
      {"top 8 8 2 (64 GiB)", {8, 8, 8, 2}, 1907, std::nullopt},
      {"top 8 2 4", {8, 8, 2, 4}, 1764, std::nullopt},
  };
  for (const Shape& shape : shapes) {
    SCOPED_TRACE(shape.name);
    std::size_t leaves = 1;
    for (std::size_t a : shape.arities) leaves *= a;
    const MixedTree tree(shape.arities, random_frs(rng, leaves));
    {
      RecordingConstraintSystem rec;
      poseidon_por_circuit(rec, "por", shape.arities, std::nullopt, std::nullopt, std::nullopt, false);
      EXPECT_EQ(rec.num_constraints(), shape.constraints);
      EXPECT_EQ(rec.num_inputs(), 3u);
      std::printf("[count] PoR %s: %llu constraints\n", shape.name, (unsigned long long)rec.num_constraints());
    }
    for (int rep = 0; rep < 3; ++rep) {
      const std::uint64_t i = rng.next_u64() % leaves;
      const PoseidonPath path = tree.path(i);
      TestConstraintSystem cs;
      poseidon_por_circuit(cs, "por", shape.arities, tree.levels[0][i], path, tree.root(), false);
      EXPECT_TRUE(cs.is_satisfied()) << *cs.which_is_unsatisfied();
      EXPECT_EQ(cs.num_constraints(), shape.constraints);
      ASSERT_EQ(cs.num_inputs(), 3u);
      const std::vector<Fr> expected = poseidon_por_public_inputs(shape.arities, i, tree.root(), false);
      EXPECT_EQ((std::vector<Fr>{cs.inputs()[1], cs.inputs()[2]}), expected);
      EXPECT_EQ(expected[0], Fr::from_u64(i));
      // Another leaf under the same path and root: unsatisfied.
      TestConstraintSystem bad;
      poseidon_por_circuit(bad, "por", shape.arities, tree.levels[0][i] + Fr::one(), path, tree.root(), false);
      EXPECT_FALSE(bad.is_satisfied());
    }
    if (shape.private_constraints) {
      const std::uint64_t i = rng.next_u64() % leaves;
      TestConstraintSystem cs;
      poseidon_por_circuit(cs, "por", shape.arities, tree.levels[0][i], tree.path(i), tree.root(), true);
      EXPECT_TRUE(cs.is_satisfied());
      EXPECT_EQ(cs.num_constraints(), *shape.private_constraints);
      ASSERT_EQ(cs.num_inputs(), 2u);
      EXPECT_EQ(cs.inputs()[1], Fr::from_u64(i));
      EXPECT_EQ(poseidon_por_public_inputs(shape.arities, i, tree.root(), true), std::vector<Fr>{Fr::from_u64(i)});
    }
  }
  PoseidonPath wrong;
  wrong.siblings.assign(2, std::vector<Fr>(3));
  TestConstraintSystem cs;
  const std::vector<std::size_t> base8 = {8, 8};
  EXPECT_THROW(poseidon_por_circuit(cs, "por", base8, Fr::one(), wrong, Fr::one(), false), std::invalid_argument);
}

TEST(PoseidonMerkleGadget, WrongWitnessGivesOtherInputsOrFails) {
  SeededRng rng(test_seed("PoseidonMerkleGadget.WrongWitnessGivesOtherInputsOrFails"));
  const std::size_t arity = 8, depth = 2;
  const auto leaves = random_frs(rng, 64);
  const PoseidonTree tree(arity, leaves);
  const std::uint64_t index = rng.next_u64() % 64;

  // A wrong sibling: satisfied, another root.
  {
    PoseidonPath p = tree.path(index);
    p.siblings[rng.next_u64() % depth][rng.next_u64() % 7] += Fr::one();
    TestConstraintSystem cs;
    synthesize(cs, arity, depth, leaves[index], p);
    EXPECT_TRUE(cs.is_satisfied());
    EXPECT_NE(cs.inputs()[2], tree.root());
  }
  // A wrong position: satisfied, another root and index.
  {
    PoseidonPath p = tree.path(index);
    p.index ^= std::uint64_t(1) << (rng.next_u64() % 6);
    TestConstraintSystem cs;
    synthesize(cs, arity, depth, leaves[index], p);
    EXPECT_TRUE(cs.is_satisfied());
    EXPECT_NE(cs.inputs()[2], tree.root());
    EXPECT_NE(cs.inputs()[1], Fr::from_u64(index));
  }
  // An index bit flipped after synthesis: a constraint fails.
  {
    TestConstraintSystem cs;
    const Synthesized s = synthesize(cs, arity, depth, leaves[index], tree.path(index));
    ASSERT_TRUE(cs.is_satisfied());
    flip(cs, *s.index_bits[rng.next_u64() % s.index_bits.size()].variable());
    EXPECT_FALSE(cs.is_satisfied());
  }
}
