// DensityBitmap against a std::vector<bool> model; find_defect on hand-broken R1cs.
#include <gtest/gtest.h>

#include "circuit/density.hpp"
#include "circuit/r1cs.hpp"
#include "circuit/recording_cs.hpp"
#include "random_circuit.hpp"
#include "test_seed.hpp"

using namespace snarkpipe::circuit;
using snarkpipe::ff::SeededRng;

TEST(Density, MatchesModel) {
  SeededRng rng(test_seed("Density.MatchesModel"));
  for (std::size_t size : {0u, 1u, 63u, 64u, 65u, 128u, 1000u, 4097u}) {
    DensityBitmap d(size);
    std::vector<bool> model(size);
    const int ops = static_cast<int>(size) * 2;
    for (int i = 0; i < ops; ++i) {
      const std::size_t k = rng.next_u64() % size;
      if (rng.next_u64() % 3) {
        d.set(k);
        model[k] = true;
      } else {
        d.reset(k);
        model[k] = false;
      }
    }
    std::vector<std::size_t> expected;
    for (std::size_t i = 0; i < size; ++i) {
      ASSERT_EQ(d.test(i), model[i]);
      if (model[i]) expected.push_back(i);
    }
    EXPECT_EQ(d.size(), size);
    EXPECT_EQ(d.count(), expected.size());
    EXPECT_EQ(d.words().size(), (size + 63) / 64);
    std::vector<std::size_t> seen;
    for (std::size_t i : d.set_bits()) seen.push_back(i);
    EXPECT_EQ(seen, expected);
    seen.clear();
    d.for_each_set([&](std::size_t i) { seen.push_back(i); });
    EXPECT_EQ(seen, expected);

    const auto copy = DensityBitmap::from_words(size, std::vector<std::uint64_t>(d.words().begin(), d.words().end()));
    EXPECT_EQ(copy, d);
    // Shrinking clears the bits past the new size; growing adds clear bits.
    DensityBitmap r = d;
    r.resize(size / 2);
    for (std::size_t i = 0; i < size / 2; ++i) ASSERT_EQ(r.test(i), model[i]);
    r.resize(size);
    for (std::size_t i = size / 2; i < size; ++i) ASSERT_FALSE(r.test(i));
  }
}

TEST(Density, FromWordsValidates) {
  EXPECT_THROW(DensityBitmap::from_words(65, {1}), std::invalid_argument);
  EXPECT_THROW(DensityBitmap::from_words(64, {1, 0}), std::invalid_argument);
  EXPECT_THROW(DensityBitmap::from_words(3, {8}), std::invalid_argument);  // bit 3 of a 3-bit map
  EXPECT_NO_THROW(DensityBitmap::from_words(4, {8}));
  EXPECT_EQ(DensityBitmap::from_words(0, {}).count(), 0u);
}

TEST(R1csDefects, FindsEachKind) {
  SeededRng rng(test_seed("R1csDefects.FindsEachKind"));
  test_support::RandomCircuit circuit(rng.next_u64(), 300);
  RecordingConstraintSystem rec;
  circuit.synthesize(rec);
  const R1cs good = rec.finish();
  ASSERT_EQ(find_defect(good), std::nullopt);
  // A row of A with at least two entries.
  std::size_t row = 0;
  while (good.a.row_cols(row).size() < 2) ++row;
  const std::uint64_t k = good.a.row_ptr[row];

  const auto expect = [](const R1cs& r, R1csField f, std::uint64_t index) {
    const auto d = find_defect(r);
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(d->field, f) << field_name(d->field) << ": " << d->problem;
    EXPECT_EQ(d->index, index) << d->problem;
  };
  {
    R1cs r = good;
    r.num_inputs = 0;
    expect(r, R1csField::counts, 0);
  }
  {
    R1cs r = good;
    r.a.row_ptr.pop_back();
    expect(r, R1csField::a_row_ptr, r.a.row_ptr.size());
  }
  {
    R1cs r = good;
    r.a.row_ptr[row + 2] = r.a.row_ptr[row + 1] - 1;  // row_ptr[row + 1] >= 2
    expect(r, R1csField::a_row_ptr, row + 2);
  }
  {
    R1cs r = good;
    r.b.row_ptr.back() += 1;
    expect(r, R1csField::b_row_ptr, r.num_constraints);
  }
  {
    R1cs r = good;
    std::swap(r.a.col[k], r.a.col[k + 1]);
    expect(r, R1csField::a_col, k + 1);
  }
  {
    R1cs r = good;
    r.a.col[k + 1] = r.a.col[k];
    expect(r, R1csField::a_col, k + 1);
  }
  {
    R1cs r = good;
    r.c.col.back() = static_cast<std::uint32_t>(r.num_columns());
    expect(r, R1csField::c_col, r.c.nnz() - 1);
  }
  {
    R1cs r = good;
    r.a.val[k] = Fr::zero();
    expect(r, R1csField::a_val, k);
  }
  {
    R1cs r = good;
    r.b.val[0] = Fr::from_montgomery(Fr::MODULUS);
    expect(r, R1csField::b_val, 0);
  }
  {
    R1cs r = good;
    r.c.val.pop_back();
    expect(r, R1csField::c_val, r.c.val.size());
  }
  {
    R1cs r = good;
    const std::size_t j = rng.next_u64() % r.num_aux;
    r.a_aux_density.test(j) ? r.a_aux_density.reset(j) : r.a_aux_density.set(j);
    expect(r, R1csField::a_aux_density, j);
  }
  {
    R1cs r = good;
    r.b_input_density.test(1) ? r.b_input_density.reset(1) : r.b_input_density.set(1);
    expect(r, R1csField::b_input_density, 1);
  }
  {
    R1cs r = good;
    r.b_aux_density = DensityBitmap(r.num_aux + 1);
    expect(r, R1csField::b_aux_density, 0);
  }
}
