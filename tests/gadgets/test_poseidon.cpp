// Poseidon: the round numbers against neptune's known values, the gadget against the native
// hash on random inputs (values, constraint count, satisfaction, a corrupted S-box output
// caught), and the native trace against the aux values the gadget allocates. The constants
// and the permutation are checked against @noble/curves in tests/interop.
#include <gtest/gtest.h>

#include <string>

#include "circuit/recording_cs.hpp"
#include "circuit/spmv.hpp"
#include "circuit/witness_cs.hpp"
#include "gadget_test_util.hpp"
#include "gadgets/poseidon.hpp"
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

// The inputs as allocated variables, then the hash.
Num hash_in(ConstraintSystem& cs, const PoseidonParams& p, const std::optional<std::vector<Fr>>& inputs) {
  std::vector<Num> nums;
  for (std::size_t i = 0; i < p.arity; ++i) {
    std::optional<Fr> v;
    if (inputs) v = (*inputs)[i];
    nums.push_back(Num::of(AllocatedNum::alloc(cs, "input " + std::to_string(i), v)));
  }
  return poseidon_hash_gadget(cs, "poseidon", p, nums);
}

}  // namespace

// neptune's test table (round_numbers.rs): R_F = 8 and these R_P for widths t.
TEST(PoseidonParams, RoundNumbersMatchNeptune) {
  const std::pair<std::size_t, std::size_t> known[] = {{2, 55},  {3, 55},  {4, 56},  {5, 56},  {6, 56},
                                                       {7, 56},  {8, 57},  {9, 57},  {10, 57}, {11, 57},
                                                       {12, 57}, {13, 57}, {14, 57}, {15, 57}, {16, 59},
                                                       {17, 59}, {25, 59}, {37, 60}, {65, 61}};
  for (const auto& [t, rp] : known) {
    const PoseidonRoundNumbers r = poseidon_round_numbers(t);
    EXPECT_EQ(r.full, 8u) << "t=" << t;
    EXPECT_EQ(r.partial, rp) << "t=" << t;
  }
  for (std::size_t arity : {2, 4, 8, 11}) {
    const PoseidonParams& p = poseidon_params(arity);
    EXPECT_EQ(p.width, arity + 1);
    EXPECT_EQ(p.round_constants.size(), p.rounds() * p.width);
    EXPECT_EQ(p.mds.size(), p.width * p.width);
    EXPECT_EQ(p.domain_tag, Fr::from_u64((1u << arity) - 1));
  }
  EXPECT_THROW(poseidon_params(0), std::invalid_argument);
  EXPECT_THROW(poseidon_params(POSEIDON_MAX_ARITY + 1), std::invalid_argument);
  EXPECT_THROW(make_poseidon_params(2, {7, 55}), std::invalid_argument);
}

// The matrix is a Cauchy matrix 1/(x_i + y_j): every 2×2 minor is non-zero (MDS property on
// the smallest squares), and the native hash depends on every input.
TEST(PoseidonNative, MdsMinorsAndInputSensitivity) {
  SeededRng rng(test_seed("PoseidonNative.MdsMinorsAndInputSensitivity"));
  for (std::size_t arity : {2, 4, 8, 11}) {
    const PoseidonParams& p = poseidon_params(arity);
    for (std::size_t i = 0; i + 1 < p.width; ++i) {
      for (std::size_t j = 0; j + 1 < p.width; ++j) {
        EXPECT_FALSE((p.m(i, j) * p.m(i + 1, j + 1) - p.m(i, j + 1) * p.m(i + 1, j)).is_zero());
      }
    }
    const auto in = random_frs(rng, arity);
    const Fr h = native::poseidon_hash(p, in);
    for (std::size_t k = 0; k < arity; ++k) {
      auto changed = in;
      changed[k] += Fr::one();
      EXPECT_NE(native::poseidon_hash(p, changed), h) << arity << " " << k;
    }
  }
}

TEST(PoseidonGadget, MatchesNativeAndCountsConstraints) {
  SeededRng rng(test_seed("PoseidonGadget.MatchesNativeAndCountsConstraints"));
  for (std::size_t arity : {1, 2, 4, 8, 11}) {
    SCOPED_TRACE("arity " + std::to_string(arity));
    const PoseidonParams& p = poseidon_params(arity);
    const auto in = random_frs(rng, arity);
    TestConstraintSystem cs;
    const Num out = hash_in(cs, p, in);
    EXPECT_TRUE(cs.is_satisfied()) << *cs.which_is_unsatisfied();
    const Fr expected = native::poseidon_hash(p, in);
    EXPECT_EQ(*out.value(), expected);
    EXPECT_EQ(cs.eval(out.lc()), expected);
    EXPECT_EQ(cs.num_constraints(), poseidon_hash_constraints(p));
    EXPECT_EQ(cs.num_aux(), arity + poseidon_hash_constraints(p));
    std::printf("[count] poseidon arity %zu (width %zu, R_F %zu, R_P %zu): %zu constraints\n", arity, p.width,
                p.full_rounds, p.partial_rounds, cs.num_constraints());

    // Any S-box output changed breaks its constraint.
    const std::size_t victim = arity + rng.next_u64() % (cs.num_aux() - arity);
    const auto var = snarkpipe::circuit::Variable::aux(std::uint32_t(victim));
    cs.set(var, cs.value(var) + Fr::one());
    EXPECT_FALSE(cs.is_satisfied());
  }
}

// Recording (no values) and the witness system agree with the test system; the trace
// writes exactly the gadget's aux values.
TEST(PoseidonGadget, RecordedCircuitAndTrace) {
  SeededRng rng(test_seed("PoseidonGadget.RecordedCircuitAndTrace"));
  for (std::size_t arity : {2, 8, 11}) {
    SCOPED_TRACE("arity " + std::to_string(arity));
    const PoseidonParams& p = poseidon_params(arity);
    const auto in = random_frs(rng, arity);
    RecordingConstraintSystem rec;
    hash_in(rec, p, std::nullopt);
    const auto r1cs = rec.finish();
    WitnessConstraintSystem ws;
    const Num out = hash_in(ws, p, in);
    EXPECT_TRUE(snarkpipe::circuit::is_satisfied(r1cs, ws.inputs(), ws.aux()).ok());

    std::vector<Fr> traced(ws.aux().size());
    std::copy_n(in.begin(), arity, traced.begin());
    AuxWriter w(traced.data() + arity);
    EXPECT_EQ(native::poseidon_hash_trace(p, in, w), *out.value());
    EXPECT_EQ(w.size() + arity, traced.size());
    EXPECT_TRUE(traced == ws.aux());
    AuxWriter counter;
    native::poseidon_hash_trace(p, in, counter);
    EXPECT_EQ(counter.size(), poseidon_hash_constraints(p));
  }
}

TEST(PoseidonGadget, RejectsWrongArity) {
  TestConstraintSystem cs;
  const PoseidonParams& p = poseidon_params(4);
  std::vector<Num> three(3);
  EXPECT_THROW(poseidon_hash_gadget(cs, "h", p, three), std::invalid_argument);
  const std::vector<Fr> two(2);
  EXPECT_THROW(native::poseidon_hash(p, two), std::invalid_argument);
}
