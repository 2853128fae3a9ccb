// Points of G1 (over Fp) and G2 (over Fp2) on the device, for a = 0 curves:
//   affine_t: (x, y), the point at infinity stored as (0, 0), the CPU's and blst's layout;
//   xyzz_t:   extended Jacobian (X, Y, ZZ, ZZZ) ~ (X/ZZ, Y/ZZZ), ZZ = 0 the identity: the
//             bucket coordinates (mixed addition 8M + 2S, no inversion).
// The formulas (EFD dbl-2008-s-1, add-2008-s, madd-2008-s, with the exceptional cases) are
// ec/xyzz_formulas.hpp's, the one template that the CPU's ec::XYZZ instantiates too; the device
// fields plug in their square and fused a·b − c·d below (xyzz::field_ops). An all-zero xyzz_t
// is the identity, so cudaMemset(0) clears a bucket array.
//
// The three point operations are __noinline__: with the field arithmetic inlined into them
// they are 8-25 thousand instructions each, and inlining them into every caller made
// kernels of hundreds of thousands (ptxas took ~10 minutes on the MSM, and the code thrashed
// the instruction cache). The MSM's hot loops, one or two call sites each, use the
// *_inline forms instead: there the call's stack traffic (the accumulator passed and
// returned through local memory) cost up to a third of the G2 accumulation's time.
#pragma once

#include "cuda/fp2.cuh"
#include "ec/xyzz_formulas.hpp"

namespace snarkpipe::cuda {

// The device fields' square is sqr(), and their a·b − c·d is F::mul_sub: for Fp one Montgomery
// reduction for both products (cuda/mont.cuh), for Fp2 the two Karatsuba products.
template <class F>
struct device_field_ops {
  __device__ __forceinline__ static F sqr(const F& a) { return a.sqr(); }
  __device__ __forceinline__ static F mul_sub(const F& a, const F& b, const F& c, const F& d) {
    return F::mul_sub(a, b, c, d);
  }
};

}  // namespace snarkpipe::cuda

namespace snarkpipe::ec::xyzz {
template <class P>
struct field_ops<cuda::mont_t<P>> : cuda::device_field_ops<cuda::mont_t<P>> {};
template <>
struct field_ops<cuda::fp2_t> : cuda::device_field_ops<cuda::fp2_t> {};
}  // namespace snarkpipe::ec::xyzz

namespace snarkpipe::cuda {

template <class F>
struct __align__(16) affine_t {
  F x, y;

  __device__ __forceinline__ bool is_identity() const { return x.is_zero() && y.is_zero(); }
  __device__ __forceinline__ static affine_t load(const affine_t* p) { return {F::load(&p->x), F::load(&p->y)}; }
  __device__ __forceinline__ void store(affine_t * p) const {
    x.store(&p->x);
    y.store(&p->y);
  }
};

template <class F>
struct __align__(16) xyzz_t {
  F X, Y, ZZ, ZZZ;

  __device__ __forceinline__ static xyzz_t identity() { return {F::one(), F::one(), F::zero(), F::zero()}; }
  __device__ __forceinline__ bool is_identity() const { return ZZ.is_zero(); }
  __device__ __forceinline__ static xyzz_t from_affine(const affine_t<F>& p) {
    return p.is_identity() ? identity() : xyzz_t{p.x, p.y, F::one(), F::one()};
  }
  __device__ __forceinline__ xyzz_t operator-() const { return {X, -Y, ZZ, ZZZ}; }

  __device__ __noinline__ xyzz_t dbl() const { return ec::xyzz::dbl(*this); }

  __device__ __forceinline__ friend xyzz_t operator+(const xyzz_t& p, const xyzz_t& q) { return add(p, q); }
  __device__ __noinline__ static xyzz_t add(const xyzz_t& p, const xyzz_t& q) { return add_inline(p, q); }
  // The same, inlined into the caller: for the MSM's loops, which have one or two call sites
  // each (inlined there, the G2 accumulation ran 1.5-1.9× faster: its accumulator stopped
  // going through the stack as a call's argument and result).
  __device__ __forceinline__ static xyzz_t add_inline(const xyzz_t& p, const xyzz_t& q) { return ec::xyzz::add(p, q); }

  // this + q for an affine q (mixed addition).
  __device__ __noinline__ xyzz_t add_affine(const affine_t<F>& q) const { return add_affine_inline(q); }
  // The same, inlined into the caller (see add_inline).
  __device__ __forceinline__ xyzz_t add_affine_inline(const affine_t<F>& q) const {
    return ec::xyzz::add_affine(*this, q);
  }

  __device__ __forceinline__ xyzz_t& operator+=(const xyzz_t& q) { return *this = *this + q; }

  __device__ __forceinline__ static xyzz_t load(const xyzz_t* p) {
    return {F::load(&p->X), F::load(&p->Y), F::load(&p->ZZ), F::load(&p->ZZZ)};
  }
  __device__ __forceinline__ void store(xyzz_t * p) const {
    X.store(&p->X);
    Y.store(&p->Y);
    ZZ.store(&p->ZZ);
    ZZZ.store(&p->ZZZ);
  }
};

}  // namespace snarkpipe::cuda

namespace snarkpipe::ec {
struct G1Curve;
struct G2Curve;
}  // namespace snarkpipe::ec

namespace snarkpipe::cuda {

// The device field of a CPU curve type (src/ec/curves.hpp): Fp for G1, Fp2 for G2.
template <class C>
struct device_field;
template <>
struct device_field<ec::G1Curve> {
  using type = fp_t;
};
template <>
struct device_field<ec::G2Curve> {
  using type = fp2_t;
};
template <class C>
using device_field_t = typename device_field<C>::type;

using g1_affine_t = affine_t<fp_t>;
using g1_xyzz_t = xyzz_t<fp_t>;
using g2_affine_t = affine_t<fp2_t>;
using g2_xyzz_t = xyzz_t<fp2_t>;

static_assert(sizeof(g1_affine_t) == 96 && sizeof(g2_affine_t) == 192);
static_assert(sizeof(g1_xyzz_t) == 192 && sizeof(g2_xyzz_t) == 384);

}  // namespace snarkpipe::cuda
