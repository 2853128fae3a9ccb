// The porep-like circuit: the recorded R1CS is satisfied by the generic witness and its
// public inputs are the natively computed ones; the fast witness path equals the generic one
// value for value (inputs and aux) for several shapes; a witness inconsistent with the
// commitments, or a corrupted fast witness, fails the recorded circuit.
#include <gtest/gtest.h>

#include <string>

#include "circuit/recording_cs.hpp"
#include "circuit/spmv.hpp"
#include "circuit/witness_cs.hpp"
#include "gadget_test_util.hpp"
#include "gadgets/porep_like.hpp"
#include "test_seed.hpp"

using namespace snarkpipe::gadgets;
using namespace gadget_test;
using snarkpipe::circuit::R1cs;
using snarkpipe::circuit::RecordingConstraintSystem;
using snarkpipe::circuit::WitnessConstraintSystem;

namespace {

R1cs record(const PorepLikeParams& p) {
  RecordingConstraintSystem rec;
  PorepLikeCircuit(p, std::nullopt).synthesize(rec);
  return rec.finish();
}

struct Assignment {
  std::vector<Fr> inputs, aux;
};

Assignment generic_witness(const PorepLikeParams& p, const PorepLikeWitness& w) {
  WitnessConstraintSystem ws;
  PorepLikeCircuit(p, w).synthesize(ws);
  return {ws.take_inputs(), ws.take_aux()};
}

Assignment fast_witness(const PorepLikeParams& p, const PorepLikeWitness& w) {
  const PorepLikeLayout layout = porep_like_layout(p);
  Assignment a{std::vector<Fr>(layout.num_inputs), std::vector<Fr>(layout.num_aux())};
  porep_like_fast_witness(p, w, a.inputs, a.aux);
  return a;
}

}  // namespace

TEST(PorepLike, FastWitnessEqualsGenericAndSatisfiesRecordedCircuit) {
  SeededRng rng(test_seed("PorepLike.FastWitnessEqualsGenericAndSatisfiesRecordedCircuit"));
  for (const PorepLikeParams& p : {PorepLikeParams::preset("tiny"), PorepLikeParams{3, 3, 6, 3}}) {
    SCOPED_TRACE(p.describe());
    const PorepLikeWitness w = PorepLikeWitness::random(p, rng.next_u64());
    const R1cs r1cs = record(p);
    const Assignment generic = generic_witness(p, w);
    ASSERT_EQ(generic.aux.size(), r1cs.num_aux);
    ASSERT_EQ(generic.inputs.size(), r1cs.num_inputs);
    EXPECT_TRUE(snarkpipe::circuit::is_satisfied(r1cs, generic.inputs, generic.aux).ok());
    const std::vector<Fr> pub = porep_like_public_inputs(p, w);
    EXPECT_EQ(std::vector<Fr>(generic.inputs.begin() + 1, generic.inputs.end()), pub);
    EXPECT_EQ(pub.size(), 3 + p.challenges);

    const PorepLikeLayout layout = porep_like_layout(p);
    EXPECT_EQ(layout.num_aux(), r1cs.num_aux);
    const Assignment fast = fast_witness(p, w);
    EXPECT_TRUE(fast.inputs == generic.inputs);
    ASSERT_EQ(fast.aux.size(), generic.aux.size());
    std::size_t first_diff = fast.aux.size();
    for (std::size_t i = 0; i < fast.aux.size() && first_diff == fast.aux.size(); ++i) {
      if (!(fast.aux[i] == generic.aux[i])) first_diff = i;
    }
    EXPECT_EQ(first_diff, fast.aux.size()) << "first differing aux value";
    std::printf("[count] porep-like %s: %llu constraints, %llu aux, %llu per challenge\n", p.describe().c_str(),
                (unsigned long long)r1cs.num_constraints, (unsigned long long)r1cs.num_aux,
                (unsigned long long)layout.challenge_aux);
  }
}

// SpMV skips work for ±1 coefficients and 0/1 values; on a real witness (bits, Poseidon
// states, packing coefficients) it must equal the plain Σ coeff·z of every row.
TEST(PorepLike, SpmvMatchesPlainDotProducts) {
  SeededRng rng(test_seed("PorepLike.SpmvMatchesPlainDotProducts"));
  const PorepLikeParams p = PorepLikeParams::preset("tiny");
  const R1cs r1cs = record(p);
  const Assignment a = fast_witness(p, PorepLikeWitness::random(p, rng.next_u64()));
  std::vector<Fr> z = a.inputs;
  z.insert(z.end(), a.aux.begin(), a.aux.end());
  const auto e = snarkpipe::circuit::evaluate(r1cs, a.inputs, a.aux);
  std::size_t special = 0;
  for (const auto& [m, out] : {std::pair{&r1cs.a, &e.a}, std::pair{&r1cs.b, &e.b}, std::pair{&r1cs.c, &e.c}}) {
    for (std::size_t r = 0; r < m->num_rows(); ++r) {
      Fr acc = Fr::zero();
      const auto cols = m->row_cols(r);
      const auto vals = m->row_vals(r);
      for (std::size_t k = 0; k < cols.size(); ++k) {
        acc += vals[k] * z[cols[k]];
        special += !(vals[k] == Fr::one() || vals[k] == -Fr::one()) && (z[cols[k]].is_zero() || z[cols[k]].is_one());
      }
      ASSERT_EQ(acc, (*out)[r]) << "row " << r;
    }
  }
  EXPECT_GT(special, r1cs.num_constraints / 10);  // the 0/1 shortcut was exercised
}

TEST(PorepLike, InconsistentWitnessFails) {
  SeededRng rng(test_seed("PorepLike.InconsistentWitnessFails"));
  const PorepLikeParams p = PorepLikeParams::preset("tiny");
  const R1cs r1cs = record(p);
  const PorepLikeWitness good = PorepLikeWitness::random(p, rng.next_u64());

  // A parent label changed: the labels, the column hash and the encoding no longer open to
  // the committed trees.
  {
    PorepLikeWitness bad = good;
    auto& parents = bad.challenges[rng.next_u64() % p.challenges].parent_labels[0];
    parents[rng.next_u64() % parents.size()][rng.next_u64() % 32] ^= 1;
    const Assignment a = generic_witness(p, bad);
    EXPECT_FALSE(snarkpipe::circuit::is_satisfied(r1cs, a.inputs, a.aux).ok());
  }
  // A data sibling of the second challenge changed: its path opens to another comm_d than
  // the public one (which the first challenge's path fixes).
  {
    PorepLikeWitness bad = good;
    bad.challenges[1].data_path.siblings[0][0] ^= 0x80;
    const Assignment a = generic_witness(p, bad);
    EXPECT_EQ(porep_like_public_inputs(p, bad), porep_like_public_inputs(p, good));
    EXPECT_FALSE(snarkpipe::circuit::is_satisfied(r1cs, a.inputs, a.aux).ok());
  }
  // One fast-path aux value corrupted.
  {
    Assignment a = fast_witness(p, good);
    ASSERT_TRUE(snarkpipe::circuit::is_satisfied(r1cs, a.inputs, a.aux).ok());
    a.aux[rng.next_u64() % a.aux.size()] += Fr::one();
    EXPECT_FALSE(snarkpipe::circuit::is_satisfied(r1cs, a.inputs, a.aux).ok());
  }
}

TEST(PorepLike, RejectsBadParametersAndWitnesses) {
  EXPECT_THROW(PorepLikeParams::preset("huge"), std::invalid_argument);
  EXPECT_THROW((PorepLikeParams{1, 2, 4, 2}.validate()), std::invalid_argument);  // 4 not a multiple of 3
  EXPECT_THROW((PorepLikeParams{9, 2, 3, 2}.validate()), std::invalid_argument);  // 9 challenges, 8 nodes
  EXPECT_THROW((PorepLikeParams{1, 0, 3, 2}.validate()), std::invalid_argument);
  EXPECT_THROW((PorepLikeParams{1, 2, 3, 0}.validate()), std::invalid_argument);
  const PorepLikeParams p = PorepLikeParams::preset("tiny");
  PorepLikeWitness w = PorepLikeWitness::random(p, 7);
  w.challenges[0].column_path.siblings.pop_back();
  EXPECT_THROW(PorepLikeCircuit(p, w), std::invalid_argument);
  std::vector<Fr> inputs(porep_like_layout(p).num_inputs), aux(porep_like_layout(p).num_aux());
  EXPECT_THROW(porep_like_fast_witness(p, w, inputs, aux), std::invalid_argument);
}
