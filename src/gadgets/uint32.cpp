#include "gadgets/uint32.hpp"

#include <bit>
#include <stdexcept>
#include <string>

namespace snarkpipe::gadgets {

namespace {

std::optional<std::uint32_t> value_of_bits_le(const std::array<Boolean, 32>& bits) {
  std::uint32_t v = 0;
  for (unsigned i = 0; i < 32; ++i) {
    const auto b = bits[i].value();
    if (!b) return std::nullopt;
    if (*b) v |= std::uint32_t(1) << i;
  }
  return v;
}

std::string bit_name(unsigned i) { return "bit " + std::to_string(i); }

}  // namespace

UInt32 UInt32::constant(std::uint32_t v) {
  UInt32 r;
  for (unsigned i = 0; i < 32; ++i) r.bits_[i] = Boolean::constant(((v >> i) & 1) != 0);
  r.value_ = v;
  return r;
}

UInt32 UInt32::alloc(ConstraintSystem& cs, std::string_view name, std::optional<std::uint32_t> value) {
  Namespace ns(cs, name);
  UInt32 r;
  for (unsigned i = 0; i < 32; ++i) {
    std::optional<bool> b;
    if (value) b = ((*value >> i) & 1) != 0;
    r.bits_[i] = AllocatedBit::alloc(cs, bit_name(i), b);
  }
  r.value_ = value;
  return r;
}

UInt32 UInt32::from_bits_be(std::span<const Boolean> bits) {
  if (bits.size() != 32) throw std::invalid_argument("UInt32::from_bits_be: need 32 bits");
  UInt32 r;
  for (unsigned i = 0; i < 32; ++i) r.bits_[i] = bits[31 - i];
  r.value_ = value_of_bits_le(r.bits_);
  return r;
}

UInt32 UInt32::from_bits_le(std::span<const Boolean> bits) {
  if (bits.size() != 32) throw std::invalid_argument("UInt32::from_bits_le: need 32 bits");
  UInt32 r;
  for (unsigned i = 0; i < 32; ++i) r.bits_[i] = bits[i];
  r.value_ = value_of_bits_le(r.bits_);
  return r;
}

std::vector<Boolean> UInt32::to_bits_be() const { return {bits_.rbegin(), bits_.rend()}; }

UInt32 UInt32::rotr(unsigned by) const {
  by %= 32;
  UInt32 r;
  for (unsigned i = 0; i < 32; ++i) r.bits_[i] = bits_[(i + by) % 32];
  if (value_) r.value_ = std::rotr(*value_, int(by));
  else r.value_.reset();
  return r;
}

UInt32 UInt32::shr(unsigned by) const {
  UInt32 r;  // vacated high bits stay constant false
  for (unsigned i = 0; i + by < 32; ++i) r.bits_[i] = bits_[i + by];
  if (value_) r.value_ = by >= 32 ? 0 : *value_ >> by;
  else r.value_.reset();
  return r;
}

UInt32 UInt32::xor_(ConstraintSystem& cs, std::string_view name, const UInt32& other) const {
  Namespace ns(cs, name);
  UInt32 r;
  for (unsigned i = 0; i < 32; ++i) r.bits_[i] = Boolean::xor_(cs, bit_name(i), bits_[i], other.bits_[i]);
  if (value_ && other.value_) r.value_ = *value_ ^ *other.value_;
  else r.value_.reset();
  return r;
}

UInt32 UInt32::sha256_ch(ConstraintSystem& cs, std::string_view name, const UInt32& a, const UInt32& b,
                         const UInt32& c) {
  Namespace ns(cs, name);
  UInt32 r;
  for (unsigned i = 0; i < 32; ++i)
    r.bits_[i] = Boolean::sha256_ch(cs, bit_name(i), a.bits_[i], b.bits_[i], c.bits_[i]);
  if (a.value_ && b.value_ && c.value_) r.value_ = (*a.value_ & *b.value_) ^ (~*a.value_ & *c.value_);
  else r.value_.reset();
  return r;
}

UInt32 UInt32::sha256_maj(ConstraintSystem& cs, std::string_view name, const UInt32& a, const UInt32& b,
                          const UInt32& c) {
  Namespace ns(cs, name);
  UInt32 r;
  for (unsigned i = 0; i < 32; ++i)
    r.bits_[i] = Boolean::sha256_maj(cs, bit_name(i), a.bits_[i], b.bits_[i], c.bits_[i]);
  if (a.value_ && b.value_ && c.value_) {
    r.value_ = (*a.value_ & *b.value_) ^ (*a.value_ & *c.value_) ^ (*b.value_ & *c.value_);
  } else {
    r.value_.reset();
  }
  return r;
}

UInt32 UInt32::addmany(ConstraintSystem& cs, std::string_view name, std::span<const UInt32> operands) {
  return addmany(cs, name, operands, nullptr);
}

UInt32 UInt32::addmany(MultiEq& eq, std::string_view name, std::span<const UInt32> operands) {
  return addmany(eq.cs(), name, operands, &eq);
}

UInt32 UInt32::addmany(ConstraintSystem& cs, std::string_view name, std::span<const UInt32> operands, MultiEq* eq) {
  // The bound below stays far from 2^64 (and the field) for any practical operand count.
  if (operands.size() >= (std::size_t(1) << 24)) throw std::invalid_argument("UInt32::addmany: too many operands");
  // First pass: the value, the folded constant and the bound on the sum.
  std::uint64_t constant_sum = 0;
  std::uint64_t bound = 0;  // the largest value the sum can take
  bool value_known = true;
  std::uint64_t value = 0;
  for (const UInt32& op : operands) {
    if (op.value_) value += *op.value_;
    else value_known = false;
    for (unsigned i = 0; i < 32; ++i) {
      const Boolean& b = op.bits_[i];
      if (!b.is_constant()) bound += std::uint64_t(1) << i;
      else if (*b.value()) constant_sum += std::uint64_t(1) << i;
    }
  }
  if (bound == 0) return constant(std::uint32_t(constant_sum));
  bound += constant_sum;
  const unsigned width = unsigned(std::bit_width(bound));

  // Second pass: both sides, weighted at the equality's place in a shared constraint.
  Namespace ns(cs, name);
  const unsigned shift = eq ? unsigned(eq->reserve(width)) : 0;
  LinearCombination sum;
  for (const UInt32& op : operands) {
    for (unsigned i = 0; i < 32; ++i) {
      if (!op.bits_[i].is_constant()) op.bits_[i].add_to(sum, pow2(shift + i));
    }
  }
  if (constant_sum != 0) sum.add(Fr::from_u64(constant_sum) * pow2(shift), Variable::one());
  LinearCombination result;
  UInt32 r;
  for (unsigned i = 0; i < width; ++i) {
    std::optional<bool> b;
    if (value_known) b = ((value >> i) & 1) != 0;
    const AllocatedBit bit = AllocatedBit::alloc(cs, "result " + bit_name(i), b);
    result.add(pow2(shift + i), bit.variable());
    if (i < 32) r.bits_[i] = bit;
  }
  if (eq) eq->add_reserved(sum, result);
  else cs.enforce("modular addition", sum, lc_of(Variable::one()), result);
  if (value_known) r.value_ = std::uint32_t(value);
  else r.value_.reset();
  return r;
}

}  // namespace snarkpipe::gadgets
