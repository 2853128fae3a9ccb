#include "gadgets/multi_eq.hpp"

#include <stdexcept>
#include <string>

namespace snarkpipe::gadgets {

std::size_t MultiEq::reserve(std::size_t num_bits) {
  if (num_bits == 0 || num_bits > CAPACITY)
    throw std::invalid_argument("MultiEq: equality width " + std::to_string(num_bits));
  if (bits_used_ + num_bits > CAPACITY) finish();
  const std::size_t at = bits_used_;
  bits_used_ += num_bits;
  return at;
}

void MultiEq::enforce_equal(std::size_t num_bits, const LinearCombination& lhs, const LinearCombination& rhs) {
  const std::size_t at = reserve(num_bits);
  if (at == 0) {
    add_reserved(lhs, rhs);
    return;
  }
  const Fr& shift = pow2(unsigned(at));
  for (const auto& t : lhs.terms()) lhs_.add(t.coeff * shift, t.var);
  for (const auto& t : rhs.terms()) rhs_.add(t.coeff * shift, t.var);
}

void MultiEq::finish() {
  if (bits_used_ == 0) return;
  cs_.enforce("packed equalities " + std::to_string(emitted_++), lhs_, lc_of(Variable::one()), rhs_);
  lhs_ = LinearCombination();
  rhs_ = LinearCombination();
  bits_used_ = 0;
}

}  // namespace snarkpipe::gadgets
