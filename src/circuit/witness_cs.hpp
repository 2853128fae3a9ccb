// The witness constraint system: runs a circuit for its values only. alloc / alloc_input call
// the value function and keep the value; enforce and namespaces are no-ops. The result is
// the assignment z = (inputs ‖ aux) that the prover pairs with the recorded R1cs.
#pragma once

#include <cstdint>
#include <vector>

#include "circuit/constraint_system.hpp"

namespace snarkpipe::circuit {

class WitnessConstraintSystem final : public ConstraintSystem {
 public:
  WitnessConstraintSystem() : inputs_{Fr::one()} {}
  // Capacity hints, for circuits whose sizes are known (avoids regrowing the vectors).
  void reserve(std::size_t num_inputs, std::size_t num_aux) {
    inputs_.reserve(num_inputs);
    aux_.reserve(num_aux);
  }

  Variable alloc(std::string_view name, const ValueFn& value) override;
  Variable alloc_input(std::string_view name, const ValueFn& value) override;
  void enforce(std::string_view, const LinearCombination&, const LinearCombination&,
               const LinearCombination&) override {}
  void push_namespace(std::string_view) override {}
  void pop_namespace() override {}
  bool needs_values() const override { return true; }

  // inputs()[0] == 1 (ONE); inputs()[i] is input i, aux()[j] aux variable j.
  const std::vector<Fr>& inputs() const { return inputs_; }
  const std::vector<Fr>& aux() const { return aux_; }
  // Move the vectors out (the system is left with ONE only, as if fresh).
  std::vector<Fr> take_inputs() {
    std::vector<Fr> v = std::move(inputs_);
    inputs_.assign(1, Fr::one());
    return v;
  }
  std::vector<Fr> take_aux() {
    std::vector<Fr> v = std::move(aux_);
    aux_.clear();
    return v;
  }

 private:
  std::vector<Fr> inputs_;
  std::vector<Fr> aux_;
};

}  // namespace snarkpipe::circuit
