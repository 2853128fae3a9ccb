// Poseidon Merkle trees: the native tree against a direct recursive computation, every path
// of small trees, the inclusion gadget against the native root for random trees and
// positions (all arities 2, 4, 8), the recorded circuit and the native trace, and the
// failures a wrong witness must cause.
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
  return native::poseidon_hash(poseidon_params(arity), children);
}

struct Synthesized {
  Num root;
  std::vector<Boolean> index_bits;
  std::size_t aux_before_root = 0;  // leaf, siblings and bits
};

// leaf, siblings level by level, index bits, then the inclusion gadget.
Synthesized synthesize(ConstraintSystem& cs, std::size_t arity, std::size_t depth, const std::optional<Fr>& leaf,
                       const std::optional<PoseidonPath>& path, std::size_t* aux_counter = nullptr) {
  const unsigned k = poseidon_tree_bits(arity);
  Synthesized s;
  const AllocatedNum leaf_num = AllocatedNum::alloc(cs, "leaf", leaf);
  std::vector<std::vector<AllocatedNum>> siblings(depth);
  for (std::size_t l = 0; l < depth; ++l) {
    for (std::size_t c = 0; c + 1 < arity; ++c) {
      std::optional<Fr> v;
      if (path) v = path->siblings[l][c];
      siblings[l].push_back(AllocatedNum::alloc(cs, "sibling " + std::to_string(l) + "." + std::to_string(c), v));
    }
  }
  for (std::size_t j = 0; j < k * depth; ++j) {
    std::optional<bool> b;
    if (path) b = ((path->index >> j) & 1) != 0;
    s.index_bits.push_back(Boolean::alloc(cs, "index bit " + std::to_string(j), b));
  }
  s.aux_before_root = 1 + depth * (arity - 1) + k * depth;
  if (aux_counter) *aux_counter = s.aux_before_root;
  s.root = poseidon_merkle_inclusion(cs, "inclusion", arity, Num::of(leaf_num), siblings, s.index_bits);
  return s;
}

}  // namespace

TEST(PoseidonTreeNative, MatchesRecursiveRootAndEveryPathVerifies) {
  SeededRng rng(test_seed("PoseidonTreeNative.MatchesRecursiveRootAndEveryPathVerifies"));
  for (const auto& [arity, depth] : {std::pair<std::size_t, std::size_t>{2, 4}, {4, 2}, {8, 2}}) {
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

TEST(PoseidonMerkleGadget, RootMatchesNativeAndTraceMatchesWitness) {
  SeededRng rng(test_seed("PoseidonMerkleGadget.RootMatchesNativeAndTraceMatchesWitness"));
  for (const auto& [arity, depth] : {std::pair<std::size_t, std::size_t>{2, 3}, {4, 2}, {8, 2}}) {
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
    ASSERT_EQ(cs.num_inputs(), 3u);
    EXPECT_EQ(cs.inputs()[1], tree.root());
    EXPECT_EQ(cs.inputs()[2], Fr::from_u64(index));

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
    const std::size_t per_level = (arity - k - 1) + (2 * arity - 2) + poseidon_hash_constraints(poseidon_params(arity));
    EXPECT_EQ(constraints, depth * (per_level + k) + 2);  // + index booleanity, + 2 input constraints
    std::printf("[count] poseidon merkle arity %zu: %zu constraints per level\n", arity, per_level);

    // The trace writes what the gadget allocates after the leaf, siblings and bits.
    std::vector<Fr> traced(ws.aux().begin(), ws.aux().begin() + std::ptrdiff_t(s.aux_before_root));
    traced.resize(ws.aux().size());
    AuxWriter w(traced.data() + s.aux_before_root);
    EXPECT_EQ(native::poseidon_merkle_root_trace(arity, leaves[index], path, w), tree.root());
    EXPECT_EQ(s.aux_before_root + w.size(), traced.size());
    EXPECT_TRUE(traced == ws.aux());
  }
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
    EXPECT_NE(cs.inputs()[1], tree.root());
  }
  // A wrong position: satisfied, another root and index.
  {
    PoseidonPath p = tree.path(index);
    p.index ^= std::uint64_t(1) << (rng.next_u64() % 6);
    TestConstraintSystem cs;
    synthesize(cs, arity, depth, leaves[index], p);
    EXPECT_TRUE(cs.is_satisfied());
    EXPECT_NE(cs.inputs()[1], tree.root());
    EXPECT_NE(cs.inputs()[2], Fr::from_u64(index));
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
