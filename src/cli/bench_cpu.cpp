#include "cli/bench_cpu.hpp"

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "cli/timing.hpp"
#include "ec/encoding.hpp"
#include "ff/random.hpp"
#include "gadgets/poseidon.hpp"
#include "pairing/pairing.hpp"

namespace snarkpipe::cli {

namespace {

using ec::G1Affine;
using ec::G1Jacobian;
using ec::G2Affine;
using ec::G2Jacobian;
using ff::Fp;
using ff::Fp2;
using ff::Fr;

}  // namespace

nlohmann::json run_cpu_bench(bool quick) {
  const double target = quick ? 0.02 : 0.2;
  const int runs = quick ? 3 : 7;
  ff::SeededRng rng(ff::fresh_seed());
  nlohmann::json out;

  {
    const Fp a = Fp::random(rng);
    out["fp_mul_ns"] = time_ns(
        [&](std::size_t n) {
          Fp x = Fp::random(rng);
          for (std::size_t i = 0; i < n; ++i) x = x * a;  // dependent chain: latency
          keep(x);
        },
        target, runs);
    out["fp_sqr_ns"] = time_ns(
        [&](std::size_t n) {
          Fp x = Fp::random(rng);
          for (std::size_t i = 0; i < n; ++i) x = x.square();
          keep(x);
        },
        target, runs);
    out["fp_add_ns"] = time_ns(
        [&](std::size_t n) {
          Fp x = Fp::random(rng);
          for (std::size_t i = 0; i < n; ++i) x = x + a;
          keep(x);
        },
        target, runs);
    out["fp_inverse_us"] = time_ns(
                               [&](std::size_t n) {
                                 Fp x = Fp::random(rng);
                                 for (std::size_t i = 0; i < n; ++i) x = x.inverse() + a;
                                 keep(x);
                               },
                               target, runs) /
                           1e3;
    const Fr b = Fr::random(rng);
    out["fr_mul_ns"] = time_ns(
        [&](std::size_t n) {
          Fr x = Fr::random(rng);
          for (std::size_t i = 0; i < n; ++i) x = x * b;
          keep(x);
        },
        target, runs);
    const Fp2 c = Fp2::random(rng);
    out["fp2_mul_ns"] = time_ns(
        [&](std::size_t n) {
          Fp2 x = Fp2::random(rng);
          for (std::size_t i = 0; i < n; ++i) x = x * c;
          keep(x);
        },
        target, runs);
    out["fp2_sqr_ns"] = time_ns(
        [&](std::size_t n) {
          Fp2 x = Fp2::random(rng);
          for (std::size_t i = 0; i < n; ++i) x = x.square();
          keep(x);
        },
        target, runs);
  }

  {
    const G1Jacobian p = G1Jacobian::generator() * Fr::random(rng);
    const G1Affine pa = (G1Jacobian::generator() * Fr::random(rng)).to_affine();
    out["g1_add_ns"] = time_ns(
        [&](std::size_t n) {
          G1Jacobian x = G1Jacobian::generator() * Fr::random(rng);
          for (std::size_t i = 0; i < n; ++i) x = x + p;
          keep(x);
        },
        target, runs);
    out["g1_mixed_add_ns"] = time_ns(
        [&](std::size_t n) {
          G1Jacobian x = G1Jacobian::generator() * Fr::random(rng);
          for (std::size_t i = 0; i < n; ++i) x = x.add_affine(pa);
          keep(x);
        },
        target, runs);
    out["g1_double_ns"] = time_ns(
        [&](std::size_t n) {
          G1Jacobian x = p;
          for (std::size_t i = 0; i < n; ++i) x = x.dbl();
          keep(x);
        },
        target, runs);
    out["g1_scalar_mul_us"] = time_ns(
                                  [&](std::size_t n) {
                                    G1Jacobian x = p;
                                    for (std::size_t i = 0; i < n; ++i) x = x * Fr::random(rng);
                                    keep(x);
                                  },
                                  target, runs) /
                              1e3;
    out["g1_subgroup_check_us"] = time_ns(
                                      [&](std::size_t n) {
                                        bool all = true;
                                        for (std::size_t i = 0; i < n; ++i) all &= ec::is_in_subgroup(pa);
                                        keep(all);
                                      },
                                      target, runs) /
                                  1e3;
    const auto bytes = ec::g1_to_compressed(pa);
    out["g1_decompress_us"] = time_ns(
                                  [&](std::size_t n) {
                                    for (std::size_t i = 0; i < n; ++i) keep(ec::g1_from_bytes(bytes));
                                  },
                                  target, runs) /
                              1e3;
  }

  {
    const G2Jacobian q = G2Jacobian::generator() * Fr::random(rng);
    const G2Affine qa = (G2Jacobian::generator() * Fr::random(rng)).to_affine();
    out["g2_add_ns"] = time_ns(
        [&](std::size_t n) {
          G2Jacobian x = G2Jacobian::generator() * Fr::random(rng);
          for (std::size_t i = 0; i < n; ++i) x = x + q;
          keep(x);
        },
        target, runs);
    out["g2_mixed_add_ns"] = time_ns(
        [&](std::size_t n) {
          G2Jacobian x = G2Jacobian::generator() * Fr::random(rng);
          for (std::size_t i = 0; i < n; ++i) x = x.add_affine(qa);
          keep(x);
        },
        target, runs);
    out["g2_double_ns"] = time_ns(
        [&](std::size_t n) {
          G2Jacobian x = q;
          for (std::size_t i = 0; i < n; ++i) x = x.dbl();
          keep(x);
        },
        target, runs);
    out["g2_scalar_mul_us"] = time_ns(
                                  [&](std::size_t n) {
                                    G2Jacobian x = q;
                                    for (std::size_t i = 0; i < n; ++i) x = x * Fr::random(rng);
                                    keep(x);
                                  },
                                  target, runs) /
                              1e3;
    out["g2_subgroup_check_us"] = time_ns(
                                      [&](std::size_t n) {
                                        bool all = true;
                                        for (std::size_t i = 0; i < n; ++i) all &= ec::is_in_subgroup(qa);
                                        keep(all);
                                      },
                                      target, runs) /
                                  1e3;
    const auto bytes = ec::g2_to_compressed(qa);
    out["g2_decompress_us"] = time_ns(
                                  [&](std::size_t n) {
                                    for (std::size_t i = 0; i < n; ++i) keep(ec::g2_from_bytes(bytes));
                                  },
                                  target, runs) /
                              1e3;
  }

  {
    const G1Affine p = (G1Jacobian::generator() * Fr::random(rng)).to_affine();
    const G2Affine q = (G2Jacobian::generator() * Fr::random(rng)).to_affine();
    const auto prep = pairing::G2Prepared::from(q);
    const std::pair<G1Affine, const pairing::G2Prepared*> term{p, &prep};
    const ff::Fp12 f = pairing::miller_loop(std::span(&term, 1));
    out["miller_loop_us"] = time_ns(
                                [&](std::size_t n) {
                                  for (std::size_t i = 0; i < n; ++i) keep(pairing::miller_loop(p, q));
                                },
                                target, runs) /
                            1e3;
    out["final_exponentiation_us"] = time_ns(
                                         [&](std::size_t n) {
                                           for (std::size_t i = 0; i < n; ++i) keep(pairing::final_exponentiation(f));
                                         },
                                         target, runs) /
                                     1e3;
    out["pairing_us"] = time_ns(
                            [&](std::size_t n) {
                              for (std::size_t i = 0; i < n; ++i) keep(pairing::pairing(p, q));
                            },
                            target, runs) /
                        1e3;
  }
  {
    // Filecoin's Poseidon (neptune's parameters), one hash at a time on one core: neptune's
    // optimised schedule (the fast path) and the textbook permutation (the reference). Each
    // digest feeds the next hash's first input, so the hashes form a dependent chain.
    for (std::size_t arity : {std::size_t(8), std::size_t(11)}) {
      const gadgets::PoseidonParams& params = gadgets::poseidon_params(arity);
      std::vector<Fr> in(arity);
      for (Fr& x : in) x = Fr::random(rng);
      const std::string key = "poseidon_arity" + std::to_string(arity);
      out[key + "_hash_us"] = time_ns(
                                  [&](std::size_t n) {
                                    for (std::size_t i = 0; i < n; ++i)
                                      in[0] = gadgets::native::poseidon_hash(params, in);
                                    keep(in[0]);
                                  },
                                  target, runs) /
                              1e3;
      out[key + "_reference_hash_us"] = time_ns(
                                            [&](std::size_t n) {
                                              for (std::size_t i = 0; i < n; ++i)
                                                in[0] = gadgets::native::poseidon_hash_reference(params, in);
                                              keep(in[0]);
                                            },
                                            target, runs) /
                                        1e3;
    }
  }
  return out;
}

}  // namespace snarkpipe::cli
