#include "circuit/test_cs.hpp"

namespace snarkpipe::circuit {

TestConstraintSystem::TestConstraintSystem() {
  inputs_.push_back(Fr::one());
  objects_.emplace("ONE", Object{ObjectKind::Var, Variable::one()});
}

std::string TestConstraintSystem::path_of(std::string_view name) const {
  if (name.find('/') != std::string_view::npos) {
    throw CircuitNameError("test constraint system: '/' is not allowed in names: \"" + std::string(name) + "\"");
  }
  if (ns_path_.empty()) return std::string(name);
  std::string p = ns_path_;
  p += '/';
  p += name;
  return p;
}

void TestConstraintSystem::require_free(const std::string& path) const {
  if (objects_.contains(path)) {
    throw CircuitNameError("test constraint system: path already in use: \"" + path + "\"");
  }
}

Variable TestConstraintSystem::alloc(std::string_view name, const ValueFn& value) {
  const std::string path = path_of(name);
  const Variable v = Variable::aux(static_cast<std::uint32_t>(aux_.size()));
  require_free(path);  // before the value is computed
  const Fr x = value();
  objects_.emplace(path, Object{ObjectKind::Var, v});
  aux_.push_back(x);
  return v;
}

Variable TestConstraintSystem::alloc_input(std::string_view name, const ValueFn& value) {
  const std::string path = path_of(name);
  const Variable v = Variable::input(static_cast<std::uint32_t>(inputs_.size()));
  require_free(path);
  const Fr x = value();
  objects_.emplace(path, Object{ObjectKind::Var, v});
  inputs_.push_back(x);
  return v;
}

void TestConstraintSystem::check_terms(const std::string& path, const LinearCombination& lc) const {
  for (const auto& t : lc.terms()) {
    const bool ok = t.var.is_input() ? t.var.index < inputs_.size() : t.var.index < aux_.size();
    if (!ok) {
      throw std::out_of_range("constraint \"" + path + "\": " + (t.var.is_input() ? "input " : "aux ") +
                              std::to_string(t.var.index) + " is not allocated");
    }
  }
}

void TestConstraintSystem::enforce(std::string_view name, const LinearCombination& a, const LinearCombination& b,
                                   const LinearCombination& c) {
  std::string path = path_of(name);
  check_terms(path, a);
  check_terms(path, b);
  check_terms(path, c);
  require_free(path);
  objects_.emplace(path, Object{ObjectKind::Constraint, {}});
  constraints_.push_back({std::move(path), a, b, c});
}

void TestConstraintSystem::push_namespace(std::string_view name) {
  std::string path = path_of(name);
  require_free(path);
  objects_.emplace(path, Object{ObjectKind::Namespace, {}});
  ns_lengths_.push_back(ns_path_.size());
  ns_path_ = std::move(path);
}

void TestConstraintSystem::pop_namespace() {
  if (ns_lengths_.empty()) throw CircuitNameError("test constraint system: pop_namespace at the top level");
  ns_path_.resize(ns_lengths_.back());
  ns_lengths_.pop_back();
}

Fr TestConstraintSystem::value(Variable v) const {
  const auto& vec = v.is_input() ? inputs_ : aux_;
  if (v.index >= vec.size()) {
    throw std::out_of_range(std::string(v.is_input() ? "input " : "aux ") + std::to_string(v.index) +
                            " is not allocated");
  }
  return vec[v.index];
}

Fr& TestConstraintSystem::slot(Variable v) {
  auto& vec = v.is_input() ? inputs_ : aux_;
  if (v.index >= vec.size()) {
    throw std::out_of_range(std::string(v.is_input() ? "input " : "aux ") + std::to_string(v.index) +
                            " is not allocated");
  }
  return vec[v.index];
}

Fr TestConstraintSystem::eval(const LinearCombination& lc) const {
  Fr acc = Fr::zero();
  for (const auto& t : lc.terms()) acc += t.coeff * value(t.var);
  return acc;
}

std::optional<std::string> TestConstraintSystem::which_is_unsatisfied() const {
  for (const auto& k : constraints_) {
    if (eval(k.a) * eval(k.b) != eval(k.c)) return k.path;
  }
  return std::nullopt;
}

std::optional<Variable> TestConstraintSystem::variable(const std::string& path) const {
  const auto it = objects_.find(path);
  if (it == objects_.end() || it->second.kind != ObjectKind::Var) return std::nullopt;
  return it->second.var;
}

Fr TestConstraintSystem::get(const std::string& path) const {
  const auto v = variable(path);
  if (!v) throw std::out_of_range("test constraint system: no variable at \"" + path + "\"");
  return value(*v);
}

void TestConstraintSystem::set(const std::string& path, const Fr& value) {
  const auto v = variable(path);
  if (!v) throw std::out_of_range("test constraint system: no variable at \"" + path + "\"");
  set(*v, value);
}

void TestConstraintSystem::set(Variable v, const Fr& value) { slot(v) = value; }

}  // namespace snarkpipe::circuit
