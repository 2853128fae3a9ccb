// The constants of the lazy-reduction code (tower.cpp): multiples of p·2^381 that keep its
// 12-word sums non-negative. The fused sums themselves (wide_add2_fp, wide_add_sub2_fp,
// wide_add2_sub_fp: one load and one store of the accumulator for several operands, plain
// integer arithmetic mod 2^768) are generated into mont_inline_x86_64.hpp; the callers'
// bound comments show that each result lies in the range the following Montgomery
// reduction accepts. Needs SNARKPIPE_INLINE_MUL (x86-64 Release).
#pragma once

namespace snarkpipe::ff::x86 {

// k·p·2^381 as 12 words: multiples of p that keep lazy sums non-negative
// (C = p·2^381 ≥ p^2; p·2^384 = 8C).
constexpr Limbs<12> wide_multiple_fp(u64 k) {
  const Limbs<6>& p = FpParams::modulus;
  u64 kp[7] = {};
  u64 carry = 0;
  for (std::size_t i = 0; i < 6; ++i) {
    const u128 t = u128(p[i]) * k + carry;
    kp[i] = u64(t);
    carry = u64(t >> 64);
  }
  kp[6] = carry;
  Limbs<12> r{};
  for (std::size_t i = 0; i < 7; ++i) {  // shift by 381 = 5·64 + 61 bits
    r[i + 5] |= kp[i] << 61;
    if (i + 6 < 12) r[i + 6] |= kp[i] >> 3;
  }
  return r;
}
inline constexpr Limbs<12> WIDE_C2_FP = wide_multiple_fp(2);
inline constexpr Limbs<12> WIDE_C4_FP = wide_multiple_fp(4);
inline constexpr Limbs<12> WIDE_C7_FP = wide_multiple_fp(7);

}  // namespace snarkpipe::ff::x86
