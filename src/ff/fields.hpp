// The two prime fields of BLS12-381 (REFERENCE.md §1): the base field Fp (381 bits, six
// limbs) and the scalar field Fr (255 bits, four limbs).
#pragma once

#include "ff/mont_field.hpp"

// The inline-assembly multiplication needs an optimizing build (it takes 14 registers);
// other builds, ASan and nvcc's host pass call the same schedule in mont_x86_64.S.
#if defined(SNARKPIPE_HAVE_ASM) && defined(__OPTIMIZE__) && !defined(__SANITIZE_ADDRESS__) && !defined(__CUDACC__)
#define SNARKPIPE_INLINE_MUL 1
#include "ff/mont_inline_x86_64.hpp"
#endif

#if defined(SNARKPIPE_HAVE_ASM)
extern "C" {
void snarkpipe_mont_mul_fp(snarkpipe::ff::u64 out[6], const snarkpipe::ff::u64 a[6], const snarkpipe::ff::u64 b[6]);
void snarkpipe_mont_sqr_fp(snarkpipe::ff::u64 out[6], const snarkpipe::ff::u64 a[6]);
void snarkpipe_mont_mul_fr(snarkpipe::ff::u64 out[4], const snarkpipe::ff::u64 a[4], const snarkpipe::ff::u64 b[4]);
void snarkpipe_mont_sqr_fr(snarkpipe::ff::u64 out[4], const snarkpipe::ff::u64 a[4]);
}
#endif

namespace snarkpipe::ff {

struct FpParams {
  static constexpr std::size_t N = 6;
  static constexpr Limbs<6> modulus =
      parse_hex<6>("1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab");
  static constexpr u64 inv = 0x89f3fffcfffcfffdULL;
  // Limbs kept in [0, 2p) (MontField's redundant form): the inline product and square skip
  // their final subtraction. p < 2^381, so 4p < R = 2^384.
  static constexpr bool redundant = true;
#if defined(SNARKPIPE_HAVE_ASM)
  static constexpr bool has_asm = true;
  static void asm_mul(u64* o, const u64* a, const u64* b) { snarkpipe_mont_mul_fp(o, a, b); }
  static void asm_sqr(u64* o, const u64* a) { snarkpipe_mont_sqr_fp(o, a); }
#endif
#if defined(SNARKPIPE_INLINE_MUL)
  static constexpr bool has_inline_asm = true;
  [[gnu::always_inline]] static void inline_mul(Limbs<6>& o, const Limbs<6>& a, const Limbs<6>& b) {
    x86::mont_mul_fp(o, a, b);
  }
  static constexpr bool has_inline_sqr = true;
  [[gnu::always_inline]] static void inline_sqr(Limbs<6>& o, const Limbs<6>& a) { x86::mont_sqr_fp(o, a); }
#endif
};

struct FrParams {
  static constexpr std::size_t N = 4;
  static constexpr Limbs<4> modulus = parse_hex<4>("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001");
  static constexpr u64 inv = 0xfffffffeffffffffULL;
#if defined(SNARKPIPE_HAVE_ASM)
  static constexpr bool has_asm = true;
  static void asm_mul(u64* o, const u64* a, const u64* b) { snarkpipe_mont_mul_fr(o, a, b); }
  static void asm_sqr(u64* o, const u64* a) { snarkpipe_mont_sqr_fr(o, a); }
#endif
#if defined(SNARKPIPE_INLINE_MUL)
  static constexpr bool has_inline_asm = true;
  [[gnu::always_inline]] static void inline_mul(Limbs<4>& o, const Limbs<4>& a, const Limbs<4>& b) {
    x86::mont_mul_fr(o, a, b);
  }
#endif
};

using Fp = MontField<FpParams>;
using Fr = MontField<FrParams>;

static_assert(Fp::BITS == 381 && Fp::BYTES == 48);
static_assert(Fr::BITS == 255 && Fr::BYTES == 32);
// Montgomery consistency: p·(-p^-1) ≡ -1 (mod 2^64).
static_assert(FpParams::modulus[0] * FpParams::inv == ~u64(0));
static_assert(FrParams::modulus[0] * FrParams::inv == ~u64(0));

// Fr's two-adicity and the generator of its 2^32-th roots of unity (7^((r-1)/2^32)).
inline constexpr std::size_t FR_TWO_ADICITY = 32;
inline constexpr u64 FR_MULTIPLICATIVE_GENERATOR = 7;
inline constexpr Fr FR_ROOT_OF_UNITY = Fr::from_hex("16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b");

}  // namespace snarkpipe::ff
