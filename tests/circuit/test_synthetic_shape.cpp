// The PoRep-shape synthetic circuit: well-formed, satisfiable for every witness seed, the
// same for any thread count, the streamed file equal to the in-memory circuit, its measured
// shape within tolerance of the targets, and provable with Groth16.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include "circuit/r1cs_file.hpp"
#include "circuit/spmv.hpp"
#include "circuit/synthetic_shape.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "test_seed.hpp"

using namespace snarkpipe;
using namespace snarkpipe::circuit;
namespace fs = std::filesystem;

namespace {

SyntheticShape porep_scaled(double s, std::uint64_t seed) {
  SyntheticShape shape = SyntheticShape{}.scaled(s);
  shape.seed = seed;
  return shape;
}

fs::path temp_path(const std::string& name) {
  return fs::temp_directory_path() / ("snarkpipe-test-" + std::to_string(::getpid()) + "-" + name);
}

// Where two circuits first differ, for a readable failure.
std::string first_difference(const R1cs& x, const R1cs& y) {
  if (x.num_constraints != y.num_constraints || x.num_aux != y.num_aux) return "counts";
  const std::array<std::pair<const CsrMatrix*, const CsrMatrix*>, 3> m = {{{&x.a, &y.a}, {&x.b, &y.b}, {&x.c, &y.c}}};
  for (std::size_t i = 0; i < 3; ++i) {
    if (m[i].first->row_ptr != m[i].second->row_ptr) return "row_ptr of matrix " + std::to_string(i);
    if (m[i].first->col != m[i].second->col) return "col of matrix " + std::to_string(i);
    if (m[i].first->val != m[i].second->val) return "val of matrix " + std::to_string(i);
  }
  return x == y ? "none" : "densities";
}

}  // namespace

TEST(SyntheticShape, DefaultsAreThePoRepPartition) {
  const SyntheticShape s;
  EXPECT_EQ(s.num_constraints, 130'278'869u);
  EXPECT_EQ(s.circuit_constraints(), 130'278'541u);
  EXPECT_EQ(s.num_inputs, 328u);
  EXPECT_EQ(s.num_aux, 130'169'893u);
  EXPECT_EQ(std::llround(s.a_per_row * double(s.num_constraints)), 309'405'051);
  EXPECT_EQ(std::llround(s.b_per_row * double(s.num_constraints)), 130'327'340);
  EXPECT_EQ(std::llround(s.c_per_row * double(s.num_constraints)), 282'656'500);
  EXPECT_NO_THROW(s.validate());  // the full plan, all ~2000 blocks
}

TEST(SyntheticShape, ScaleKeepsRatiosAndInputs) {
  const SyntheticShape s = SyntheticShape{}.scaled(1.0 / 1024);
  EXPECT_EQ(s.num_inputs, 328u);
  EXPECT_EQ(s.circuit_constraints(), 127'225u);  // round(130,278,541 / 1024)
  EXPECT_EQ(s.num_aux, 127'119u);                // round(130,169,893 / 1024)
  EXPECT_EQ(s.a_per_row, SyntheticShape{}.a_per_row);
  EXPECT_DOUBLE_EQ(parse_scale("1/1024"), 1.0 / 1024);
  EXPECT_DOUBLE_EQ(parse_scale("0.125"), 0.125);
  EXPECT_DOUBLE_EQ(parse_scale("1"), 1.0);
  for (const char* bad : {"", "0", "-1", "1/0", "abc", "1/x", "1/2/3", "nan", "inf"}) {
    EXPECT_THROW(parse_scale(bad), std::invalid_argument) << bad;
  }
  EXPECT_THROW(SyntheticShape{}.scaled(0), std::invalid_argument);
}

TEST(SyntheticShape, ImpossibleShapesAreRejectedByName) {
  const auto message = [](SyntheticShape s) -> std::string {
    try {
      s.validate();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  SyntheticShape s = SyntheticShape{}.scaled(1.0 / 4096);
  s.num_constraints = s.num_aux;  // fewer rows than inputs + aux
  EXPECT_NE(message(s).find("num_constraints"), std::string::npos) << message(s);
  s = SyntheticShape{}.scaled(1.0 / 4096);
  s.b_per_row = 0.5;
  EXPECT_NE(message(s).find("b_per_row"), std::string::npos) << message(s);
  s = SyntheticShape{}.scaled(1.0 / 4096);
  s.boolean_fraction = 1.0;
  EXPECT_NE(message(s).find("boolean_fraction"), std::string::npos) << message(s);
  s = SyntheticShape{}.scaled(1.0 / 4096);
  s.a_aux_density = 1.5;
  EXPECT_NE(message(s).find("a_aux_density"), std::string::npos) << message(s);
  EXPECT_THROW(generate_synthetic_witness(s, 1), std::invalid_argument);
}

// In chunks of whole blocks, in aux order, the witness is the one generated whole, for chunk
// sizes below one block, of a few blocks, and above the whole witness.
TEST(SyntheticShape, WitnessInChunksEqualsTheWhole) {
  const std::uint64_t seed = test_seed("SyntheticShape.Chunks");
  const SyntheticShape shape = porep_scaled(1.0 / 512, seed);  // four blocks of 2^16 rows
  const SyntheticWitness whole = generate_synthetic_witness(shape, seed ^ 5);
  for (std::uint64_t chunk : {std::uint64_t(1), std::uint64_t(150000), std::uint64_t(1) << 40}) {
    std::vector<Fr> inputs(shape.num_inputs), aux;
    std::size_t calls = 0;
    generate_synthetic_witness_chunks(shape, seed ^ 5, inputs, chunk,
                                      [&](std::uint64_t begin, std::span<const Fr> values) {
                                        EXPECT_EQ(begin, aux.size());
                                        aux.insert(aux.end(), values.begin(), values.end());
                                        ++calls;
                                      });
    EXPECT_EQ(inputs, whole.inputs);
    EXPECT_TRUE(aux == whole.aux) << "chunk " << chunk;
    EXPECT_GE(calls, 1u);
    if (chunk == 1) {
      EXPECT_GT(calls, 1u);
    }
  }
}

// Well-formed, satisfiable, and shaped like the PoRep partition (REFERENCE.md §5).
TEST(SyntheticShape, ScaledPoRepIsWellFormedSatisfiableAndOnTarget) {
  const std::uint64_t seed = test_seed("SyntheticShape.OnTarget");
  const SyntheticShape shape = porep_scaled(1.0 / 4096, seed);
  const R1cs r = generate_synthetic_r1cs(shape);
  const auto defect = find_defect(r);
  ASSERT_FALSE(defect) << field_name(defect->field) << "[" << defect->index << "]: " << defect->problem;
  const SyntheticWitness w = generate_synthetic_witness(shape, seed ^ 77);
  const Satisfaction sat = is_satisfied(r, w.inputs, w.aux);
  ASSERT_TRUE(sat.ok()) << "row " << *sat.first_failing_row;

  const SyntheticStats st = measure_r1cs(r);
  const double rows = double(st.num_constraints), aux = double(st.num_aux);
  // Non-zero totals are exact by construction.
  EXPECT_EQ(st.a_nnz, std::uint64_t(std::llround(shape.a_per_row * rows)));
  EXPECT_EQ(st.b_nnz, std::uint64_t(std::llround(shape.b_per_row * rows)));
  EXPECT_EQ(st.c_nnz, std::uint64_t(std::llround(shape.c_per_row * rows)));
  EXPECT_NEAR(double(st.a_nnz) / rows, 2.375, 0.01);
  EXPECT_NEAR(double(st.b_nnz) / rows, 1.0004, 0.01);
  EXPECT_NEAR(double(st.c_nnz) / rows, 2.170, 0.01);
  // Densities: B-aux 25.4 % within 2 % (relative); A-aux 99.7 % within 0.1 % (absolute).
  EXPECT_NEAR(double(st.b_aux_columns) / aux, shape.b_aux_density, 0.02 * shape.b_aux_density);
  EXPECT_NEAR(double(st.a_aux_columns) / aux, shape.a_aux_density, 0.001);
  EXPECT_EQ(st.b_input_columns, 1u);  // ONE only
  // Coefficients: ±1 or ±2^k almost always.
  const double coeffs = double(st.coeff_unit + st.coeff_pow2 + st.coeff_other);
  EXPECT_EQ(coeffs, double(st.a_nnz + st.b_nnz + st.c_nnz));
  EXPECT_LT(double(st.coeff_other) / coeffs, 0.01);
  // About 90 % of aux values are 0 or 1, and both occur often.
  const WitnessStats ws = measure_witness(w.aux);
  EXPECT_NEAR(double(ws.zeros + ws.ones) / aux, 0.9, 0.01);
  EXPECT_GT(ws.zeros, ws.total / 5);
  EXPECT_GT(ws.ones, ws.total / 5);
}

// Several blocks, built with 1 and with 4 threads: the same circuit and witness; the file
// written block by block reads back as exactly that circuit, with the same stats.
TEST(SyntheticShape, DeterministicAcrossThreadsAndStreamedFileMatches) {
  const std::uint64_t seed = test_seed("SyntheticShape.Deterministic");
  const SyntheticShape shape = porep_scaled(1.0 / 400, seed);                        // ~326K rows: 5 blocks
  const tbb::global_control allow(tbb::global_control::max_allowed_parallelism, 4);  // even on 2 cores
  R1cs one, three;
  SyntheticWitness w1, w3;
  tbb::task_arena(1).execute([&] {
    one = generate_synthetic_r1cs(shape);
    w1 = generate_synthetic_witness(shape, seed + 1);
  });
  tbb::task_arena(4).execute([&] {
    three = generate_synthetic_r1cs(shape);
    w3 = generate_synthetic_witness(shape, seed + 1);
  });
  ASSERT_TRUE(one == three) << first_difference(one, three);
  EXPECT_TRUE(w1.inputs == w3.inputs && w1.aux == w3.aux);
  const auto defect = find_defect(one);
  ASSERT_FALSE(defect) << field_name(defect->field) << "[" << defect->index << "]: " << defect->problem;
  const Satisfaction sat = is_satisfied(one, w1.inputs, w1.aux);
  ASSERT_TRUE(sat.ok()) << "row " << *sat.first_failing_row;

  const fs::path path = temp_path("synthetic.snkr1cs");
  const SyntheticStats written = write_synthetic_r1cs(path, shape, true);
  const R1cs read = read_r1cs(path);  // validates checksum, padding and every invariant
  fs::remove(path);
  EXPECT_TRUE(read == one) << first_difference(read, one);
  const SyntheticStats measured = measure_r1cs(one);
  EXPECT_EQ(written.a_nnz, measured.a_nnz);
  EXPECT_EQ(written.c_nnz, measured.c_nnz);
  EXPECT_EQ(written.a_aux_columns, measured.a_aux_columns);
  EXPECT_EQ(written.b_aux_columns, measured.b_aux_columns);
  EXPECT_EQ(written.coeff_unit, measured.coeff_unit);
  EXPECT_EQ(written.coeff_pow2, measured.coeff_pow2);
  EXPECT_EQ(written.coeff_other, measured.coeff_other);

  // Another structure seed is another circuit.
  SyntheticShape other = shape;
  other.seed = seed + 1;
  EXPECT_FALSE(generate_synthetic_r1cs(other) == one);
}

// One circuit, a fresh satisfying witness per partition seed; a changed value breaks it.
TEST(SyntheticShape, WitnessSeedsGiveDifferentSatisfyingWitnesses) {
  const std::uint64_t seed = test_seed("SyntheticShape.WitnessSeeds");
  const SyntheticShape shape = porep_scaled(1.0 / 4096, seed);
  const R1cs r = generate_synthetic_r1cs(shape);
  const SyntheticWitness w1 = generate_synthetic_witness(shape, seed + 1);
  const SyntheticWitness w2 = generate_synthetic_witness(shape, seed + 2);
  ASSERT_TRUE(is_satisfied(r, w1.inputs, w1.aux).ok());
  ASSERT_TRUE(is_satisfied(r, w2.inputs, w2.aux).ok());
  EXPECT_NE(w1.inputs, w2.inputs);
  std::size_t differing = 0;
  for (std::size_t i = 0; i < w1.aux.size(); ++i) differing += w1.aux[i] != w2.aux[i];
  EXPECT_GT(differing, w1.aux.size() / 4);  // bits differ half the time, field values always

  // Into caller buffers: the same values; wrong sizes are refused.
  std::vector<Fr> inputs(shape.num_inputs), aux(shape.num_aux);
  generate_synthetic_witness_into(shape, seed + 1, inputs, aux);
  EXPECT_TRUE(inputs == w1.inputs && aux == w1.aux);
  EXPECT_THROW(generate_synthetic_witness_into(shape, 1, inputs, std::span(aux).first(aux.size() - 1)),
               std::invalid_argument);

  // Every aux value is constrained: changing any one of a sample breaks satisfaction.
  ff::SeededRng rng(seed);
  for (int trial = 0; trial < 64; ++trial) {
    SyntheticWitness bad = w1;
    const std::size_t j = rng.next_u64() % bad.aux.size();
    bad.aux[j] += Fr::from_u64(2);
    EXPECT_FALSE(is_satisfied(r, bad.inputs, bad.aux).ok()) << "aux " << j;
  }
}

// A tiny shape through the CPU Groth16 prover: setup, prove, verify; a bad witness fails.
TEST(SyntheticShape, Groth16ProvesAndVerifiesATinyShape) {
  const std::uint64_t seed = test_seed("SyntheticShape.Groth16");
  SyntheticShape shape;
  shape.num_inputs = 5;
  shape.num_aux = 1500;
  shape.num_constraints = shape.num_inputs + shape.num_aux + 2;
  shape.seed = seed;
  const R1cs r = generate_synthetic_r1cs(shape);
  SyntheticWitness sw = generate_synthetic_witness(shape, seed + 9);
  const groth16::Witness w{sw.inputs, sw.aux};
  const groth16::ProvingKey pk = groth16::setup(r);
  const auto pvk = groth16::PreparedVerifyingKey::from(pk.vk);
  const std::vector<Fr> publics(w.inputs.begin() + 1, w.inputs.end());
  const groth16::Proof proof = groth16::prove_checked(pk, r, w, groth16::ProverRandomness::random());
  EXPECT_TRUE(groth16::verify(pvk, proof, publics));

  groth16::Witness bad = w;
  bad.aux[bad.aux.size() / 2] += Fr::one();
  const groth16::Proof bad_proof = groth16::prove(pk, r, bad, groth16::ProverRandomness::random());
  EXPECT_FALSE(groth16::verify(pvk, bad_proof, publics));
}
