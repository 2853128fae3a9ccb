// fp_t (12 × 32-bit limbs) ↔ fp64::f64x8 (8 × 48-bit limbs in doubles) on the device, for the
// FP64 probes: the same Montgomery form, so the conversions only move bits.
#pragma once

#include "cuda/fields.cuh"
#include "fp64_mont.cuh"

__device__ inline fp64::f64x8 to_f64(const snarkpipe::cuda::fp_t& a) {
  uint64_t w[6];
  for (int i = 0; i < 6; ++i) w[i] = uint64_t(a.v[2 * i]) | uint64_t(a.v[2 * i + 1]) << 32;
  return fp64::from_u64x6(w);
}

// The limbs as they are (a value below 2p stays below 2p).
__device__ inline snarkpipe::cuda::fp_t from_f64(const fp64::f64x8& a) {
  uint64_t w[6];
  fp64::to_u64x6(a, w);
  snarkpipe::cuda::fp_t r;
  for (int i = 0; i < 6; ++i) r.v[2 * i] = uint32_t(w[i]), r.v[2 * i + 1] = uint32_t(w[i] >> 32);
  return r;
}

// fp64's constants for BLS12-381's p (fp_t's modulus).
inline fp64::Constants fp_constants() {
  uint32_t p32[12];
  for (int i = 0; i < 12; ++i) p32[i] = snarkpipe::cuda::FpParams32::mod(i);
  fp64::Constants k;
  fp64::init_constants(k, p32);
  return k;
}

// a mod p for a below 2p.
__device__ inline snarkpipe::cuda::fp_t reduce_once(const snarkpipe::cuda::fp_t& a) {
  snarkpipe::cuda::fp_t d;
  uint32_t borrow = 0;
  for (int i = 0; i < 12; ++i) {
    const uint64_t t = uint64_t(a.v[i]) - snarkpipe::cuda::FpParams32::mod(i) - borrow;
    d.v[i] = uint32_t(t);
    borrow = uint32_t(t >> 63);
  }
  return borrow ? a : d;
}
