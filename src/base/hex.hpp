// Lower-case hex of a byte string (proofs, encodings, commitments, API answers).
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace snarkpipe::base {

inline std::string hex(std::span<const std::uint8_t> bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s;
  s.reserve(2 * bytes.size());
  for (std::uint8_t b : bytes) {
    s.push_back(digits[b >> 4]);
    s.push_back(digits[b & 15]);
  }
  return s;
}

}  // namespace snarkpipe::base
