// BLS12-381's two prime fields on the device (REFERENCE.md §1): Fr (8 × 32-bit limbs,
// R = 2^256) and Fp (12 × 32-bit limbs, R = 2^384), the CPU's Montgomery representation.
#pragma once

#include "cuda/mont.cuh"
#include "ff/fields.hpp"

namespace snarkpipe::cuda {

struct FrParams32 {
  static constexpr int N = 8;
  static constexpr uint32_t M0 = 0xffffffffu;  // -r^-1 mod 2^32
  __host__ __device__ static constexpr uint32_t mod(int i) {
    constexpr uint32_t m[8] = {0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402,
                               0x09a1d805, 0x3339d808, 0x299d7d48, 0x73eda753};
    return m[i];
  }
  __host__ __device__ static constexpr uint32_t one(int i) {
    constexpr uint32_t m[8] = {0xfffffffe, 0x00000001, 0x00034802, 0x5884b7fa,
                               0xecbc4ff5, 0x998c4fef, 0xacc5056f, 0x1824b159};
    return m[i];
  }
  __host__ __device__ static constexpr uint32_t r2(int i) {
    constexpr uint32_t m[8] = {0xf3f29c6d, 0xc999e990, 0x87925c23, 0x2b6cedcb,
                               0x7254398f, 0x05d31496, 0x9f59ff11, 0x0748d9d9};
    return m[i];
  }
};

struct FpParams32 {
  static constexpr int N = 12;
  static constexpr uint32_t M0 = 0xfffcfffdu;  // -p^-1 mod 2^32
  __host__ __device__ static constexpr uint32_t mod(int i) {
    constexpr uint32_t m[12] = {0xffffaaab, 0xb9feffff, 0xb153ffff, 0x1eabfffe, 0xf6b0f624, 0x6730d2a0,
                                0xf38512bf, 0x64774b84, 0x434bacd7, 0x4b1ba7b6, 0x397fe69a, 0x1a0111ea};
    return m[i];
  }
  __host__ __device__ static constexpr uint32_t one(int i) {
    constexpr uint32_t m[12] = {0x0002fffd, 0x76090000, 0xc40c0002, 0xebf4000b, 0x53c758ba, 0x5f489857,
                                0x70525745, 0x77ce5853, 0xa256ec6d, 0x5c071a97, 0xfa80e493, 0x15f65ec3};
    return m[i];
  }
  __host__ __device__ static constexpr uint32_t r2(int i) {
    constexpr uint32_t m[12] = {0x1c341746, 0xf4df1f34, 0x09d104f1, 0x0a76e6a6, 0x4c95b6d5, 0x8de5476c,
                                0x939d83c0, 0x67eb88a9, 0xb519952d, 0x9a793e85, 0x92cae3aa, 0x11988fe5};
    return m[i];
  }
};

using fr_t = mont_t<FrParams32>;
using fp_t = mont_t<FpParams32>;

static_assert(sizeof(fr_t) == 32 && sizeof(fp_t) == 48);

// The 32-bit constants above are the CPU's (src/ff), checked at compile time so that a typo
// in either copy fails the build instead of a device test.
template <class P32, class F>
constexpr bool same_constants() {
  if (P32::N != 2 * int(F::N) || P32::M0 != uint32_t(F::INV)) return false;  // M0 is INV (-p^-1 mod 2^64) mod 2^32
  for (int i = 0; i < P32::N; ++i) {
    const int shift = 32 * (i % 2);
    if (P32::mod(i) != uint32_t(F::MODULUS[i / 2] >> shift) || P32::r2(i) != uint32_t(F::R2[i / 2] >> shift) ||
        P32::one(i) != uint32_t(F::one().montgomery()[i / 2] >> shift))
      return false;
  }
  return true;
}
static_assert(same_constants<FrParams32, ff::Fr>(), "device Fr constants differ from src/ff");
static_assert(same_constants<FpParams32, ff::Fp>(), "device Fp constants differ from src/ff");

}  // namespace snarkpipe::cuda
