#include "gadgets/num.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace snarkpipe::gadgets {

namespace {

// The bits of r - 1, where r is Fr's modulus.
ff::Limbs<4> modulus_minus_one() {
  ff::Limbs<4> m = ff::FrParams::modulus;
  m[0] -= 1;  // r is odd
  return m;
}

}  // namespace

AllocatedNum AllocatedNum::alloc(ConstraintSystem& cs, std::string_view name, const std::optional<Fr>& value) {
  return {cs.alloc(name, value_fn(value)), value};
}

AllocatedNum AllocatedNum::alloc_input(ConstraintSystem& cs, std::string_view name, const std::optional<Fr>& value) {
  return {cs.alloc_input(name, value_fn(value)), value};
}

AllocatedNum AllocatedNum::inputize(ConstraintSystem& cs, std::string_view name) const {
  Namespace ns(cs, name);
  const AllocatedNum input = alloc_input(cs, "input", value_);
  cs.enforce("input equals value", input.var_, Variable::one(), var_);
  return input;
}

AllocatedNum AllocatedNum::mul(ConstraintSystem& cs, std::string_view name, const AllocatedNum& other) const {
  Namespace ns(cs, name);
  std::optional<Fr> v;
  if (value_ && other.value_) v = *value_ * *other.value_;
  const AllocatedNum r = alloc(cs, "product", v);
  cs.enforce("multiplication", var_, other.var_, r.var_);
  return r;
}

AllocatedNum AllocatedNum::square(ConstraintSystem& cs, std::string_view name) const {
  Namespace ns(cs, name);
  std::optional<Fr> v;
  if (value_) v = value_->square();
  const AllocatedNum r = alloc(cs, "square", v);
  cs.enforce("squaring", var_, var_, r.var_);
  return r;
}

AllocatedNum AllocatedNum::add(ConstraintSystem& cs, std::string_view name, const AllocatedNum& other) const {
  Namespace ns(cs, name);
  std::optional<Fr> v;
  if (value_ && other.value_) v = *value_ + *other.value_;
  const AllocatedNum r = alloc(cs, "sum", v);
  cs.enforce("addition", add_lc(other), Variable::one(), r.var_);
  return r;
}

void AllocatedNum::assert_nonzero(ConstraintSystem& cs, std::string_view name) const {
  Namespace ns(cs, name);
  std::optional<Fr> inv;
  if (value_) {
    if (value_->is_zero()) {
      throw SynthesisError(SynthesisError::Kind::Unsatisfiable, "assert_nonzero: value is zero: " + std::string(name));
    }
    inv = value_->inverse();
  }
  const Variable i = cs.alloc("inverse", value_fn(inv));
  cs.enforce("nonzero", var_, i, Variable::one());
}

std::pair<AllocatedNum, AllocatedNum> AllocatedNum::conditional_reverse(ConstraintSystem& cs, std::string_view name,
                                                                        const AllocatedNum& a, const AllocatedNum& b,
                                                                        const Boolean& cond) {
  if (cond.is_constant()) return *cond.value() ? std::pair{b, a} : std::pair{a, b};
  Namespace ns(cs, name);
  std::optional<Fr> cv, dv;
  if (const auto c = cond.value(); c && a.value_ && b.value_) {
    cv = *c ? *b.value_ : *a.value_;
    dv = *c ? *a.value_ : *b.value_;
  }
  const AllocatedNum c = alloc(cs, "first", cv);
  const AllocatedNum d = alloc(cs, "second", dv);
  LinearCombination a_minus_b(a.var_);
  a_minus_b -= b.var_;
  LinearCombination a_minus_c(a.var_);
  a_minus_c -= c.var_;
  cs.enforce("first selection", a_minus_b, cond.lc(), a_minus_c);
  LinearCombination b_minus_a(b.var_);
  b_minus_a -= a.var_;
  LinearCombination b_minus_d(b.var_);
  b_minus_d -= d.var_;
  cs.enforce("second selection", b_minus_a, cond.lc(), b_minus_d);
  return {c, d};
}

std::vector<Boolean> AllocatedNum::to_bits_le(ConstraintSystem& cs, std::string_view name, std::size_t num_bits) const {
  if (num_bits > Fr::BITS - 1) {
    throw std::invalid_argument("to_bits_le: " + std::to_string(num_bits) +
                                " bits can wrap the field; use to_bits_le_strict");
  }
  Namespace ns(cs, name);
  std::optional<ff::Limbs<4>> repr;
  if (value_) repr = value_->to_repr();
  std::vector<Boolean> bits;
  bits.reserve(num_bits);
  LinearCombination packed;
  for (std::size_t i = 0; i < num_bits; ++i) {
    std::optional<bool> v;
    if (repr) v = ff::test_bit(*repr, i);
    const AllocatedBit b = AllocatedBit::alloc(cs, "bit " + std::to_string(i), v);
    packed.add(pow2(unsigned(i)), b.variable());
    bits.emplace_back(b);
  }
  cs.enforce("packing", packed, Variable::one(), var_);
  return bits;
}

std::vector<Boolean> AllocatedNum::to_bits_le_strict(ConstraintSystem& cs, std::string_view name) const {
  Namespace ns(cs, name);
  const ff::Limbs<4> max = modulus_minus_one();
  const std::size_t n = Fr::BITS;
  std::optional<ff::Limbs<4>> repr;
  if (value_) repr = value_->to_repr();

  // From the top bit down: `tight` is 1 iff every bit so far equals max's. Bits under a 1 of
  // max are free; a bit under a 0 of max must be 0 while tight. `tight` is an AND over the
  // bits under max's 1s, materialized only when a run of 1s ends.
  std::vector<AllocatedBit> be_bits;
  be_bits.reserve(n);
  std::optional<AllocatedBit> tight;  // absent: no bit yet, i.e. tight = 1
  std::vector<AllocatedBit> run;
  for (std::size_t k = n; k-- > 0;) {
    std::optional<bool> v;
    if (repr) v = ff::test_bit(*repr, k);
    const std::string bit_name = "bit " + std::to_string(k);
    if (ff::test_bit(max, k)) {
      be_bits.push_back(AllocatedBit::alloc(cs, bit_name, v));
      run.push_back(be_bits.back());
      continue;
    }
    if (!run.empty()) {
      Namespace run_ns(cs, "run ending at " + std::to_string(k));
      std::size_t next = 0;
      if (!tight) tight = run[next++];
      for (; next < run.size(); ++next)
        tight = AllocatedBit::and_(cs, "and " + std::to_string(next), *tight, run[next]);
      run.clear();
    }
    be_bits.push_back(AllocatedBit::alloc_conditionally(cs, bit_name, v, *tight));
  }
  // r - 1 is even, so the scan ends inside a run of 0s and no run is left open.
  LinearCombination packed;
  std::vector<Boolean> le_bits;
  le_bits.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const AllocatedBit& b = be_bits[n - 1 - i];
    packed.add(pow2(unsigned(i)), b.variable());
    le_bits.emplace_back(b);
  }
  cs.enforce("packing", packed, Variable::one(), var_);
  return le_bits;
}

Num Num::from_bits_le(std::span<const Boolean> bits) {
  Num n;
  for (std::size_t i = 0; i < bits.size(); ++i) n.add_bool_with_coeff(bits[i], pow2(unsigned(i)));
  return n;
}

Num Num::from_bits_be(std::span<const Boolean> bits) {
  Num n;
  for (std::size_t i = 0; i < bits.size(); ++i) n.add_bool_with_coeff(bits[i], pow2(unsigned(bits.size() - 1 - i)));
  return n;
}

Num& Num::add_bool_with_coeff(const Boolean& bit, const Fr& coeff) {
  bit.add_to(lc_, coeff);
  if (value_) {
    if (const auto v = bit.value()) {
      if (*v) *value_ += coeff;
    } else {
      value_.reset();
    }
  }
  return *this;
}

AllocatedNum Num::inputize(ConstraintSystem& cs, std::string_view name) const {
  Namespace ns(cs, name);
  const AllocatedNum input = AllocatedNum::alloc_input(cs, "input", value_);
  cs.enforce("input equals packed bits", lc_, Variable::one(), input.variable());
  return input;
}

std::vector<AllocatedNum> pack_bits_be_into_inputs(ConstraintSystem& cs, std::string_view name,
                                                   std::span<const Boolean> bits, std::size_t chunk_bits) {
  if (chunk_bits == 0 || chunk_bits > Fr::BITS - 1) throw std::invalid_argument("pack_bits_be_into_inputs: chunk size");
  Namespace ns(cs, name);
  std::vector<AllocatedNum> inputs;
  for (std::size_t start = 0, k = 0; start < bits.size(); start += chunk_bits, ++k) {
    const auto chunk = bits.subspan(start, std::min(chunk_bits, bits.size() - start));
    inputs.push_back(Num::from_bits_be(chunk).inputize(cs, "chunk " + std::to_string(k)));
  }
  return inputs;
}

std::vector<Fr> pack_bits_be(const std::vector<bool>& bits, std::size_t chunk_bits) {
  if (chunk_bits == 0 || chunk_bits > Fr::BITS - 1) throw std::invalid_argument("pack_bits_be: chunk size");
  std::vector<Fr> out;
  for (std::size_t start = 0; start < bits.size(); start += chunk_bits) {
    const std::size_t len = std::min(chunk_bits, bits.size() - start);
    Fr acc = Fr::zero();
    for (std::size_t i = 0; i < len; ++i) {
      if (bits[start + i]) acc += pow2(unsigned(len - 1 - i));
    }
    out.push_back(acc);
  }
  return out;
}

}  // namespace snarkpipe::gadgets
