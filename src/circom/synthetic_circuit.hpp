// A synthetic circuit shaped like what circom compiles (for `snarkpipe synthetic --format
// circom`): a satisfying witness comes with it, and both are new for every seed.
//
// Wires in circom's order: 0 = ONE, the public outputs, the public inputs, the private
// inputs, then one internal signal per constraint of the chain. Constraint k defines signal
// s_k from earlier wires, as circom's `s_k <== x * y + ...` templates do:
//   A: s_{k-1} (the first private input for k = 0), sometimes plus an earlier wire times a
//      coefficient (linear mixing), and in the first constraints each public input in turn;
//   B: an earlier wire, sometimes plus a constant (ONE times a coefficient);
//   C: s_k, sometimes minus an earlier wire times a coefficient.
// "Earlier" is mostly one of the 64 wires just before, sometimes any. Coefficients are 1 half
// of the time, else small (±2..±16) or uniform. Each public output is bound to an internal
// signal by a last `s · ONE = out` constraint. Input values are uniform field elements.
//
// The size is counted as snarkjs counts its domain: rows = circom's constraints + the
// public signals + 1 (the input rows snarkjs and snarkpipe add), so rows = 2^k gives a 2^k
// domain exactly.
#pragma once

#include <cstdint>
#include <vector>

#include "circom/r1cs.hpp"

namespace snarkpipe::circom {

struct CircomSyntheticShape {
  std::uint64_t rows = 1 << 16;
  std::uint32_t public_outputs = 1;
  std::uint32_t public_inputs = 3;
  std::uint32_t private_inputs = 2;
  std::uint64_t seed = 1;

  // circom's constraint count (rows less the input rows).
  std::uint64_t circom_constraints() const { return rows - (std::uint64_t(public_outputs) + public_inputs + 1); }
  // Throws std::invalid_argument naming the problem (too few rows for the outputs and one
  // chain signal, no private input, more than 2^32 - 1 wires).
  void validate() const;
};

struct CircomSyntheticCircuit {
  CircomR1cs circuit;           // with snarkpipe's rows (r1cs.hpp) and the identity label map
  std::vector<ff::Fr> witness;  // circom's wire values, value 0 = 1
};

CircomSyntheticCircuit make_circom_synthetic(const CircomSyntheticShape& shape);

}  // namespace snarkpipe::circom
