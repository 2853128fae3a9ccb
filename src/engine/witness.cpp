#include "engine/witness.hpp"

#include <stdexcept>

namespace snarkpipe::engine {

namespace {

class BufferWitnessSystem final : public circuit::ConstraintSystem {
 public:
  explicit BufferWitnessSystem(groth16::Witness& out) : out_(out) {
    out_.inputs.clear();
    out_.aux.clear();
    out_.inputs.push_back(ff::Fr::one());
  }
  circuit::Variable alloc(std::string_view, const circuit::ValueFn& value) override {
    if (out_.aux.size() >= (std::size_t(1) << 32)) throw std::length_error("witness: more than 2^32 aux variables");
    out_.aux.push_back(value());
    return circuit::Variable::aux(static_cast<std::uint32_t>(out_.aux.size() - 1));
  }
  circuit::Variable alloc_input(std::string_view, const circuit::ValueFn& value) override {
    if (out_.inputs.size() >= (std::size_t(1) << 32)) throw std::length_error("witness: more than 2^32 inputs");
    out_.inputs.push_back(value());
    return circuit::Variable::input(static_cast<std::uint32_t>(out_.inputs.size() - 1));
  }
  void enforce(std::string_view, const circuit::LinearCombination&, const circuit::LinearCombination&,
               const circuit::LinearCombination&) override {}
  void push_namespace(std::string_view) override {}
  void pop_namespace() override {}
  bool needs_values() const override { return true; }

 private:
  groth16::Witness& out_;
};

}  // namespace

void synthesize_into(const circuit::Circuit& circuit, groth16::Witness& out) {
  BufferWitnessSystem cs(out);
  circuit.synthesize(cs);
}

WitnessSource circuit_witness_source(std::function<std::shared_ptr<const circuit::Circuit>(std::size_t)> circuit_for) {
  return [circuit_for = std::move(circuit_for)](std::size_t k, groth16::Witness& out) {
    const auto c = circuit_for(k);
    if (!c) throw std::invalid_argument("no circuit for partition " + std::to_string(k));
    synthesize_into(*c, out);
  };
}

}  // namespace snarkpipe::engine
