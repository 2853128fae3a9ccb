// Synthesis speed of the SHA-256 workload circuits: recording the R1CS without values (setup,
// PCE) and computing the witness alone (per proof), plus native SHA-256 for scale. Counters:
// constraints per second of synthesis.
#include <benchmark/benchmark.h>

#include "circuit/recording_cs.hpp"
#include "circuit/witness_cs.hpp"
#include "gadgets/circuits.hpp"

using namespace snarkpipe;
using gadgets::MerkleSha256Circuit;
using gadgets::Sha256PreimageCircuit;

namespace {

template <class Circuit>
void record(benchmark::State& st, const Circuit& c) {
  std::uint64_t constraints = 0;
  for (auto _ : st) {
    circuit::RecordingConstraintSystem cs;
    c.synthesize(cs);
    constraints = cs.num_constraints();
    benchmark::DoNotOptimize(cs.finish());
  }
  st.counters["constraints"] = double(constraints);
  st.counters["constraints/s"] = benchmark::Counter(double(constraints), benchmark::Counter::kIsIterationInvariantRate);
}

template <class Circuit>
void witness(benchmark::State& st, const Circuit& c, std::uint64_t constraints) {
  for (auto _ : st) {
    circuit::WitnessConstraintSystem cs;
    c.synthesize(cs);
    benchmark::DoNotOptimize(cs.aux().data());
  }
  st.counters["constraints/s"] = benchmark::Counter(double(constraints), benchmark::Counter::kIsIterationInvariantRate);
}

std::uint64_t count(const circuit::Circuit& c) {
  circuit::RecordingConstraintSystem cs;
  c.synthesize(cs);
  return cs.num_constraints();
}

}  // namespace

static void BM_Sha256PreimageRecord(benchmark::State& st) {
  record(st, Sha256PreimageCircuit(std::size_t(st.range(0)), std::nullopt));
}
BENCHMARK(BM_Sha256PreimageRecord)->Arg(1)->Arg(16)->Unit(benchmark::kMillisecond);

static void BM_Sha256PreimageWitness(benchmark::State& st) {
  const auto blocks = std::size_t(st.range(0));
  const Sha256PreimageCircuit c(blocks, Sha256PreimageCircuit::random_preimage(blocks, 1));
  witness(st, c, count(c));
}
BENCHMARK(BM_Sha256PreimageWitness)->Arg(1)->Arg(16)->Unit(benchmark::kMillisecond);

static void BM_MerkleRecord(benchmark::State& st) {
  record(st, MerkleSha256Circuit(std::size_t(st.range(0)), std::nullopt));
}
BENCHMARK(BM_MerkleRecord)->Arg(1)->Arg(20)->Unit(benchmark::kMillisecond);

static void BM_MerkleWitness(benchmark::State& st) {
  const auto depth = std::size_t(st.range(0));
  const MerkleSha256Circuit c(depth, MerkleSha256Circuit::random_witness(depth, 1));
  witness(st, c, count(c));
}
BENCHMARK(BM_MerkleWitness)->Arg(1)->Arg(20)->Unit(benchmark::kMillisecond);

static void BM_NativeSha256(benchmark::State& st) {
  std::vector<std::uint8_t> msg(std::size_t(st.range(0)), 0x5a);
  for (auto _ : st) benchmark::DoNotOptimize(gadgets::native::sha256(msg));
  st.SetBytesProcessed(std::int64_t(st.iterations()) * st.range(0));
}
BENCHMARK(BM_NativeSha256)->Arg(64)->Arg(1 << 16);

BENCHMARK_MAIN();
