// TestConstraintSystem: values, namespaced paths, satisfaction and the first failing path,
// bellperson's name rules.
#include <gtest/gtest.h>

#include "circuit/test_cs.hpp"
#include "random_circuit.hpp"
#include "test_seed.hpp"

using namespace snarkpipe::circuit;
using snarkpipe::ff::SeededRng;

namespace {

ValueFn val(std::uint64_t x) {
  return [x] { return Fr::from_u64(x); };
}

}  // namespace

TEST(TestCs, RandomCircuitSatisfiedThenCorruptedNamesFirstFailure) {
  SeededRng rng(test_seed("TestCs.RandomCircuit"));
  for (int round = 0; round < 8; ++round) {
    test_support::RandomCircuit circuit(rng.next_u64(), 400);
    TestConstraintSystem cs;
    circuit.synthesize(cs);
    ASSERT_TRUE(cs.is_satisfied()) << *cs.which_is_unsatisfied();
    EXPECT_EQ(cs.which_is_unsatisfied(), std::nullopt);
    EXPECT_EQ(cs.num_constraints(), circuit.num_constraints());
    EXPECT_EQ(cs.inputs()[0], Fr::one());
    EXPECT_GE(cs.num_inputs(), 4u);

    const auto& products = circuit.products();
    ASSERT_FALSE(products.empty());
    const auto& p = products[rng.next_u64() % products.size()];
    EXPECT_EQ(cs.constraints()[p.constraint_index].path, p.constraint_path);
    const Fr good = cs.get(p.z_path);
    cs.set(p.z_path, good + Fr::one());
    EXPECT_FALSE(cs.is_satisfied());
    EXPECT_EQ(cs.which_is_unsatisfied(), p.constraint_path);
    cs.set(p.z_path, good);
    EXPECT_TRUE(cs.is_satisfied());
  }
}

TEST(TestCs, PathsCountsAndValues) {
  TestConstraintSystem cs;
  const Variable x = cs.alloc_input("x", val(3));
  Variable a, b, c;
  {
    Namespace ns(cs, "sha256");
    {
      Namespace round(cs, "round 3");
      EXPECT_EQ(cs.current_namespace(), "sha256/round 3");
      a = cs.alloc("a", val(5));
      b = cs.alloc("b", val(15));
      cs.enforce("ch", x, a, b);
    }
    c = cs.alloc("c", val(4));
    cs.enforce("square", c, c, LinearCombination::constant(Fr::from_u64(16)));
  }
  EXPECT_EQ(cs.current_namespace(), "");
  EXPECT_EQ(cs.num_inputs(), 2u);
  EXPECT_EQ(cs.num_aux(), 3u);
  EXPECT_EQ(cs.num_constraints(), 2u);
  EXPECT_EQ(cs.constraints()[0].path, "sha256/round 3/ch");
  EXPECT_EQ(cs.constraints()[1].path, "sha256/square");
  EXPECT_EQ(cs.variable("sha256/round 3/a"), a);
  EXPECT_EQ(cs.variable("sha256/c"), c);
  EXPECT_EQ(cs.variable("x"), x);
  EXPECT_EQ(cs.variable("ONE"), Variable::one());
  EXPECT_EQ(cs.variable("sha256/round 3/ch"), std::nullopt);  // a constraint, not a variable
  EXPECT_EQ(cs.variable("nope"), std::nullopt);
  EXPECT_EQ(cs.get("sha256/round 3/b"), Fr::from_u64(15));
  EXPECT_EQ(cs.value(x), Fr::from_u64(3));
  EXPECT_TRUE(cs.is_satisfied());

  cs.set("sha256/c", Fr::from_u64(5));
  EXPECT_EQ(cs.which_is_unsatisfied(), "sha256/square");
  cs.set("x", Fr::from_u64(2));
  EXPECT_EQ(cs.which_is_unsatisfied(), "sha256/round 3/ch");
  EXPECT_THROW(cs.set("nope", Fr::one()), std::out_of_range);
  EXPECT_THROW(cs.get("sha256"), std::out_of_range);
}

TEST(TestCs, NameRules) {
  TestConstraintSystem cs;
  const Variable a = cs.alloc("a", val(1));
  EXPECT_THROW(cs.alloc("a", val(2)), CircuitNameError);
  EXPECT_THROW(cs.alloc_input("a", val(2)), CircuitNameError);
  EXPECT_THROW(cs.alloc_input("ONE", val(2)), CircuitNameError);
  cs.enforce("c", a, a, a);
  EXPECT_THROW(cs.enforce("c", a, a, a), CircuitNameError);
  EXPECT_THROW(cs.push_namespace("a"), CircuitNameError);
  EXPECT_THROW(cs.alloc("x/y", val(1)), CircuitNameError);
  EXPECT_THROW(cs.push_namespace("p/q"), CircuitNameError);
  {
    Namespace ns(cs, "inner");
    EXPECT_NO_THROW(cs.alloc("a", val(1)));  // the same name in another namespace is fine
    EXPECT_NO_THROW(cs.enforce("c", a, a, a));
  }
  EXPECT_THROW(cs.push_namespace("inner"), CircuitNameError);  // a namespace path is taken too
  EXPECT_THROW(cs.pop_namespace(), CircuitNameError);
  // A rejected name leaves no trace: nothing was allocated or recorded.
  EXPECT_EQ(cs.num_aux(), 2u);
  EXPECT_EQ(cs.num_constraints(), 2u);
  EXPECT_EQ(cs.num_inputs(), 1u);
  // The value function is not called for a rejected name.
  bool called = false;
  EXPECT_THROW(cs.alloc("a",
                        [&] {
                          called = true;
                          return Fr::one();
                        }),
               CircuitNameError);
  EXPECT_FALSE(called);
}

TEST(TestCs, UnallocatedVariablesAndMissingValues) {
  TestConstraintSystem cs;
  const Variable a = cs.alloc("a", val(1));
  EXPECT_THROW(cs.enforce("bad aux", a, Variable::aux(1), a), std::out_of_range);
  EXPECT_THROW(cs.enforce("bad input", Variable::input(1), a, a), std::out_of_range);
  EXPECT_EQ(cs.num_constraints(), 0u);
  try {
    cs.alloc("m", missing_value);
    FAIL() << "missing value not reported";
  } catch (const SynthesisError& e) {
    EXPECT_EQ(e.kind(), SynthesisError::Kind::AssignmentMissing);
  }
  EXPECT_EQ(cs.num_aux(), 1u);
}
