// A scaled-down porep-like instance proved end to end on the CPU: recorded circuit, setup,
// the fast witness path into the prover, and the verifier with the natively computed public
// inputs; a changed challenge index or comm_r does not verify.
#include <gtest/gtest.h>

#include "circuit/recording_cs.hpp"
#include "gadget_test_util.hpp"
#include "gadgets/porep_like.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "test_seed.hpp"

using namespace snarkpipe;
using gadget_test::SeededRng;

TEST(PorepLikeProof, ScaledDownInstanceProvesAndVerifies) {
  SeededRng rng(test_seed("PorepLikeProof.ScaledDownInstanceProvesAndVerifies"));
  const gadgets::PorepLikeParams p{2, 1, 3, 1};
  circuit::RecordingConstraintSystem rec;
  gadgets::PorepLikeCircuit(p, std::nullopt).synthesize(rec);
  const circuit::R1cs r1cs = rec.finish();
  const groth16::ProvingKey pk = groth16::setup(r1cs);
  const auto pvk = groth16::PreparedVerifyingKey::from(pk.vk);

  const gadgets::PorepLikeWitness w = gadgets::PorepLikeWitness::random(p, rng.next_u64());
  const gadgets::PorepLikeLayout layout = gadgets::porep_like_layout(p);
  groth16::Witness witness{std::vector<ff::Fr>(layout.num_inputs), std::vector<ff::Fr>(layout.num_aux())};
  gadgets::porep_like_fast_witness(p, w, witness.inputs, witness.aux);
  const groth16::Proof proof = groth16::prove(pk, r1cs, witness, groth16::ProverRandomness::random());

  std::vector<ff::Fr> pub = gadgets::porep_like_public_inputs(p, w);
  EXPECT_TRUE(groth16::verify(pvk, proof, pub));
  for (std::size_t victim : {std::size_t(2), std::size_t(3 + rng.next_u64() % p.challenges)}) {
    std::vector<ff::Fr> bad = pub;
    bad[victim] += ff::Fr::one();
    EXPECT_FALSE(groth16::verify(pvk, proof, bad)) << "public input " << victim;
  }
}
