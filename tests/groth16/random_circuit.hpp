// A random satisfiable circuit for tests: products and linear relations over random values,
// with a share of boolean (0/1) aux values as a PoRep witness has, some aux variables absent
// from B, and optionally a witness. Deterministic from the seed.
#pragma once

#include "circuit/constraint_system.hpp"
#include "circuit/recording_cs.hpp"
#include "circuit/witness_cs.hpp"
#include "ff/random.hpp"
#include "groth16/prover.hpp"

namespace snarkpipe::testing {

using circuit::ConstraintSystem;
using circuit::LinearCombination;
using circuit::Variable;
using ff::Fr;

class RandomCircuit : public circuit::Circuit {
 public:
  RandomCircuit(std::size_t constraints, std::size_t inputs, std::uint64_t seed)
      : constraints_(constraints), inputs_(inputs), seed_(seed) {}

  void synthesize(ConstraintSystem& cs) const override {
    ff::SeededRng rng(seed_);
    struct Known {
      Variable v;
      Fr value;
    };
    std::vector<Known> vars{{Variable::one(), Fr::one()}};
    auto pick = [&] { return vars[rng.next_u64() % vars.size()]; };
    for (std::size_t i = 0; i < inputs_; ++i) {
      const Fr x = (i % 3 == 0) ? Fr::from_u64(i & 1) : Fr::random(rng);
      vars.push_back({cs.alloc_input("input", [x] { return x; }), x});
    }
    for (std::size_t k = 0; k < constraints_; ++k) {
      const std::uint64_t kind = rng.next_u64() % 4;
      if (kind == 0) {
        // A boolean: b·(1 − b) = 0.
        const Fr b = Fr::from_u64(rng.next_u64() & 1);
        const Variable v = cs.alloc("bit", [b] { return b; });
        LinearCombination one_minus = LinearCombination::constant(Fr::one());
        one_minus -= v;
        cs.enforce("boolean", v, one_minus, LinearCombination::zero());
        vars.push_back({v, b});
      } else {
        // z = (c1·x + c2·y) · (c3·u + c4), or a linear relation when kind == 3 (B = ONE).
        const Known x = pick(), y = pick(), u = pick();
        const Fr c1 = Fr::random(rng), c2 = Fr::from_u64(rng.next_u64() % 5), c3 = Fr::random(rng),
                 c4 = Fr::from_u64(rng.next_u64() % 3);
        LinearCombination a;
        a.add(c1, x.v).add(c2, y.v);
        LinearCombination b = kind == 3 ? LinearCombination::constant(Fr::one()) : LinearCombination{};
        if (kind != 3) b.add(c3, u.v).add(c4, Variable::one());
        const Fr av = c1 * x.value + c2 * y.value;
        const Fr bv = kind == 3 ? Fr::one() : c3 * u.value + c4;
        const Fr z = av * bv;
        const Variable zv = cs.alloc("z", [z] { return z; });
        cs.enforce("product", a, b, zv);
        vars.push_back({zv, z});
      }
    }
  }

  circuit::R1cs record() const {
    circuit::RecordingConstraintSystem cs;
    synthesize(cs);
    return cs.finish();
  }
  groth16::Witness witness() const {
    circuit::WitnessConstraintSystem cs;
    synthesize(cs);
    return {cs.take_inputs(), cs.take_aux()};
  }

 private:
  std::size_t constraints_, inputs_;
  std::uint64_t seed_;
};

}  // namespace snarkpipe::testing
