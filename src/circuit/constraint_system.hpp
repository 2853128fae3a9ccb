// The constraint-system API circuit writers know from bellperson: variables (the constant
// ONE, public inputs, private aux values), linear combinations, alloc / alloc_input /
// enforce(a, b, c) and named namespaces. Circuits are written once against ConstraintSystem
// and run on every implementation: the test system (checks each constraint), the recording
// system (produces the R1CS as CSR matrices) and the witness system (values only).
//
// Index spaces, as bellperson's: inputs are numbered from 0 and input 0 is the constant ONE;
// aux variables are numbered from 0. In the recorded matrices the column of a variable is
// its input index for inputs and num_inputs + its aux index for aux variables, so the
// assignment vector is z = (1, x_1, ..., x_{n-1}, w_0, ..., w_{m-1}).
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ff/fields.hpp"

namespace snarkpipe::circuit {

using ff::Fr;

struct Variable {
  enum class Kind : std::uint8_t { Input, Aux };
  Kind kind = Kind::Input;
  std::uint32_t index = 0;

  static constexpr Variable one() { return {Kind::Input, 0}; }
  static constexpr Variable input(std::uint32_t i) { return {Kind::Input, i}; }
  static constexpr Variable aux(std::uint32_t i) { return {Kind::Aux, i}; }
  constexpr bool is_input() const { return kind == Kind::Input; }
  friend constexpr bool operator==(const Variable&, const Variable&) = default;
};

// Σ coeff_i · var_i. Terms are kept as written (duplicates allowed); the recording system
// merges them and drops zero coefficients.
class LinearCombination {
 public:
  struct Term {
    Variable var;
    Fr coeff;
  };

  LinearCombination() = default;
  LinearCombination(Variable v) { terms_.push_back({v, Fr::one()}); }  // NOLINT: implicit like bellperson's `lc + v`
  static LinearCombination zero() { return {}; }
  // The constant c (c · ONE).
  static LinearCombination constant(const Fr& c) {
    LinearCombination lc;
    lc.terms_.push_back({Variable::one(), c});
    return lc;
  }

  LinearCombination& add(const Fr& coeff, Variable v) {
    terms_.push_back({v, coeff});
    return *this;
  }
  LinearCombination& operator+=(Variable v) { return add(Fr::one(), v); }
  LinearCombination& operator-=(Variable v) { return add(-Fr::one(), v); }
  LinearCombination& operator+=(const LinearCombination& o) {
    terms_.insert(terms_.end(), o.terms_.begin(), o.terms_.end());
    return *this;
  }
  LinearCombination& operator-=(const LinearCombination& o) {
    for (const auto& t : o.terms_) terms_.push_back({t.var, -t.coeff});
    return *this;
  }
  LinearCombination& operator*=(const Fr& s) {
    for (auto& t : terms_) t.coeff *= s;
    return *this;
  }
  friend LinearCombination operator+(LinearCombination a, const LinearCombination& b) { return a += b; }
  friend LinearCombination operator-(LinearCombination a, const LinearCombination& b) { return a -= b; }
  friend LinearCombination operator*(LinearCombination a, const Fr& s) { return a *= s; }
  friend LinearCombination operator*(const Fr& s, LinearCombination a) { return a *= s; }

  const std::vector<Term>& terms() const { return terms_; }

 private:
  std::vector<Term> terms_;
};

// Raised by a constraint system when a circuit cannot be synthesized: a value was needed
// but the circuit has none (AssignmentMissing), or a value is invalid for its gadget.
class SynthesisError : public std::runtime_error {
 public:
  enum class Kind { AssignmentMissing, Unsatisfiable, InvalidValue };
  SynthesisError(Kind k, const std::string& what) : std::runtime_error(what), kind_(k) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

// A value source for alloc: called only by systems that compute values. Circuits without
// a witness (setup) pass a function that throws SynthesisError::AssignmentMissing, or use
// `missing_value`.
using ValueFn = std::function<Fr()>;
inline Fr missing_value() { throw SynthesisError(SynthesisError::Kind::AssignmentMissing, "assignment missing"); }

class ConstraintSystem {
 public:
  virtual ~ConstraintSystem() = default;

  // A private variable. `value` is called at most once, and only if needs_values().
  virtual Variable alloc(std::string_view name, const ValueFn& value) = 0;
  // A public input (numbered after ONE).
  virtual Variable alloc_input(std::string_view name, const ValueFn& value) = 0;
  // a · b = c.
  virtual void enforce(std::string_view name, const LinearCombination& a, const LinearCombination& b,
                       const LinearCombination& c) = 0;
  virtual void push_namespace(std::string_view name) = 0;
  virtual void pop_namespace() = 0;
  // Whether this system computes values (test and witness systems do; recording does not).
  virtual bool needs_values() const = 0;
};

// RAII namespace: `auto ns = Namespace(cs, "round 3");`
class Namespace {
 public:
  Namespace(ConstraintSystem& cs, std::string_view name) : cs_(cs) { cs_.push_namespace(name); }
  ~Namespace() { cs_.pop_namespace(); }
  Namespace(const Namespace&) = delete;
  Namespace& operator=(const Namespace&) = delete;

 private:
  ConstraintSystem& cs_;
};

// A circuit: synthesizes its constraints (and, when it holds a witness, the values).
class Circuit {
 public:
  virtual ~Circuit() = default;
  virtual void synthesize(ConstraintSystem& cs) const = 0;
};

}  // namespace snarkpipe::circuit
