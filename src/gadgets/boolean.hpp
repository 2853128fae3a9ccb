// Bits in a circuit, as bellperson's boolean gadget: AllocatedBit is a variable proven to be
// 0 or 1; Boolean is a bit that may also be a constant or the negation of an allocated bit,
// so constants fold away and negation is free. Every operation takes a name and opens a
// namespace of that name for its variables and constraints.
//
// Costs (constraints): AllocatedBit::alloc 1; xor_/and_/and_not/nor 1 on allocated bits;
// Boolean ops 0 when an operand is constant, else 1; select (and sha256_ch) 1;
// sha256_maj 2 on three non-constant bits, else at most 1.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "gadgets/assignment.hpp"

namespace snarkpipe::gadgets {

class AllocatedBit {
 public:
  // A fresh variable with the booleanity constraint (1 - b) · b = 0.
  static AllocatedBit alloc(ConstraintSystem& cs, std::string_view name, std::optional<bool> value);
  // Like alloc, and forced to 0 when `must_be_false` is 1: (1 - b - m) · b = 0.
  static AllocatedBit alloc_conditionally(ConstraintSystem& cs, std::string_view name, std::optional<bool> value,
                                          const AllocatedBit& must_be_false);

  // The result variables below are 0/1 by their defining constraint; none needs its own.
  static AllocatedBit xor_(ConstraintSystem& cs, std::string_view name, const AllocatedBit& a,
                           const AllocatedBit& b);  // (2a) · b = a + b - c
  static AllocatedBit and_(ConstraintSystem& cs, std::string_view name, const AllocatedBit& a,
                           const AllocatedBit& b);  // a · b = c
  static AllocatedBit and_not(ConstraintSystem& cs, std::string_view name, const AllocatedBit& a,
                              const AllocatedBit& b);  // a · (1 - b) = c   (a ∧ ¬b)
  static AllocatedBit nor(ConstraintSystem& cs, std::string_view name, const AllocatedBit& a,
                          const AllocatedBit& b);  // (1 - a) · (1 - b) = c   (¬a ∧ ¬b)

  Variable variable() const { return var_; }
  std::optional<bool> value() const { return value_; }

 private:
  friend class Boolean;
  AllocatedBit(Variable v, std::optional<bool> value) : var_(v), value_(value) {}

  Variable var_;
  std::optional<bool> value_;
};

class Boolean {
 public:
  Boolean() = default;                                              // the constant false
  Boolean(const AllocatedBit& bit) : kind_(Kind::Is), bit_(bit) {}  // NOLINT: implicit, as bellperson's From
  static Boolean constant(bool b) {
    Boolean r;
    r.constant_ = b;
    return r;
  }
  // An allocated bit (with its booleanity constraint).
  static Boolean alloc(ConstraintSystem& cs, std::string_view name, std::optional<bool> value) {
    return AllocatedBit::alloc(cs, name, value);
  }

  bool is_constant() const { return kind_ == Kind::Constant; }
  // The allocated bit's variable (also for ¬bit); nullopt for a constant.
  std::optional<Variable> variable() const {
    if (is_constant()) return std::nullopt;
    return bit_.var_;
  }
  // The constant's value, or the allocated bit's value when known (negated for ¬bit).
  std::optional<bool> value() const;
  // The bit as a linear combination over ONE and its variable.
  LinearCombination lc() const;
  // lc += coeff · this (no temporary combination; packing loops use it).
  void add_to(LinearCombination& lc, const Fr& coeff) const;

  Boolean not_() const;

  static Boolean xor_(ConstraintSystem& cs, std::string_view name, const Boolean& a, const Boolean& b);
  static Boolean and_(ConstraintSystem& cs, std::string_view name, const Boolean& a, const Boolean& b);
  static Boolean or_(ConstraintSystem& cs, std::string_view name, const Boolean& a, const Boolean& b);
  // cond ? if_true : if_false, one constraint cond · (t - f) = r - f.
  static Boolean select(ConstraintSystem& cs, std::string_view name, const Boolean& cond, const Boolean& if_true,
                        const Boolean& if_false);
  // SHA-256's Ch(a, b, c) = (a ∧ b) ⊕ (¬a ∧ c), which is select(a, b, c).
  static Boolean sha256_ch(ConstraintSystem& cs, std::string_view name, const Boolean& a, const Boolean& b,
                           const Boolean& c) {
    return select(cs, name, a, b, c);
  }
  // SHA-256's Maj(a, b, c) = (a ∧ b) ⊕ (a ∧ c) ⊕ (b ∧ c).
  static Boolean sha256_maj(ConstraintSystem& cs, std::string_view name, const Boolean& a, const Boolean& b,
                            const Boolean& c);
  // a = b: (a - b) · 1 = 0. Two different constants raise SynthesisError::Unsatisfiable.
  static void enforce_equal(ConstraintSystem& cs, std::string_view name, const Boolean& a, const Boolean& b);

 private:
  enum class Kind : std::uint8_t { Constant, Is, Not };
  Boolean(Kind k, const AllocatedBit& bit) : kind_(k), bit_(bit) {}

  Kind kind_ = Kind::Constant;
  bool constant_ = false;
  AllocatedBit bit_{Variable::one(), std::nullopt};  // meaningful for Is / Not only
};

// Bit vectors, most significant bit of each byte first (SHA-256's order).
std::vector<bool> bytes_to_bits_be(std::span<const std::uint8_t> bytes);
std::vector<Boolean> constant_bits_be(std::span<const std::uint8_t> bytes);
// 8·num_bytes allocated bits, named "bit i"; values from `bytes` when given (its size must
// then be num_bytes, else std::invalid_argument).
std::vector<Boolean> alloc_bits_be(ConstraintSystem& cs, std::string_view name, std::size_t num_bytes,
                                   const std::optional<std::vector<std::uint8_t>>& bytes);
// The bytes the bits' values spell (size a multiple of 8), or nullopt if a value is unknown.
std::optional<std::vector<std::uint8_t>> bits_to_bytes_be(std::span<const Boolean> bits);
// Per-bit select: (cond ? b : a, cond ? a : b), 2 constraints per bit (Merkle's ordering).
std::pair<std::vector<Boolean>, std::vector<Boolean>> conditional_swap(ConstraintSystem& cs, std::string_view name,
                                                                       const Boolean& cond, std::span<const Boolean> a,
                                                                       std::span<const Boolean> b);
// a[i] = b[i] for every i (sizes must match, else std::invalid_argument).
void enforce_equal_bits(ConstraintSystem& cs, std::string_view name, std::span<const Boolean> a,
                        std::span<const Boolean> b);

}  // namespace snarkpipe::gadgets
