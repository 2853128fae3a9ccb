// Lower-case hex of a byte string (proofs, encodings, commitments, API answers), and back.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

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

// The bytes of a hex string (either case); throws std::invalid_argument for anything else.
inline std::vector<std::uint8_t> unhex(std::string_view s) {
  const auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    throw std::invalid_argument(std::string("not a hex digit: '") + c + "'");
  };
  if (s.size() % 2) throw std::invalid_argument("odd-length hex");
  std::vector<std::uint8_t> out(s.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = std::uint8_t(nibble(s[2 * i]) << 4 | nibble(s[2 * i + 1]));
  return out;
}

}  // namespace snarkpipe::base
