// Fp2 = Fp[u]/(u^2 + 1) on the device: c0 + c1·u, c0 first in memory (the CPU's layout).
#pragma once

#include "cuda/fields.cuh"

namespace snarkpipe::cuda {

struct __align__(16) fp2_t {
  fp_t c0, c1;

  __device__ __forceinline__ static fp2_t zero() { return {fp_t::zero(), fp_t::zero()}; }
  __device__ __forceinline__ static fp2_t one() { return {fp_t::one(), fp_t::zero()}; }
  __device__ __forceinline__ bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  __device__ __forceinline__ friend bool operator==(const fp2_t& a, const fp2_t& b) {
    return a.c0 == b.c0 && a.c1 == b.c1;
  }

  __device__ __forceinline__ friend fp2_t operator+(const fp2_t& a, const fp2_t& b) {
    return {a.c0 + b.c0, a.c1 + b.c1};
  }
  __device__ __forceinline__ friend fp2_t operator-(const fp2_t& a, const fp2_t& b) {
    return {a.c0 - b.c0, a.c1 - b.c1};
  }
  __device__ __forceinline__ fp2_t operator-() const { return {-c0, -c1}; }
  __device__ __forceinline__ fp2_t cneg(bool cond) const { return {c0.cneg(cond), c1.cneg(cond)}; }
  __device__ __forceinline__ fp2_t dbl() const { return {c0.dbl(), c1.dbl()}; }

  // Karatsuba: three base-field multiplications. (A double-width Karatsuba with two
  // reductions instead of three, 744 products instead of 900, made the G2 MSM 1.6 % slower:
  // the 24-limb intermediates cost the accumulation registers; gpu-notes item 43.)
  __device__ __forceinline__ friend fp2_t operator*(const fp2_t& a, const fp2_t& b) {
    const fp_t v0 = a.c0 * b.c0;
    const fp_t v1 = a.c1 * b.c1;
    return {v0 - v1, (a.c0 + a.c1) * (b.c0 + b.c1) - v0 - v1};
  }
  // a·b − c·d (Fp's has one reduction for both products; here the plain products).
  __device__ __forceinline__ static fp2_t mul_sub(const fp2_t& a, const fp2_t& b, const fp2_t& c, const fp2_t& d) {
    return a * b - c * d;
  }
  // (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u.
  __device__ __forceinline__ fp2_t sqr() const { return {(c0 + c1) * (c0 - c1), (c0 * c1).dbl()}; }

  // 1/(c0 + c1 u) = (c0 - c1 u)/(c0^2 + c1^2); the inverse of zero is zero.
  __device__ __forceinline__ fp2_t inverse() const {
    const fp_t t = (c0.sqr() + c1.sqr()).inverse();
    return {c0 * t, -(c1 * t)};
  }

  __device__ __forceinline__ fp2_t& operator+=(const fp2_t& b) { return *this = *this + b; }
  __device__ __forceinline__ fp2_t& operator-=(const fp2_t& b) { return *this = *this - b; }
  __device__ __forceinline__ fp2_t& operator*=(const fp2_t& b) { return *this = *this * b; }

  __device__ __forceinline__ static fp2_t load(const fp2_t* p) { return {fp_t::load(&p->c0), fp_t::load(&p->c1)}; }
  __device__ __forceinline__ void store(fp2_t * p) const {
    c0.store(&p->c0);
    c1.store(&p->c1);
  }
};

static_assert(sizeof(fp2_t) == 96);

}  // namespace snarkpipe::cuda
