// Merkle trees: the native tree against a direct OpenSSL computation, every path of small
// trees, and the inclusion gadget against the native root for random trees and positions;
// a wrong sibling or position gives other public inputs, a corrupted one breaks a constraint.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <string>

#include "circuit/recording_cs.hpp"
#include "circuit/spmv.hpp"
#include "circuit/witness_cs.hpp"
#include "gadget_test_util.hpp"
#include "gadgets/merkle.hpp"
#include "test_seed.hpp"

using namespace snarkpipe::gadgets;
using namespace gadget_test;
using snarkpipe::circuit::ConstraintSystem;
using snarkpipe::circuit::R1cs;
using snarkpipe::circuit::RecordingConstraintSystem;
using snarkpipe::circuit::WitnessConstraintSystem;

namespace {

Sha256Digest openssl_node(const Sha256Digest& l, const Sha256Digest& r) {
  std::uint8_t buf[64];
  std::copy(l.begin(), l.end(), buf);
  std::copy(r.begin(), r.end(), buf + 32);
  Sha256Digest out;
  unsigned int len = 0;
  EXPECT_EQ(EVP_Digest(buf, 64, out.data(), &len, EVP_sha256(), nullptr), 1);
  return out;
}

Sha256Digest openssl_root(std::span<const Sha256Digest> leaves) {
  if (leaves.size() == 1) return leaves[0];
  const std::size_t h = leaves.size() / 2;
  return openssl_node(openssl_root(leaves.first(h)), openssl_root(leaves.subspan(h)));
}

std::vector<Sha256Digest> random_leaves(SeededRng& rng, std::size_t n) {
  std::vector<Sha256Digest> leaves(n);
  for (auto& l : leaves) {
    const auto b = random_bytes(rng, 32);
    std::copy(b.begin(), b.end(), l.begin());
  }
  return leaves;
}

std::optional<std::vector<std::uint8_t>> bytes(const Sha256Digest& d) {
  return std::vector<std::uint8_t>(d.begin(), d.end());
}

struct Synthesized {
  std::vector<Boolean> leaf, index_bits, root;
  std::vector<std::vector<Boolean>> siblings;
};

Synthesized synthesize_inclusion(ConstraintSystem& cs, const Sha256Digest& leaf, const MerklePath& path) {
  Synthesized s;
  s.leaf = alloc_bits_be(cs, "leaf", 32, bytes(leaf));
  for (std::size_t j = 0; j < path.siblings.size(); ++j) {
    s.siblings.push_back(alloc_bits_be(cs, "sibling " + std::to_string(j), 32, bytes(path.siblings[j])));
    s.index_bits.push_back(Boolean::alloc(cs, "index bit " + std::to_string(j), ((path.index >> j) & 1) != 0));
  }
  s.root = merkle_inclusion(cs, "inclusion", s.leaf, s.siblings, s.index_bits);
  return s;
}

// The same circuit with no witness, as setup sees it.
void synthesize_inclusion_without_values(ConstraintSystem& cs, std::size_t depth) {
  const auto leaf = alloc_bits_be(cs, "leaf", 32, std::nullopt);
  std::vector<std::vector<Boolean>> siblings;
  std::vector<Boolean> index_bits;
  for (std::size_t j = 0; j < depth; ++j) {
    siblings.push_back(alloc_bits_be(cs, "sibling " + std::to_string(j), 32, std::nullopt));
    index_bits.push_back(Boolean::alloc(cs, "index bit " + std::to_string(j), std::nullopt));
  }
  merkle_inclusion(cs, "inclusion", leaf, siblings, index_bits);
}

std::vector<Fr> public_inputs_of(const TestConstraintSystem& cs) {
  return {cs.inputs().begin() + 1, cs.inputs().end()};
}

// The path a prover takes: the R1CS recorded without values, the assignment computed alone,
// then checked row by row.
struct ProductionRun {
  bool satisfied = false;
  std::uint64_t num_constraints = 0;
  std::vector<Boolean> root;  // carries the witness values
  std::vector<Fr> public_inputs;
};

ProductionRun run_production(const Sha256Digest& leaf, const MerklePath& path) {
  RecordingConstraintSystem rec;
  synthesize_inclusion_without_values(rec, path.siblings.size());
  const std::uint64_t n = rec.num_constraints();
  const R1cs r1cs = rec.finish();
  WitnessConstraintSystem ws;
  ProductionRun run;
  run.root = synthesize_inclusion(ws, leaf, path).root;
  run.satisfied = snarkpipe::circuit::is_satisfied(r1cs, ws.inputs(), ws.aux()).ok();
  run.num_constraints = n;
  run.public_inputs.assign(ws.inputs().begin() + 1, ws.inputs().end());
  return run;
}

}  // namespace

TEST(MerkleNative, TreeMatchesOpenSSLAndEveryPathVerifies) {
  SeededRng rng(test_seed("MerkleNative.TreeMatchesOpenSSLAndEveryPathVerifies"));
  for (std::size_t depth = 1; depth <= 6; ++depth) {
    const auto leaves = random_leaves(rng, std::size_t(1) << depth);
    const MerkleTree tree(leaves);
    EXPECT_EQ(tree.depth(), depth);
    EXPECT_EQ(tree.root(), openssl_root(leaves)) << depth;
    for (std::uint64_t i = 0; i < leaves.size(); ++i) {
      const MerklePath p = tree.path(i);
      ASSERT_EQ(p.siblings.size(), depth);
      EXPECT_EQ(merkle_root_from_path(leaves[i], p), tree.root()) << depth << " " << i;
    }
    EXPECT_THROW(tree.path(leaves.size()), std::out_of_range);
  }
  EXPECT_THROW(MerkleTree(random_leaves(rng, 3)), std::invalid_argument);
  EXPECT_THROW(MerkleTree(random_leaves(rng, 1)), std::invalid_argument);
}

// The smallest tree also through the test system (names, first failing constraint); all
// depths 1..5 through the production pair (recording without values, witness only) and the R1CS check.
TEST(MerkleGadget, RootMatchesNativeForRandomTrees) {
  SeededRng rng(test_seed("MerkleGadget.RootMatchesNativeForRandomTrees"));
  for (std::size_t depth = 1; depth <= 5; ++depth) {
    SCOPED_TRACE("depth " + std::to_string(depth));
    const auto leaves = random_leaves(rng, std::size_t(1) << depth);
    const MerkleTree tree(leaves);
    const std::uint64_t index = rng.next_u64() % leaves.size();
    const MerklePath path = tree.path(index);

    const ProductionRun run = run_production(leaves[index], path);
    EXPECT_TRUE(run.satisfied);
    EXPECT_EQ(hex_of(*bits_to_bytes_be(run.root)), hex_of(tree.root()));
    EXPECT_EQ(run.public_inputs, merkle_public_inputs(tree.root(), index));
    EXPECT_EQ(run.public_inputs.back(), Fr::from_u64(index));
    std::printf("[count] merkle inclusion depth %zu (leaf, sibling and index bits included): %llu constraints\n", depth,
                (unsigned long long)run.num_constraints);

    if (depth == 1) {  // the test system is slow: the smallest tree only
      TestConstraintSystem cs;
      const Synthesized s = synthesize_inclusion(cs, leaves[index], path);
      EXPECT_EQ(hex_of(bytes_in(cs, s.root)), hex_of(tree.root()));
      EXPECT_TRUE(cs.is_satisfied()) << *cs.which_is_unsatisfied();
      EXPECT_EQ(public_inputs_of(cs), run.public_inputs);
      EXPECT_EQ(cs.num_constraints(), run.num_constraints);
    }
  }
}

TEST(MerkleGadget, WrongSiblingOrPosition) {
  SeededRng rng(test_seed("MerkleGadget.WrongSiblingOrPosition"));
  const std::size_t depth = 3;
  const auto leaves = random_leaves(rng, std::size_t(1) << depth);
  const MerkleTree tree(leaves);
  const std::uint64_t index = rng.next_u64() % leaves.size();
  const auto expected = merkle_public_inputs(tree.root(), index);

  // A wrong sibling in the witness: the circuit holds, for another root.
  {
    MerklePath p = tree.path(index);
    p.siblings[rng.next_u64() % depth][rng.next_u64() % 32] ^= std::uint8_t(1u << (rng.next_u64() % 8));
    const ProductionRun run = run_production(leaves[index], p);
    EXPECT_TRUE(run.satisfied);
    EXPECT_FALSE(run.public_inputs[0] == expected[0] && run.public_inputs[1] == expected[1]);
    EXPECT_EQ(run.public_inputs[2], expected[2]);
  }
  // A wrong position: another root (the order of a hash flips) and another index.
  {
    MerklePath p = tree.path(index);
    p.index ^= std::uint64_t(1) << (rng.next_u64() % depth);
    const ProductionRun run = run_production(leaves[index], p);
    EXPECT_TRUE(run.satisfied);
    EXPECT_FALSE(run.public_inputs[0] == expected[0] && run.public_inputs[1] == expected[1]);
    EXPECT_NE(run.public_inputs[2], expected[2]);
  }
  // A sibling bit or an index bit corrupted after synthesis: a constraint fails.
  {
    const auto small_leaves = random_leaves(rng, 2);
    const MerkleTree small(small_leaves);
    const std::uint64_t i = rng.next_u64() % 2;
    TestConstraintSystem cs;
    const Synthesized s = synthesize_inclusion(cs, small_leaves[i], small.path(i));
    ASSERT_TRUE(cs.is_satisfied());
    for (const Boolean& victim : {s.siblings[0][rng.next_u64() % 256], s.index_bits[0]}) {
      flip(cs, *victim.variable());
      const auto bad = cs.which_is_unsatisfied();
      ASSERT_TRUE(bad.has_value());
      EXPECT_EQ(bad->rfind("inclusion/", 0), 0u) << *bad;
      flip(cs, *victim.variable());
    }
  }
}

TEST(MerkleGadget, RejectsMismatchedSizes) {
  TestConstraintSystem cs;
  const std::vector<Boolean> leaf(256), short_leaf(255);
  const std::vector<std::vector<Boolean>> siblings(2, std::vector<Boolean>(256));
  const std::vector<Boolean> index_bits(3);
  EXPECT_THROW(merkle_root_gadget(cs, "a", short_leaf, siblings, std::span(index_bits).first(2)),
               std::invalid_argument);
  EXPECT_THROW(merkle_root_gadget(cs, "b", leaf, siblings, index_bits), std::invalid_argument);
}
