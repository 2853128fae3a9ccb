#include "gadgets/boolean.hpp"

#include <stdexcept>
#include <string>

namespace snarkpipe::gadgets {

namespace {

// f(a, b) when both values are known.
template <class F>
std::optional<bool> combine(std::optional<bool> a, std::optional<bool> b, F f) {
  if (a && b) return f(*a, *b);
  return std::nullopt;
}

LinearCombination one_minus(Variable v) {
  LinearCombination lc = LinearCombination::constant(FR_ONE);
  lc.add(FR_MINUS_ONE, v);
  return lc;
}

}  // namespace

AllocatedBit AllocatedBit::alloc(ConstraintSystem& cs, std::string_view name, std::optional<bool> value) {
  Namespace ns(cs, name);
  const Variable v = cs.alloc("bit", value_fn(value));
  cs.enforce("boolean", one_minus(v), lc_of(v), LinearCombination::zero());
  return {v, value};
}

AllocatedBit AllocatedBit::alloc_conditionally(ConstraintSystem& cs, std::string_view name, std::optional<bool> value,
                                               const AllocatedBit& must_be_false) {
  Namespace ns(cs, name);
  const Variable v = cs.alloc("bit", value_fn(value));
  LinearCombination a = one_minus(v);
  a.add(FR_MINUS_ONE, must_be_false.var_);
  cs.enforce("boolean unless forced to 0", a, lc_of(v), LinearCombination::zero());
  return {v, value};
}

AllocatedBit AllocatedBit::xor_(ConstraintSystem& cs, std::string_view name, const AllocatedBit& a,
                                const AllocatedBit& b) {
  Namespace ns(cs, name);
  const auto value = combine(a.value_, b.value_, [](bool x, bool y) { return x != y; });
  const Variable r = cs.alloc("xor", value_fn(value));
  // a + b - 2ab = r
  LinearCombination la;
  la.add(FR_TWO, a.var_);
  LinearCombination lc;
  lc.add(FR_ONE, a.var_).add(FR_ONE, b.var_).add(FR_MINUS_ONE, r);
  cs.enforce("xor constraint", la, lc_of(b.var_), lc);
  return {r, value};
}

AllocatedBit AllocatedBit::and_(ConstraintSystem& cs, std::string_view name, const AllocatedBit& a,
                                const AllocatedBit& b) {
  Namespace ns(cs, name);
  const auto value = combine(a.value_, b.value_, [](bool x, bool y) { return x && y; });
  const Variable r = cs.alloc("and", value_fn(value));
  cs.enforce("and constraint", lc_of(a.var_), lc_of(b.var_), lc_of(r));
  return {r, value};
}

AllocatedBit AllocatedBit::and_not(ConstraintSystem& cs, std::string_view name, const AllocatedBit& a,
                                   const AllocatedBit& b) {
  Namespace ns(cs, name);
  const auto value = combine(a.value_, b.value_, [](bool x, bool y) { return x && !y; });
  const Variable r = cs.alloc("and not", value_fn(value));
  cs.enforce("and not constraint", lc_of(a.var_), one_minus(b.var_), lc_of(r));
  return {r, value};
}

AllocatedBit AllocatedBit::nor(ConstraintSystem& cs, std::string_view name, const AllocatedBit& a,
                               const AllocatedBit& b) {
  Namespace ns(cs, name);
  const auto value = combine(a.value_, b.value_, [](bool x, bool y) { return !x && !y; });
  const Variable r = cs.alloc("nor", value_fn(value));
  cs.enforce("nor constraint", one_minus(a.var_), one_minus(b.var_), lc_of(r));
  return {r, value};
}

std::optional<bool> Boolean::value() const {
  switch (kind_) {
    case Kind::Constant:
      return constant_;
    case Kind::Is:
      return bit_.value_;
    case Kind::Not:
      if (bit_.value_) return !*bit_.value_;
      return std::nullopt;
  }
  return std::nullopt;
}

void Boolean::add_to(LinearCombination& lc, const Fr& coeff) const {
  switch (kind_) {
    case Kind::Constant:
      if (constant_) lc.add(coeff, Variable::one());
      break;
    case Kind::Is:
      lc.add(coeff, bit_.var_);
      break;
    case Kind::Not:
      lc.add(coeff, Variable::one()).add(-coeff, bit_.var_);
      break;
  }
}

LinearCombination Boolean::lc() const {
  LinearCombination lc;
  add_to(lc, FR_ONE);
  return lc;
}

Boolean Boolean::not_() const {
  switch (kind_) {
    case Kind::Constant:
      return constant(!constant_);
    case Kind::Is:
      return {Kind::Not, bit_};
    case Kind::Not:
      return {Kind::Is, bit_};
  }
  return *this;
}

Boolean Boolean::xor_(ConstraintSystem& cs, std::string_view name, const Boolean& a, const Boolean& b) {
  if (a.is_constant()) return a.constant_ ? b.not_() : b;
  if (b.is_constant()) return b.constant_ ? a.not_() : a;
  // ¬x ⊕ y = ¬(x ⊕ y): the negations cancel in pairs.
  const AllocatedBit r = AllocatedBit::xor_(cs, name, a.bit_, b.bit_);
  return (a.kind_ == b.kind_) ? Boolean(r) : Boolean(Kind::Not, r);
}

Boolean Boolean::and_(ConstraintSystem& cs, std::string_view name, const Boolean& a, const Boolean& b) {
  if (a.is_constant()) return a.constant_ ? b : constant(false);
  if (b.is_constant()) return b.constant_ ? a : constant(false);
  if (a.kind_ == Kind::Is && b.kind_ == Kind::Is) return AllocatedBit::and_(cs, name, a.bit_, b.bit_);
  if (a.kind_ == Kind::Is) return AllocatedBit::and_not(cs, name, a.bit_, b.bit_);
  if (b.kind_ == Kind::Is) return AllocatedBit::and_not(cs, name, b.bit_, a.bit_);
  return AllocatedBit::nor(cs, name, a.bit_, b.bit_);
}

Boolean Boolean::or_(ConstraintSystem& cs, std::string_view name, const Boolean& a, const Boolean& b) {
  return and_(cs, name, a.not_(), b.not_()).not_();
}

Boolean Boolean::select(ConstraintSystem& cs, std::string_view name, const Boolean& cond, const Boolean& if_true,
                        const Boolean& if_false) {
  if (cond.is_constant()) return cond.constant_ ? if_true : if_false;
  if (if_true.is_constant() && if_false.is_constant()) {
    if (if_true.constant_ == if_false.constant_) return if_true;
    return if_true.constant_ ? cond : cond.not_();
  }
  Namespace ns(cs, name);
  std::optional<bool> value;
  if (const auto c = cond.value()) value = *c ? if_true.value() : if_false.value();
  const Variable r = cs.alloc("select", value_fn(value));
  LinearCombination diff = if_true.lc();
  if_false.add_to(diff, FR_MINUS_ONE);
  LinearCombination rhs = lc_of(r);
  if_false.add_to(rhs, FR_MINUS_ONE);
  cs.enforce("select constraint", cond.lc(), diff, rhs);
  return AllocatedBit(r, value);
}

Boolean Boolean::sha256_maj(ConstraintSystem& cs, std::string_view name, const Boolean& a, const Boolean& b,
                            const Boolean& c) {
  // Maj is symmetric: a constant operand reduces it to ∧ (false) or ∨ (true) of the others.
  if (a.is_constant()) return a.constant_ ? or_(cs, name, b, c) : and_(cs, name, b, c);
  if (b.is_constant()) return b.constant_ ? or_(cs, name, a, c) : and_(cs, name, a, c);
  if (c.is_constant()) return c.constant_ ? or_(cs, name, a, b) : and_(cs, name, a, b);

  // Maj = bc + a·(b + c - 2bc):  (2bc - b - c) · a = bc - maj.
  Namespace ns(cs, name);
  const Boolean bc = and_(cs, "b and c", b, c);
  std::optional<bool> value;
  if (a.value() && b.value() && c.value()) value = (int(*a.value()) + int(*b.value()) + int(*c.value())) >= 2;
  const Variable maj = cs.alloc("maj", value_fn(value));
  LinearCombination l;
  bc.add_to(l, FR_TWO);
  b.add_to(l, FR_MINUS_ONE);
  c.add_to(l, FR_MINUS_ONE);
  LinearCombination rhs = bc.lc();
  rhs.add(FR_MINUS_ONE, maj);
  cs.enforce("maj constraint", l, a.lc(), rhs);
  return AllocatedBit(maj, value);
}

void Boolean::enforce_equal(ConstraintSystem& cs, std::string_view name, const Boolean& a, const Boolean& b) {
  if (a.is_constant() && b.is_constant()) {
    if (a.constant_ != b.constant_) {
      throw SynthesisError(SynthesisError::Kind::Unsatisfiable,
                           "enforce_equal on different constants: " + std::string(name));
    }
    return;
  }
  LinearCombination diff = a.lc();
  b.add_to(diff, FR_MINUS_ONE);
  cs.enforce(name, diff, lc_of(Variable::one()), LinearCombination::zero());
}

std::vector<bool> bytes_to_bits_be(std::span<const std::uint8_t> bytes) {
  std::vector<bool> bits;
  bits.reserve(bytes.size() * 8);
  for (std::uint8_t byte : bytes) {
    for (int i = 7; i >= 0; --i) bits.push_back(((byte >> i) & 1) != 0);
  }
  return bits;
}

std::vector<Boolean> constant_bits_be(std::span<const std::uint8_t> bytes) {
  std::vector<Boolean> bits;
  bits.reserve(bytes.size() * 8);
  for (bool b : bytes_to_bits_be(bytes)) bits.push_back(Boolean::constant(b));
  return bits;
}

std::vector<Boolean> alloc_bits_be(ConstraintSystem& cs, std::string_view name, std::size_t num_bytes,
                                   const std::optional<std::vector<std::uint8_t>>& bytes) {
  if (bytes && bytes->size() != num_bytes) {
    throw std::invalid_argument("alloc_bits_be: " + std::to_string(bytes->size()) + " bytes given, " +
                                std::to_string(num_bytes) + " expected");
  }
  Namespace ns(cs, name);
  std::vector<Boolean> bits;
  bits.reserve(num_bytes * 8);
  for (std::size_t i = 0; i < num_bytes * 8; ++i) {
    std::optional<bool> v;
    if (bytes) v = (((*bytes)[i / 8] >> (7 - i % 8)) & 1) != 0;
    bits.push_back(AllocatedBit::alloc(cs, "bit " + std::to_string(i), v));
  }
  return bits;
}

std::optional<std::vector<std::uint8_t>> bits_to_bytes_be(std::span<const Boolean> bits) {
  if (bits.size() % 8 != 0) throw std::invalid_argument("bits_to_bytes_be: bit count not a multiple of 8");
  std::vector<std::uint8_t> out(bits.size() / 8, 0);
  for (std::size_t i = 0; i < bits.size(); ++i) {
    const auto v = bits[i].value();
    if (!v) return std::nullopt;
    if (*v) out[i / 8] |= std::uint8_t(1u << (7 - i % 8));
  }
  return out;
}

std::pair<std::vector<Boolean>, std::vector<Boolean>> conditional_swap(ConstraintSystem& cs, std::string_view name,
                                                                       const Boolean& cond, std::span<const Boolean> a,
                                                                       std::span<const Boolean> b) {
  if (a.size() != b.size()) throw std::invalid_argument("conditional_swap: operands of different lengths");
  Namespace ns(cs, name);
  std::pair<std::vector<Boolean>, std::vector<Boolean>> out;
  out.first.reserve(a.size());
  out.second.reserve(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    out.first.push_back(Boolean::select(cs, "first " + std::to_string(i), cond, b[i], a[i]));
    out.second.push_back(Boolean::select(cs, "second " + std::to_string(i), cond, a[i], b[i]));
  }
  return out;
}

void enforce_equal_bits(ConstraintSystem& cs, std::string_view name, std::span<const Boolean> a,
                        std::span<const Boolean> b) {
  if (a.size() != b.size()) throw std::invalid_argument("enforce_equal_bits: operands of different lengths");
  Namespace ns(cs, name);
  for (std::size_t i = 0; i < a.size(); ++i) Boolean::enforce_equal(cs, "bit " + std::to_string(i), a[i], b[i]);
}

}  // namespace snarkpipe::gadgets
