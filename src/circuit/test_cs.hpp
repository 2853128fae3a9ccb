// The test constraint system (bellperson's TestConstraintSystem): computes every value, keeps
// every constraint under its full namespaced path ("sha256/round 3/ch"), and says whether the
// assignment satisfies them and which constraint fails first. For gadget tests; it keeps
// the whole circuit in memory, so it is not for production-sized circuits.
//
// Paths are the namespace names and the object's name joined by '/'. As in bellperson, a
// name may not contain '/', and every path (namespace, variable or constraint) may be used
// once: re-using one throws CircuitNameError. Input 0 is ONE, at the path "ONE".
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "circuit/constraint_system.hpp"

namespace snarkpipe::circuit {

// A name error in a circuit: a duplicate path, a '/' in a name, pop_namespace without push.
class CircuitNameError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

class TestConstraintSystem final : public ConstraintSystem {
 public:
  struct Constraint {
    std::string path;
    LinearCombination a, b, c;
  };

  TestConstraintSystem();

  Variable alloc(std::string_view name, const ValueFn& value) override;
  Variable alloc_input(std::string_view name, const ValueFn& value) override;
  // Throws std::out_of_range when a term names a variable not allocated yet.
  void enforce(std::string_view name, const LinearCombination& a, const LinearCombination& b,
               const LinearCombination& c) override;
  void push_namespace(std::string_view name) override;
  void pop_namespace() override;
  bool needs_values() const override { return true; }

  bool is_satisfied() const { return !which_is_unsatisfied(); }
  // The path of the first constraint (in enforce order) with ⟨a,z⟩·⟨b,z⟩ ≠ ⟨c,z⟩.
  std::optional<std::string> which_is_unsatisfied() const;

  std::size_t num_constraints() const { return constraints_.size(); }  // circuit constraints only
  std::size_t num_inputs() const { return inputs_.size(); }            // including ONE
  std::size_t num_aux() const { return aux_.size(); }
  const std::vector<Fr>& inputs() const { return inputs_; }
  const std::vector<Fr>& aux() const { return aux_; }
  const std::vector<Constraint>& constraints() const { return constraints_; }

  Fr value(Variable v) const;  // throws std::out_of_range for an unallocated variable
  Fr eval(const LinearCombination& lc) const;

  // Variables by path; get/set throw std::out_of_range when no variable has that path.
  std::optional<Variable> variable(const std::string& path) const;
  Fr get(const std::string& path) const;
  // Overwrites a value after synthesis (negative tests: corrupt a witness, find the failure).
  void set(const std::string& path, const Fr& value);
  void set(Variable v, const Fr& value);

  // The current namespace path ("" at the top).
  const std::string& current_namespace() const { return ns_path_; }

 private:
  enum class ObjectKind : std::uint8_t { Namespace, Var, Constraint };
  struct Object {
    ObjectKind kind;
    Variable var;
  };

  std::string path_of(std::string_view name) const;
  void require_free(const std::string& path) const;
  Fr& slot(Variable v);
  void check_terms(const std::string& path, const LinearCombination& lc) const;

  std::string ns_path_;
  std::vector<std::size_t> ns_lengths_;  // ns_path_'s length before each push
  std::unordered_map<std::string, Object> objects_;
  std::vector<Fr> inputs_, aux_;
  std::vector<Constraint> constraints_;
};

}  // namespace snarkpipe::circuit
