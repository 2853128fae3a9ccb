// AllocatedNum / Num gadgets on random field elements: arithmetic, inputs, conditional
// reversal, bit decompositions (including a forged non-canonical decomposition that the
// strict check rejects) and packing bits into public inputs.
#include <gtest/gtest.h>

#include <string>

#include "gadget_test_util.hpp"
#include "gadgets/num.hpp"
#include "test_seed.hpp"

using namespace snarkpipe::gadgets;
using namespace gadget_test;
using snarkpipe::circuit::SynthesisError;
namespace ff = snarkpipe::ff;

TEST(AllocatedNum, Arithmetic) {
  SeededRng rng(test_seed("AllocatedNum.Arithmetic"));
  for (int iter = 0; iter < 20; ++iter) {
    TestConstraintSystem cs;
    const Fr x = Fr::random(rng), y = Fr::random(rng);
    const auto a = AllocatedNum::alloc(cs, "a", x), b = AllocatedNum::alloc(cs, "b", y);
    const auto p = a.mul(cs, "mul", b);
    const auto s = a.square(cs, "square");
    const auto t = a.add(cs, "add", b);
    EXPECT_EQ(cs.value(p.variable()), x * y);
    EXPECT_EQ(cs.value(s.variable()), x.square());
    EXPECT_EQ(cs.value(t.variable()), x + y);
    EXPECT_EQ(cs.eval(a.add_lc(b)), x + y);
    EXPECT_EQ(*p.value(), x * y);
    EXPECT_EQ(cs.num_constraints(), 3u);
    EXPECT_TRUE(cs.is_satisfied());
    cs.set(p.variable(), x * y + Fr::one());
    EXPECT_EQ(cs.which_is_unsatisfied(), "mul/multiplication");
  }
}

TEST(AllocatedNum, InputsAndNonzero) {
  SeededRng rng(test_seed("AllocatedNum.InputsAndNonzero"));
  TestConstraintSystem cs;
  const Fr x = Fr::random(rng);
  const auto a = AllocatedNum::alloc(cs, "a", x);
  const auto in = a.inputize(cs, "expose");
  const auto direct = AllocatedNum::alloc_input(cs, "direct", x.square());
  ASSERT_EQ(cs.num_inputs(), 3u);
  EXPECT_EQ(cs.inputs()[1], x);
  EXPECT_EQ(cs.inputs()[2], x.square());
  EXPECT_TRUE(in.variable().is_input());
  EXPECT_TRUE(direct.variable().is_input());
  a.assert_nonzero(cs, "nonzero");
  EXPECT_TRUE(cs.is_satisfied());
  cs.set(in.variable(), x + Fr::one());
  EXPECT_EQ(cs.which_is_unsatisfied(), "expose/input equals value");

  TestConstraintSystem zero_cs;
  const auto z = AllocatedNum::alloc(zero_cs, "z", Fr::zero());
  EXPECT_THROW(z.assert_nonzero(zero_cs, "nonzero"), SynthesisError);
}

TEST(AllocatedNum, ConditionalReverse) {
  SeededRng rng(test_seed("AllocatedNum.ConditionalReverse"));
  for (int mode = 0; mode < 4; ++mode) {
    const bool c = mode & 1, allocated = mode & 2;
    TestConstraintSystem cs;
    const Fr x = Fr::random(rng), y = Fr::random(rng);
    const auto a = AllocatedNum::alloc(cs, "a", x), b = AllocatedNum::alloc(cs, "b", y);
    const Boolean cond = allocated ? Boolean::alloc(cs, "cond", c) : Boolean::constant(c);
    const std::size_t before = cs.num_constraints();
    const auto [first, second] = AllocatedNum::conditional_reverse(cs, "rev", a, b, cond);
    EXPECT_EQ(cs.num_constraints() - before, allocated ? 2u : 0u);
    EXPECT_EQ(cs.value(first.variable()), c ? y : x);
    EXPECT_EQ(cs.value(second.variable()), c ? x : y);
    EXPECT_TRUE(cs.is_satisfied());
    if (allocated) {
      cs.set(first.variable(), c ? x : y);
      EXPECT_FALSE(cs.is_satisfied());
    }
  }
}

TEST(AllocatedNum, ToBitsLe) {
  SeededRng rng(test_seed("AllocatedNum.ToBitsLe"));
  for (std::size_t n : {1u, 8u, 64u, 200u, 254u}) {
    SCOPED_TRACE(n);
    ff::Limbs<4> repr = Fr::random(rng).to_repr();
    for (std::size_t i = n; i < 256; ++i) repr[i / 64] &= ~(std::uint64_t(1) << (i % 64));
    const Fr x = *Fr::from_repr(repr);
    TestConstraintSystem cs;
    const auto a = AllocatedNum::alloc(cs, "a", x);
    const auto bits = a.to_bits_le(cs, "bits", n);
    ASSERT_EQ(bits.size(), n);
    for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(bit_in(cs, bits[i]), ff::test_bit(repr, i)) << i;
    EXPECT_EQ(cs.num_constraints(), n + 1);
    EXPECT_TRUE(cs.is_satisfied());
    EXPECT_EQ(cs.eval(Num::from_bits_le(bits).lc()), x);
  }
  // A value wider than the bits leaves the packing constraint unsatisfied.
  TestConstraintSystem cs;
  const auto a = AllocatedNum::alloc(cs, "a", Fr::from_u64(256));
  a.to_bits_le(cs, "bits", 8);
  EXPECT_EQ(cs.which_is_unsatisfied(), "bits/packing");
  EXPECT_THROW(a.to_bits_le(cs, "too wide", 255), std::invalid_argument);
}

TEST(AllocatedNum, ToBitsLeStrict) {
  SeededRng rng(test_seed("AllocatedNum.ToBitsLeStrict"));
  std::vector<Fr> values = {Fr::zero(), Fr::one(), -Fr::one(), -Fr::from_u64(2)};
  for (int i = 0; i < 8; ++i) values.push_back(Fr::random(rng));
  for (const Fr& x : values) {
    SCOPED_TRACE(x.to_hex());
    TestConstraintSystem cs;
    const auto a = AllocatedNum::alloc(cs, "a", x);
    const auto bits = a.to_bits_le_strict(cs, "bits");
    ASSERT_EQ(bits.size(), 255u);
    const auto repr = x.to_repr();
    for (std::size_t i = 0; i < 255; ++i) EXPECT_EQ(bit_in(cs, bits[i]), ff::test_bit(repr, i)) << i;
    EXPECT_TRUE(cs.is_satisfied()) << *cs.which_is_unsatisfied();
  }
  TestConstraintSystem cs;
  AllocatedNum::alloc(cs, "a", Fr::one()).to_bits_le_strict(cs, "bits");
  std::printf("[count] to_bits_le_strict: %zu constraints\n", cs.num_constraints());
}

// x and x + r pack to the same field element; give the gadget the bits of x + r with every
// AND of the canonical check recomputed consistently: only the canonical check can object.
TEST(AllocatedNum, ToBitsLeStrictRejectsNonCanonicalBits) {
  SeededRng rng(test_seed("AllocatedNum.ToBitsLeStrictRejectsNonCanonicalBits"));
  const std::uint64_t small = rng.next_u64() >> 8;
  TestConstraintSystem cs;
  const auto a = AllocatedNum::alloc(cs, "x", Fr::from_u64(small));
  const auto bits = a.to_bits_le_strict(cs, "strict");
  ASSERT_TRUE(cs.is_satisfied());

  ff::Limbs<4> forged{};
  ff::add_to(forged, ff::from_u64<4>(small), ff::FrParams::modulus);
  ASSERT_FALSE(ff::test_bit(forged, 255));
  for (std::size_t i = 0; i < 255; ++i) cs.set(*bits[i].variable(), ff::test_bit(forged, i) ? Fr::one() : Fr::zero());

  ff::Limbs<4> max = ff::FrParams::modulus;
  max[0] -= 1;
  std::optional<bool> tight;
  std::vector<bool> run;
  for (std::size_t k = 255; k-- > 0;) {
    if (ff::test_bit(max, k)) {
      run.push_back(ff::test_bit(forged, k));
      continue;
    }
    if (run.empty()) continue;
    std::size_t next = 0;
    if (!tight) tight = run[next++];
    for (; next < run.size(); ++next) {
      *tight = *tight && run[next];
      cs.set("strict/run ending at " + std::to_string(k) + "/and " + std::to_string(next) + "/and",
             *tight ? Fr::one() : Fr::zero());
    }
    run.clear();
  }
  const auto bad = cs.which_is_unsatisfied();
  ASSERT_TRUE(bad.has_value());
  EXPECT_NE(bad->find("boolean unless forced to 0"), std::string::npos) << *bad;
}

TEST(Num, PackingIntoInputs) {
  SeededRng rng(test_seed("Num.PackingIntoInputs"));
  for (std::size_t len : {1u, 128u, 256u, 300u}) {
    for (std::size_t chunk : {1u, 64u, 128u, 254u}) {
      TestConstraintSystem cs;
      const auto bytes = random_bytes(rng, (len + 7) / 8);
      auto bits = alloc_bits_be(cs, "bits", bytes.size(), bytes);
      bits.resize(len);
      std::vector<bool> native(len);
      for (std::size_t i = 0; i < len; ++i) native[i] = *bits[i].value();
      const auto inputs = pack_bits_be_into_inputs(cs, "pack", bits, chunk);
      const auto expect = pack_bits_be(native, chunk);
      ASSERT_EQ(inputs.size(), (len + chunk - 1) / chunk);
      ASSERT_EQ(expect.size(), inputs.size());
      for (std::size_t k = 0; k < inputs.size(); ++k) {
        EXPECT_EQ(cs.inputs()[1 + k], expect[k]);
        EXPECT_EQ(*inputs[k].value(), expect[k]);
      }
      EXPECT_TRUE(cs.is_satisfied());
    }
  }
  // Big-endian: the first bit is the most significant.
  EXPECT_EQ(pack_bits_be({true, false, false}, 3)[0], Fr::from_u64(4));
  EXPECT_EQ(pack_bits_be({true, true, false, true}, 2), (std::vector<Fr>{Fr::from_u64(3), Fr::from_u64(1)}));
  TestConstraintSystem cs;
  const Boolean b = Boolean::alloc(cs, "b", true);
  const Num n = Num::from_bits_be(std::vector<Boolean>{b, Boolean::constant(true), b.not_()});
  EXPECT_EQ(*n.value(), Fr::from_u64(6));
  EXPECT_EQ(cs.eval(n.lc()), Fr::from_u64(6));
}
