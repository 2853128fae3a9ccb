// Helpers shared by the gadget tests: reading gadget outputs back from a TestConstraintSystem
// (through their linear combinations, so what is checked is what the constraints see) and
// random bytes.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "circuit/test_cs.hpp"
#include "ff/random.hpp"
#include "gadgets/uint32.hpp"

namespace gadget_test {

using snarkpipe::circuit::TestConstraintSystem;
using snarkpipe::ff::Fr;
using snarkpipe::ff::SeededRng;
using snarkpipe::gadgets::Boolean;
using snarkpipe::gadgets::UInt32;

// The bit a Boolean holds in the system's assignment; fails the test if it is not 0/1.
inline bool bit_in(const TestConstraintSystem& cs, const Boolean& b) {
  const Fr v = cs.eval(b.lc());
  EXPECT_TRUE(v.is_zero() || v.is_one()) << "non-boolean value " << v.to_hex();
  return v.is_one();
}

inline std::uint32_t word_in(const TestConstraintSystem& cs, const UInt32& w) {
  std::uint32_t v = 0;
  for (unsigned i = 0; i < 32; ++i) v |= std::uint32_t(bit_in(cs, w.bits_le()[i])) << i;
  return v;
}

inline std::vector<std::uint8_t> bytes_in(const TestConstraintSystem& cs, std::span<const Boolean> bits) {
  std::vector<std::uint8_t> out(bits.size() / 8, 0);
  for (std::size_t i = 0; i < bits.size(); ++i) {
    if (bit_in(cs, bits[i])) out[i / 8] |= std::uint8_t(1u << (7 - i % 8));
  }
  return out;
}

inline std::string hex_of(std::span<const std::uint8_t> b) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (auto x : b) {
    s.push_back(digits[x >> 4]);
    s.push_back(digits[x & 15]);
  }
  return s;
}

inline std::vector<std::uint8_t> random_bytes(SeededRng& rng, std::size_t n) {
  std::vector<std::uint8_t> out(n);
  for (auto& b : out) b = std::uint8_t(rng.next_u64());
  return out;
}

// Flips a 0/1 variable's value in place.
inline void flip(TestConstraintSystem& cs, snarkpipe::circuit::Variable v) {
  cs.set(v, cs.value(v).is_zero() ? Fr::one() : Fr::zero());
}

}  // namespace gadget_test
