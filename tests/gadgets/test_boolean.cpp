// Boolean gadgets: every operation on every combination of constant / allocated / negated
// operands and values, checked through the constraint system's assignment; corrupting a
// result is caught by a constraint; bit-vector helpers on random bytes.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "circuit/recording_cs.hpp"
#include "gadget_test_util.hpp"
#include "gadgets/boolean.hpp"
#include "test_seed.hpp"

using namespace snarkpipe::gadgets;
using namespace gadget_test;
using snarkpipe::circuit::RecordingConstraintSystem;
using snarkpipe::circuit::SynthesisError;

namespace {

// An operand: a constant, an allocated bit, or the negation of an allocated bit, holding `value`.
struct Form {
  enum Kind { Const, Is, Not } kind;
  bool value;
  std::string describe() const {
    static const char* names[] = {"const", "bit", "not-bit"};
    return std::string(names[kind]) + "(" + (value ? "1" : "0") + ")";
  }
};

std::vector<Form> all_forms() {
  std::vector<Form> f;
  for (auto k : {Form::Const, Form::Is, Form::Not}) {
    for (bool v : {false, true}) f.push_back({k, v});
  }
  return f;
}

Boolean make(TestConstraintSystem& cs, const std::string& name, const Form& f) {
  switch (f.kind) {
    case Form::Const:
      return Boolean::constant(f.value);
    case Form::Is:
      return Boolean::alloc(cs, name, f.value);
    case Form::Not:
      return Boolean::alloc(cs, name, !f.value).not_();
  }
  return {};
}

using Op = std::function<Boolean(TestConstraintSystem&, const std::vector<Boolean>&)>;

// Runs `op` on every combination of operand forms; checks the value, satisfaction, the
// constraint count (at most max_constraints(forms)), and that flipping a freshly allocated
// result breaks a constraint of the operation.
void check_op(const std::string& op_name, std::size_t arity, const Op& op,
              const std::function<bool(const std::vector<bool>&)>& expected,
              const std::function<std::size_t(const std::vector<Form>&)>& max_constraints) {
  const std::vector<Form> forms = all_forms();
  std::size_t combos = 1;
  for (std::size_t i = 0; i < arity; ++i) combos *= forms.size();
  for (std::size_t k = 0; k < combos; ++k) {
    std::vector<Form> f;
    for (std::size_t i = 0, r = k; i < arity; ++i, r /= forms.size()) f.push_back(forms[r % forms.size()]);
    std::string what = op_name;
    for (const auto& x : f) what.append(" ").append(x.describe());
    SCOPED_TRACE(what);

    TestConstraintSystem cs;
    std::vector<Boolean> args;
    std::vector<bool> values;
    for (std::size_t i = 0; i < arity; ++i) {
      args.push_back(make(cs, "arg " + std::to_string(i), f[i]));
      values.push_back(f[i].value);
    }
    const std::size_t before = cs.num_constraints();
    const std::size_t aux_before = cs.num_aux();
    const Boolean r = op(cs, args);
    const bool want = expected(values);
    ASSERT_EQ(r.value(), want);
    EXPECT_EQ(bit_in(cs, r), want);
    EXPECT_TRUE(cs.is_satisfied()) << *cs.which_is_unsatisfied();
    EXPECT_LE(cs.num_constraints() - before, max_constraints(f));

    bool all_constant = true;
    for (const auto& a : args) all_constant &= a.is_constant();
    if (all_constant) {
      EXPECT_TRUE(r.is_constant());
    }
    if (const auto v = r.variable(); v && !v->is_input() && v->index >= aux_before) {
      flip(cs, *v);
      const auto bad = cs.which_is_unsatisfied();
      ASSERT_TRUE(bad.has_value());
      EXPECT_EQ(bad->rfind("op/", 0), 0u) << *bad;
    }
  }
}

std::size_t non_constant(const std::vector<Form>& f) {
  std::size_t n = 0;
  for (const auto& x : f) n += x.kind != Form::Const;
  return n;
}

}  // namespace

TEST(Boolean, Xor) {
  check_op(
      "xor", 2, [](auto& cs, const auto& a) { return Boolean::xor_(cs, "op", a[0], a[1]); },
      [](const auto& v) { return v[0] != v[1]; }, [](const auto& f) { return non_constant(f) == 2 ? 1u : 0u; });
}

TEST(Boolean, And) {
  check_op(
      "and", 2, [](auto& cs, const auto& a) { return Boolean::and_(cs, "op", a[0], a[1]); },
      [](const auto& v) { return v[0] && v[1]; }, [](const auto& f) { return non_constant(f) == 2 ? 1u : 0u; });
}

TEST(Boolean, Or) {
  check_op(
      "or", 2, [](auto& cs, const auto& a) { return Boolean::or_(cs, "op", a[0], a[1]); },
      [](const auto& v) { return v[0] || v[1]; }, [](const auto& f) { return non_constant(f) == 2 ? 1u : 0u; });
}

TEST(Boolean, Not) {
  check_op(
      "not", 1, [](auto&, const auto& a) { return a[0].not_(); }, [](const auto& v) { return !v[0]; },
      [](const auto&) { return 0u; });
}

TEST(Boolean, Select) {
  check_op(
      "select", 3, [](auto& cs, const auto& a) { return Boolean::select(cs, "op", a[0], a[1], a[2]); },
      [](const auto& v) { return v[0] ? v[1] : v[2]; },
      [](const auto& f) {
        return f[0].kind == Form::Const || (f[1].kind == Form::Const && f[2].kind == Form::Const) ? 0u : 1u;
      });
}

TEST(Boolean, Sha256Ch) {
  check_op(
      "ch", 3, [](auto& cs, const auto& a) { return Boolean::sha256_ch(cs, "op", a[0], a[1], a[2]); },
      [](const auto& v) { return (v[0] && v[1]) != (!v[0] && v[2]); }, [](const auto&) { return 1u; });
}

TEST(Boolean, Sha256Maj) {
  check_op(
      "maj", 3, [](auto& cs, const auto& a) { return Boolean::sha256_maj(cs, "op", a[0], a[1], a[2]); },
      [](const auto& v) { return ((v[0] && v[1]) != (v[0] && v[2])) != (v[1] && v[2]); },
      [](const auto& f) { return non_constant(f) == 3   ? 2u
                                 : non_constant(f) == 2 ? 1u
                                                        : 0u; });
}

TEST(Boolean, EnforceEqual) {
  for (const Form& fa : all_forms()) {
    for (const Form& fb : all_forms()) {
      SCOPED_TRACE(fa.describe() + " = " + fb.describe());
      TestConstraintSystem cs;
      const Boolean a = make(cs, "a", fa), b = make(cs, "b", fb);
      if (a.is_constant() && b.is_constant()) {
        if (fa.value == fb.value) {
          EXPECT_NO_THROW(Boolean::enforce_equal(cs, "eq", a, b));
        } else {
          try {
            Boolean::enforce_equal(cs, "eq", a, b);
            ADD_FAILURE() << "different constants accepted";
          } catch (const SynthesisError& e) {
            EXPECT_EQ(e.kind(), SynthesisError::Kind::Unsatisfiable);
          }
        }
        continue;
      }
      Boolean::enforce_equal(cs, "eq", a, b);
      EXPECT_EQ(cs.is_satisfied(), fa.value == fb.value);
    }
  }
}

TEST(AllocatedBit, BooleanityAndConditionalAllocation) {
  TestConstraintSystem cs;
  const AllocatedBit b = AllocatedBit::alloc(cs, "b", true);
  EXPECT_EQ(cs.num_constraints(), 1u);
  EXPECT_TRUE(cs.is_satisfied());
  cs.set(b.variable(), Fr::from_u64(2));
  EXPECT_EQ(cs.which_is_unsatisfied(), "b/boolean");

  for (bool m : {false, true}) {
    for (bool v : {false, true}) {
      TestConstraintSystem cs2;
      const AllocatedBit must = AllocatedBit::alloc(cs2, "m", m);
      AllocatedBit::alloc_conditionally(cs2, "x", v, must);
      EXPECT_EQ(cs2.is_satisfied(), !(m && v)) << "m=" << m << " v=" << v;
    }
  }
}

TEST(AllocatedBit, MissingValueRaisesOnlyWhenValuesAreNeeded) {
  TestConstraintSystem cs;
  try {
    AllocatedBit::alloc(cs, "b", std::nullopt);
    ADD_FAILURE() << "no error without a value";
  } catch (const SynthesisError& e) {
    EXPECT_EQ(e.kind(), SynthesisError::Kind::AssignmentMissing);
  }
  // Setup: no values anywhere, every operation still builds its constraints.
  RecordingConstraintSystem rec;
  const Boolean a = Boolean::alloc(rec, "a", std::nullopt), b = Boolean::alloc(rec, "b", std::nullopt);
  const Boolean c = Boolean::alloc(rec, "c", std::nullopt);
  EXPECT_FALSE(Boolean::xor_(rec, "xor", a, b.not_()).value());
  EXPECT_FALSE(Boolean::sha256_maj(rec, "maj", a, b, c).value());
  EXPECT_FALSE(Boolean::select(rec, "sel", a, b, c).value());
  EXPECT_EQ(rec.num_constraints(), 3u + 1u + 2u + 1u);
}

TEST(BitVectors, BytesRoundTripAndAllocation) {
  SeededRng rng(test_seed("BitVectors.BytesRoundTripAndAllocation"));
  for (std::size_t n : {0u, 1u, 7u, 32u, 65u}) {
    const auto bytes = random_bytes(rng, n);
    const auto bits = bytes_to_bits_be(bytes);
    ASSERT_EQ(bits.size(), 8 * n);
    for (std::size_t i = 0; i < bits.size(); ++i) EXPECT_EQ(bits[i], ((bytes[i / 8] >> (7 - i % 8)) & 1) != 0);
    EXPECT_EQ(bits_to_bytes_be(constant_bits_be(bytes)), bytes);

    TestConstraintSystem cs;
    const auto alloc = alloc_bits_be(cs, "msg", n, bytes);
    EXPECT_EQ(cs.num_constraints(), 8 * n);
    EXPECT_EQ(bits_to_bytes_be(alloc), bytes);
    EXPECT_EQ(bytes_in(cs, alloc), bytes);
    EXPECT_TRUE(cs.is_satisfied());
  }
  TestConstraintSystem cs;
  EXPECT_THROW(alloc_bits_be(cs, "msg", 3, std::vector<std::uint8_t>(2)), std::invalid_argument);
}

TEST(BitVectors, ConditionalSwap) {
  SeededRng rng(test_seed("BitVectors.ConditionalSwap"));
  for (const Form& fc : all_forms()) {
    SCOPED_TRACE(fc.describe());
    TestConstraintSystem cs;
    const auto xa = random_bytes(rng, 32), xb = random_bytes(rng, 32);
    const auto a = alloc_bits_be(cs, "a", 32, xa), b = alloc_bits_be(cs, "b", 32, xb);
    const Boolean cond = make(cs, "cond", fc);
    const std::size_t before = cs.num_constraints();
    const auto [first, second] = conditional_swap(cs, "swap", cond, a, b);
    EXPECT_EQ(cs.num_constraints() - before, fc.kind == Form::Const ? 0u : 512u);
    EXPECT_EQ(bytes_in(cs, first), fc.value ? xb : xa);
    EXPECT_EQ(bytes_in(cs, second), fc.value ? xa : xb);
    EXPECT_TRUE(cs.is_satisfied());
    if (fc.kind != Form::Const) {
      flip(cs, *first[rng.next_u64() % 256].variable());
      EXPECT_FALSE(cs.is_satisfied());
    }
  }
}
