#include "circuit/witness_cs.hpp"

#include <stdexcept>

namespace snarkpipe::circuit {

Variable WitnessConstraintSystem::alloc(std::string_view, const ValueFn& value) {
  if (aux_.size() >= (std::size_t(1) << 32))
    throw std::length_error("witness constraint system: more than 2^32 aux variables");
  const Fr v = value();
  aux_.push_back(v);
  return Variable::aux(static_cast<std::uint32_t>(aux_.size() - 1));
}

Variable WitnessConstraintSystem::alloc_input(std::string_view, const ValueFn& value) {
  if (inputs_.size() >= (std::size_t(1) << 32))
    throw std::length_error("witness constraint system: more than 2^32 inputs");
  const Fr v = value();
  inputs_.push_back(v);
  return Variable::input(static_cast<std::uint32_t>(inputs_.size() - 1));
}

}  // namespace snarkpipe::circuit
