// snarkpipe against blst on this machine, in one binary and one harness: REFERENCE.md §7's
// CPU anchors (Fp multiplication in a dependent chain, G1 Jacobian addition, the pairing).
// blst is built from the source that the npm package @chainsafe/blst ships (compare.sh);
// it is a measuring peer here, not a dependency of snarkpipe. Prints one JSON object.
#include <cstdio>
#include <cstring>

#include "cli/timing.hpp"
#include "ec/curves.hpp"
#include "ff/random.hpp"
#include "pairing/pairing.hpp"
extern "C" {
#include "blst.h"
}

using namespace snarkpipe;
using cli::keep;
using ff::Fp;

// Nanoseconds per iteration of body(n), as `snarkpipe bench cpu` times: calibrated to ~0.3 s,
// median of 9.
template <class Body>
double ns_per(Body body) {
  return cli::time_ns(body, 0.3, 9);
}

int main() {
  ff::SeededRng rng(ff::fresh_seed());
  // Fp: both libraries keep elements as 6 little-endian 64-bit Montgomery limbs with R = 2^384,
  // so the same bytes are the same element; the chains must end equal.
  const Fp a = Fp::random(rng), x0 = Fp::random(rng);
  blst_fp ba, bx0;
  std::memcpy(&ba, &a, sizeof ba);
  std::memcpy(&bx0, &x0, sizeof bx0);
  Fp x = x0;
  blst_fp bx = bx0;
  for (int i = 0; i < 1000; ++i) x = x * a, blst_fp_mul(&bx, &bx, &ba);
  // snarkpipe's Fp may hold its limbs in [p, 2p) (the redundant form): compare reduced limbs.
  const auto xr = x.montgomery();
  const bool fp_equal = std::memcmp(xr.data(), &bx, sizeof bx) == 0;

  const double ours_mul = ns_per([&](std::size_t n) {
    Fp x = x0;
    for (std::size_t i = 0; i < n; ++i) x = x * a;
    keep(x);
  });
  // The same chain with x stored and reloaded every step, as blst's pointer API does.
  const double ours_mul_mem = ns_per([&](std::size_t n) {
    Fp x = x0;
    for (std::size_t i = 0; i < n; ++i) {
      x = x * a;
      keep(x);
    }
  });
  const double blst_mul = ns_per([&](std::size_t n) {
    blst_fp x = bx0;
    for (std::size_t i = 0; i < n; ++i) blst_fp_mul(&x, &x, &ba);
    keep(x);
  });
  const double ours_sqr = ns_per([&](std::size_t n) {
    Fp x = x0;
    for (std::size_t i = 0; i < n; ++i) x = x.square();
    keep(x);
  });
  const double blst_sqr = ns_per([&](std::size_t n) {
    blst_fp x = bx0;
    for (std::size_t i = 0; i < n; ++i) blst_fp_sqr(&x, &x);
    keep(x);
  });

  // G1 Jacobian addition chains x += g (both general additions of distinct points).
  const ec::G1Jacobian g = ec::G1Jacobian::generator();
  const double ours_add = ns_per([&](std::size_t n) {
    ec::G1Jacobian x = g.dbl();
    for (std::size_t i = 0; i < n; ++i) x = x + g;
    keep(x);
  });
  blst_p1 bg;
  blst_p1_from_affine(&bg, blst_p1_affine_generator());
  const double blst_add = ns_per([&](std::size_t n) {
    blst_p1 x;
    blst_p1_double(&x, &bg);
    for (std::size_t i = 0; i < n; ++i) blst_p1_add(&x, &x, &bg);
    keep(x);
  });

  // The pairing of the generators: Miller loop and final exponentiation.
  const ec::G1Affine p = g.to_affine();
  const ec::G2Affine q = ec::G2Jacobian::generator().to_affine();
  const double ours_pairing = ns_per([&](std::size_t n) {
                                for (std::size_t i = 0; i < n; ++i) keep(pairing::pairing(p, q));
                              }) /
                              1e3;
  blst_fp12 f;
  const double blst_pairing = ns_per([&](std::size_t n) {
                                for (std::size_t i = 0; i < n; ++i) {
                                  blst_miller_loop(&f, blst_p2_affine_generator(), blst_p1_affine_generator());
                                  blst_final_exp(&f, &f);
                                  keep(f);
                                }
                              }) /
                              1e3;

  std::printf(
      "{\"fp_chains_equal\": %s, \"fp_mul_ns\": {\"snarkpipe\": %.2f, \"snarkpipe_through_memory\": %.2f, "
      "\"blst\": %.2f}, \"fp_sqr_ns\": {\"snarkpipe\": %.2f, \"blst\": %.2f}, \"g1_add_ns\": {\"snarkpipe\": %.1f, "
      "\"blst\": %.1f}, \"pairing_us\": {\"snarkpipe\": %.1f, \"blst\": %.1f}}\n",
      fp_equal ? "true" : "false", ours_mul, ours_mul_mem, blst_mul, ours_sqr, blst_sqr, ours_add, blst_add,
      ours_pairing, blst_pairing);
  return fp_equal ? 0 : 1;
}
