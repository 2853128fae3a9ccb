// UInt32 gadgets on random words, each operand constant, allocated, or a random mix of
// constant, allocated and negated bits: values against native arithmetic, satisfaction,
// costs, and corrupted results caught.
#include <gtest/gtest.h>

#include <bit>
#include <string>

#include "gadget_test_util.hpp"
#include "gadgets/uint32.hpp"
#include "test_seed.hpp"

using namespace snarkpipe::gadgets;
using namespace gadget_test;

namespace {

enum class Mode { Constant, Allocated, Mixed };
constexpr Mode MODES[] = {Mode::Constant, Mode::Allocated, Mode::Mixed};

UInt32 make_word(TestConstraintSystem& cs, const std::string& name, std::uint32_t v, Mode mode, SeededRng& rng) {
  switch (mode) {
    case Mode::Constant:
      return UInt32::constant(v);
    case Mode::Allocated:
      return UInt32::alloc(cs, name, v);
    case Mode::Mixed: {
      std::vector<Boolean> bits;
      for (unsigned i = 0; i < 32; ++i) {
        const bool b = ((v >> i) & 1) != 0;
        const std::string bit_name = name + " bit " + std::to_string(i);
        switch (rng.next_u64() % 3) {
          case 0:
            bits.push_back(Boolean::constant(b));
            break;
          case 1:
            bits.push_back(Boolean::alloc(cs, bit_name, b));
            break;
          default:
            bits.push_back(Boolean::alloc(cs, bit_name, !b).not_());
            break;
        }
      }
      return UInt32::from_bits_le(bits);
    }
  }
  return {};
}

std::uint32_t random_word(SeededRng& rng) {
  // Mostly uniform, sometimes the extremes where carries pile up.
  switch (rng.next_u64() % 8) {
    case 0:
      return 0;
    case 1:
      return 0xffffffffu;
    default:
      return std::uint32_t(rng.next_u64());
  }
}

// Checks value(), the bits the system holds, and satisfaction.
void check_word(const TestConstraintSystem& cs, const UInt32& w, std::uint32_t want) {
  ASSERT_TRUE(w.value().has_value());
  EXPECT_EQ(*w.value(), want);
  EXPECT_EQ(word_in(cs, w), want);
  EXPECT_TRUE(cs.is_satisfied()) << *cs.which_is_unsatisfied();
}

// Flips an allocated result bit created by the operation; a constraint must notice.
void check_corruption_caught(TestConstraintSystem& cs, const UInt32& w, std::size_t aux_before, SeededRng& rng) {
  std::vector<snarkpipe::circuit::Variable> fresh;
  for (const Boolean& b : w.bits_le()) {
    if (const auto v = b.variable(); v && !v->is_input() && v->index >= aux_before) fresh.push_back(*v);
  }
  if (fresh.empty()) return;
  const auto v = fresh[rng.next_u64() % fresh.size()];
  flip(cs, v);
  EXPECT_FALSE(cs.is_satisfied());
  flip(cs, v);
}

}  // namespace

TEST(UInt32, ConstantAllocAndBitOrder) {
  SeededRng rng(test_seed("UInt32.ConstantAllocAndBitOrder"));
  const std::uint32_t v = std::uint32_t(rng.next_u64());
  TestConstraintSystem cs;
  const UInt32 a = UInt32::alloc(cs, "a", v);
  EXPECT_EQ(cs.num_constraints(), 32u);
  check_word(cs, a, v);
  check_word(cs, UInt32::constant(v), v);
  const auto be = a.to_bits_be();
  for (unsigned i = 0; i < 32; ++i) EXPECT_EQ(*be[i].value(), ((v >> (31 - i)) & 1) != 0);
  check_word(cs, UInt32::from_bits_be(be), v);
  EXPECT_THROW(UInt32::from_bits_be(std::vector<Boolean>(31)), std::invalid_argument);
  EXPECT_EQ(*UInt32().value(), 0u);
}

TEST(UInt32, RotationsAndShifts) {
  SeededRng rng(test_seed("UInt32.RotationsAndShifts"));
  TestConstraintSystem cs;
  for (int iter = 0; iter < 20; ++iter) {
    const std::uint32_t v = random_word(rng);
    const UInt32 a = UInt32::alloc(cs, std::string("a").append(std::to_string(iter)), v);
    for (unsigned by : {0u, 1u, 2u, 7u, 13u, 31u, 32u, 33u}) {
      check_word(cs, a.rotr(by), std::rotr(v, int(by % 32)));
      if (by < 32) check_word(cs, a.shr(by), v >> by);
    }
  }
  EXPECT_EQ(cs.num_constraints(), 20u * 32u);  // relabelling only
}

TEST(UInt32, XorChMaj) {
  SeededRng rng(test_seed("UInt32.XorChMaj"));
  for (Mode ma : MODES) {
    for (Mode mb : MODES) {
      for (Mode mc : MODES) {
        for (int iter = 0; iter < 3; ++iter) {
          TestConstraintSystem cs;
          const std::uint32_t x = random_word(rng), y = random_word(rng), z = random_word(rng);
          const UInt32 a = make_word(cs, "a", x, ma, rng), b = make_word(cs, "b", y, mb, rng),
                       c = make_word(cs, "c", z, mc, rng);
          const bool all_alloc = ma == Mode::Allocated && mb == Mode::Allocated && mc == Mode::Allocated;
          std::size_t aux = cs.num_aux(), before = cs.num_constraints();

          const UInt32 r_xor = a.xor_(cs, "xor", b);
          check_word(cs, r_xor, x ^ y);
          if (all_alloc) {
            EXPECT_EQ(cs.num_constraints() - before, 32u);
          }
          check_corruption_caught(cs, r_xor, aux, rng);

          aux = cs.num_aux(), before = cs.num_constraints();
          const UInt32 r_ch = UInt32::sha256_ch(cs, "ch", a, b, c);
          check_word(cs, r_ch, (x & y) ^ (~x & z));
          if (all_alloc) {
            EXPECT_EQ(cs.num_constraints() - before, 32u);
          }
          check_corruption_caught(cs, r_ch, aux, rng);

          aux = cs.num_aux(), before = cs.num_constraints();
          const UInt32 r_maj = UInt32::sha256_maj(cs, "maj", a, b, c);
          check_word(cs, r_maj, (x & y) ^ (x & z) ^ (y & z));
          if (all_alloc) {
            EXPECT_EQ(cs.num_constraints() - before, 64u);
          }
          check_corruption_caught(cs, r_maj, aux, rng);
        }
      }
    }
  }
}

TEST(UInt32, Addmany) {
  SeededRng rng(test_seed("UInt32.Addmany"));
  for (int iter = 0; iter < 200; ++iter) {
    TestConstraintSystem cs;
    const std::size_t n = 1 + rng.next_u64() % 10;
    std::vector<UInt32> ops;
    std::uint32_t want = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t v = random_word(rng);
      want += v;
      ops.push_back(make_word(cs, "op " + std::to_string(i), v, MODES[rng.next_u64() % 3], rng));
    }
    const std::size_t aux = cs.num_aux();
    const UInt32 sum = UInt32::addmany(cs, "sum", ops);
    check_word(cs, sum, want);
    check_corruption_caught(cs, sum, aux, rng);
  }
}

TEST(UInt32, AddmanyCosts) {
  SeededRng rng(test_seed("UInt32.AddmanyCosts"));
  // n full words: result width bit_width(n·(2^32 - 1)), plus one packing constraint.
  for (std::size_t n = 1; n <= 8; ++n) {
    TestConstraintSystem cs;
    std::vector<UInt32> ops;
    std::uint32_t want = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t v = 0xffffffffu - std::uint32_t(rng.next_u64() % 4);
      want += v;
      ops.push_back(UInt32::alloc(cs, "op " + std::to_string(i), v));
    }
    const std::size_t before = cs.num_constraints();
    check_word(cs, UInt32::addmany(cs, "sum", ops), want);
    const std::size_t width = std::bit_width(std::uint64_t(n) * 0xffffffffu);
    EXPECT_EQ(cs.num_constraints() - before, width + 1) << n;
  }
  // Constants fold into one term: an allocated word plus constants 1 and 2 needs 33 bits.
  TestConstraintSystem cs;
  const std::vector<UInt32> ops = {UInt32::alloc(cs, "x", 5), UInt32::constant(1), UInt32::constant(2)};
  check_word(cs, UInt32::addmany(cs, "sum", ops), 8);
  EXPECT_EQ(cs.num_constraints(), 32u + 33u + 1u);
  // All constants: a constant, no constraint.
  const std::vector<UInt32> consts = {UInt32::constant(0xffffffffu), UInt32::constant(3)};
  const UInt32 c = UInt32::addmany(cs, "constants", consts);
  EXPECT_EQ(*c.value(), 2u);
  EXPECT_TRUE(c.bits_le()[1].is_constant());
}

TEST(MultiEq, StacksAdditionsIntoSharedConstraints) {
  SeededRng rng(test_seed("MultiEq.StacksAdditionsIntoSharedConstraints"));
  TestConstraintSystem cs;
  std::vector<UInt32> sums;
  std::vector<std::uint32_t> want;
  {
    MultiEq eq(cs);
    for (int k = 0; k < 8; ++k) {
      std::vector<UInt32> ops;
      std::uint32_t w = 0;
      for (int i = 0; i < 4; ++i) {
        const std::uint32_t v = random_word(rng);
        w += v;
        ops.push_back(UInt32::alloc(cs, "op " + std::to_string(k) + " " + std::to_string(i), v));
      }
      sums.push_back(UInt32::addmany(eq, "sum " + std::to_string(k), ops));
      want.push_back(w);
    }
    // Seven 34-bit equalities fill 238 of 254 bits: the eighth opened a second batch.
    EXPECT_EQ(cs.num_constraints(), 8u * 4u * 32u + 1u + 8u * 34u);
    eq.finish();
  }
  EXPECT_EQ(cs.num_constraints(), 8u * 4u * 32u + 2u + 8u * 34u);
  for (int k = 0; k < 8; ++k) check_word(cs, sums[k], want[k]);

  // A wrong sum bit in either batch breaks that batch's constraint.
  for (int k : {0, 7}) {
    const auto v = *sums[k].bits_le()[rng.next_u64() % 32].variable();
    flip(cs, v);
    const auto bad = cs.which_is_unsatisfied();
    ASSERT_TRUE(bad.has_value());
    EXPECT_NE(bad->find(k == 0 ? "packed equalities 0" : "packed equalities 1"), std::string::npos) << *bad;
    flip(cs, v);
  }
  MultiEq eq(cs);
  EXPECT_THROW(eq.enforce_equal(0, {}, {}), std::invalid_argument);
  EXPECT_THROW(eq.enforce_equal(MultiEq::CAPACITY + 1, {}, {}), std::invalid_argument);
}
