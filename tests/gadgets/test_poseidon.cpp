// Poseidon as neptune computes it: the round numbers against neptune's table, the Grain round
// constants against neptune's parameters file, the MDS matrix, neptune's known digests, the
// optimised permutation against the textbook one on random states, and the gadget (neptune's
// circuit.rs form) against the native hash on random inputs: values, neptune's constraint
// counts, satisfaction, a corrupted value caught, and the native trace against the aux values
// the gadget allocates. The permutation is also checked against @noble/curves in tests/interop
// and on real Filecoin data in test_poseidon_filecoin.
#include <gtest/gtest.h>
#include <openssl/evp.h>

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

constexpr std::size_t NEPTUNE_ARITIES[] = {2, 4, 8, 11, 16, 24, 36};

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

// neptune's scalar_from_u64s: four little-endian 64-bit limbs of the canonical integer.
Fr from_limbs(std::uint64_t l0, std::uint64_t l1, std::uint64_t l2, std::uint64_t l3) {
  return *Fr::from_repr({l0, l1, l2, l3});
}

}  // namespace

// neptune's test table (round_numbers.rs test_round_numbers_against_known_values): R_F = 8 and
// these R_P for widths t.
TEST(PoseidonParams, RoundNumbersMatchNeptune) {
  const std::pair<std::size_t, std::size_t> known[] = {
      {2, 55},  {3, 55},  {4, 56},  {5, 56},  {6, 56},  {7, 56},  {8, 57},  {9, 57},  {10, 57}, {11, 57},
      {12, 57}, {13, 57}, {14, 57}, {15, 57}, {16, 59}, {17, 59}, {25, 59}, {37, 60}, {65, 61}};
  for (const auto& [t, rp] : known) {
    const PoseidonRoundNumbers r = poseidon_round_numbers(t);
    EXPECT_EQ(r.full, 8u) << "t=" << t;
    EXPECT_EQ(r.partial, rp) << "t=" << t;
  }
  for (std::size_t arity : NEPTUNE_ARITIES) {
    const PoseidonParams& p = poseidon_params(arity);
    EXPECT_EQ(p.width, arity + 1);
    EXPECT_EQ(p.round_constants.size(), p.rounds() * p.width);
    EXPECT_EQ(p.mds.size(), p.width * p.width);
    EXPECT_EQ(p.compressed_round_constants.size(), p.width * p.full_rounds + p.partial_rounds);
    EXPECT_EQ(p.sparse_w_hat.size(), p.partial_rounds * p.width);
    EXPECT_EQ(p.sparse_v_rest.size(), p.partial_rounds * (p.width - 1));
    EXPECT_EQ(p.domain_tag, Fr::from_u64((std::uint64_t(1) << arity) - 1));
  }
  EXPECT_THROW(poseidon_params(0), std::invalid_argument);
  EXPECT_THROW(poseidon_params(POSEIDON_MAX_ARITY + 1), std::invalid_argument);
  EXPECT_THROW(make_poseidon_params(2, {7, 55}), std::invalid_argument);
}

// neptune's parameters/round_constants-1-1-255-9-8-57-73EDA7…00000001.txt (the reference
// script's output for field 1, S-box 1, 255 bits, t = 9, R_F = 8, R_P = 57; neptune's
// test_round_constants compares its generator with it): 585 constants; its first, second,
// tenth and last, and the SHA-256 of all 585 as 32-byte big-endian integers.
TEST(PoseidonParams, GrainRoundConstantsMatchNeptuneFile) {
  const PoseidonParams& p = poseidon_params(8);
  ASSERT_EQ(p.width, 9u);
  ASSERT_EQ(p.partial_rounds, 57u);
  ASSERT_EQ(p.round_constants.size(), 585u);
  EXPECT_EQ(p.round_constants[0].to_hex(), "6ce90d12c4045fe08c3caddb776dd84ac52b4ae7e48cd49443984154f2f4c2f9");
  EXPECT_EQ(p.round_constants[1].to_hex(), "0ccd9b480c84022b25a75b52c8e89d80b4fa6378d32e58f3a175504940bcec39");
  EXPECT_EQ(p.round_constants[9].to_hex(), "360b2608f1646cc80cbfcd36b07403013063c7ab25ce9b466296de838b37e488");
  EXPECT_EQ(p.round_constants[584].to_hex(), "3b3a75eb91b0f723bcc4ab7e449e4a011b8960063efe74670c05e545519d9a8c");
  std::vector<std::uint8_t> bytes(32 * p.round_constants.size());
  for (std::size_t i = 0; i < p.round_constants.size(); ++i) p.round_constants[i].to_bytes_be(bytes.data() + 32 * i);
  std::uint8_t digest[32];
  unsigned len = 0;
  ASSERT_EQ(EVP_Digest(bytes.data(), bytes.size(), digest, &len, EVP_sha256(), nullptr), 1);
  EXPECT_EQ(hex_of(digest), "53d16e2f1c0141cbfd5d8bfa4cb69abcbbd056d13a523f929a93e981434ee9f7");
}

// mds.rs generate_mds: M[i][j] = 1/(i + (t + j)); symmetric. For t = 3 row 0 is 1/3, 1/4, 1/5.
TEST(PoseidonParams, CauchyMdsAsNeptune) {
  const PoseidonParams& p2 = poseidon_params(2);
  EXPECT_EQ(p2.m(0, 0) * Fr::from_u64(3), Fr::one());
  EXPECT_EQ(p2.m(0, 1) * Fr::from_u64(4), Fr::one());
  EXPECT_EQ(p2.m(0, 2) * Fr::from_u64(5), Fr::one());
  for (std::size_t arity : NEPTUNE_ARITIES) {
    const PoseidonParams& p = poseidon_params(arity);
    for (std::size_t i = 0; i < p.width; ++i) {
      for (std::size_t j = 0; j < p.width; ++j) {
        ASSERT_EQ(p.m(i, j) * Fr::from_u64(i + j + p.width), Fr::one()) << arity << ": " << i << "," << j;
        ASSERT_EQ(p.m(i, j), p.m(j, i));
      }
    }
  }
}

// neptune's poseidon.rs hash_values (Strength::Standard, HashType::MerkleTree): the digest of
// the inputs Fr::from(0), ..., Fr::from(arity − 1), through every permutation mode (its test
// asserts Correct = OptimizedStatic = OptimizedDynamic = these).
TEST(PoseidonNative, NeptuneKnownDigests) {
  const std::pair<std::size_t, Fr> known[] = {
      {2, from_limbs(0x2e203c369a02e7ff, 0xa6fba9339d05a69d, 0x739e0fd902efe161, 0x396508d75e76a56b)},
      {4, from_limbs(0x019814ff6662075d, 0xfb6b4605bf1327ec, 0x00db3c6579229399, 0x58a54b10a9e5848a)},
      {8, from_limbs(0x2a9934f56d38a5e6, 0x4b682e9d9cc4aed9, 0x1201004211677077, 0x2394611da3a5de55)},
      {11, from_limbs(0xcee3bbc32b693163, 0x09f3dcd8ccb08fc1, 0x6ca537e232ebe87a, 0x0c0fc1b2e5227f28)},
      {16, from_limbs(0x1291c74060266d37, 0x5b8dbc6d30680a6f, 0xc1c2fb5a6f871e63, 0x2d3ae2663381ae8a)},
      {24, from_limbs(0xd7ef3569f585b321, 0xc3e779f6468815b1, 0x066f39bf783f3d9f, 0x63beb8831f11ae15)},
      {36, from_limbs(0x4473606dfa4e8140, 0x75cd368df8a8ac3c, 0x540a30e03c10bbaa, 0x699303082a6e5d5f)},
  };
  // The brief's hex spellings of three of them.
  EXPECT_EQ(known[0].second.to_hex(), "396508d75e76a56b739e0fd902efe161a6fba9339d05a69d2e203c369a02e7ff");
  EXPECT_EQ(known[2].second.to_hex(), "2394611da3a5de5512010042116770774b682e9d9cc4aed92a9934f56d38a5e6");
  EXPECT_EQ(known[3].second.to_hex(), "0c0fc1b2e5227f286ca537e232ebe87a09f3dcd8ccb08fc1cee3bbc32b693163");
  for (const auto& [arity, digest] : known) {
    const PoseidonParams& p = poseidon_params(arity);
    std::vector<Fr> in;
    for (std::size_t i = 0; i < arity; ++i) in.push_back(Fr::from_u64(i));
    EXPECT_EQ(native::poseidon_hash(p, in), digest) << "arity " << arity;
    EXPECT_EQ(native::poseidon_hash_reference(p, in), digest) << "arity " << arity;
    AuxWriter counter;
    EXPECT_EQ(native::poseidon_hash_trace(p, in, counter), digest) << "arity " << arity;
  }
}

// The optimised schedule (compressed constants, sparse partial rounds) is the textbook
// permutation on every state, not only on hash states.
TEST(PoseidonNative, OptimizedPermutationEqualsReference) {
  SeededRng rng(test_seed("PoseidonNative.OptimizedPermutationEqualsReference"));
  for (std::size_t arity : {1, 2, 3, 4, 8, 11, 16, 24, 36}) {
    const PoseidonParams& p = poseidon_params(arity);
    for (int rep = 0; rep < 4; ++rep) {
      auto a = random_frs(rng, p.width);
      auto b = a;
      native::poseidon_permute(p, a);
      native::poseidon_permute_reference(p, b);
      ASSERT_TRUE(a == b) << "arity " << arity;
      const auto in = random_frs(rng, arity);
      ASSERT_EQ(native::poseidon_hash(p, in), native::poseidon_hash_reference(p, in)) << "arity " << arity;
    }
  }
  // Also with other round numbers (the factorisation and compression are generic).
  const PoseidonParams odd = make_poseidon_params(3, {4, 9});
  auto a = random_frs(rng, odd.width);
  auto b = a;
  native::poseidon_permute(odd, a);
  native::poseidon_permute_reference(odd, b);
  EXPECT_TRUE(a == b);
  std::vector<Fr> wrong(3);
  EXPECT_THROW(native::poseidon_permute(odd, wrong), std::invalid_argument);
}

// The native hash depends on every input.
TEST(PoseidonNative, InputSensitivity) {
  SeededRng rng(test_seed("PoseidonNative.InputSensitivity"));
  for (std::size_t arity : {2, 4, 8, 11}) {
    const PoseidonParams& p = poseidon_params(arity);
    const auto in = random_frs(rng, arity);
    const Fr h = native::poseidon_hash(p, in);
    for (std::size_t k = 0; k < arity; ++k) {
      auto changed = in;
      changed[k] += Fr::one();
      EXPECT_NE(native::poseidon_hash(p, changed), h) << arity << " " << k;
    }
  }
}

// neptune's circuit.rs test_poseidon_hash (Standard): 311, 377, 505, 761, 1009, 1385
// constraints for arities 2, 4, 8, 16, 24, 36, which its formula 3·(t·R_F + R_P − 1) +
// (t·R_F + R_P − arity) also gives for 11: 598.
TEST(PoseidonGadget, MatchesNativeAndNeptuneConstraintCounts) {
  SeededRng rng(test_seed("PoseidonGadget.MatchesNativeAndNeptuneConstraintCounts"));
  const std::pair<std::size_t, std::size_t> counts[] = {{2, 311},  {4, 377},   {8, 505},  {11, 598},
                                                        {16, 761}, {24, 1009}, {36, 1385}};
  for (const auto& [arity, expected] : counts) {
    SCOPED_TRACE("arity " + std::to_string(arity));
    const PoseidonParams& p = poseidon_params(arity);
    EXPECT_EQ(poseidon_hash_constraints(p), expected);
    const auto in = random_frs(rng, arity);
    TestConstraintSystem cs;
    const Num out = hash_in(cs, p, in);
    EXPECT_TRUE(cs.is_satisfied()) << *cs.which_is_unsatisfied();
    const Fr reference = native::poseidon_hash_reference(p, in);
    EXPECT_EQ(*out.value(), reference);
    EXPECT_EQ(cs.eval(out.lc()), reference);
    EXPECT_EQ(cs.num_constraints(), expected);
    EXPECT_EQ(cs.num_aux(), arity + expected);
    std::printf("[count] poseidon arity %zu (width %zu, R_F %zu, R_P %zu): %zu constraints\n", arity, p.width,
                p.full_rounds, p.partial_rounds, cs.num_constraints());

    // Any allocated value changed breaks a constraint.
    for (int rep = 0; rep < 3; ++rep) {
      TestConstraintSystem bad;
      hash_in(bad, p, in);
      const std::size_t victim = arity + rng.next_u64() % (bad.num_aux() - arity);
      const auto var = snarkpipe::circuit::Variable::aux(std::uint32_t(victim));
      bad.set(var, bad.value(var) + Fr::one());
      EXPECT_FALSE(bad.is_satisfied()) << "aux " << victim;
    }
  }
  // Inputs that are linear combinations (not single variables) cost nothing extra.
  {
    const PoseidonParams& p = poseidon_params(2);
    const auto in = random_frs(rng, 4);
    TestConstraintSystem cs;
    std::vector<AllocatedNum> vars;
    for (std::size_t i = 0; i < 4; ++i) vars.push_back(AllocatedNum::alloc(cs, "v" + std::to_string(i), in[i]));
    const std::vector<Num> sums = {Num(vars[0].add_lc(vars[1]), in[0] + in[1]),
                                   Num(vars[2].add_lc(vars[3]), in[2] + in[3])};
    const Num out = poseidon_hash_gadget(cs, "h", p, sums);
    EXPECT_TRUE(cs.is_satisfied());
    const std::vector<Fr> expected_in = {in[0] + in[1], in[2] + in[3]};
    EXPECT_EQ(cs.eval(out.lc()), native::poseidon_hash_reference(p, expected_in));
    EXPECT_EQ(cs.num_constraints(), 311u);
  }
}

// Recording (no values) and the witness system agree with the test system; the trace
// writes exactly the gadget's aux values.
TEST(PoseidonGadget, RecordedCircuitAndTrace) {
  SeededRng rng(test_seed("PoseidonGadget.RecordedCircuitAndTrace"));
  for (std::size_t arity : {1, 2, 8, 11, 16}) {
    SCOPED_TRACE("arity " + std::to_string(arity));
    const PoseidonParams& p = poseidon_params(arity);
    const auto in = random_frs(rng, arity);
    RecordingConstraintSystem rec;
    hash_in(rec, p, std::nullopt);
    EXPECT_EQ(rec.num_constraints(), poseidon_hash_constraints(p));
    const auto r1cs = rec.finish();
    WitnessConstraintSystem ws;
    const Num out = hash_in(ws, p, in);
    EXPECT_TRUE(snarkpipe::circuit::is_satisfied(r1cs, ws.inputs(), ws.aux()).ok());
    EXPECT_EQ(*out.value(), native::poseidon_hash_reference(p, in));

    std::vector<Fr> traced(ws.aux().size());
    std::copy_n(in.begin(), arity, traced.begin());
    AuxWriter w(traced.data() + arity);
    EXPECT_EQ(native::poseidon_hash_trace(p, in, w), *out.value());
    EXPECT_EQ(w.size() + arity, traced.size());
    EXPECT_TRUE(traced == ws.aux());
    AuxWriter counter;
    native::poseidon_hash_trace(p, in, counter);
    EXPECT_EQ(counter.size(), poseidon_hash_constraints(p));

    // A wrong digest with the right inputs does not satisfy the recorded circuit.
    std::vector<Fr> aux = ws.aux();
    aux.back() += Fr::one();
    EXPECT_FALSE(snarkpipe::circuit::is_satisfied(r1cs, ws.inputs(), aux).ok());
  }
}

TEST(PoseidonGadget, RejectsWrongArity) {
  TestConstraintSystem cs;
  const PoseidonParams& p = poseidon_params(4);
  std::vector<Num> three(3);
  EXPECT_THROW(poseidon_hash_gadget(cs, "h", p, three), std::invalid_argument);
  const std::vector<Fr> two(2);
  EXPECT_THROW(native::poseidon_hash(p, two), std::invalid_argument);
  EXPECT_THROW(native::poseidon_hash_reference(p, two), std::invalid_argument);
  AuxWriter w;
  EXPECT_THROW(native::poseidon_hash_trace(p, two, w), std::invalid_argument);
}
