// Field elements in a circuit, as bellperson's num gadget: AllocatedNum is one variable with
// its value; Num is a linear combination with its value (a free accumulator, e.g. of bits
// with power-of-two weights) that costs a constraint only when it becomes an input.
// Also: packing bit vectors into public inputs, and the same packing computed natively so a
// verifier can rebuild the public inputs from the data they stand for.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "gadgets/boolean.hpp"

namespace snarkpipe::gadgets {

class AllocatedNum {
 public:
  static AllocatedNum alloc(ConstraintSystem& cs, std::string_view name, const std::optional<Fr>& value);
  // A public input holding the value (no constraint).
  static AllocatedNum alloc_input(ConstraintSystem& cs, std::string_view name, const std::optional<Fr>& value);

  // Exposes this value as a new public input: input · 1 = this (1 constraint).
  AllocatedNum inputize(ConstraintSystem& cs, std::string_view name) const;

  AllocatedNum mul(ConstraintSystem& cs, std::string_view name, const AllocatedNum& other) const;  // a · b = c
  AllocatedNum square(ConstraintSystem& cs, std::string_view name) const;                          // a · a = c
  AllocatedNum add(ConstraintSystem& cs, std::string_view name, const AllocatedNum& other) const;  // (a + b) · 1 = c
  // The sum as a linear combination (free).
  LinearCombination add_lc(const AllocatedNum& other) const {
    LinearCombination lc(var_);
    lc += other.var_;
    return lc;
  }
  LinearCombination lc() const { return LinearCombination(var_); }

  // this · inv = 1 (1 constraint). A known zero value raises SynthesisError::Unsatisfiable.
  void assert_nonzero(ConstraintSystem& cs, std::string_view name) const;

  // (cond ? b : a, cond ? a : b), 2 constraints: (a - b) · cond = a - c, (b - a) · cond = b - d.
  static std::pair<AllocatedNum, AllocatedNum> conditional_reverse(ConstraintSystem& cs, std::string_view name,
                                                                   const AllocatedNum& a, const AllocatedNum& b,
                                                                   const Boolean& cond);

  // The num_bits low bits, little-endian, with Σ 2^i b_i = this. num_bits <= 254 so the
  // representation is unique (else std::invalid_argument). num_bits + 1 constraints; a value
  // that does not fit leaves the packing constraint unsatisfied.
  std::vector<Boolean> to_bits_le(ConstraintSystem& cs, std::string_view name, std::size_t num_bits) const;
  // All 255 bits, little-endian, proven to spell the canonical integer (< r): each bit that
  // would make the integer exceed r - 1 is forced to 0 where the higher bits equal r - 1's.
  // 255 booleanity constraints, one AND per 1-bit of r - 1 after the first, 1 packing.
  std::vector<Boolean> to_bits_le_strict(ConstraintSystem& cs, std::string_view name) const;

  Variable variable() const { return var_; }
  const std::optional<Fr>& value() const { return value_; }

 private:
  AllocatedNum(Variable v, const std::optional<Fr>& value) : var_(v), value_(value) {}

  Variable var_;
  std::optional<Fr> value_;
};

class Num {
 public:
  Num() : value_(Fr::zero()) {}
  Num(LinearCombination lc, const std::optional<Fr>& value) : lc_(std::move(lc)), value_(value) {}
  static Num of(const AllocatedNum& n) { return {n.lc(), n.value()}; }
  // Σ 2^i · bits[i].
  static Num from_bits_le(std::span<const Boolean> bits);
  // Σ 2^(n-1-i) · bits[i]: the first bit is the most significant.
  static Num from_bits_be(std::span<const Boolean> bits);

  Num& add_bool_with_coeff(const Boolean& bit, const Fr& coeff);

  // A new public input equal to this: (this) · 1 = input (1 constraint).
  AllocatedNum inputize(ConstraintSystem& cs, std::string_view name) const;

  const LinearCombination& lc() const { return lc_; }
  const std::optional<Fr>& value() const { return value_; }

 private:
  LinearCombination lc_;
  std::optional<Fr> value_;
};

// Public inputs from bits: consecutive chunks of chunk_bits bits (the last may be shorter),
// each the big-endian integer its bits spell (its first bit the most significant).
// chunk_bits in 1..254, else std::invalid_argument. One input and one constraint per chunk.
std::vector<AllocatedNum> pack_bits_be_into_inputs(ConstraintSystem& cs, std::string_view name,
                                                   std::span<const Boolean> bits, std::size_t chunk_bits);
// The same packing of known bits, natively: the public inputs a verifier supplies.
std::vector<Fr> pack_bits_be(const std::vector<bool>& bits, std::size_t chunk_bits);

}  // namespace snarkpipe::gadgets
