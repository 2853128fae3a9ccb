// 32-bit words in a circuit, as bellperson's uint32 gadget: 32 Booleans (kept
// little-endian, bit 0 the least significant) plus the word's value when known. Rotations
// and shifts only relabel bits (free); bitwise functions cost per non-constant bit; addmany
// adds several words modulo 2^32 with one packed constraint and booleanity on the result
// and carry bits.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "gadgets/boolean.hpp"
#include "gadgets/multi_eq.hpp"

namespace snarkpipe::gadgets {

class UInt32 {
 public:
  UInt32() : value_(0) {}  // the constant 0
  static UInt32 constant(std::uint32_t v);
  // 32 allocated bits (32 constraints), named "bit i" with i from the least significant.
  static UInt32 alloc(ConstraintSystem& cs, std::string_view name, std::optional<std::uint32_t> value);
  // From exactly 32 bits (else std::invalid_argument).
  static UInt32 from_bits_be(std::span<const Boolean> bits);  // bits[0] the most significant
  static UInt32 from_bits_le(std::span<const Boolean> bits);  // bits[0] the least significant

  std::vector<Boolean> to_bits_be() const;
  const std::array<Boolean, 32>& bits_le() const { return bits_; }
  std::optional<std::uint32_t> value() const { return value_; }

  UInt32 rotr(unsigned by) const;
  UInt32 shr(unsigned by) const;

  // Bitwise; each costs one constraint per bit whose operands are all non-constant (maj two).
  UInt32 xor_(ConstraintSystem& cs, std::string_view name, const UInt32& other) const;
  static UInt32 sha256_ch(ConstraintSystem& cs, std::string_view name, const UInt32& a, const UInt32& b,
                          const UInt32& c);
  static UInt32 sha256_maj(ConstraintSystem& cs, std::string_view name, const UInt32& a, const UInt32& b,
                           const UInt32& c);

  // Σ operands mod 2^32. The constant bits of all operands fold into one constant; the sum
  // bound M = Σ (weights of non-constant and true constant bits) fixes the result width
  // w = bit_width(M): w booleanity constraints plus one packing constraint
  // Σ operands = Σ_{i<w} 2^i r_i; r_0..r_31 are the word, the rest the carry.
  // All-constant operands give a constant and no constraint.
  static UInt32 addmany(ConstraintSystem& cs, std::string_view name, std::span<const UInt32> operands);
  // The same, with the packing equality stacked into `eq` (w booleanity constraints here,
  // the packing shared with other equalities; see multi_eq.hpp).
  static UInt32 addmany(MultiEq& eq, std::string_view name, std::span<const UInt32> operands);

 private:
  static UInt32 addmany(ConstraintSystem& cs, std::string_view name, std::span<const UInt32> operands, MultiEq* eq);

  std::array<Boolean, 32> bits_;
  std::optional<std::uint32_t> value_;
};

}  // namespace snarkpipe::gadgets
