// Recording and witness systems on the same circuits: the CSR rows equal the test system's
// constraints merged independently, the input constraints are appended, SpMV of the witness
// satisfies every row, densities equal a direct scan; merging and zero-dropping by hand.
#include <gtest/gtest.h>

#include <map>

#include "circuit/recording_cs.hpp"
#include "circuit/spmv.hpp"
#include "circuit/test_cs.hpp"
#include "circuit/witness_cs.hpp"
#include "random_circuit.hpp"
#include "test_seed.hpp"

using namespace snarkpipe::circuit;
using snarkpipe::ff::SeededRng;

namespace {

ValueFn val(std::uint64_t x) {
  return [x] { return Fr::from_u64(x); };
}

// A linear combination merged with a std::map (column -> coefficient), zeros dropped.
std::vector<std::pair<std::uint32_t, Fr>> merged(const LinearCombination& lc, std::uint64_t num_inputs) {
  std::map<std::uint32_t, Fr> m;
  for (const auto& t : lc.terms()) {
    const std::uint32_t col = t.var.is_input() ? t.var.index : static_cast<std::uint32_t>(num_inputs + t.var.index);
    m[col] += t.coeff;
  }
  std::vector<std::pair<std::uint32_t, Fr>> out;
  for (const auto& [c, v] : m) {
    if (!v.is_zero()) out.emplace_back(c, v);
  }
  return out;
}

std::vector<std::pair<std::uint32_t, Fr>> row(const CsrMatrix& m, std::size_t r) {
  std::vector<std::pair<std::uint32_t, Fr>> out;
  const auto cols = m.row_cols(r);
  const auto vals = m.row_vals(r);
  for (std::size_t k = 0; k < cols.size(); ++k) out.emplace_back(cols[k], vals[k]);
  return out;
}

struct Recorded {
  TestConstraintSystem test;
  R1cs r1cs;
  std::vector<Fr> inputs, aux;
};

Recorded record(const Circuit& circuit) {
  Recorded out;
  circuit.synthesize(out.test);
  RecordingConstraintSystem rec;
  circuit.synthesize(rec);
  out.r1cs = rec.finish();
  WitnessConstraintSystem wit;
  circuit.synthesize(wit);
  out.inputs = wit.take_inputs();
  out.aux = wit.take_aux();
  return out;
}

}  // namespace

TEST(Recording, RandomCircuitsMatchTestSystemAndSatisfy) {
  SeededRng rng(test_seed("Recording.RandomCircuits"));
  for (int round = 0; round < 6; ++round) {
    test_support::RandomCircuit circuit(rng.next_u64(), 2000);
    Recorded rec = record(circuit);
    const TestConstraintSystem& t = rec.test;
    const R1cs& r = rec.r1cs;

    ASSERT_EQ(find_defect(r), std::nullopt) << find_defect(r)->problem;
    EXPECT_EQ(r.num_inputs, t.num_inputs());
    EXPECT_EQ(r.num_aux, t.num_aux());
    const std::uint64_t n = t.num_constraints();
    EXPECT_EQ(r.num_constraints, n + r.num_inputs);
    EXPECT_EQ(rec.inputs, t.inputs());
    EXPECT_EQ(rec.aux, t.aux());

    // Every circuit row equals the test system's constraint, merged independently.
    for (std::size_t k = 0; k < n; ++k) {
      const auto& c = t.constraints()[k];
      ASSERT_EQ(row(r.a, k), merged(c.a, r.num_inputs)) << c.path;
      ASSERT_EQ(row(r.b, k), merged(c.b, r.num_inputs)) << c.path;
      ASSERT_EQ(row(r.c, k), merged(c.c, r.num_inputs)) << c.path;
    }
    // Then input_i · 0 = 0 for every input, ONE included.
    for (std::uint64_t i = 0; i < r.num_inputs; ++i) {
      const std::size_t k = n + i;
      ASSERT_EQ(row(r.a, k), (std::vector<std::pair<std::uint32_t, Fr>>{{static_cast<std::uint32_t>(i), Fr::one()}}));
      ASSERT_TRUE(r.b.row_cols(k).empty());
      ASSERT_TRUE(r.c.row_cols(k).empty());
    }

    // SpMV of the witness: a∘b = c on every row, and a, b, c are the test system's values.
    const Evaluations e = evaluate(r, rec.inputs, rec.aux);
    ASSERT_EQ(e.a.size(), r.num_constraints);
    for (std::size_t k = 0; k < r.num_constraints; ++k) ASSERT_EQ(e.a[k] * e.b[k], e.c[k]) << "row " << k;
    for (std::size_t k = 0; k < n; ++k) {
      const auto& c = t.constraints()[k];
      ASSERT_EQ(e.a[k], t.eval(c.a));
      ASSERT_EQ(e.b[k], t.eval(c.b));
      ASSERT_EQ(e.c[k], t.eval(c.c));
    }
    for (std::uint64_t i = 0; i < r.num_inputs; ++i) ASSERT_EQ(e.a[n + i], rec.inputs[i]);
    EXPECT_TRUE(is_satisfied(r, rec.inputs, rec.aux));

    // Densities against a direct scan of the test system's merged constraints.
    DensityBitmap a_aux(r.num_aux), b_input(r.num_inputs), b_aux(r.num_aux);
    for (const auto& c : t.constraints()) {
      for (const auto& [col, v] : merged(c.a, r.num_inputs)) {
        if (col >= r.num_inputs) a_aux.set(col - r.num_inputs);
      }
      for (const auto& [col, v] : merged(c.b, r.num_inputs)) {
        if (col < r.num_inputs) {
          b_input.set(col);
        } else {
          b_aux.set(col - r.num_inputs);
        }
      }
    }
    EXPECT_EQ(r.a_aux_density, a_aux);
    EXPECT_EQ(r.b_input_density, b_input);
    EXPECT_EQ(r.b_aux_density, b_aux);
    EXPECT_TRUE(r.b_input_density.test(0));  // ONE is in B (linear relations)

    // A corrupted witness: SpMV names the defining row of the changed product output.
    const auto& p = circuit.products()[rng.next_u64() % circuit.products().size()];
    const Variable z = *t.variable(p.z_path);
    ASSERT_FALSE(z.is_input());
    std::vector<Fr> bad = rec.aux;
    bad[z.index] += Fr::one();
    const Satisfaction s = is_satisfied(r, rec.inputs, bad);
    EXPECT_FALSE(s);
    EXPECT_EQ(s.first_failing_row, p.constraint_index);
  }
}

TEST(Recording, MergesDuplicatesAndDropsZeros) {
  RecordingConstraintSystem rec;
  const Variable x = rec.alloc("x", missing_value);
  const Variable y = rec.alloc("y", missing_value);
  const Variable in = rec.alloc_input("in", missing_value);  // after aux: column 1, aux shift to 2
  const Variable w = rec.alloc("w", missing_value);
  const Fr two = Fr::from_u64(2), three = Fr::from_u64(3);

  LinearCombination a;  // 2y + x + x - x + 0·w + 3w - 3w + in  ->  x + 2y + in
  a.add(two, y).add(Fr::one(), x).add(Fr::one(), x).add(-Fr::one(), x).add(Fr::zero(), w).add(three, w).add(-three, w);
  a += in;
  LinearCombination b = LinearCombination::constant(three) + LinearCombination::constant(-three);  // empty
  LinearCombination c;  // w·5 written as 2w + 3w, then ONE·(1 - 1)
  c.add(two, w).add(three, w).add(Fr::one(), Variable::one()).add(-Fr::one(), Variable::one());
  rec.enforce("merge", a, b, c);
  rec.enforce("zero", LinearCombination::zero(), LinearCombination::zero(), LinearCombination::zero());
  EXPECT_EQ(rec.num_constraints(), 2u);
  EXPECT_EQ(rec.num_aux(), 3u);
  EXPECT_EQ(rec.num_inputs(), 2u);

  const R1cs r = rec.finish();
  ASSERT_EQ(find_defect(r), std::nullopt);
  EXPECT_EQ(r.num_constraints, 4u);
  // Columns: ONE 0, in 1, x 2, y 3, w 4.
  EXPECT_EQ(r.a.row_ptr, (std::vector<std::uint64_t>{0, 3, 3, 4, 5}));
  EXPECT_EQ(r.a.col, (std::vector<std::uint32_t>{1, 2, 3, 0, 1}));
  EXPECT_EQ(r.a.val, (std::vector<Fr>{Fr::one(), Fr::one(), two, Fr::one(), Fr::one()}));
  EXPECT_EQ(r.b.row_ptr, (std::vector<std::uint64_t>{0, 0, 0, 0, 0}));
  EXPECT_TRUE(r.b.col.empty());
  EXPECT_EQ(r.c.row_ptr, (std::vector<std::uint64_t>{0, 1, 1, 1, 1}));
  EXPECT_EQ(r.c.col, (std::vector<std::uint32_t>{4}));
  EXPECT_EQ(r.c.val, (std::vector<Fr>{Fr::from_u64(5)}));
  // w only ever had cancelling coefficients in A: not dense there.
  EXPECT_TRUE(r.a_aux_density.test(0));
  EXPECT_TRUE(r.a_aux_density.test(1));
  EXPECT_FALSE(r.a_aux_density.test(2));
  EXPECT_EQ(r.b_input_density.count(), 0u);
  EXPECT_EQ(r.b_aux_density.count(), 0u);

  // finish() leaves a fresh system.
  EXPECT_EQ(rec.num_inputs(), 1u);
  EXPECT_EQ(rec.num_aux(), 0u);
  const R1cs empty = rec.finish();
  EXPECT_EQ(empty.num_constraints, 1u);
  EXPECT_EQ(empty.a.col, (std::vector<std::uint32_t>{0}));
  EXPECT_EQ(find_defect(empty), std::nullopt);
}

TEST(Recording, NeverAsksForValuesAndRejectsUnallocated) {
  RecordingConstraintSystem rec;
  EXPECT_FALSE(rec.needs_values());
  int calls = 0;
  const ValueFn counting = [&] {
    ++calls;
    return Fr::one();
  };
  const Variable x = rec.alloc("x", counting);
  rec.alloc_input("i", counting);
  rec.enforce("c", x, x, x);
  EXPECT_EQ(calls, 0);
  EXPECT_THROW(rec.enforce("bad", x, Variable::aux(1), x), std::out_of_range);
  EXPECT_THROW(rec.enforce("bad", x, x, Variable::input(2)), std::out_of_range);
  EXPECT_EQ(rec.num_constraints(), 1u);
  const R1cs r = rec.finish();
  EXPECT_EQ(find_defect(r), std::nullopt);
  EXPECT_EQ(r.a.nnz(), 1u + 2u);  // x, then one entry per input
}

TEST(Witness, ValuesOnly) {
  WitnessConstraintSystem w;
  EXPECT_TRUE(w.needs_values());
  const Variable a = w.alloc("a", val(7));
  const Variable i = w.alloc_input("i", val(9));
  w.enforce("ignored", a, a, i);  // not checked: the witness system keeps values only
  {
    Namespace ns(w, "n");
    w.alloc("b", val(11));
  }
  EXPECT_EQ(a, Variable::aux(0));
  EXPECT_EQ(i, Variable::input(1));
  EXPECT_EQ(w.inputs(), (std::vector<Fr>{Fr::one(), Fr::from_u64(9)}));
  EXPECT_EQ(w.aux(), (std::vector<Fr>{Fr::from_u64(7), Fr::from_u64(11)}));
  EXPECT_THROW(w.alloc("m", missing_value), SynthesisError);
}

TEST(Spmv, ChecksSizesAndFindsFirstFailingRow) {
  RecordingConstraintSystem rec;
  std::vector<Variable> v;
  for (int i = 0; i < 10000; ++i) v.push_back(rec.alloc("v", missing_value));
  for (int i = 0; i < 10000; ++i) rec.enforce("sq", v[i], v[i], v[i]);  // v ∈ {0, 1}
  const R1cs r = rec.finish();
  std::vector<Fr> inputs{Fr::one()};
  std::vector<Fr> aux(10000, Fr::one());
  EXPECT_TRUE(is_satisfied(r, inputs, aux));
  aux[7777] = Fr::from_u64(2);
  aux[9000] = Fr::from_u64(3);
  EXPECT_EQ(is_satisfied(r, inputs, aux).first_failing_row, 7777u);
  aux[5] = Fr::from_u64(2);
  EXPECT_EQ(is_satisfied(r, inputs, aux).first_failing_row, 5u);
  EXPECT_THROW(evaluate(r, inputs, std::span(aux).first(9999)), std::invalid_argument);
  EXPECT_THROW(is_satisfied(r, {}, aux), std::invalid_argument);
  std::vector<Fr> a(r.num_constraints), b(r.num_constraints), c(r.num_constraints - 1);
  EXPECT_THROW(evaluate_into(r, inputs, aux, a, b, c), std::invalid_argument);
}
