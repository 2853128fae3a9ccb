// A prime field in Montgomery form on the device, generic over the modulus.
//
// Elements are x·R mod p with R = 2^(32·N), fully reduced (< p), as N little-endian 32-bit
// limbs: byte for byte the CPU's 64-bit-limb layout (src/ff/mont_field.hpp), so arrays of
// field elements and points cross the bus unchanged. Every operation returns a fully reduced
// value, so any correct formula gives the CPU's bits.
//
// Multiplication is CIOS with the PTX carry chains (mad.lo.cc / madc.hi.cc / addc), the
// accumulator split into an even and an odd part so that every product's halves fill an
// aligned register pair (one wide multiply-add each; see mul_raw).
// The carry flag lives between consecutive `asm volatile` statements, which the compiler
// keeps in order and never interleaves with other carry-setting instructions.
//
// P supplies: N (limbs), M0 (= -p^-1 mod 2^32), and constexpr functions mod(i), one(i)
// (R mod p) and r2(i) (R^2 mod p) giving limb i.
#pragma once

#include <cstdint>

#include "cuda/tuning.hpp"

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
    uint32_t s[N];
    add_raw(s, a.v, b.v);
    mont_t r;
    reduce_once(r.v, s);
    return r;
  }

  // a - b mod p: subtract, then add p back under the borrow mask.
  __device__ __forceinline__ friend mont_t operator-(const mont_t& a, const mont_t& b) { return sub_add_back<1>(a, b); }

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

  // The product called instead of inlined, for Fp only, where tuning::fp_mul_is_called
  // (SNARKPIPE_FP_MUL_CALLED, cuda/tuning.hpp). An XYZZ addition inlines ten 384-bit
  // products, ≈ 5 000 instructions: a loop around it misses the instruction cache (ncu: "no
  // instruction" 4.1 of 11.4 cycles between issues in the G1 accumulation). The call costs
  // instructions (argument moves, saved registers) but keeps the loop's code small: the G1 and
  // G2 MSMs call it (G1 −8.9 % at 2^27, G2 −15 % at 2^24, gpu-notes item 57). Calling the square
  // and mul_sub too (G1 +2-5 %) or pairs of independent products as one call (G1 +9.5 %, item
  // 59) measured slower. Every other translation unit inlines.
  static constexpr bool mul_is_called = N == 12 && tuning::fp_mul_is_called;
  __device__ __noinline__ static mont_t mul_called(const mont_t a, const mont_t b) {
    mont_t r;
    mul_raw(r.v, a.v, b.v);
    return r;
  }

  __device__ __forceinline__ friend mont_t operator*(const mont_t& a, const mont_t& b) {
    if constexpr (mul_is_called) return mul_called(a, b);
    mont_t r;
    mul_raw(r.v, a.v, b.v);
    return r;
  }
  // a·b − c·d with one reduction instead of two (2N² + N² + N products instead of 2·(2N² + N)):
  // T = a·b + c·(p − d) < 2p² < p·R for a, b, c, d < p.
  __device__ __forceinline__ static mont_t mul_sub(const mont_t& a, const mont_t& b, const mont_t& c, const mont_t& d) {
    const mont_t nd = -d;
    uint32_t lo[N], hi[N];
    wide_mul_add(lo, hi, a.v, b.v, c.v, nd.v);
    mont_t r;
    redc(r.v, lo, hi);
    return r;
  }

  __device__ __forceinline__ mont_t sqr() const {
    mont_t r;
    sqr_raw(r.v, v);
    return r;
  }

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
  __device__ __forceinline__ void store(mont_t * p) const {
    uint4* d = reinterpret_cast<uint4*>(p);
#pragma unroll
    for (int i = 0; i < N / 4; ++i) d[i] = make_uint4(v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]);
  }

  // Lazy forms for chains of butterflies (the NTT): values in [0, 2p) instead of [0, p),
  // which saves the multiplication's final subtraction; 2p < 2^(32N) for both fields.
  //   lazy_mul(w, x) = w·x·R^-1 mod p, in [0, 2p), for w < p and any x < 2^(32N): the CIOS
  //     rows keep t < w + p (the bound depends only on the limb-spread operand w), and the
  //     result is (w·x + M·p)/R < p·(x/R + 1) < 2p.
  //   lazy_add, lazy_sub: a ± b in [0, 2p) for a, b < 2p.
  //   reduce_lazy: [0, 2p) → [0, p), before a value leaves the chain.
  __device__ __forceinline__ static mont_t lazy_mul(const mont_t& w, const mont_t& x) {
    mont_t r;
    mul_raw<false>(r.v, w.v, x.v);
    return r;
  }
  __device__ __forceinline__ static mont_t lazy_add(const mont_t& a, const mont_t& b) {
    // s = a + b < 4p may carry out of N limbs; then s − 2p, kept unless it borrows past the carry.
    uint32_t s[N], d[N], c, mask;
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(s[0]) : "r"(a.v[0]), "r"(b.v[0]));
#pragma unroll
    for (int i = 1; i < N; ++i) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(s[i]) : "r"(a.v[i]), "r"(b.v[i]));
    asm volatile("addc.u32 %0, 0, 0;" : "=r"(c));
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d[0]) : "r"(s[0]), "r"(mod2(0)));
#pragma unroll
    for (int i = 1; i < N; ++i) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d[i]) : "r"(s[i]), "r"(mod2(i)));
    asm volatile("subc.u32 %0, %1, 0;" : "=r"(mask) : "r"(c));  // 0: take d; all ones: keep s
    mont_t r;
#pragma unroll
    for (int i = 0; i < N; ++i) r.v[i] = d[i] ^ ((s[i] ^ d[i]) & mask);
    return r;
  }
  __device__ __forceinline__ static mont_t lazy_sub(const mont_t& a, const mont_t& b) { return sub_add_back<2>(a, b); }
  __device__ __forceinline__ mont_t reduce_lazy() const {
    mont_t r;
    reduce_once(r.v, v);
    return r;
  }

 private:
  // Limb i of 2p.
  __host__ __device__ static constexpr uint32_t mod2(int i) {
    return (P::mod(i) << 1) | (i > 0 ? P::mod(i - 1) >> 31 : 0u);
  }
  // a − b, then K·p (K = 1 or 2) added back under the borrow mask: operator- for reduced
  // values, lazy_sub for values in [0, 2p).
  template <int K>
  __device__ __forceinline__ static mont_t sub_add_back(const mont_t& a, const mont_t& b) {
    auto m = [](int i) { return K == 1 ? P::mod(i) : mod2(i); };
    uint32_t d[N], mask;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d[0]) : "r"(a.v[0]), "r"(b.v[0]));
#pragma unroll
    for (int i = 1; i < N; ++i) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d[i]) : "r"(a.v[i]), "r"(b.v[i]));
    asm volatile("subc.u32 %0, 0, 0;" : "=r"(mask));
    mont_t r;
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r.v[0]) : "r"(d[0]), "r"(m(0) & mask));
#pragma unroll
    for (int i = 1; i < N - 1; ++i)
      asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r.v[i]) : "r"(d[i]), "r"(m(i) & mask));
    asm volatile("addc.u32 %0, %1, %2;" : "=r"(r.v[N - 1]) : "r"(d[N - 1]), "r"(m(N - 1) & mask));
    return r;
  }
  // Limb i of p - 2.
  __device__ __forceinline__ static uint32_t exponent_limb(int i) {
    uint32_t borrow = 2;
    for (int j = 0; j < i; ++j) borrow = P::mod(j) < borrow ? 1u : 0u;
    return P::mod(i) - borrow;
  }

  // s = a + b over N limbs; the caller knows the sum fits (no carry out).
  __device__ __forceinline__ static void add_raw(uint32_t * s, const uint32_t* a, const uint32_t* b) {
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(s[0]) : "r"(a[0]), "r"(b[0]));
#pragma unroll
    for (int i = 1; i < N; ++i) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(s[i]) : "r"(a[i]), "r"(b[i]));
  }
  // out = t − p unless that borrows, for t < 2p: the final step of every operation.
  __device__ __forceinline__ static void reduce_once(uint32_t * out, const uint32_t* t) {
    uint32_t d[N], borrow;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d[0]) : "r"(t[0]), "r"(P::mod(0)));
#pragma unroll
    for (int j = 1; j < N; ++j) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d[j]) : "r"(t[j]), "r"(P::mod(j)));
    asm volatile("subc.u32 %0, 0, 0;" : "=r"(borrow));  // all ones when t < p
#pragma unroll
    for (int j = 0; j < N; ++j) out[j] = d[j] ^ ((t[j] ^ d[j]) & borrow);
  }
  // The end of a reduction row: t' = t/2^32 = o + e[1..N] into e, and e[N] cleared.
  __device__ __forceinline__ static void shift_row(uint32_t * e, const uint32_t* o) {
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(e[0]) : "r"(o[0]), "r"(e[1]));
#pragma unroll
    for (int j = 1; j < N - 1; ++j) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(e[j]) : "r"(o[j]), "r"(e[j + 1]));
    asm volatile("addc.u32 %0, %1, %2;" : "=r"(e[N - 1]) : "r"(o[N - 1]), "r"(e[N]));
    e[N] = 0;
  }

  // The products of one row, x·y, split by the parity of x's limb index so that the low and
  // high halves of every 32×32-bit product land in an aligned register pair, which ptxas
  // issues as one IMAD.WIDE.U32(.X) (an unaligned pair costs two multiply-adds and moves).
  //   even: e[0..N] += Σ_{j even} x_j·y·2^(32j)      (one carry chain, out into e[N])
  //   odd:  o[0..N) += Σ_{j odd} x_j·y·2^(32(j-1))   (o is the odd part shifted down a limb)
  __device__ __forceinline__ static void mad_even(uint32_t * e, const uint32_t* x, uint32_t y) {
    asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(e[0]) : "r"(x[0]), "r"(y));
    asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(e[1]) : "r"(x[0]), "r"(y));
#pragma unroll
    for (int j = 2; j < N; j += 2) {
      asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(e[j]) : "r"(x[j]), "r"(y));
      asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(e[j + 1]) : "r"(x[j]), "r"(y));
    }
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(e[N]));
  }
  // o += odd products; the sum stays below 2^(32N) (see mul_raw), so no carry leaves o.
  __device__ __forceinline__ static void mad_odd(uint32_t * o, const uint32_t* x, uint32_t y) {
    asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(o[0]) : "r"(x[1]), "r"(y));
    asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(o[1]) : "r"(x[1]), "r"(y));
#pragma unroll
    for (int j = 3; j < N - 1; j += 2) {
      asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(o[j - 1]) : "r"(x[j]), "r"(y));
      asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(o[j]) : "r"(x[j]), "r"(y));
    }
    asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(o[N - 2]) : "r"(x[N - 1]), "r"(y));
    asm volatile("madc.hi.u32 %0, %1, %2, %0;" : "+r"(o[N - 1]) : "r"(x[N - 1]), "r"(y));
  }
  // e = even products, e[N] = 0 (the pairs do not overlap, so no additions).
  __device__ __forceinline__ static void mul_even(uint32_t * e, const uint32_t* x, uint32_t y) {
#pragma unroll
    for (int j = 0; j < N; j += 2) {
      asm("mul.lo.u32 %0, %1, %2;" : "=r"(e[j]) : "r"(x[j]), "r"(y));
      asm("mul.hi.u32 %0, %1, %2;" : "=r"(e[j + 1]) : "r"(x[j]), "r"(y));
    }
    e[N] = 0;
  }
  // o = odd products (the pairs do not overlap, so no additions).
  __device__ __forceinline__ static void mul_odd(uint32_t * o, const uint32_t* x, uint32_t y) {
#pragma unroll
    for (int j = 1; j < N; j += 2) {
      asm("mul.lo.u32 %0, %1, %2;" : "=r"(o[j - 1]) : "r"(x[j]), "r"(y));
      asm("mul.hi.u32 %0, %1, %2;" : "=r"(o[j]) : "r"(x[j]), "r"(y));
    }
  }

  // out = a²·R^-1 mod p for a < p, with N(N+1)/2 + N² products instead of 2N² (Fp: 222 of
  // 288): the square T = a² (each cross product once, doubled, plus the diagonal), then
  // u = (T_low + M·p)/R (the reduction rows of mul_raw without the a·b_i products) and
  // out = u + T_high mod p, since T·R^-1 ≡ T_high + (T_low + M·p)/R with u ≤ p, T_high < p.
  //
  // Cross products C = Σ_{i<j} a_i·a_j·2^(32(i+j)) = E + O·2^32, split by the parity of i+j
  // as in mul_raw (so each product's halves fill an aligned register pair). Row i's chain in
  // E (j = i+2, i+4, ...) ends with its carry in a limb that holds at most one earlier carry
  // (row i-1's chain reaches one limb higher or lower, never further), and likewise in O, so
  // no carry is lost.
  __device__ __forceinline__ static void sqr_raw(uint32_t * out, const uint32_t* a) {
    uint32_t E[2 * N], O[2 * N];
#pragma unroll
    for (int k = 0; k < 2 * N; ++k) E[k] = 0, O[k] = 0;
#pragma unroll
    for (int i = 0; i < N - 1; ++i) {
      // i + j odd: j = i+1, i+3, ...; the product's halves at O[i+j-1], O[i+j].
      asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(O[2 * i]) : "r"(a[i]), "r"(a[i + 1]));
      asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(O[2 * i + 1]) : "r"(a[i]), "r"(a[i + 1]));
#pragma unroll
      for (int j = i + 3; j < N; j += 2) {
        asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(O[i + j - 1]) : "r"(a[i]), "r"(a[j]));
        asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(O[i + j]) : "r"(a[i]), "r"(a[j]));
      }
      const int last_odd = i + 1 + 2 * ((N - 2 - i) / 2);
      asm volatile("addc.u32 %0, %0, 0;" : "+r"(O[i + last_odd + 1]));
      if (i + 2 < N) {
        // i + j even: j = i+2, i+4, ...; the halves at E[i+j], E[i+j+1].
        asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(E[2 * i + 2]) : "r"(a[i]), "r"(a[i + 2]));
        asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(E[2 * i + 3]) : "r"(a[i]), "r"(a[i + 2]));
#pragma unroll
        for (int j = i + 4; j < N; j += 2) {
          asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(E[i + j]) : "r"(a[i]), "r"(a[j]));
          asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(E[i + j + 1]) : "r"(a[i]), "r"(a[j]));
        }
        const int last_even = i + 2 + 2 * ((N - 3 - i) / 2);
        asm volatile("addc.u32 %0, %0, 0;" : "+r"(E[i + last_even + 2]));
      }
    }
    // T = 2·(E + O·2^32) + Σ a_i²·2^(64i) < p² < 2^(64N): E becomes T.
    asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(E[1]) : "r"(O[0]));
#pragma unroll
    for (int k = 2; k < 2 * N - 1; ++k) asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(E[k]) : "r"(O[k - 1]));
    asm volatile("addc.u32 %0, %0, %1;" : "+r"(E[2 * N - 1]) : "r"(O[2 * N - 2]));
#pragma unroll
    for (int k = 2 * N - 1; k > 0; --k) E[k] = __funnelshift_l(E[k - 1], E[k], 1);
    E[0] <<= 1;
    asm volatile("mad.lo.cc.u32 %0, %1, %1, %0;" : "+r"(E[0]) : "r"(a[0]));
    asm volatile("madc.hi.cc.u32 %0, %1, %1, %0;" : "+r"(E[1]) : "r"(a[0]));
#pragma unroll
    for (int i = 1; i < N - 1; ++i) {
      asm volatile("madc.lo.cc.u32 %0, %1, %1, %0;" : "+r"(E[2 * i]) : "r"(a[i]));
      asm volatile("madc.hi.cc.u32 %0, %1, %1, %0;" : "+r"(E[2 * i + 1]) : "r"(a[i]));
    }
    asm volatile("madc.lo.cc.u32 %0, %1, %1, %0;" : "+r"(E[2 * N - 2]) : "r"(a[N - 1]));
    asm volatile("madc.hi.u32 %0, %1, %1, %0;" : "+r"(E[2 * N - 1]) : "r"(a[N - 1]));

    // u = (T_low + M·p)/R, row by row, then u + T_high mod p.
    redc(out, E, E + N);
  }

  // T = a·b + c·d as 2N limbs, T_low in lo and T_high in hi, for a, b, c, d < p: the rows of
  // mul_raw without the reduction, one limb out per row. After row i the part above the limbs
  // already out is < a + c < 2p, so e fits N+1 limbs and o stays below 2^(32N) as in mul_raw.
  __device__ __forceinline__ static void wide_mul_add(uint32_t * lo, uint32_t * hi, const uint32_t* a,
                                                      const uint32_t* b, const uint32_t* c, const uint32_t* d) {
    uint32_t e[N + 1], o[N];
    mul_even(e, a, b[0]);
#pragma unroll
    for (int i = 0; i < N; ++i) {
      if (i > 0) mad_even(e, a, b[i]);
      mul_odd(o, a, b[i]);
      mad_even(e, c, d[i]);
      mad_odd(o, c, d[i]);
      lo[i] = e[0];
      shift_row(e, o);
    }
#pragma unroll
    for (int j = 0; j < N; ++j) hi[j] = e[j];
  }
  // out = T·R^-1 mod p for T = hi·R + lo < p·R: u = (lo + M·p)/R ≤ p row by row (t < R +
  // 2^32·p fits N+1 limbs; o < p), then u + hi < 2p, less p unless that borrows.
  __device__ __forceinline__ static void redc(uint32_t * out, const uint32_t* lo, const uint32_t* hi) {
    uint32_t e[N + 1], o[N], p[N];
#pragma unroll
    for (int j = 0; j < N; ++j) p[j] = P::mod(j), e[j] = lo[j];
    e[N] = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) {
      const uint32_t m = e[0] * P::M0;
      mul_odd(o, p, m);
      mad_even(e, p, m);
      shift_row(e, o);
    }
    uint32_t s[N];
    add_raw(s, e, hi);
    reduce_once(out, s);
  }
  // out = a·b·R^-1 mod p for a, b < p: CIOS (per limb b_i: t += a·b_i; t += m·p with
  // m = t_0·(-p^-1) mod 2^32, clearing t_0; t >>= 32) with t kept as e + o·2^32:
  //   e += a_even·b_i; o = a_odd·b_i; m = e_0·M0; e += m·p_even; o += m·p_odd;
  //   t' = t/2^32 = o + e[1..N]  (one add chain: the new e).
  // Bounds: t < 2p before a row, so t + a·b_i + m·p < 2p·2^32 ≤ 2^(32(N+1)) for both fields
  // (2p < 2^(32N)): e fits N+1 limbs, o·2^32 ≤ that sum gives o < 2^(32N), t' < 2p.
  template <bool REDUCE = true>
  __device__ __forceinline__ static void mul_raw(uint32_t * out, const uint32_t* a, const uint32_t* b) {
    uint32_t e[N + 1], o[N], p[N];
#pragma unroll
    for (int j = 0; j < N; ++j) p[j] = P::mod(j);
    mul_even(e, a, b[0]);
#pragma unroll
    for (int i = 0; i < N; ++i) {
      if (i > 0) mad_even(e, a, b[i]);
      mul_odd(o, a, b[i]);
      const uint32_t m = e[0] * P::M0;
      mad_even(e, p, m);
      mad_odd(o, p, m);
      shift_row(e, o);
    }
    if (REDUCE) reduce_once(out, e);  // t < 2p < 2^(32N)
    else
      for (int j = 0; j < N; ++j) out[j] = e[j];
  }
};

}  // namespace snarkpipe::cuda
