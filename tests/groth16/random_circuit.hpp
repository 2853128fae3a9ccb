// The test circuits of the Groth16 tests: the synthetic circuit with its R1CS and witness.
#pragma once

#include "circuit/recording_cs.hpp"
#include "circuit/witness_cs.hpp"
#include "gadgets/synthetic.hpp"
#include "groth16/prover.hpp"

namespace snarkpipe::testing {

class RandomCircuit {
 public:
  RandomCircuit(std::size_t constraints, std::size_t inputs, std::uint64_t seed) : c_(constraints, inputs, seed) {}
  circuit::R1cs record() const {
    circuit::RecordingConstraintSystem cs;
    c_.synthesize(cs);
    return cs.finish();
  }
  groth16::Witness witness() const {
    circuit::WitnessConstraintSystem cs;
    c_.synthesize(cs);
    return {cs.take_inputs(), cs.take_aux()};
  }

 private:
  gadgets::SyntheticCircuit c_;
};

}  // namespace snarkpipe::testing
