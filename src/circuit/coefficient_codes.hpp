// Constraint coefficients as 32-bit codes, for matrices that live on the GPU.
//
// Circuits built from bit gadgets use few coefficients: a PoRep-shape partition's are 71 %
// ±1, 28 % ±2^k and 0.1 % anything else (synthetic-shape stats). A code keeps a coefficient in
// 4 bytes instead of 32, and tells the sparse product when it needs no multiplication:
//   bit 31      the sign (the value is −x),
//   bits 0-30   k < 64: x = 2^k (k = 0: x = 1);  64 + i: x = others[i], stored whole.
// So the CSR matrices of a full partition shrink from 36 to 8 bytes per nonzero (with the
// column), and 71 % of the products become additions.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "ff/fields.hpp"

namespace snarkpipe::circuit {

inline constexpr std::uint32_t COEFF_NEGATIVE = 0x80000000u;
inline constexpr std::uint32_t COEFF_POWERS = 64;  // codes below this are ±2^k

// Recognizes ±2^k (k < 64) with a small hash table keyed by the low Montgomery limb
// (distinct for all 128 values; the whole value is compared).
class PowerOfTwoCoefficients {
 public:
  PowerOfTwoCoefficients();
  // sign | k for ±2^k, nothing for any other value.
  std::optional<std::uint32_t> code(const ff::Fr& x) const;
  // 2^k in Montgomery form, k < COEFF_POWERS (the device's table).
  const std::array<ff::Fr, COEFF_POWERS>& powers() const { return pow2_; }

 private:
  static constexpr std::size_t SLOTS = 512;
  static std::size_t slot(const ff::Fr& x);
  std::array<ff::Fr, COEFF_POWERS> pow2_;
  std::array<ff::Fr, SLOTS> value_{};
  std::array<std::uint32_t, SLOTS> code_{};
  std::array<bool, SLOTS> used_{};
};

struct CoefficientCodes {
  std::vector<std::uint32_t> codes;  // one per coefficient
  std::vector<ff::Fr> others;        // the values that are not ±2^k, in order of appearance
};

// The codes of `values` (in parallel).
CoefficientCodes encode_coefficients(std::span<const ff::Fr> values);
// How many of `values` are not ±2^k (others.size() of their encoding), in parallel.
std::size_t count_other_coefficients(std::span<const ff::Fr> values);
// The coefficient a code stands for.
ff::Fr decode_coefficient(std::uint32_t code, std::span<const ff::Fr> others);

}  // namespace snarkpipe::circuit
