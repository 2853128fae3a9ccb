// snarkpipe against blst on this machine, in one binary and one harness: REFERENCE.md §7's
// CPU anchors (Fp multiplication in a dependent chain, G1 Jacobian addition, the pairing).
// blst is built from the source that the npm package @chainsafe/blst ships (compare.sh);
// it is a measuring peer here, not a dependency of snarkpipe. Writes one record through the
// benchmarks' writer (cli/bench_record.hpp): to --out FILE, or to stdout.
//
//   compare --blst "@chainsafe/blst@0.2.11 (blst 0.3.10)" [--out FILE]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "cli/bench_record.hpp"

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

int main(int argc, char** argv) {
  std::string blst_name = "blst", out;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--blst") == 0) blst_name = argv[i + 1];
    else if (std::strcmp(argv[i], "--out") == 0) out = argv[i + 1];
    else {
      std::fprintf(stderr, "usage: compare [--blst NAME] [--out FILE]\n");
      return 2;
    }
  }
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

  nlohmann::json record = cli::bench_record("bash bench/blst_anchor/compare.sh");
  record["blst"] = blst_name + ", built by its build.sh";
  double load[1] = {0};
  if (::getloadavg(load, 1) == 1) record["load_1min"] = load[0];  // other work on the machine skews the times
  record["method"] =
      "one binary; dependent chains (x = x*a), G1 Jacobian additions x += g, pairings of the generators; median of 9 "
      "timings after calibrating to ~0.3 s each (cli/timing.hpp, as bench cpu)";
  record["fp_chains_equal"] = fp_equal;
  record["fp_mul_ns"] = {{"snarkpipe", ours_mul}, {"snarkpipe_through_memory", ours_mul_mem}, {"blst", blst_mul}};
  record["fp_sqr_ns"] = {{"snarkpipe", ours_sqr}, {"blst", blst_sqr}};
  record["g1_add_ns"] = {{"snarkpipe", ours_add}, {"blst", blst_add}};
  record["pairing_us"] = {{"snarkpipe", ours_pairing}, {"blst", blst_pairing}};
  if (out.empty()) std::cout << record.dump(1) << "\n";
  else cli::write_record(record, out);
  return fp_equal ? 0 : 1;
}
