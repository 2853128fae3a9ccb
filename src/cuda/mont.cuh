// A prime field in Montgomery form on the device, generic over the modulus.
//
// Elements are x·R mod p with R = 2^(32·N), fully reduced (< p), as N little-endian 32-bit
// limbs: byte for byte the CPU's 64-bit-limb layout (src/ff/mont_field.hpp), so arrays of
// field elements and points cross the bus unchanged. Every operation returns a fully reduced
// value, so any correct formula gives the CPU's bits.
//
// Multiplication is CIOS with the PTX carry chains (mad.lo.cc / madc.hi.cc / addc): per limb
// of b, a·b_i and then m·p (m = t_0·(-p^-1) mod 2^32) are added in even/odd chains whose
// low/high product halves sit next to each other; then the accumulator shifts down a limb.
// The carry flag lives between consecutive `asm volatile` statements, which the compiler
// keeps in order and never interleaves with other carry-setting instructions.
//
// P supplies: N (limbs), M0 (= -p^-1 mod 2^32), and constexpr functions mod(i), one(i)
// (R mod p) and r2(i) (R^2 mod p) giving limb i.
#pragma once

#include <cstdint>

namespace snarkpipe::cuda {

template <class P>
struct __align__(16) mont_t {
  static constexpr int N = P::N;
  uint32_t v[N];

  __device__ __forceinline__ static mont_t zero() {
    mont_t r;
#pragma unroll
    for (int i = 0; i < N; ++i) r.v[i] = 0;
    return r;
  }
  __device__ __forceinline__ static mont_t one() {
    mont_t r;
#pragma unroll
    for (int i = 0; i < N; ++i) r.v[i] = P::one(i);
    return r;
  }

  __device__ __forceinline__ bool is_zero() const {
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) acc |= v[i];
    return acc == 0;
  }
  __device__ __forceinline__ friend bool operator==(const mont_t& a, const mont_t& b) {
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) acc |= a.v[i] ^ b.v[i];
    return acc == 0;
  }
  __device__ __forceinline__ friend bool operator!=(const mont_t& a, const mont_t& b) { return !(a == b); }

  // a + b mod p. 2p < 2^(32N) for both BLS12-381 fields, so the sum has no carry out.
  __device__ __forceinline__ friend mont_t operator+(const mont_t& a, const mont_t& b) {
    uint32_t s[N], d[N], borrow;
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(s[0]) : "r"(a.v[0]), "r"(b.v[0]));
#pragma unroll
    for (int i = 1; i < N; ++i) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(s[i]) : "r"(a.v[i]), "r"(b.v[i]));
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d[0]) : "r"(s[0]), "r"(P::mod(0)));
#pragma unroll
    for (int i = 1; i < N; ++i) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d[i]) : "r"(s[i]), "r"(P::mod(i)));
    asm volatile("subc.u32 %0, 0, 0;" : "=r"(borrow));  // all ones when s < p
    mont_t r;
#pragma unroll
    for (int i = 0; i < N; ++i) r.v[i] = d[i] ^ ((s[i] ^ d[i]) & borrow);
    return r;
  }

  // a - b mod p: subtract, then add p back under the borrow mask.
  __device__ __forceinline__ friend mont_t operator-(const mont_t& a, const mont_t& b) {
    uint32_t d[N], mask;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d[0]) : "r"(a.v[0]), "r"(b.v[0]));
#pragma unroll
    for (int i = 1; i < N; ++i) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d[i]) : "r"(a.v[i]), "r"(b.v[i]));
    asm volatile("subc.u32 %0, 0, 0;" : "=r"(mask));
    mont_t r;
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r.v[0]) : "r"(d[0]), "r"(P::mod(0) & mask));
#pragma unroll
    for (int i = 1; i < N - 1; ++i)
      asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r.v[i]) : "r"(d[i]), "r"(P::mod(i) & mask));
    asm volatile("addc.u32 %0, %1, %2;" : "=r"(r.v[N - 1]) : "r"(d[N - 1]), "r"(P::mod(N - 1) & mask));
    return r;
  }

  __device__ __forceinline__ mont_t operator-() const {
    uint32_t d[N];
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d[0]) : "r"(P::mod(0)), "r"(v[0]));
#pragma unroll
    for (int i = 1; i < N; ++i) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d[i]) : "r"(P::mod(i)), "r"(v[i]));
    const uint32_t keep = is_zero() ? 0u : ~0u;  // -0 = 0, not p
    mont_t r;
#pragma unroll
    for (int i = 0; i < N; ++i) r.v[i] = d[i] & keep;
    return r;
  }

  // Conditional negation without a branch on the data path: cond ? -a : a.
  __device__ __forceinline__ mont_t cneg(bool cond) const {
    const mont_t n = -*this;
    const uint32_t m = cond ? ~0u : 0u;
    mont_t r;
#pragma unroll
    for (int i = 0; i < N; ++i) r.v[i] = v[i] ^ ((v[i] ^ n.v[i]) & m);
    return r;
  }

  __device__ __forceinline__ mont_t dbl() const { return *this + *this; }

  __device__ __forceinline__ friend mont_t operator*(const mont_t& a, const mont_t& b) {
    mont_t r;
    mul_raw(r.v, a.v, b.v);
    return r;
  }
  __device__ __forceinline__ mont_t sqr() const { return *this * *this; }

  __device__ __forceinline__ mont_t& operator+=(const mont_t& b) { return *this = *this + b; }
  __device__ __forceinline__ mont_t& operator-=(const mont_t& b) { return *this = *this - b; }
  __device__ __forceinline__ mont_t& operator*=(const mont_t& b) { return *this = *this * b; }

  // x^(p-2) = x^-1 (Fermat; the inverse of zero is zero), by square-and-multiply.
  __device__ __noinline__ mont_t inverse() const {
    mont_t r = one();
    bool started = false;
    for (int i = N - 1; i >= 0; --i) {
      const uint32_t e = exponent_limb(i);
      for (int bit = 31; bit >= 0; --bit) {
        if (started) r = r.sqr();
        if ((e >> bit) & 1) {
          r = started ? r * *this : *this;
          started = true;
        }
      }
    }
    return r;
  }

  // Montgomery form <-> canonical integer.
  __device__ __forceinline__ mont_t from_montgomery() const {
    uint32_t o[N];
#pragma unroll
    for (int i = 0; i < N; ++i) o[i] = i == 0 ? 1u : 0u;
    mont_t r;
    mul_raw(r.v, v, o);
    return r;
  }
  __device__ __forceinline__ mont_t to_montgomery() const {
    uint32_t r2[N];
#pragma unroll
    for (int i = 0; i < N; ++i) r2[i] = P::r2(i);
    mont_t r;
    mul_raw(r.v, v, r2);
    return r;
  }

  // Reads/writes through 16-byte vector accesses (the struct is 16-byte aligned).
  __device__ __forceinline__ static mont_t load(const mont_t* p) {
    static_assert((N * 4) % 16 == 0);
    mont_t r;
    const uint4* s = reinterpret_cast<const uint4*>(p);
#pragma unroll
    for (int i = 0; i < N / 4; ++i) {
      const uint4 w = s[i];
      r.v[4 * i] = w.x, r.v[4 * i + 1] = w.y, r.v[4 * i + 2] = w.z, r.v[4 * i + 3] = w.w;
    }
    return r;
  }
  __device__ __forceinline__ void store(mont_t* p) const {
    uint4* d = reinterpret_cast<uint4*>(p);
#pragma unroll
    for (int i = 0; i < N / 4; ++i) d[i] = make_uint4(v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]);
  }

 private:
  // Limb i of p - 2.
  __device__ __forceinline__ static uint32_t exponent_limb(int i) {
    uint32_t borrow = 2;
    for (int j = 0; j < i; ++j) borrow = P::mod(j) < borrow ? 1u : 0u;
    return P::mod(i) - borrow;
  }

  // t[0..N+1] += x·y: two carry chains, the even limbs of x (low half at j, high half at
  // j + 1, positions 0..N-1) and the odd ones (positions 1..N). In each chain the low and
  // high halves of one product are adjacent, which ptxas can issue as one wide multiply-add.
  __device__ __forceinline__ static void mul_add_row(uint32_t* t, const uint32_t* x, uint32_t y) {
    asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(x[0]), "r"(y));
    asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(x[0]), "r"(y));
#pragma unroll
    for (int j = 2; j < N; j += 2) {
      asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(x[j]), "r"(y));
      asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(x[j]), "r"(y));
    }
    asm volatile("addc.cc.u32 %0, %0, 0;" : "+r"(t[N]));
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));
    asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(x[1]), "r"(y));
    asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[2]) : "r"(x[1]), "r"(y));
#pragma unroll
    for (int j = 3; j < N; j += 2) {
      asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(x[j]), "r"(y));
      asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(x[j]), "r"(y));
    }
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[N + 1]));
  }

  // out = a·b·R^-1 mod p for a, b < p. Per limb b_i: t += a·b_i; t += m·p with
  // m = t_0·(-p^-1) mod 2^32, which clears t_0; t >>= 32. Then t < 2p.
  __device__ __forceinline__ static void mul_raw(uint32_t* out, const uint32_t* a, const uint32_t* b) {
    uint32_t t[N + 2], p[N];
#pragma unroll
    for (int j = 0; j < N + 2; ++j) t[j] = 0;
#pragma unroll
    for (int j = 0; j < N; ++j) p[j] = P::mod(j);
#pragma unroll
    for (int i = 0; i < N; ++i) {
      mul_add_row(t, a, b[i]);
      mul_add_row(t, p, t[0] * P::M0);
#pragma unroll
      for (int j = 0; j < N + 1; ++j) t[j] = t[j + 1];
      t[N + 1] = 0;
    }
    // t < 2p < 2^(32N): subtract p unless that borrows.
    uint32_t d[N], borrow;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d[0]) : "r"(t[0]), "r"(P::mod(0)));
#pragma unroll
    for (int j = 1; j < N; ++j) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d[j]) : "r"(t[j]), "r"(P::mod(j)));
    asm volatile("subc.u32 %0, 0, 0;" : "=r"(borrow));
#pragma unroll
    for (int j = 0; j < N; ++j) out[j] = d[j] ^ ((t[j] ^ d[j]) & borrow);
  }
};

}  // namespace snarkpipe::cuda
