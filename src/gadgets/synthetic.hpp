// A synthetic circuit of any size: products and linear relations over random values, with
// a share of boolean (0/1) aux values as a PoRep witness has and aux variables absent from
// B. Satisfiable by construction, deterministic from the seed; the same seed gives the same
// R1CS whether or not values are computed. For benchmarks and tests of the prover; the
// full PoRep-shape generator (which writes the recorded circuit directly) is separate.
#pragma once

#include <cstdint>

#include "circuit/constraint_system.hpp"

namespace snarkpipe::gadgets {

class SyntheticCircuit final : public circuit::Circuit {
 public:
  SyntheticCircuit(std::size_t constraints, std::size_t public_inputs, std::uint64_t seed)
      : constraints_(constraints), inputs_(public_inputs), seed_(seed) {}
  void synthesize(circuit::ConstraintSystem& cs) const override;
  std::size_t constraints() const { return constraints_; }

 private:
  std::size_t constraints_, inputs_;
  std::uint64_t seed_;
};

}  // namespace snarkpipe::gadgets
