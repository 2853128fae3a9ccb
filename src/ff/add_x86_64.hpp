// Modular addition and subtraction for 4- and 6-limb fields as x86-64 inline assembly:
// plain ADD/ADC and SUB/SBB chains with a branch-free CMOV correction. GCC's code for these
// chains from intrinsics or __int128 goes through memory and costs several times more.

#pragma once

#include <cstdint>

namespace snarkpipe::ff::x86 {

using u64 = std::uint64_t;

// (a + b) mod p for 4 limbs (inputs < p, p < 2^255); r may alias a or b.
[[gnu::always_inline]] inline void add_mod_4(u64* r, const u64* a, const u64* b, const u64* p) {
  u64 s0, s1, s2, s3;
  asm volatile(
      "movq 0(%[a]), %[s0]\n\t"
      "movq 8(%[a]), %[s1]\n\t"
      "movq 16(%[a]), %[s2]\n\t"
      "movq 24(%[a]), %[s3]\n\t"
      "addq 0(%[b]), %[s0]\n\t"
      "adcq 8(%[b]), %[s1]\n\t"
      "adcq 16(%[b]), %[s2]\n\t"
      "adcq 24(%[b]), %[s3]\n\t"
      "movq %[s0], 0(%[r])\n\t"
      "movq %[s1], 8(%[r])\n\t"
      "movq %[s2], 16(%[r])\n\t"
      "movq %[s3], 24(%[r])\n\t"
      "subq 0(%[p]), %[s0]\n\t"
      "sbbq 8(%[p]), %[s1]\n\t"
      "sbbq 16(%[p]), %[s2]\n\t"
      "sbbq 24(%[p]), %[s3]\n\t"
      "cmovcq 0(%[r]), %[s0]\n\t"
      "cmovcq 8(%[r]), %[s1]\n\t"
      "cmovcq 16(%[r]), %[s2]\n\t"
      "cmovcq 24(%[r]), %[s3]\n\t"
      "movq %[s0], 0(%[r])\n\t"
      "movq %[s1], 8(%[r])\n\t"
      "movq %[s2], 16(%[r])\n\t"
      "movq %[s3], 24(%[r])\n\t"
      : [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3)
      : [r] "r"(r), [a] "r"(a), [b] "r"(b), [p] "r"(p)
      : "cc", "memory");
}

// (a - b) mod p for 4 limbs; r may alias a or b.
[[gnu::always_inline]] inline void sub_mod_4(u64* r, const u64* a, const u64* b, const u64* p) {
  u64 s0, s1, s2, s3, m;
  asm volatile(
      "movq 0(%[a]), %[s0]\n\t"
      "movq 8(%[a]), %[s1]\n\t"
      "movq 16(%[a]), %[s2]\n\t"
      "movq 24(%[a]), %[s3]\n\t"
      "subq 0(%[b]), %[s0]\n\t"
      "sbbq 8(%[b]), %[s1]\n\t"
      "sbbq 16(%[b]), %[s2]\n\t"
      "sbbq 24(%[b]), %[s3]\n\t"
      "sbbq %[m], %[m]\n\t"  // m = -borrow
      "movq %[s0], 0(%[r])\n\t"
      "movq %[s1], 8(%[r])\n\t"
      "movq %[s2], 16(%[r])\n\t"
      "movq %[s3], 24(%[r])\n\t"
      "addq 0(%[p]), %[s0]\n\t"
      "adcq 8(%[p]), %[s1]\n\t"
      "adcq 16(%[p]), %[s2]\n\t"
      "adcq 24(%[p]), %[s3]\n\t"
      "testq %[m], %[m]\n\t"  // no borrow: keep a - b
      "cmovzq 0(%[r]), %[s0]\n\t"
      "cmovzq 8(%[r]), %[s1]\n\t"
      "cmovzq 16(%[r]), %[s2]\n\t"
      "cmovzq 24(%[r]), %[s3]\n\t"
      "movq %[s0], 0(%[r])\n\t"
      "movq %[s1], 8(%[r])\n\t"
      "movq %[s2], 16(%[r])\n\t"
      "movq %[s3], 24(%[r])\n\t"
      : [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3), [m] "=&r"(m)
      : [r] "r"(r), [a] "r"(a), [b] "r"(b), [p] "r"(p)
      : "cc", "memory");
}

// (a + b) mod p for 6 limbs (inputs < p, p < 2^383); r may alias a or b.
[[gnu::always_inline]] inline void add_mod_6(u64* r, const u64* a, const u64* b, const u64* p) {
  u64 s0, s1, s2, s3, s4, s5;
  asm volatile(
      "movq 0(%[a]), %[s0]\n\t"
      "movq 8(%[a]), %[s1]\n\t"
      "movq 16(%[a]), %[s2]\n\t"
      "movq 24(%[a]), %[s3]\n\t"
      "movq 32(%[a]), %[s4]\n\t"
      "movq 40(%[a]), %[s5]\n\t"
      "addq 0(%[b]), %[s0]\n\t"
      "adcq 8(%[b]), %[s1]\n\t"
      "adcq 16(%[b]), %[s2]\n\t"
      "adcq 24(%[b]), %[s3]\n\t"
      "adcq 32(%[b]), %[s4]\n\t"
      "adcq 40(%[b]), %[s5]\n\t"
      "movq %[s0], 0(%[r])\n\t"
      "movq %[s1], 8(%[r])\n\t"
      "movq %[s2], 16(%[r])\n\t"
      "movq %[s3], 24(%[r])\n\t"
      "movq %[s4], 32(%[r])\n\t"
      "movq %[s5], 40(%[r])\n\t"
      "subq 0(%[p]), %[s0]\n\t"
      "sbbq 8(%[p]), %[s1]\n\t"
      "sbbq 16(%[p]), %[s2]\n\t"
      "sbbq 24(%[p]), %[s3]\n\t"
      "sbbq 32(%[p]), %[s4]\n\t"
      "sbbq 40(%[p]), %[s5]\n\t"
      "cmovcq 0(%[r]), %[s0]\n\t"
      "cmovcq 8(%[r]), %[s1]\n\t"
      "cmovcq 16(%[r]), %[s2]\n\t"
      "cmovcq 24(%[r]), %[s3]\n\t"
      "cmovcq 32(%[r]), %[s4]\n\t"
      "cmovcq 40(%[r]), %[s5]\n\t"
      "movq %[s0], 0(%[r])\n\t"
      "movq %[s1], 8(%[r])\n\t"
      "movq %[s2], 16(%[r])\n\t"
      "movq %[s3], 24(%[r])\n\t"
      "movq %[s4], 32(%[r])\n\t"
      "movq %[s5], 40(%[r])\n\t"
      : [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3), [s4] "=&r"(s4), [s5] "=&r"(s5)
      : [r] "r"(r), [a] "r"(a), [b] "r"(b), [p] "r"(p)
      : "cc", "memory");
}

// (a - b) mod p for 6 limbs; r may alias a or b.
[[gnu::always_inline]] inline void sub_mod_6(u64* r, const u64* a, const u64* b, const u64* p) {
  u64 s0, s1, s2, s3, s4, s5, m;
  asm volatile(
      "movq 0(%[a]), %[s0]\n\t"
      "movq 8(%[a]), %[s1]\n\t"
      "movq 16(%[a]), %[s2]\n\t"
      "movq 24(%[a]), %[s3]\n\t"
      "movq 32(%[a]), %[s4]\n\t"
      "movq 40(%[a]), %[s5]\n\t"
      "subq 0(%[b]), %[s0]\n\t"
      "sbbq 8(%[b]), %[s1]\n\t"
      "sbbq 16(%[b]), %[s2]\n\t"
      "sbbq 24(%[b]), %[s3]\n\t"
      "sbbq 32(%[b]), %[s4]\n\t"
      "sbbq 40(%[b]), %[s5]\n\t"
      "sbbq %[m], %[m]\n\t"  // m = -borrow
      "movq %[s0], 0(%[r])\n\t"
      "movq %[s1], 8(%[r])\n\t"
      "movq %[s2], 16(%[r])\n\t"
      "movq %[s3], 24(%[r])\n\t"
      "movq %[s4], 32(%[r])\n\t"
      "movq %[s5], 40(%[r])\n\t"
      "addq 0(%[p]), %[s0]\n\t"
      "adcq 8(%[p]), %[s1]\n\t"
      "adcq 16(%[p]), %[s2]\n\t"
      "adcq 24(%[p]), %[s3]\n\t"
      "adcq 32(%[p]), %[s4]\n\t"
      "adcq 40(%[p]), %[s5]\n\t"
      "testq %[m], %[m]\n\t"  // no borrow: keep a - b
      "cmovzq 0(%[r]), %[s0]\n\t"
      "cmovzq 8(%[r]), %[s1]\n\t"
      "cmovzq 16(%[r]), %[s2]\n\t"
      "cmovzq 24(%[r]), %[s3]\n\t"
      "cmovzq 32(%[r]), %[s4]\n\t"
      "cmovzq 40(%[r]), %[s5]\n\t"
      "movq %[s0], 0(%[r])\n\t"
      "movq %[s1], 8(%[r])\n\t"
      "movq %[s2], 16(%[r])\n\t"
      "movq %[s3], 24(%[r])\n\t"
      "movq %[s4], 32(%[r])\n\t"
      "movq %[s5], 40(%[r])\n\t"
      : [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3), [s4] "=&r"(s4), [s5] "=&r"(s5), [m] "=&r"(m)
      : [r] "r"(r), [a] "r"(a), [b] "r"(b), [p] "r"(p)
      : "cc", "memory");
}
}  // namespace snarkpipe::ff::x86
