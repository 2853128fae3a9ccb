// Several small equalities in one constraint (the idea of bellman's MultiEq). Equalities
// lhs_i = rhs_i whose two sides are integers below 2^(w_i) (as sums of bits are) are stacked
// at bit offsets o_i into  Σ 2^(o_i)·lhs_i = Σ 2^(o_i)·rhs_i,  one constraint per 254 bits.
// Sound because both stacked sides stay below 2^254 < r, so the field equation is an integer
// equation, and an integer below 2^(Σw) has one base-2^(w_i) digit expansion. The caller
// must guarantee the bound on each side (e.g. by booleanity of the bits in it).
//
// The stacked constraints are emitted as "packed equalities k" (k counting this object's
// batches) in whatever namespace is current when a batch fills, and by finish() (or the
// destructor, unless an exception is unwinding) for the last batch; so give each MultiEq a
// namespace of its own (sha256_compression uses one per compression).
#pragma once

#include <cstddef>
#include <exception>

#include "gadgets/assignment.hpp"

namespace snarkpipe::gadgets {

class MultiEq {
 public:
  static constexpr std::size_t CAPACITY = Fr::BITS - 1;  // 254

  explicit MultiEq(ConstraintSystem& cs) : cs_(cs), exceptions_at_start_(std::uncaught_exceptions()) {}
  MultiEq(const MultiEq&) = delete;
  MultiEq& operator=(const MultiEq&) = delete;
  ~MultiEq() noexcept(false) {
    if (std::uncaught_exceptions() == exceptions_at_start_) finish();
  }

  ConstraintSystem& cs() { return cs_; }

  // lhs = rhs, both sides integers in [0, 2^num_bits); num_bits in 1..CAPACITY.
  void enforce_equal(std::size_t num_bits, const LinearCombination& lhs, const LinearCombination& rhs);
  // The same in two steps, for callers that build the sides already shifted (saving a
  // multiplication per term): reserve(num_bits) returns the exponent s at which the next
  // equality sits (emitting a full batch first); add_reserved(lhs, rhs) takes sides whose
  // weights include the factor 2^s. The two calls come in pairs, in order.
  std::size_t reserve(std::size_t num_bits);
  void add_reserved(const LinearCombination& lhs, const LinearCombination& rhs) {
    lhs_ += lhs;
    rhs_ += rhs;
  }
  // Emits the pending batch (no-op when empty).
  void finish();

 private:
  ConstraintSystem& cs_;
  int exceptions_at_start_;
  std::size_t bits_used_ = 0;
  std::size_t emitted_ = 0;
  LinearCombination lhs_, rhs_;
};

}  // namespace snarkpipe::gadgets
