// Google Benchmark micro-benchmarks of the CPU arithmetic (fields, curves, pairing).
// `snarkpipe bench cpu --json` runs the essential subset and prints the JSON record that
// bench/results keeps; this program is for digging into one operation.
#include <benchmark/benchmark.h>

#include "ec/encoding.hpp"
#include "ff/random.hpp"
#include "pairing/pairing.hpp"

using namespace snarkpipe;
using ec::G1Affine;
using ec::G1Jacobian;
using ec::G2Affine;
using ec::G2Jacobian;
using ff::Fp;
using ff::Fp2;
using ff::Fr;

namespace {
ff::SeededRng& rng() {
  static ff::SeededRng r(ff::fresh_seed());
  return r;
}
}  // namespace

static void BM_FpMul(benchmark::State& st) {
  Fp x = Fp::random(rng());
  const Fp a = Fp::random(rng());
  for (auto _ : st) x = x * a;
  benchmark::DoNotOptimize(x);
}
BENCHMARK(BM_FpMul);

static void BM_FpSquare(benchmark::State& st) {
  Fp x = Fp::random(rng());
  for (auto _ : st) x = x.square();
  benchmark::DoNotOptimize(x);
}
BENCHMARK(BM_FpSquare);

static void BM_FpMulPortable(benchmark::State& st) {
  Fp x = Fp::random(rng());
  const Fp a = Fp::random(rng());
  for (auto _ : st) x = Fp::mul_portable(x, a);
  benchmark::DoNotOptimize(x);
}
BENCHMARK(BM_FpMulPortable);

static void BM_FrMul(benchmark::State& st) {
  Fr x = Fr::random(rng());
  const Fr a = Fr::random(rng());
  for (auto _ : st) x = x * a;
  benchmark::DoNotOptimize(x);
}
BENCHMARK(BM_FrMul);

static void BM_Fp2Mul(benchmark::State& st) {
  Fp2 x = Fp2::random(rng());
  const Fp2 a = Fp2::random(rng());
  for (auto _ : st) x = x * a;
  benchmark::DoNotOptimize(x);
}
BENCHMARK(BM_Fp2Mul);

template <class J>
static void BM_MixedAdd(benchmark::State& st) {
  J x = J::generator() * Fr::random(rng());
  const auto a = (J::generator() * Fr::random(rng())).to_affine();
  for (auto _ : st) x = x.add_affine(a);
  benchmark::DoNotOptimize(x);
}
BENCHMARK(BM_MixedAdd<G1Jacobian>)->Name("BM_G1MixedAdd");
BENCHMARK(BM_MixedAdd<G2Jacobian>)->Name("BM_G2MixedAdd");

template <class J>
static void BM_Add(benchmark::State& st) {
  J x = J::generator() * Fr::random(rng());
  const J a = J::generator() * Fr::random(rng());
  for (auto _ : st) x = x + a;
  benchmark::DoNotOptimize(x);
}
BENCHMARK(BM_Add<G1Jacobian>)->Name("BM_G1Add");
BENCHMARK(BM_Add<G2Jacobian>)->Name("BM_G2Add");

template <class J>
static void BM_Double(benchmark::State& st) {
  J x = J::generator() * Fr::random(rng());
  for (auto _ : st) x = x.dbl();
  benchmark::DoNotOptimize(x);
}
BENCHMARK(BM_Double<G1Jacobian>)->Name("BM_G1Double");
BENCHMARK(BM_Double<G2Jacobian>)->Name("BM_G2Double");

template <class J>
static void BM_ScalarMul(benchmark::State& st) {
  J x = J::generator() * Fr::random(rng());
  const Fr k = Fr::random(rng());
  for (auto _ : st) x = x * k;
  benchmark::DoNotOptimize(x);
}
BENCHMARK(BM_ScalarMul<G1Jacobian>)->Name("BM_G1ScalarMul")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ScalarMul<G2Jacobian>)->Name("BM_G2ScalarMul")->Unit(benchmark::kMicrosecond);

template <class J>
static void BM_SubgroupCheck(benchmark::State& st) {
  const auto a = (J::generator() * Fr::random(rng())).to_affine();
  for (auto _ : st) benchmark::DoNotOptimize(ec::is_in_subgroup(a));
}
BENCHMARK(BM_SubgroupCheck<G1Jacobian>)->Name("BM_G1SubgroupCheck")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SubgroupCheck<G2Jacobian>)->Name("BM_G2SubgroupCheck")->Unit(benchmark::kMicrosecond);

static void BM_G1Decompress(benchmark::State& st) {
  const auto b = ec::g1_to_compressed((G1Jacobian::generator() * Fr::random(rng())).to_affine());
  for (auto _ : st) benchmark::DoNotOptimize(ec::g1_from_bytes(b));
}
BENCHMARK(BM_G1Decompress)->Unit(benchmark::kMicrosecond);

static void BM_G2Decompress(benchmark::State& st) {
  const auto b = ec::g2_to_compressed((G2Jacobian::generator() * Fr::random(rng())).to_affine());
  for (auto _ : st) benchmark::DoNotOptimize(ec::g2_from_bytes(b));
}
BENCHMARK(BM_G2Decompress)->Unit(benchmark::kMicrosecond);

static void BM_MillerLoop(benchmark::State& st) {
  const G1Affine p = (G1Jacobian::generator() * Fr::random(rng())).to_affine();
  const G2Affine q = (G2Jacobian::generator() * Fr::random(rng())).to_affine();
  for (auto _ : st) benchmark::DoNotOptimize(pairing::miller_loop(p, q));
}
BENCHMARK(BM_MillerLoop)->Unit(benchmark::kMicrosecond);

static void BM_FinalExponentiation(benchmark::State& st) {
  const auto f = pairing::miller_loop(G1Affine::generator(), G2Affine::generator());
  for (auto _ : st) benchmark::DoNotOptimize(pairing::final_exponentiation(f));
}
BENCHMARK(BM_FinalExponentiation)->Unit(benchmark::kMicrosecond);

static void BM_Pairing(benchmark::State& st) {
  const G1Affine p = (G1Jacobian::generator() * Fr::random(rng())).to_affine();
  const G2Affine q = (G2Jacobian::generator() * Fr::random(rng())).to_affine();
  for (auto _ : st) benchmark::DoNotOptimize(pairing::pairing(p, q));
}
BENCHMARK(BM_Pairing)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
