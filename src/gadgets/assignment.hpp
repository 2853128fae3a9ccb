// What gadgets share about values: each gadget carries its witness as std::optional (empty
// while a circuit is synthesized without one, for setup), and hands the constraint system a
// value function that fails with AssignmentMissing when the optional is empty. Systems that
// need no values never call it, so setup runs through every gadget without a witness.
#pragma once

#include <array>
#include <optional>

#include "circuit/constraint_system.hpp"

namespace snarkpipe::gadgets {

using circuit::ConstraintSystem;
using circuit::LinearCombination;
using circuit::Namespace;
using circuit::SynthesisError;
using circuit::Variable;
using ff::Fr;

// Constants evaluated at compile time: a runtime Fr::one() or from_u64 costs a Montgomery
// multiplication, and gadgets build millions of terms.
inline constexpr Fr FR_ONE = Fr::one();
inline constexpr Fr FR_TWO = Fr::from_u64(2);
inline constexpr Fr FR_MINUS_ONE = -Fr::one();
inline constexpr std::array<Fr, 256> POW2 = [] {
  std::array<Fr, 256> t{};
  t[0] = Fr::one();
  for (unsigned k = 1; k < t.size(); ++k) t[k] = t[k - 1].dbl();
  return t;
}();

// 2^i in Fr for i < 256 (bit packing weights).
inline const Fr& pow2(unsigned i) { return POW2[i]; }

// The combination 1 · v.
inline LinearCombination lc_of(Variable v) {
  LinearCombination lc;
  lc.add(FR_ONE, v);
  return lc;
}

inline Fr bit_to_field(bool b) { return b ? FR_ONE : Fr::zero(); }

inline circuit::ValueFn value_fn(std::optional<bool> v) {
  return [v] { return v ? bit_to_field(*v) : circuit::missing_value(); };
}
inline circuit::ValueFn value_fn(const std::optional<Fr>& v) {
  return [v] { return v ? *v : circuit::missing_value(); };
}

}  // namespace snarkpipe::gadgets
