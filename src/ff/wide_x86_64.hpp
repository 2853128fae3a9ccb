// Fused 12-word additions and subtractions for the lazy-reduction code (tower.cpp):
// one load and one store of the accumulator for several operands. Plain integer
// arithmetic mod 2^768; the callers' bound comments show that each result lies in the range
// the following Montgomery reduction accepts. Needs SNARKPIPE_INLINE_MUL (x86-64 Release).
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

// fp, 12 words: x = x + y0 + y1 in one pass (exact; the caller knows the result is in range).
[[gnu::always_inline]] inline void wide_add2_fp(Limbs<12>& x, const Limbs<12>& y0, const Limbs<12>& y1) {
  u64 x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3], x4 = x[4], x5 = x[5], c0, c1;
  asm("addq 0(%[y0p]), %[x0]\n\t"
      "adcq 8(%[y0p]), %[x1]\n\t"
      "adcq 16(%[y0p]), %[x2]\n\t"
      "adcq 24(%[y0p]), %[x3]\n\t"
      "adcq 32(%[y0p]), %[x4]\n\t"
      "adcq 40(%[y0p]), %[x5]\n\t"
      "sbbq %[c0], %[c0]\n\t"
      "addq 0(%[y1p]), %[x0]\n\t"
      "adcq 8(%[y1p]), %[x1]\n\t"
      "adcq 16(%[y1p]), %[x2]\n\t"
      "adcq 24(%[y1p]), %[x3]\n\t"
      "adcq 32(%[y1p]), %[x4]\n\t"
      "adcq 40(%[y1p]), %[x5]\n\t"
      "sbbq %[c1], %[c1]"
      : [x0] "+r"(x0), [x1] "+r"(x1), [x2] "+r"(x2), [x3] "+r"(x3), [x4] "+r"(x4), [x5] "+r"(x5), [c0] "=&r"(c0), [c1] "=&r"(c1)
      : [y0p] "r"(y0.data()), [y0m] "m"(*reinterpret_cast<const u64(*)[12]>(y0.data())),
        [y1p] "r"(y1.data()), [y1m] "m"(*reinterpret_cast<const u64(*)[12]>(y1.data()))
      : "cc");
  x[0] = x0; x[1] = x1; x[2] = x2; x[3] = x3; x[4] = x4; x[5] = x5;
  u64 h0 = x[6], h1 = x[7], h2 = x[8], h3 = x[9], h4 = x[10], h5 = x[11];
  asm("negq %[c0]\n\t"
      "adcq 48(%[y0p]), %[h0]\n\t"
      "adcq 56(%[y0p]), %[h1]\n\t"
      "adcq 64(%[y0p]), %[h2]\n\t"
      "adcq 72(%[y0p]), %[h3]\n\t"
      "adcq 80(%[y0p]), %[h4]\n\t"
      "adcq 88(%[y0p]), %[h5]\n\t"
      "negq %[c1]\n\t"
      "adcq 48(%[y1p]), %[h0]\n\t"
      "adcq 56(%[y1p]), %[h1]\n\t"
      "adcq 64(%[y1p]), %[h2]\n\t"
      "adcq 72(%[y1p]), %[h3]\n\t"
      "adcq 80(%[y1p]), %[h4]\n\t"
      "adcq 88(%[y1p]), %[h5]"
      : [h0] "+r"(h0), [h1] "+r"(h1), [h2] "+r"(h2), [h3] "+r"(h3), [h4] "+r"(h4), [h5] "+r"(h5), [c0] "+r"(c0), [c1] "+r"(c1)
      : [y0p] "r"(y0.data()), [y0m] "m"(*reinterpret_cast<const u64(*)[12]>(y0.data())),
        [y1p] "r"(y1.data()), [y1m] "m"(*reinterpret_cast<const u64(*)[12]>(y1.data()))
      : "cc");
  x[6] = h0; x[7] = h1; x[8] = h2; x[9] = h3; x[10] = h4; x[11] = h5;
}

// fp, 12 words: x = x + y0 - y1 - y2 in one pass (exact; the caller knows the result is in range).
[[gnu::always_inline]] inline void wide_add_sub2_fp(Limbs<12>& x, const Limbs<12>& y0, const Limbs<12>& y1, const Limbs<12>& y2) {
  u64 x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3], x4 = x[4], x5 = x[5], c0, c1, c2;
  asm("addq 0(%[y0p]), %[x0]\n\t"
      "adcq 8(%[y0p]), %[x1]\n\t"
      "adcq 16(%[y0p]), %[x2]\n\t"
      "adcq 24(%[y0p]), %[x3]\n\t"
      "adcq 32(%[y0p]), %[x4]\n\t"
      "adcq 40(%[y0p]), %[x5]\n\t"
      "sbbq %[c0], %[c0]\n\t"
      "subq 0(%[y1p]), %[x0]\n\t"
      "sbbq 8(%[y1p]), %[x1]\n\t"
      "sbbq 16(%[y1p]), %[x2]\n\t"
      "sbbq 24(%[y1p]), %[x3]\n\t"
      "sbbq 32(%[y1p]), %[x4]\n\t"
      "sbbq 40(%[y1p]), %[x5]\n\t"
      "sbbq %[c1], %[c1]\n\t"
      "subq 0(%[y2p]), %[x0]\n\t"
      "sbbq 8(%[y2p]), %[x1]\n\t"
      "sbbq 16(%[y2p]), %[x2]\n\t"
      "sbbq 24(%[y2p]), %[x3]\n\t"
      "sbbq 32(%[y2p]), %[x4]\n\t"
      "sbbq 40(%[y2p]), %[x5]\n\t"
      "sbbq %[c2], %[c2]"
      : [x0] "+r"(x0), [x1] "+r"(x1), [x2] "+r"(x2), [x3] "+r"(x3), [x4] "+r"(x4), [x5] "+r"(x5), [c0] "=&r"(c0), [c1] "=&r"(c1), [c2] "=&r"(c2)
      : [y0p] "r"(y0.data()), [y0m] "m"(*reinterpret_cast<const u64(*)[12]>(y0.data())),
        [y1p] "r"(y1.data()), [y1m] "m"(*reinterpret_cast<const u64(*)[12]>(y1.data())),
        [y2p] "r"(y2.data()), [y2m] "m"(*reinterpret_cast<const u64(*)[12]>(y2.data()))
      : "cc");
  x[0] = x0; x[1] = x1; x[2] = x2; x[3] = x3; x[4] = x4; x[5] = x5;
  u64 h0 = x[6], h1 = x[7], h2 = x[8], h3 = x[9], h4 = x[10], h5 = x[11];
  asm("negq %[c0]\n\t"
      "adcq 48(%[y0p]), %[h0]\n\t"
      "adcq 56(%[y0p]), %[h1]\n\t"
      "adcq 64(%[y0p]), %[h2]\n\t"
      "adcq 72(%[y0p]), %[h3]\n\t"
      "adcq 80(%[y0p]), %[h4]\n\t"
      "adcq 88(%[y0p]), %[h5]\n\t"
      "negq %[c1]\n\t"
      "sbbq 48(%[y1p]), %[h0]\n\t"
      "sbbq 56(%[y1p]), %[h1]\n\t"
      "sbbq 64(%[y1p]), %[h2]\n\t"
      "sbbq 72(%[y1p]), %[h3]\n\t"
      "sbbq 80(%[y1p]), %[h4]\n\t"
      "sbbq 88(%[y1p]), %[h5]\n\t"
      "negq %[c2]\n\t"
      "sbbq 48(%[y2p]), %[h0]\n\t"
      "sbbq 56(%[y2p]), %[h1]\n\t"
      "sbbq 64(%[y2p]), %[h2]\n\t"
      "sbbq 72(%[y2p]), %[h3]\n\t"
      "sbbq 80(%[y2p]), %[h4]\n\t"
      "sbbq 88(%[y2p]), %[h5]"
      : [h0] "+r"(h0), [h1] "+r"(h1), [h2] "+r"(h2), [h3] "+r"(h3), [h4] "+r"(h4), [h5] "+r"(h5), [c0] "+r"(c0), [c1] "+r"(c1), [c2] "+r"(c2)
      : [y0p] "r"(y0.data()), [y0m] "m"(*reinterpret_cast<const u64(*)[12]>(y0.data())),
        [y1p] "r"(y1.data()), [y1m] "m"(*reinterpret_cast<const u64(*)[12]>(y1.data())),
        [y2p] "r"(y2.data()), [y2m] "m"(*reinterpret_cast<const u64(*)[12]>(y2.data()))
      : "cc");
  x[6] = h0; x[7] = h1; x[8] = h2; x[9] = h3; x[10] = h4; x[11] = h5;
}

// fp, 12 words: x = x + y0 + y1 - y2 in one pass (exact; the caller knows the result is in range).
[[gnu::always_inline]] inline void wide_add2_sub_fp(Limbs<12>& x, const Limbs<12>& y0, const Limbs<12>& y1, const Limbs<12>& y2) {
  u64 x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3], x4 = x[4], x5 = x[5], c0, c1, c2;
  asm("addq 0(%[y0p]), %[x0]\n\t"
      "adcq 8(%[y0p]), %[x1]\n\t"
      "adcq 16(%[y0p]), %[x2]\n\t"
      "adcq 24(%[y0p]), %[x3]\n\t"
      "adcq 32(%[y0p]), %[x4]\n\t"
      "adcq 40(%[y0p]), %[x5]\n\t"
      "sbbq %[c0], %[c0]\n\t"
      "addq 0(%[y1p]), %[x0]\n\t"
      "adcq 8(%[y1p]), %[x1]\n\t"
      "adcq 16(%[y1p]), %[x2]\n\t"
      "adcq 24(%[y1p]), %[x3]\n\t"
      "adcq 32(%[y1p]), %[x4]\n\t"
      "adcq 40(%[y1p]), %[x5]\n\t"
      "sbbq %[c1], %[c1]\n\t"
      "subq 0(%[y2p]), %[x0]\n\t"
      "sbbq 8(%[y2p]), %[x1]\n\t"
      "sbbq 16(%[y2p]), %[x2]\n\t"
      "sbbq 24(%[y2p]), %[x3]\n\t"
      "sbbq 32(%[y2p]), %[x4]\n\t"
      "sbbq 40(%[y2p]), %[x5]\n\t"
      "sbbq %[c2], %[c2]"
      : [x0] "+r"(x0), [x1] "+r"(x1), [x2] "+r"(x2), [x3] "+r"(x3), [x4] "+r"(x4), [x5] "+r"(x5), [c0] "=&r"(c0), [c1] "=&r"(c1), [c2] "=&r"(c2)
      : [y0p] "r"(y0.data()), [y0m] "m"(*reinterpret_cast<const u64(*)[12]>(y0.data())),
        [y1p] "r"(y1.data()), [y1m] "m"(*reinterpret_cast<const u64(*)[12]>(y1.data())),
        [y2p] "r"(y2.data()), [y2m] "m"(*reinterpret_cast<const u64(*)[12]>(y2.data()))
      : "cc");
  x[0] = x0; x[1] = x1; x[2] = x2; x[3] = x3; x[4] = x4; x[5] = x5;
  u64 h0 = x[6], h1 = x[7], h2 = x[8], h3 = x[9], h4 = x[10], h5 = x[11];
  asm("negq %[c0]\n\t"
      "adcq 48(%[y0p]), %[h0]\n\t"
      "adcq 56(%[y0p]), %[h1]\n\t"
      "adcq 64(%[y0p]), %[h2]\n\t"
      "adcq 72(%[y0p]), %[h3]\n\t"
      "adcq 80(%[y0p]), %[h4]\n\t"
      "adcq 88(%[y0p]), %[h5]\n\t"
      "negq %[c1]\n\t"
      "adcq 48(%[y1p]), %[h0]\n\t"
      "adcq 56(%[y1p]), %[h1]\n\t"
      "adcq 64(%[y1p]), %[h2]\n\t"
      "adcq 72(%[y1p]), %[h3]\n\t"
      "adcq 80(%[y1p]), %[h4]\n\t"
      "adcq 88(%[y1p]), %[h5]\n\t"
      "negq %[c2]\n\t"
      "sbbq 48(%[y2p]), %[h0]\n\t"
      "sbbq 56(%[y2p]), %[h1]\n\t"
      "sbbq 64(%[y2p]), %[h2]\n\t"
      "sbbq 72(%[y2p]), %[h3]\n\t"
      "sbbq 80(%[y2p]), %[h4]\n\t"
      "sbbq 88(%[y2p]), %[h5]"
      : [h0] "+r"(h0), [h1] "+r"(h1), [h2] "+r"(h2), [h3] "+r"(h3), [h4] "+r"(h4), [h5] "+r"(h5), [c0] "+r"(c0), [c1] "+r"(c1), [c2] "+r"(c2)
      : [y0p] "r"(y0.data()), [y0m] "m"(*reinterpret_cast<const u64(*)[12]>(y0.data())),
        [y1p] "r"(y1.data()), [y1m] "m"(*reinterpret_cast<const u64(*)[12]>(y1.data())),
        [y2p] "r"(y2.data()), [y2m] "m"(*reinterpret_cast<const u64(*)[12]>(y2.data()))
      : "cc");
  x[6] = h0; x[7] = h1; x[8] = h2; x[9] = h3; x[10] = h4; x[11] = h5;
}
}  // namespace snarkpipe::ff::x86
