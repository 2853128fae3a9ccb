// Fixed-width unsigned integers as little-endian 64-bit limbs: the raw material of the
// prime fields. Everything is constexpr so field constants are computed at compile time.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace snarkpipe::ff {

using u64 = std::uint64_t;
using u128 = unsigned __int128;

template <std::size_t N>
using Limbs = std::array<u64, N>;

// Parses a big-endian hex string ("0x" optional) into limbs; throws at compile time on bad input.
template <std::size_t N>
constexpr Limbs<N> parse_hex(std::string_view s) {
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  Limbs<N> r{};
  std::size_t bit = 0;
  for (std::size_t i = s.size(); i-- > 0;) {
    char c = s[i];
    u64 d = (c >= '0' && c <= '9')   ? u64(c - '0')
            : (c >= 'a' && c <= 'f') ? u64(c - 'a' + 10)
            : (c >= 'A' && c <= 'F') ? u64(c - 'A' + 10)
                                     : throw "parse_hex: not a hex digit";
    if (d != 0 && bit / 64 >= N) throw "parse_hex: value too large";
    if (bit / 64 < N) r[bit / 64] |= d << (bit % 64);
    bit += 4;
  }
  return r;
}

template <std::size_t N>
constexpr int compare(const Limbs<N>& a, const Limbs<N>& b) {
  for (std::size_t i = N; i-- > 0;) {
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return 0;
}

template <std::size_t N>
constexpr bool is_zero(const Limbs<N>& a) {
  u64 acc = 0;
  for (u64 x : a) acc |= x;
  return acc == 0;
}

// r = a + b, returns the carry out.
template <std::size_t N>
constexpr u64 add_to(Limbs<N>& r, const Limbs<N>& a, const Limbs<N>& b) {
  u64 carry = 0;
  for (std::size_t i = 0; i < N; ++i) {
    u128 s = u128(a[i]) + b[i] + carry;
    r[i] = u64(s);
    carry = u64(s >> 64);
  }
  return carry;
}

// r = a - b, returns the borrow out (1 when a < b).
template <std::size_t N>
constexpr u64 sub_to(Limbs<N>& r, const Limbs<N>& a, const Limbs<N>& b) {
  u64 borrow = 0;
  for (std::size_t i = 0; i < N; ++i) {
    u128 d = u128(a[i]) - b[i] - borrow;
    r[i] = u64(d);
    borrow = u64(d >> 64) & 1;
  }
  return borrow;
}

template <std::size_t N>
constexpr Limbs<N> shr1(const Limbs<N>& a) {
  Limbs<N> r{};
  for (std::size_t i = 0; i < N; ++i) {
    r[i] = a[i] >> 1;
    if (i + 1 < N) r[i] |= a[i + 1] << 63;
  }
  return r;
}

template <std::size_t N>
constexpr bool test_bit(const Limbs<N>& a, std::size_t i) {
  return i < 64 * N && ((a[i / 64] >> (i % 64)) & 1);
}

template <std::size_t N>
constexpr std::size_t bit_length(const Limbs<N>& a) {
  for (std::size_t i = N; i-- > 0;) {
    if (a[i] != 0) return 64 * i + 64 - std::size_t(__builtin_clzll(a[i]));
  }
  return 0;
}

template <std::size_t N>
constexpr Limbs<N> from_u64(u64 x) {
  Limbs<N> r{};
  r[0] = x;
  return r;
}

}  // namespace snarkpipe::ff

namespace snarkpipe::ff {

// a / d for a small divisor; the remainder is returned through `rem`.
template <std::size_t N>
constexpr Limbs<N> div_small(const Limbs<N>& a, u64 d, u64* rem = nullptr) {
  Limbs<N> q{};
  u128 r = 0;
  for (std::size_t i = N; i-- > 0;) {
    const u128 cur = (r << 64) | a[i];
    q[i] = u64(cur / d);
    r = cur % d;
  }
  if (rem) *rem = u64(r);
  return q;
}

}  // namespace snarkpipe::ff
