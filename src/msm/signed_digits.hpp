// Signed c-bit windows of Fr scalars, shared by Pippenger and the fixed-base tables.
//
// A scalar k <= max (r - 1, or a bound on the parts of split scalars) is written as
// k = Σ_w d_w·2^(c·w) with d_w in [-2^(c-1), 2^(c-1)) for every window but the top one,
// which is in [0, top_max] with top_max <= 2^(c-1). Halving the digit range halves the
// buckets (or table entries): a negative digit adds -P instead.
//
// The digits come without a carry loop: with the offset H = Σ_{w<W-1} 2^(c-1)·2^(c·w),
// k' = k + H has plain c-bit windows e_w and d_w = e_w - 2^(c-1) (w < W-1), d_top = e_top,
// because adding 2^(c-1) to a window and subtracting it back is exactly the carry that the
// textbook "if digit > 2^(c-1), subtract 2^c and carry 1" performs. k' is computed once per
// scalar (prepare), then any window's digit is a shift and a mask.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "ff/fields.hpp"

namespace snarkpipe::msm {

using ff::Fr;
using ScalarLimbs = ff::Limbs<4>;

class SignedWindows {
 public:
  static constexpr unsigned MAX_BITS = 24;

  // Windows of c bits, 2 <= c <= MAX_BITS, for scalars up to max_value (r - 1 unless
  // given): the fewest windows whose top digit stays within 2^(c-1).
  explicit SignedWindows(unsigned c, const ScalarLimbs& max_value = r_minus_1()) : c_(c) {
    if (c < 2 || c > MAX_BITS) throw std::invalid_argument("SignedWindows: window must be 2..24 bits");
    using L5 = ff::Limbs<5>;
    L5 max5{};
    for (std::size_t i = 0; i < 4; ++i) max5[i] = max_value[i];
    for (unsigned w = 1;; ++w) {
      // H for w windows: offsets on windows 0..w-2.
      L5 h{};
      for (unsigned j = 0; j + 1 < w; ++j) set_bit(h, c * j + c - 1);
      L5 m{};
      ff::add_to(m, max5, h);
      const std::uint64_t top = extract5(m, c * (w - 1));
      if (top <= (std::uint64_t(1) << (c - 1)) && m[4] == 0) {
        windows_ = w;
        top_max_ = std::uint32_t(top);
        for (std::size_t i = 0; i < 4; ++i) offset_[i] = h[i];
        if (h[4] != 0 || c * (w - 1) >= 256) throw std::logic_error("SignedWindows: windows exceed 256 bits");
        // Uniform k in [0, max] has a non-zero top digit when k + H >= 2^(c·(w-1)).
        const long double span = to_real(max5) + 1, threshold = std::ldexp(1.0L, int(c * (w - 1))) - to_real(h);
        top_density_ = double(std::clamp((span - std::max(threshold, 0.0L)) / span, 0.0L, 1.0L));
        return;
      }
    }
  }

  static constexpr ScalarLimbs r_minus_1() {
    ScalarLimbs r = ff::FrParams::modulus;
    r[0] -= 1;
    return r;
  }

  unsigned bits() const { return c_; }
  unsigned windows() const { return windows_; }
  // The fraction of uniformly random scalars in [0, max_value] whose top digit is not zero
  // (the top window's share of bucket additions; every other window's is ~1).
  double top_density() const { return top_density_; }
  // Largest |digit| a window can hold: 2^(c-1) below the top, top_max in the top window.
  std::uint32_t max_digit(unsigned w) const { return w + 1 == windows_ ? top_max_ : (std::uint32_t(1) << (c_ - 1)); }

  // k' = canonical(k) + H; fits in 256 bits for every k <= max_value (checked at construction).
  ScalarLimbs prepare(const Fr& k) const { return prepare_canonical(k.to_repr()); }
  ScalarLimbs prepare_canonical(const ScalarLimbs& k) const {
    ScalarLimbs out{};
    ff::add_to(out, k, offset_);
    return out;
  }

  // Signed digit of window w of a prepared scalar.
  std::int32_t digit(const ScalarLimbs& kp, unsigned w) const {
    const unsigned s = c_ * w;
    const unsigned limb = s / 64, off = s % 64;
    std::uint64_t v = kp[limb] >> off;
    if (off + c_ > 64 && limb + 1 < 4) v |= kp[limb + 1] << (64 - off);
    v &= (std::uint64_t(1) << c_) - 1;
    if (w + 1 == windows_) return std::int32_t(v);
    return std::int32_t(v) - (std::int32_t(1) << (c_ - 1));
  }

 private:
  static void set_bit(ff::Limbs<5>& x, unsigned i) { x[i / 64] |= std::uint64_t(1) << (i % 64); }
  static long double to_real(const ff::Limbs<5>& x) {
    long double r = 0;
    for (std::size_t i = 5; i-- > 0;) r = r * 18446744073709551616.0L + (long double)x[i];
    return r;
  }
  // x >> s, saturated to 2^64 - 1 when it does not fit one word.
  static std::uint64_t extract5(const ff::Limbs<5>& x, unsigned s) {
    std::uint64_t r[5] = {};
    const unsigned limb = s / 64, off = s % 64;
    for (unsigned i = 0; i + limb < 5; ++i) {
      r[i] = x[i + limb] >> off;
      if (off != 0 && i + limb + 1 < 5) r[i] |= x[i + limb + 1] << (64 - off);
    }
    if (r[1] | r[2] | r[3] | r[4]) return ~std::uint64_t(0);
    return r[0];
  }

  unsigned c_;
  unsigned windows_ = 0;
  std::uint32_t top_max_ = 0;
  double top_density_ = 1;
  ScalarLimbs offset_{};
};

}  // namespace snarkpipe::msm
