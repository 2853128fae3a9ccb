// The BLS12-381 Fp Montgomery product in double precision, for the FP64 probes
// (bench/cuda/fp64_mont_probe.cu on the device, fp64_mont_host_check.cpp on the CPU; gpu-notes
// items 52-53). Host and device share this code; only the rounding primitives differ.
//
// An element: 8 limbs of 48 bits held exactly in doubles (value = Σ d_k·2^(48k)), the same
// Montgomery form as fp_t and ff::Fp (R = 2^384 = 2^(8·48)), values below 2p.
//
// Two forms of the 48×48-bit product xy (< 2^96) into columns k (lo) and k+1 (hi):
//   mont_mul_5op (measured, item 52): hi = fma_rz(x, y, 2^100) − 2^100, lo = fma_rz(x, y, −hi),
//     columns as exact doubles (≤ 2^53): 3 FMA + 2 ADD per product.
//   mont_mul_bits (item 53): h = fma_rz(x, y, 2^100) has the bit pattern bits(2^100) + ⌊xy/2^48⌋;
//     d = (2^100 + 2^52) − h is exact (same binade), and l = fma_rz(x, y, d) = 2^52 + (xy mod 2^48)
//     has the bit pattern bits(2^52) + (xy mod 2^48). So 2 FMA + 1 ADD per product, and the
//     columns are 64-bit integers to which the patterns are added less their biases (whose low
//     32 bits are zero, so the bias rides on the high word's three-input add).
// Both reduce row by row: m_i = (col_i mod 2^48)·n' mod 2^48 in 64-bit integers, m_i·p into the
// columns, col_i/2^48 into col_{i+1}; the result is columns 8..15 carried into 48-bit limbs,
// below (4p² + R·p)/R < 2p since 4p < R.
#pragma once

#include <cstdint>
#include <cstring>

#ifdef __CUDACC__
#define FP64_HD __host__ __device__
#else
#define FP64_HD
#endif

#ifndef __CUDA_ARCH__
#include <cfenv>
#include <cmath>
#endif

namespace fp64 {

constexpr uint64_t MASK48 = (uint64_t(1) << 48) - 1;
constexpr uint64_t BIAS_HI = 0x4630000000000000ull;  // bits(2^100)
constexpr uint64_t BIAS_LO = 0x4330000000000000ull;  // bits(2^52)

struct f64x8 {
  double d[8];
};

// p in 48-bit limbs and n' = −p^-1 mod 2^48, filled by init_constants (on the device: in
// __constant__ memory by the probe).
struct Constants {
  double p[8];
  uint64_t np;
  int64_t p2[8];  // 2p in 48-bit limbs (for subtraction and reduction)
};

inline void init_constants(Constants& c, const uint32_t p32[12]) {
  uint32_t w[13] = {};
  for (int i = 0; i < 12; ++i) w[i] = p32[i];
  for (int k = 0; k < 8; ++k) {
    const int bit = 48 * k, i = bit / 32, sh = bit % 32;
    const uint64_t v = uint64_t(w[i]) >> sh | uint64_t(w[i + 1]) << (32 - sh);
    c.p[k] = double(v & MASK48);
  }
  uint64_t carry = 0;
  for (int k = 0; k < 8; ++k) {
    const uint64_t v = 2 * uint64_t(c.p[k]) + carry;
    c.p2[k] = int64_t(v & MASK48);
    carry = v >> 48;
  }
  const uint64_t p0 = uint64_t(w[0]) | uint64_t(w[1]) << 32;
  uint64_t inv = 1;
  for (int i = 0; i < 7; ++i) inv *= 2 - p0 * inv;  // Newton: p0^-1 mod 2^64
  c.np = (0 - inv) & MASK48;
}

#ifdef __CUDA_ARCH__
__device__ __forceinline__ double fma_rz(double a, double b, double c) { return __fma_rz(a, b, c); }
__device__ __forceinline__ double fma_rn(double a, double b, double c) { return __fma_rn(a, b, c); }
__device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ double sub_rz(double a, double b) { return __dsub_rz(a, b); }
__device__ __forceinline__ uint64_t bits(double x) { return uint64_t(__double_as_longlong(x)); }
#else
// The host's: the rounding mode switched around each operation (slow; for checking only;
// compile with -frounding-math).
inline double fma_rz(double a, double b, double c) {
  std::fesetround(FE_TOWARDZERO);
  const volatile double r = std::fma(a, b, c);
  std::fesetround(FE_TONEAREST);
  return r;
}
inline double fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
inline double add_rn(double a, double b) { return a + b; }
inline double sub_rz(double a, double b) {
  std::fesetround(FE_TOWARDZERO);
  const volatile double r = a - b;
  std::fesetround(FE_TONEAREST);
  return r;
}
inline uint64_t bits(double x) {
  uint64_t u;
  std::memcpy(&u, &x, 8);
  return u;
}
#endif

// Columns as exact doubles: 3 FMA + 2 ADD per product.
FP64_HD inline void mac_5op(double x, double y, double& lo_col, double& hi_col) {
  const double C = 0x1p100;
  const double hi = sub_rz(fma_rz(x, y, C), C);
  const double lo = fma_rz(x, y, -hi);
  lo_col = add_rn(lo_col, lo);
  hi_col = fma_rn(hi, 0x1p-48, hi_col);
}

// Columns as 64-bit integers fed with bit patterns: 2 FMA + 1 ADD + two 64-bit integer adds.
FP64_HD inline void mac_bits(double x, double y, uint64_t& lo_col, uint64_t& hi_col) {
  const double h = fma_rz(x, y, 0x1p100);
  const double d = add_rn(0x1p100 + 0x1p52, -h);  // exact: the same binade
  const double l = fma_rz(x, y, d);
  lo_col += bits(l) - BIAS_LO;
  hi_col += bits(h) - BIAS_HI;
}

// The two kinds of columns: exact doubles (mac_5op) or 64-bit integers (mac_bits).
struct DoubleColumns {
  using T = double;
  FP64_HD static void mac(double x, double y, T& lo, T& hi) { mac_5op(x, y, lo, hi); }
  FP64_HD static uint64_t value(T c) { return uint64_t(c); }
  FP64_HD static void carry(T from, T& to) { to = fma_rn(from, 0x1p-48, to); }  // from ≡ 0 mod 2^48
};
struct BitColumns {
  using T = uint64_t;
  FP64_HD static void mac(double x, double y, T& lo, T& hi) { mac_bits(x, y, lo, hi); }
  FP64_HD static uint64_t value(T c) { return c; }
  FP64_HD static void carry(T from, T& to) { to += from >> 48; }
};

template <class Cols>
FP64_HD inline f64x8 mont_mul(const f64x8& a, const f64x8& b, const Constants& k) {
  typename Cols::T col[17];
  for (int i = 0; i < 17; ++i) col[i] = 0;
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) Cols::mac(a.d[i], b.d[j], col[i + j], col[i + j + 1]);
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const double m = double(((Cols::value(col[i]) & MASK48) * k.np) & MASK48);
#pragma unroll
    for (int j = 0; j < 8; ++j) Cols::mac(m, k.p[j], col[i + j], col[i + j + 1]);
    Cols::carry(col[i], col[i + 1]);  // col[i] ≡ 0 mod 2^48 now
  }
  f64x8 r;
  uint64_t carry = 0;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const uint64_t v = Cols::value(col[8 + i]) + carry;
    r.d[i] = double(v & MASK48);
    carry = v >> 48;
  }
  return r;
}

FP64_HD inline f64x8 mont_mul_5op(const f64x8& a, const f64x8& b, const Constants& k) {
  return mont_mul<DoubleColumns>(a, b, k);
}
FP64_HD inline f64x8 mont_mul_bits(const f64x8& a, const f64x8& b, const Constants& k) {
  return mont_mul<BitColumns>(a, b, k);
}

// Additive operations, on limbs in [0, 2^48). The products take one operand below 4p and the
// other below 2p (then a·b < 8p² < R·p, and the result is below 2p), so a sum or a difference
// that is multiplied by itself goes through reduce2 first.

// Signed limbs of a value in [0, 2^384) → limbs in [0, 2^48) (floor-division carries); the last
// carry is returned through *top (negative when the value was).
FP64_HD inline f64x8 normalize(const int64_t l[8], int64_t* top = nullptr) {
  f64x8 r;
  int64_t carry = 0;
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    const int64_t v = l[k] + carry;
    r.d[k] = double(uint64_t(v) & MASK48);
    carry = v >> 48;  // arithmetic: ⌊v / 2^48⌋
  }
  if (top) *top = carry;
  return r;
}
// a + b (below 4p for a, b below 2p).
FP64_HD inline f64x8 add(const f64x8& a, const f64x8& b) {
  int64_t l[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) l[k] = int64_t(a.d[k]) + int64_t(b.d[k]);
  return normalize(l);
}
// a − b + 2p (in (0, 4p) for a, b below 2p).
FP64_HD inline f64x8 sub(const f64x8& a, const f64x8& b, const Constants& k) {
  int64_t l[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) l[i] = int64_t(a.d[i]) - int64_t(b.d[i]) + k.p2[i];
  return normalize(l);
}
// a below 4p → below 2p: a − 2p when that is not negative, else a.
FP64_HD inline f64x8 reduce2(const f64x8& a, const Constants& k) {
  int64_t l[8], top;
#pragma unroll
  for (int i = 0; i < 8; ++i) l[i] = int64_t(a.d[i]) - k.p2[i];
  const f64x8 d = normalize(l, &top);
  return top < 0 ? a : d;
}

// The XYZZ mixed addition acc + (x, y) with the formulas of src/ec/xyzz.hpp (madd-2008-s), in
// FP64 products (all coordinates below 2p in, below 2p out). Without its exceptional cases (the
// identity on either side, P + P, P + (−P)): the probes feed random distinct points.
struct xyzz64 {
  f64x8 X, Y, ZZ, ZZZ;
};
FP64_HD inline xyzz64 madd(const xyzz64& acc, const f64x8& x, const f64x8& y, const Constants& k) {
  const auto mul = [&](const f64x8& a, const f64x8& b) { return mont_mul_bits(a, b, k); };
  const f64x8 u2 = mul(x, acc.ZZ), s2 = mul(y, acc.ZZZ);
  const f64x8 pp_ = reduce2(sub(u2, acc.X, k), k), rr = reduce2(sub(s2, acc.Y, k), k);
  const f64x8 pp = mul(pp_, pp_);
  const f64x8 ppp = mul(pp_, pp);
  const f64x8 qq = mul(acc.X, pp);
  xyzz64 r;
  const f64x8 t = reduce2(sub(mul(rr, rr), ppp, k), k);
  r.X = reduce2(sub(reduce2(sub(t, qq, k), k), qq, k), k);
  r.Y = reduce2(sub(mul(rr, reduce2(sub(qq, r.X, k), k)), mul(acc.Y, ppp), k), k);
  r.ZZ = mul(acc.ZZ, pp);
  r.ZZZ = mul(acc.ZZZ, ppp);
  return r;
}

// 6 × 64-bit little-endian limbs ↔ 8 × 48-bit limbs.
FP64_HD inline f64x8 from_u64x6(const uint64_t w[6]) {
  f64x8 r;
  for (int k = 0; k < 8; ++k) {
    const int bit = 48 * k, i = bit / 64, sh = bit % 64;
    uint64_t v = w[i] >> sh;
    if (sh > 16 && i + 1 < 6) v |= w[i + 1] << (64 - sh);
    r.d[k] = double(v & MASK48);
  }
  return r;
}
FP64_HD inline void to_u64x6(const f64x8& a, uint64_t w[6]) {
  uint64_t l[8];
  for (int k = 0; k < 8; ++k) l[k] = uint64_t(a.d[k]);
  for (int i = 0; i < 6; ++i) {
    const int bit = 64 * i, k = bit / 48, sh = bit % 48;
    w[i] = l[k] >> sh | l[k + 1] << (48 - sh);  // sh is 0, 16 or 32: two limbs cover 64 bits
  }
}

}  // namespace fp64
