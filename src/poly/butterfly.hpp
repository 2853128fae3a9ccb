// The radix-2 butterflies of the NTT (private to src/poly, tested in tests/poly).
//
// Their sum and difference come from one fused kernel: a + b and a − b share the loads of a
// and b and stay in registers. On x86-64 this is inline assembly, since GCC routes carry
// chains built from intrinsics through memory; it makes a whole NTT about 19% faster than
// the separate field operations (2^20 elements, one thread, on the development machine).
// Elsewhere, and in the portable build (SNARKPIPE_X86_ASM=OFF), it is the field's own + and −.
#pragma once

#include <cstddef>

#include "ff/fields.hpp"

namespace snarkpipe::poly {

// (a, b) ← (a + b, a − b) mod r; a and b must be distinct elements.
inline void add_sub(ff::Fr& a, ff::Fr& b) {
#if defined(SNARKPIPE_X86_INLINE_ADD)
  // Fr's modulus is below 2^255, so a + b < 2r never carries out of four limbs.
  static_assert(ff::Fr::MODULUS[3] < (ff::u64(1) << 63));
  using ff::u64;
  const ff::Fr::Repr& x = a.montgomery();
  const ff::Fr::Repr& y = b.montgomery();
  const ff::Fr::Repr& p = ff::Fr::MODULUS;
  u64 s0 = x[0], s1 = x[1], s2 = x[2], s3 = x[3];
  u64 d0 = x[0], d1 = x[1], d2 = x[2], d3 = x[3];
  u64 t0, t1, t2, t3;
  // s = x + y; t = s − p; keep t unless that borrowed.
  asm("addq %[y0], %[s0]\n\t"
      "adcq %[y1], %[s1]\n\t"
      "adcq %[y2], %[s2]\n\t"
      "adcq %[y3], %[s3]\n\t"
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
      "cmovncq %[t3], %[s3]"
      : [s0] "+&r"(s0), [s1] "+&r"(s1), [s2] "+&r"(s2), [s3] "+&r"(s3), [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2),
        [t3] "=&r"(t3)
      : [y0] "m"(y[0]), [y1] "m"(y[1]), [y2] "m"(y[2]), [y3] "m"(y[3]), [p0] "m"(p[0]), [p1] "m"(p[1]), [p2] "m"(p[2]),
        [p3] "m"(p[3])
      : "cc");
  // d = x − y; add p back when that borrowed.
  u64 z0 = 0, z1 = 0, z2 = 0, z3 = 0;
  asm("subq %[y0], %[d0]\n\t"
      "sbbq %[y1], %[d1]\n\t"
      "sbbq %[y2], %[d2]\n\t"
      "sbbq %[y3], %[d3]\n\t"
      "cmovcq %[p0], %[z0]\n\t"
      "cmovcq %[p1], %[z1]\n\t"
      "cmovcq %[p2], %[z2]\n\t"
      "cmovcq %[p3], %[z3]\n\t"
      "addq %[z0], %[d0]\n\t"
      "adcq %[z1], %[d1]\n\t"
      "adcq %[z2], %[d2]\n\t"
      "adcq %[z3], %[d3]"
      : [d0] "+&r"(d0), [d1] "+&r"(d1), [d2] "+&r"(d2), [d3] "+&r"(d3), [z0] "+&r"(z0), [z1] "+&r"(z1), [z2] "+&r"(z2),
        [z3] "+&r"(z3)
      : [y0] "m"(y[0]), [y1] "m"(y[1]), [y2] "m"(y[2]), [y3] "m"(y[3]), [p0] "m"(p[0]), [p1] "m"(p[1]), [p2] "m"(p[2]),
        [p3] "m"(p[3])
      : "cc");
  a = ff::Fr::from_montgomery({s0, s1, s2, s3});
  b = ff::Fr::from_montgomery({d0, d1, d2, d3});
#else
  const ff::Fr d = a - b;
  a += b;
  b = d;
#endif
}

// Decimation in frequency: (a, b) ← (a + b, (a − b)·w).
inline void dif_butterfly(ff::Fr& a, ff::Fr& b, const ff::Fr& w) {
  add_sub(a, b);
  b *= w;
}
// Decimation in time: (a, b) ← (a + w·b, a − w·b).
inline void dit_butterfly(ff::Fr& a, ff::Fr& b, const ff::Fr& w) {
  b *= w;
  add_sub(a, b);
}

// Runs of butterflies on a[j], b[j] with twiddle w[j], j < len.
inline void dif_butterflies(ff::Fr* a, ff::Fr* b, const ff::Fr* w, std::size_t len) {
  for (std::size_t j = 0; j < len; ++j) dif_butterfly(a[j], b[j], w[j]);
}
// Two products before their sums, so that the second multiplication overlaps the first
// sum (5% faster here; the DIF order gains nothing from it).
inline void dit_butterflies(ff::Fr* a, ff::Fr* b, const ff::Fr* w, std::size_t len) {
  std::size_t j = 0;
  for (; j + 1 < len; j += 2) {
    b[j] *= w[j];
    b[j + 1] *= w[j + 1];
    add_sub(a[j], b[j]);
    add_sub(a[j + 1], b[j + 1]);
  }
  if (j < len) dit_butterfly(a[j], b[j], w[j]);
}

}  // namespace snarkpipe::poly
