// The radix-2 butterflies of the NTT (private to src/poly, tested in tests/poly).
//
// Their sum and difference come from one fused kernel: a + b and a − b share the loads of a
// and b and stay in registers. On x86-64 this is inline assembly (ff::x86::add_sub_mod_4,
// generated into ff/add_x86_64.hpp by tools/gen_mont_x86_64.py), since GCC routes carry
// chains built from intrinsics through memory; it makes a whole NTT about 19% faster than
// the separate field operations (2^20 elements, one thread, on the development machine).
// Elsewhere, in unoptimized builds and in the portable build (SNARKPIPE_X86_ASM=OFF), it is the
// field's own + and −.
#pragma once

#include <cstddef>

#include "ff/fields.hpp"

namespace snarkpipe::poly {

// (a, b) ← (a + b, a − b) mod r; a and b must be distinct elements.
inline void add_sub(ff::Fr& a, ff::Fr& b) {
  // Optimized builds only: at -O0 GCC gives every memory operand its own address register and
  // the fused kernel's 16 operands do not fit (the field's + and − then take pointer versions).
#if defined(SNARKPIPE_X86_INLINE_ADD) && defined(__OPTIMIZE__)
  // Fr's modulus is below 2^255, so a + b < 2r never carries out of four limbs.
  static_assert(ff::Fr::MODULUS[3] < (ff::u64(1) << 63));
  ff::Fr::Repr s, d;
  ff::x86::add_sub_mod_4(s, d, a.montgomery(), b.montgomery(), ff::Fr::MODULUS);
  a = ff::Fr::from_montgomery(s);
  b = ff::Fr::from_montgomery(d);
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
