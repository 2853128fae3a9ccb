// Scalars and proofs in the layout of supraseal-c2's C ABI (supraseal_c2.h), to and from
// snarkpipe's types: Fr as four u64 limbs in Montgomery form (bellperson's blst scalars), a
// proof as bellperson's #[repr(C)] Proof<Bls12>, affine points whose coordinates are six u64
// limbs each, in Montgomery form (blst's). One place for what the library, its tests and
// `snarkpipe bench abi` all convert.
#pragma once

#include <cstring>

#include "ffi/supraseal_c2.h"
#include "groth16/proof.hpp"

namespace snarkpipe::ffi {

static_assert(sizeof(fr_t) == sizeof(ff::Fr), "fr_t and Fr are both four Montgomery limbs");
static_assert(sizeof(groth16_proof) == 384, "bellperson's Proof<Bls12> is 384 bytes");

inline ff::Fr fr_from_blst(const fr_t& x) {
  ff::Fr f;
  std::memcpy(static_cast<void*>(&f), &x, sizeof f);
  return f;
}

inline fr_t fr_to_blst(const ff::Fr& x) {
  fr_t f;
  std::memcpy(&f, &x, sizeof f);
  return f;
}

inline ff::Fp fp_from_blst(const fp_t& x) {
  ff::Fp::Repr r;
  std::memcpy(&r, &x, sizeof r);
  return ff::Fp::from_montgomery(r);
}

inline fp_t fp_to_blst(const ff::Fp& x) {
  const auto limbs = x.montgomery();  // reduced, as blst keeps them
  static_assert(sizeof(limbs) == sizeof(fp_t));
  fp_t out;
  std::memcpy(&out, &limbs, sizeof out);
  return out;
}

// Through the same point constructors the decoders use.
inline groth16::Proof proof_from_blst(const groth16_proof& p) {
  groth16::Proof out;
  out.a = ec::G1Affine(fp_from_blst(p.a.x), fp_from_blst(p.a.y));
  out.b = ec::G2Affine(ff::Fp2{fp_from_blst(p.b.x_c0), fp_from_blst(p.b.x_c1)},
                       ff::Fp2{fp_from_blst(p.b.y_c0), fp_from_blst(p.b.y_c1)});
  out.c = ec::G1Affine(fp_from_blst(p.c.x), fp_from_blst(p.c.y));
  return out;
}

inline groth16_proof proof_to_blst(const groth16::Proof& p) {
  groth16_proof out;
  out.a.x = fp_to_blst(p.a.x);
  out.a.y = fp_to_blst(p.a.y);
  out.b.x_c0 = fp_to_blst(p.b.x.c0);
  out.b.x_c1 = fp_to_blst(p.b.x.c1);
  out.b.y_c0 = fp_to_blst(p.b.y.c0);
  out.b.y_c1 = fp_to_blst(p.b.y.c1);
  out.c.x = fp_to_blst(p.c.x);
  out.c.y = fp_to_blst(p.c.y);
  return out;
}

}  // namespace snarkpipe::ffi
