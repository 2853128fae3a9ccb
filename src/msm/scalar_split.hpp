// Scalar splits along the curves' endomorphisms, so an MSM of n points with 255-bit
// scalars becomes one of D·n points with 255/D-bit scalars: the same number of bucket
// additions, but 1/D of the windows, so 1/D of the bucket reduction work.
//
// - G1 (GLV): ψ(x, y) = (ω·x, y), ω a cube root of unity in Fp, acts as multiplication by
//   λ = z² - 1 (λ² + λ + 1 = r); k = k1 + λ·k2 with k1, k2 < 2^128 (D = 2).
// - G2 (GLS): the untwist-Frobenius-twist ψ acts as multiplication by z; with |z| < 2^64
//   and r < |z|^4, k = Σ_j a_j·|z|^j with a_j < |z| (D = 4), and |z|^j·P = (-ψ)^j(P).
#pragma once

#include <array>

#include "ff/fields.hpp"

namespace snarkpipe::msm::detail {

using Limbs4 = ff::Limbs<4>;

// λ = z² - 1 = 0xac45a4010001a40200000000ffffffff (128 bits).
inline constexpr Limbs4 GLV_LAMBDA = {0x00000000ffffffffULL, 0xac45a4010001a402ULL, 0, 0};
// The largest k2 (k < r = λ² + λ + 1 gives k2 <= λ + 1; k1 < λ).
inline constexpr Limbs4 GLV_MAX_PART = {0x0000000100000000ULL, 0xac45a4010001a402ULL, 0, 0};

// floor(2^256 / λ), by shift-and-subtract at compile time (129 bits).
constexpr ff::Limbs<3> glv_barrett_mu() {
  using ff::u64;
  ff::Limbs<3> q{}, rem{};
  const ff::Limbs<3> lam{GLV_LAMBDA[0], GLV_LAMBDA[1], 0};
  for (int bit = 256; bit >= 0; --bit) {
    // rem = 2·rem + (bit == 256)
    rem[2] = (rem[2] << 1) | (rem[1] >> 63);
    rem[1] = (rem[1] << 1) | (rem[0] >> 63);
    rem[0] = (rem[0] << 1) | u64(bit == 256);
    if (ff::compare(rem, lam) >= 0) {
      ff::sub_to(rem, rem, lam);
      q[bit / 64] |= u64(1) << (bit % 64);
    }
  }
  return q;
}
inline constexpr ff::Limbs<3> GLV_MU = glv_barrett_mu();

struct GlvParts {
  Limbs4 k1, k2;  // k = k1 + λ·k2
};

// Splits a canonical k < r: k2 = floor(k/λ) by Barrett's estimate (k·μ) >> 256, which is
// at most 2 below the quotient, then corrected; k1 = k - λ·k2.
inline GlvParts glv_split(const Limbs4& k) {
  using ff::u128;
  using ff::u64;
  // p = k·μ (7 limbs); only limbs 4..6 are kept.
  u64 p[7] = {};
  for (int i = 0; i < 4; ++i) {
    u64 carry = 0;
    for (int j = 0; j < 3; ++j) {
      const u128 t = u128(k[i]) * GLV_MU[j] + p[i + j] + carry;
      p[i + j] = u64(t);
      carry = u64(t >> 64);
    }
    p[i + 3] = carry;
  }
  Limbs4 q{p[4], p[5], p[6], 0};
  // rem = k - q·λ (q < 2^129, q·λ <= k fits in 4 limbs).
  Limbs4 ql{};
  for (int i = 0; i < 3; ++i) {
    u64 carry = 0;
    for (int j = 0; j < 2 && i + j < 4; ++j) {
      const u128 t = u128(q[i]) * GLV_LAMBDA[j] + ql[i + j] + carry;
      ql[i + j] = u64(t);
      carry = u64(t >> 64);
    }
    if (i + 2 < 4) ql[i + 2] += carry;
  }
  Limbs4 rem{};
  ff::sub_to(rem, k, ql);
  while (ff::compare(rem, GLV_LAMBDA) >= 0) {
    ff::sub_to(rem, rem, GLV_LAMBDA);
    ff::add_to(q, q, Limbs4{1, 0, 0, 0});
  }
  return {rem, q};
}

// |z| for BLS12-381 and the largest base-|z| digit.
inline constexpr ff::u64 Z_ABS = 0xd201000000010000ULL;
inline constexpr Limbs4 GLS_MAX_PART = {Z_ABS - 1, 0, 0, 0};

// k = a0 + a1·|z| + a2·|z|² + a3·|z|³ for a canonical k < r (< |z|^4).
inline std::array<Limbs4, 4> gls_split(const Limbs4& k) {
  std::array<Limbs4, 4> a{};
  Limbs4 q = k;
  for (int j = 0; j < 3; ++j) {
    ff::u64 rem = 0;
    q = ff::div_small(q, Z_ABS, &rem);
    a[j] = {rem, 0, 0, 0};
  }
  a[3] = q;
  return a;
}

}  // namespace snarkpipe::msm::detail
