// The ready circuits: satisfied with their witness, public inputs equal to the native
// computation (and to OpenSSL's digest), the same shape with and without a witness (setup
// records without values), witness-only synthesis; constraint counts printed.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <cstdio>

#include "circuit/recording_cs.hpp"
#include "circuit/spmv.hpp"
#include "circuit/witness_cs.hpp"
#include "gadget_test_util.hpp"
#include "gadgets/circuits.hpp"
#include "test_seed.hpp"

using namespace snarkpipe::gadgets;
using namespace gadget_test;
using snarkpipe::circuit::Circuit;
using snarkpipe::circuit::RecordingConstraintSystem;
using snarkpipe::circuit::WitnessConstraintSystem;

namespace {

struct Shape {
  std::uint64_t constraints, inputs, aux;
};

Shape record(const Circuit& c) {
  RecordingConstraintSystem cs;
  c.synthesize(cs);
  return {cs.num_constraints(), cs.num_inputs(), cs.num_aux()};
}

// The prover's path: the R1CS recorded from the circuit without a witness, the assignment
// from the circuit with one, checked row by row. Returns the public inputs (without ONE).
std::vector<Fr> prove_path(const Circuit& setup, const Circuit& with_witness, Shape* shape = nullptr) {
  RecordingConstraintSystem rec;
  setup.synthesize(rec);
  if (shape) *shape = {rec.num_constraints(), rec.num_inputs(), rec.num_aux()};
  const snarkpipe::circuit::R1cs r1cs = rec.finish();
  WitnessConstraintSystem ws;
  with_witness.synthesize(ws);
  EXPECT_TRUE(snarkpipe::circuit::is_satisfied(r1cs, ws.inputs(), ws.aux()).ok());
  return {ws.inputs().begin() + 1, ws.inputs().end()};
}

std::vector<Fr> public_inputs_of(const std::vector<Fr>& inputs) { return {inputs.begin() + 1, inputs.end()}; }

}  // namespace

TEST(Sha256PreimageCircuit, SatisfiedAndPublicInputsMatchNative) {
  const std::uint64_t seed = test_seed("Sha256PreimageCircuit.SatisfiedAndPublicInputsMatchNative");
  for (std::size_t blocks : {1u, 2u}) {
    SCOPED_TRACE("blocks " + std::to_string(blocks));
    const auto preimage = Sha256PreimageCircuit::random_preimage(blocks, seed + blocks);
    ASSERT_EQ(preimage.size(), 64 * blocks - 9);
    EXPECT_EQ(preimage, Sha256PreimageCircuit::random_preimage(blocks, seed + blocks));  // deterministic

    const Sha256PreimageCircuit circuit(blocks, preimage);
    TestConstraintSystem cs;
    circuit.synthesize(cs);
    EXPECT_TRUE(cs.is_satisfied()) << *cs.which_is_unsatisfied();
    const auto expected = Sha256PreimageCircuit::public_inputs(preimage);
    ASSERT_EQ(expected.size(), Sha256PreimageCircuit::NUM_PUBLIC_INPUTS);
    EXPECT_EQ(public_inputs_of(cs.inputs()), expected);

    Sha256Digest digest;
    unsigned int len = 0;
    ASSERT_EQ(EVP_Digest(preimage.data(), preimage.size(), digest.data(), &len, EVP_sha256(), nullptr), 1);
    const auto from_openssl = sha256_digest_public_inputs(digest);
    EXPECT_EQ(expected, (std::vector<Fr>{from_openssl[0], from_openssl[1]}));

    // Setup: no witness, same shape.
    const Shape shape = record(Sha256PreimageCircuit(blocks, std::nullopt));
    EXPECT_EQ(shape.constraints, cs.num_constraints());
    EXPECT_EQ(shape.inputs, cs.num_inputs());
    EXPECT_EQ(shape.aux, cs.num_aux());
    std::printf(
        "[count] Sha256PreimageCircuit %zu block(s), %zu-byte preimage: %llu constraints, %llu inputs (with ONE), %llu aux\n",
        blocks, preimage.size(), (unsigned long long)shape.constraints, (unsigned long long)shape.inputs,
        (unsigned long long)shape.aux);

    // Witness only: the same assignment, and it satisfies the recorded R1CS.
    WitnessConstraintSystem ws;
    circuit.synthesize(ws);
    EXPECT_EQ(ws.inputs(), cs.inputs());
    EXPECT_EQ(ws.aux(), cs.aux());
    EXPECT_EQ(prove_path(Sha256PreimageCircuit(blocks, std::nullopt), circuit), expected);
  }
  EXPECT_THROW(Sha256PreimageCircuit(1, std::vector<std::uint8_t>(56)), std::invalid_argument);
  EXPECT_THROW(Sha256PreimageCircuit(0, std::nullopt), std::invalid_argument);
}

TEST(MerkleSha256Circuit, SatisfiedAndPublicInputsMatchNative) {
  const std::uint64_t seed = test_seed("MerkleSha256Circuit.SatisfiedAndPublicInputsMatchNative");
  for (std::size_t depth : {1u, 2u, 4u}) {
    SCOPED_TRACE("depth " + std::to_string(depth));
    const MerkleWitness w = MerkleSha256Circuit::random_witness(depth, seed + depth);
    const MerkleWitness again = MerkleSha256Circuit::random_witness(depth, seed + depth);
    EXPECT_EQ(w.leaf, again.leaf);
    EXPECT_EQ(w.path.index, again.path.index);
    EXPECT_EQ(w.path.siblings, again.path.siblings);

    const MerkleSha256Circuit circuit(depth, w);
    const auto expected = MerkleSha256Circuit::public_inputs(w);
    ASSERT_EQ(expected.size(), MerkleSha256Circuit::NUM_PUBLIC_INPUTS);
    EXPECT_EQ(expected[2], Fr::from_u64(w.path.index));
    Shape shape;
    EXPECT_EQ(prove_path(MerkleSha256Circuit(depth, std::nullopt), circuit, &shape), expected);

    if (depth == 1) {  // the test system is slow: the smallest tree only
      TestConstraintSystem cs;
      circuit.synthesize(cs);
      EXPECT_TRUE(cs.is_satisfied()) << *cs.which_is_unsatisfied();
      EXPECT_EQ(public_inputs_of(cs.inputs()), expected);
      EXPECT_EQ(shape.constraints, cs.num_constraints());
      EXPECT_EQ(shape.inputs, cs.num_inputs());
      EXPECT_EQ(shape.aux, cs.num_aux());
    }
  }
  const MerkleWitness w = MerkleSha256Circuit::random_witness(3, seed);
  EXPECT_THROW(MerkleSha256Circuit(4, w), std::invalid_argument);
  MerkleWitness far = w;
  far.path.index = 8;
  EXPECT_THROW(MerkleSha256Circuit(3, far), std::invalid_argument);
  EXPECT_THROW(MerkleSha256Circuit(0, std::nullopt), std::invalid_argument);
  EXPECT_THROW(MerkleSha256Circuit(65, std::nullopt), std::invalid_argument);
}

// Deep trees through the production systems only (recording without values, witness only).
TEST(MerkleSha256Circuit, DeepTreeCountsAndWitness) {
  const std::uint64_t seed = test_seed("MerkleSha256Circuit.DeepTreeCountsAndWitness");
  const Shape d1 = record(MerkleSha256Circuit(1, std::nullopt));
  const Shape d2 = record(MerkleSha256Circuit(2, std::nullopt));
  for (std::size_t depth : {1u, 10u, 20u}) {
    Shape s = d1;
    if (depth == 20) {  // and the full prover path: recorded R1CS, witness, row check
      const MerkleWitness w = MerkleSha256Circuit::random_witness(depth, seed);
      EXPECT_EQ(prove_path(MerkleSha256Circuit(depth, std::nullopt), MerkleSha256Circuit(depth, w), &s),
                MerkleSha256Circuit::public_inputs(w));
    } else if (depth != 1) {
      s = record(MerkleSha256Circuit(depth, std::nullopt));
    }
    // Every level costs the same.
    EXPECT_EQ(s.constraints, d1.constraints + (depth - 1) * (d2.constraints - d1.constraints));
    EXPECT_EQ(s.inputs, 1u + MerkleSha256Circuit::NUM_PUBLIC_INPUTS);
    std::printf("[count] MerkleSha256Circuit depth %zu: %llu constraints, %llu inputs (with ONE), %llu aux\n", depth,
                (unsigned long long)s.constraints, (unsigned long long)s.inputs, (unsigned long long)s.aux);
  }
}
