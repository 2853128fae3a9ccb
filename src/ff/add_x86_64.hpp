// Modular addition, subtraction and negation for 4- and 6-limb fields as x86-64 inline
// assembly: ADD/ADC and SUB/SBB chains with a branch-free correction (CMOV or a borrow mask).
// The first operand goes in and the result comes out in registers; the second is read
// through a pointer with 8-byte loads (its memory is an operand, no "memory" clobber, not
// volatile), so the compiler inlines these, keeps values in
// registers across consecutive operations and never reloads an 8-byte-stored result with a
// wider load (which would defeat store forwarding).
// GCC's code for these chains from intrinsics or __int128 goes through memory and costs
// several times more.

#pragma once

#include <cstdint>

#include "ff/bigint.hpp"

// nvcc's front end reads these for the host side of .cu files and would call every
// scratch output "set but never used".
#if defined(__CUDACC__)
#pragma nv_diagnostic push
#pragma nv_diag_suppress 550
#endif

namespace snarkpipe::ff::x86 {

// (a + b) mod p, 4 limbs (inputs < p, 2p < 2^256); r may alias a or b.
[[gnu::always_inline]] inline void add_mod_4(Limbs<4>& r, const Limbs<4>& a, const Limbs<4>& b, const Limbs<4>& p) {
  u64 s0 = a[0], s1 = a[1], s2 = a[2], s3 = a[3];
  u64 t0, t1, t2, t3;
  asm("addq 0(%[bp]), %[s0]\n\t"
      "adcq 8(%[bp]), %[s1]\n\t"
      "adcq 16(%[bp]), %[s2]\n\t"
      "adcq 24(%[bp]), %[s3]\n\t"
      "movq %[s0], %[t0]\n\t"
      "movq %[s1], %[t1]\n\t"
      "movq %[s2], %[t2]\n\t"
      "movq %[s3], %[t3]\n\t"
      "subq %[p0], %[t0]\n\t"
      "sbbq %[p1], %[t1]\n\t"
      "sbbq %[p2], %[t2]\n\t"
      "sbbq %[p3], %[t3]\n\t"
      "cmovncq %[t0], %[s0]\n\t"
      "cmovncq %[t1], %[s1]\n\t"
      "cmovncq %[t2], %[s2]\n\t"
      "cmovncq %[t3], %[s3]"  // no borrow: s - p
      : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2),
        [t3] "=&r"(t3)
      : [bp] "r"(b.data()), [bm] "m"(*reinterpret_cast<const u64(*)[4]>(b.data())), [p0] "m"(p[0]), [p1] "m"(p[1]),
        [p2] "m"(p[2]), [p3] "m"(p[3])
      : "cc");
  r = {s0, s1, s2, s3};
}

// (a - b) mod p, 4 limbs; r may alias a or b.
[[gnu::always_inline]] inline void sub_mod_4(Limbs<4>& r, const Limbs<4>& a, const Limbs<4>& b, const Limbs<4>& p) {
  u64 s0 = a[0], s1 = a[1], s2 = a[2], s3 = a[3];
  u64 t0, t1, t2, t3;
  asm("subq 0(%[bp]), %[s0]\n\t"
      "sbbq 8(%[bp]), %[s1]\n\t"
      "sbbq 16(%[bp]), %[s2]\n\t"
      "sbbq 24(%[bp]), %[s3]\n\t"
      "sbbq %[t3], %[t3]\n\t"  // -borrow: all ones when a < b
      "movq %[p0], %[t0]\n\t"
      "andq %[t3], %[t0]\n\t"
      "movq %[p1], %[t1]\n\t"
      "andq %[t3], %[t1]\n\t"
      "movq %[p2], %[t2]\n\t"
      "andq %[t3], %[t2]\n\t"
      "andq %[p3], %[t3]\n\t"
      "addq %[t0], %[s0]\n\t"
      "adcq %[t1], %[s1]\n\t"
      "adcq %[t2], %[s2]\n\t"
      "adcq %[t3], %[s3]"
      : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2),
        [t3] "=&r"(t3)
      : [bp] "r"(b.data()), [bm] "m"(*reinterpret_cast<const u64(*)[4]>(b.data())), [p0] "m"(p[0]), [p1] "m"(p[1]),
        [p2] "m"(p[2]), [p3] "m"(p[3])
      : "cc");
  r = {s0, s1, s2, s3};
}

// (p - a) mod p, 4 limbs: 0 stays 0; r may alias a.
[[gnu::always_inline]] inline void neg_mod_4(Limbs<4>& r, const Limbs<4>& a, const Limbs<4>& p) {
  u64 s0, s1, s2, s3, z;
  asm("movq 0(%[ap]), %[z]\n\t"
      "orq 8(%[ap]), %[z]\n\t"
      "orq 16(%[ap]), %[z]\n\t"
      "orq 24(%[ap]), %[z]\n\t"
      "negq %[z]\n\t"
      "sbbq %[z], %[z]\n\t"  // all ones when a != 0
      "movq %[p0], %[s0]\n\t"
      "movq %[p1], %[s1]\n\t"
      "movq %[p2], %[s2]\n\t"
      "movq %[p3], %[s3]\n\t"
      "subq 0(%[ap]), %[s0]\n\t"
      "sbbq 8(%[ap]), %[s1]\n\t"
      "sbbq 16(%[ap]), %[s2]\n\t"
      "sbbq 24(%[ap]), %[s3]\n\t"
      "andq %[z], %[s0]\n\t"
      "andq %[z], %[s1]\n\t"
      "andq %[z], %[s2]\n\t"
      "andq %[z], %[s3]"
      : [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3), [z] "=&r"(z)
      : [ap] "r"(a.data()), [am] "m"(*reinterpret_cast<const u64(*)[4]>(a.data())), [p0] "m"(p[0]), [p1] "m"(p[1]),
        [p2] "m"(p[2]), [p3] "m"(p[3])
      : "cc");
  r = {s0, s1, s2, s3};
}

// (a + b) mod p, 6 limbs (inputs < p, 2p < 2^384); r may alias a or b. A redundant field
// (MontField::REDUNDANT) passes its bound 2p as p: inputs < 2p, result < 2p.
[[gnu::always_inline]] inline void add_mod_6(Limbs<6>& r, const Limbs<6>& a, const Limbs<6>& b, const Limbs<6>& p) {
  u64 s0 = a[0], s1 = a[1], s2 = a[2], s3 = a[3], s4 = a[4], s5 = a[5];
  u64 t0, t1, t2, t3, t4, t5;
  asm("addq 0(%[bp]), %[s0]\n\t"
      "adcq 8(%[bp]), %[s1]\n\t"
      "adcq 16(%[bp]), %[s2]\n\t"
      "adcq 24(%[bp]), %[s3]\n\t"
      "adcq 32(%[bp]), %[s4]\n\t"
      "adcq 40(%[bp]), %[s5]\n\t"
      "movq %[s0], %[t0]\n\t"
      "movq %[s1], %[t1]\n\t"
      "movq %[s2], %[t2]\n\t"
      "movq %[s3], %[t3]\n\t"
      "movq %[s4], %[t4]\n\t"
      "movq %[s5], %[t5]\n\t"
      "subq %[p0], %[t0]\n\t"
      "sbbq %[p1], %[t1]\n\t"
      "sbbq %[p2], %[t2]\n\t"
      "sbbq %[p3], %[t3]\n\t"
      "sbbq %[p4], %[t4]\n\t"
      "sbbq %[p5], %[t5]\n\t"
      "cmovncq %[t0], %[s0]\n\t"
      "cmovncq %[t1], %[s1]\n\t"
      "cmovncq %[t2], %[s2]\n\t"
      "cmovncq %[t3], %[s3]\n\t"
      "cmovncq %[t4], %[s4]\n\t"
      "cmovncq %[t5], %[s5]"  // no borrow: s - p
      : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [s4] "+r"(s4), [s5] "+r"(s5), [t0] "=&r"(t0),
        [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5)
      : [bp] "r"(b.data()), [bm] "m"(*reinterpret_cast<const u64(*)[6]>(b.data())), [p0] "m"(p[0]), [p1] "m"(p[1]),
        [p2] "m"(p[2]), [p3] "m"(p[3]), [p4] "m"(p[4]), [p5] "m"(p[5])
      : "cc");
  r = {s0, s1, s2, s3, s4, s5};
}

// v mod p for v < 2p, 6 limbs: v - p unless that borrows; r may alias v. The observers of
// a redundant field (MontField::reduced) call it.
[[gnu::always_inline]] inline void reduce_once_6(Limbs<6>& r, const Limbs<6>& v, const Limbs<6>& p) {
  u64 s0 = v[0], s1 = v[1], s2 = v[2], s3 = v[3], s4 = v[4], s5 = v[5];
  u64 t0 = s0, t1 = s1, t2 = s2, t3 = s3, t4 = s4, t5 = s5;
  asm("subq %[p0], %[t0]\n\t"
      "sbbq %[p1], %[t1]\n\t"
      "sbbq %[p2], %[t2]\n\t"
      "sbbq %[p3], %[t3]\n\t"
      "sbbq %[p4], %[t4]\n\t"
      "sbbq %[p5], %[t5]\n\t"
      "cmovncq %[t0], %[s0]\n\t"
      "cmovncq %[t1], %[s1]\n\t"
      "cmovncq %[t2], %[s2]\n\t"
      "cmovncq %[t3], %[s3]\n\t"
      "cmovncq %[t4], %[s4]\n\t"
      "cmovncq %[t5], %[s5]"  // no borrow: v - p
      : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [s4] "+r"(s4), [s5] "+r"(s5), [t0] "+&r"(t0),
        [t1] "+&r"(t1), [t2] "+&r"(t2), [t3] "+&r"(t3), [t4] "+&r"(t4), [t5] "+&r"(t5)
      : [p0] "m"(p[0]), [p1] "m"(p[1]), [p2] "m"(p[2]), [p3] "m"(p[3]), [p4] "m"(p[4]), [p5] "m"(p[5])
      : "cc");
  r = {s0, s1, s2, s3, s4, s5};
}

// (a - b) mod p, 6 limbs; r may alias a or b.
[[gnu::always_inline]] inline void sub_mod_6(Limbs<6>& r, const Limbs<6>& a, const Limbs<6>& b, const Limbs<6>& p) {
  u64 s0 = a[0], s1 = a[1], s2 = a[2], s3 = a[3], s4 = a[4], s5 = a[5];
  u64 t0, t1, t2, t3, t4, t5;
  asm("subq 0(%[bp]), %[s0]\n\t"
      "sbbq 8(%[bp]), %[s1]\n\t"
      "sbbq 16(%[bp]), %[s2]\n\t"
      "sbbq 24(%[bp]), %[s3]\n\t"
      "sbbq 32(%[bp]), %[s4]\n\t"
      "sbbq 40(%[bp]), %[s5]\n\t"
      "sbbq %[t5], %[t5]\n\t"  // -borrow: all ones when a < b
      "movq %[p0], %[t0]\n\t"
      "andq %[t5], %[t0]\n\t"
      "movq %[p1], %[t1]\n\t"
      "andq %[t5], %[t1]\n\t"
      "movq %[p2], %[t2]\n\t"
      "andq %[t5], %[t2]\n\t"
      "movq %[p3], %[t3]\n\t"
      "andq %[t5], %[t3]\n\t"
      "movq %[p4], %[t4]\n\t"
      "andq %[t5], %[t4]\n\t"
      "andq %[p5], %[t5]\n\t"
      "addq %[t0], %[s0]\n\t"
      "adcq %[t1], %[s1]\n\t"
      "adcq %[t2], %[s2]\n\t"
      "adcq %[t3], %[s3]\n\t"
      "adcq %[t4], %[s4]\n\t"
      "adcq %[t5], %[s5]"
      : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [s4] "+r"(s4), [s5] "+r"(s5), [t0] "=&r"(t0),
        [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5)
      : [bp] "r"(b.data()), [bm] "m"(*reinterpret_cast<const u64(*)[6]>(b.data())), [p0] "m"(p[0]), [p1] "m"(p[1]),
        [p2] "m"(p[2]), [p3] "m"(p[3]), [p4] "m"(p[4]), [p5] "m"(p[5])
      : "cc");
  r = {s0, s1, s2, s3, s4, s5};
}

// (p - a) mod p, 6 limbs: 0 stays 0; r may alias a.
[[gnu::always_inline]] inline void neg_mod_6(Limbs<6>& r, const Limbs<6>& a, const Limbs<6>& p) {
  u64 s0, s1, s2, s3, s4, s5, z;
  asm("movq 0(%[ap]), %[z]\n\t"
      "orq 8(%[ap]), %[z]\n\t"
      "orq 16(%[ap]), %[z]\n\t"
      "orq 24(%[ap]), %[z]\n\t"
      "orq 32(%[ap]), %[z]\n\t"
      "orq 40(%[ap]), %[z]\n\t"
      "negq %[z]\n\t"
      "sbbq %[z], %[z]\n\t"  // all ones when a != 0
      "movq %[p0], %[s0]\n\t"
      "movq %[p1], %[s1]\n\t"
      "movq %[p2], %[s2]\n\t"
      "movq %[p3], %[s3]\n\t"
      "movq %[p4], %[s4]\n\t"
      "movq %[p5], %[s5]\n\t"
      "subq 0(%[ap]), %[s0]\n\t"
      "sbbq 8(%[ap]), %[s1]\n\t"
      "sbbq 16(%[ap]), %[s2]\n\t"
      "sbbq 24(%[ap]), %[s3]\n\t"
      "sbbq 32(%[ap]), %[s4]\n\t"
      "sbbq 40(%[ap]), %[s5]\n\t"
      "andq %[z], %[s0]\n\t"
      "andq %[z], %[s1]\n\t"
      "andq %[z], %[s2]\n\t"
      "andq %[z], %[s3]\n\t"
      "andq %[z], %[s4]\n\t"
      "andq %[z], %[s5]"
      : [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3), [s4] "=&r"(s4), [s5] "=&r"(s5), [z] "=&r"(z)
      : [ap] "r"(a.data()), [am] "m"(*reinterpret_cast<const u64(*)[6]>(a.data())), [p0] "m"(p[0]), [p1] "m"(p[1]),
        [p2] "m"(p[2]), [p3] "m"(p[3]), [p4] "m"(p[4]), [p5] "m"(p[5])
      : "cc");
  r = {s0, s1, s2, s3, s4, s5};
}

// a + b for 6 limbs without reduction (the caller knows the sum fits: for Fp, a, b < 2p
// gives a + b < 4p < 2^383); an operand of the lazy Fp2 products and squarings.
[[gnu::always_inline]] inline void add_plain_6(Limbs<6>& r, const Limbs<6>& a, const Limbs<6>& b) {
  u64 s0 = a[0], s1 = a[1], s2 = a[2], s3 = a[3], s4 = a[4], s5 = a[5];
  asm("addq 0(%[bp]), %[s0]\n\t"
      "adcq 8(%[bp]), %[s1]\n\t"
      "adcq 16(%[bp]), %[s2]\n\t"
      "adcq 24(%[bp]), %[s3]\n\t"
      "adcq 32(%[bp]), %[s4]\n\t"
      "adcq 40(%[bp]), %[s5]"
      : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [s4] "+r"(s4), [s5] "+r"(s5)
      : [bp] "r"(b.data()), [bm] "m"(*reinterpret_cast<const u64(*)[6]>(b.data()))
      : "cc");
  r = {s0, s1, s2, s3, s4, s5};
}

// a + p - b for 6 limbs without reduction (a, b < p: the result is in (0, 2p), exact;
// the wrap-around of the intermediate a - b mod 2^384 cancels). One pass instead of a
// modular negation and a plain addition; an operand of the lazy Fp2 squarings (which also
// pass 2p for operands < 2p: the result is then in (0, 4p)).
[[gnu::always_inline]] inline void add_p_sub_plain_6(Limbs<6>& r, const Limbs<6>& a, const Limbs<6>& b,
                                                     const Limbs<6>& p) {
  u64 s0 = a[0], s1 = a[1], s2 = a[2], s3 = a[3], s4 = a[4], s5 = a[5];
  asm("subq 0(%[bp]), %[s0]\n\t"
      "sbbq 8(%[bp]), %[s1]\n\t"
      "sbbq 16(%[bp]), %[s2]\n\t"
      "sbbq 24(%[bp]), %[s3]\n\t"
      "sbbq 32(%[bp]), %[s4]\n\t"
      "sbbq 40(%[bp]), %[s5]\n\t"
      "addq %[p0], %[s0]\n\t"
      "adcq %[p1], %[s1]\n\t"
      "adcq %[p2], %[s2]\n\t"
      "adcq %[p3], %[s3]\n\t"
      "adcq %[p4], %[s4]\n\t"
      "adcq %[p5], %[s5]"
      : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [s4] "+r"(s4), [s5] "+r"(s5)
      : [bp] "r"(b.data()), [bm] "m"(*reinterpret_cast<const u64(*)[6]>(b.data())), [p0] "m"(p[0]), [p1] "m"(p[1]),
        [p2] "m"(p[2]), [p3] "m"(p[3]), [p4] "m"(p[4]), [p5] "m"(p[5])
      : "cc");
  r = {s0, s1, s2, s3, s4, s5};
}

// The same with pointer operands and a "memory" clobber: what unoptimized builds use
// (at -O0 GCC gives every memory operand its own address register, and the register
// versions above run out of registers).
namespace ptr {
// (a + b) mod p for 4 limbs (inputs < p, p < 2^255); r may alias a or b.
[[gnu::always_inline]] inline void add_mod_4_ptr(u64* r, const u64* a, const u64* b, const u64* p) {
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
[[gnu::always_inline]] inline void sub_mod_4_ptr(u64* r, const u64* a, const u64* b, const u64* p) {
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
[[gnu::always_inline]] inline void add_mod_6_ptr(u64* r, const u64* a, const u64* b, const u64* p) {
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
[[gnu::always_inline]] inline void sub_mod_6_ptr(u64* r, const u64* a, const u64* b, const u64* p) {
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
}  // namespace ptr

}  // namespace snarkpipe::ff::x86

#if defined(__CUDACC__)
#pragma nv_diagnostic pop
#endif
