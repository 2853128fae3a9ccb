// snarkpipe bench synth: the CPU side of proving a real workload — witness generation (the
// fast native path) and constraint evaluation (SpMV: a = A·z, b = B·z, c = C·z) — for the
// porep-like circuit, on a chosen number of threads, as one JSON object.
#include <sys/resource.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <thread>

#include "circuit/spmv.hpp"
#include "circuit/witness_cs.hpp"
#include "cli/bench_record.hpp"
#include "cli/circuits.hpp"
#include "cli/command.hpp"
#include "cli/measure.hpp"
#include "gadgets/porep_like.hpp"

namespace snarkpipe::cli {

namespace {

// Counts constraints without keeping them: the size of a circuit too large to record here.
class CountingConstraintSystem final : public circuit::ConstraintSystem {
 public:
  circuit::Variable alloc(std::string_view, const circuit::ValueFn&) override { return circuit::Variable::aux(0); }
  circuit::Variable alloc_input(std::string_view, const circuit::ValueFn&) override {
    return circuit::Variable::input(std::uint32_t(++inputs_));
  }
  void enforce(std::string_view, const circuit::LinearCombination&, const circuit::LinearCombination&,
               const circuit::LinearCombination&) override {
    ++constraints_;
  }
  void push_namespace(std::string_view) override {}
  void pop_namespace() override {}
  bool needs_values() const override { return false; }
  // As recorded: the circuit's constraints plus one per input, ONE included.
  std::uint64_t num_constraints() const { return constraints_ + inputs_ + 1; }

 private:
  std::uint64_t inputs_ = 0;
  std::uint64_t constraints_ = 0;
};

struct SynthOptions {
  CircuitSpec spec;
  int threads = 0;  // 0: all hardware threads
  int runs = 3;
  bool generic = false;
  bool witness_only = false;
  bool json = false;
  std::string out;
  CacheOptions cache;
};

int run_synth(const SynthOptions& o) {
  const int threads = o.threads > 0 ? o.threads : int(std::max(1u, std::thread::hardware_concurrency()));
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, std::size_t(threads));
  const gadgets::PorepLikeParams params = porep_like_params(o.spec);

  nlohmann::json rec =
      bench_record("snarkpipe bench synth --circuit porep-like --scale " + o.spec.scale + " --threads " +
                   std::to_string(threads) + " --runs " + std::to_string(o.runs) + (o.generic ? " --generic" : "") +
                   (o.witness_only ? " --witness-only" : "") + (o.cache.disabled ? " --no-cache" : ""));
  rec["circuit"] = "porep-like (" + params.describe() + ")";
  rec["load_average_1min_start"] = load_average();

  // Not timed: the random instance (what sealing hands the prover) and the aux layout (once
  // per circuit type).
  auto t0 = Clock::now();
  const gadgets::PorepLikeWitness witness = gadgets::PorepLikeWitness::random(params, o.spec.seed);
  const double instance_ms = ms_since(t0);
  const gadgets::PorepLikeLayout layout = gadgets::porep_like_layout(params);
  std::vector<ff::Fr> inputs(layout.num_inputs), aux(layout.num_aux());
  std::vector<double> witness_ms, spmv_ms;
  for (int r = 0; r < std::max(1, o.runs); ++r) {
    t0 = Clock::now();
    gadgets::porep_like_fast_witness(params, witness, inputs, aux);
    witness_ms.push_back(ms_since(t0));
  }
  std::uint64_t constraints = 0;
  std::string circuit_summary;
  if (o.witness_only) {
    CountingConstraintSystem counter;
    gadgets::PorepLikeCircuit(params, std::nullopt).synthesize(counter);
    constraints = counter.num_constraints();
  } else {
    const RecordedCircuit recorded = record_cached(o.spec, gadgets::PorepLikeCircuit(params, std::nullopt), o.cache);
    const circuit::R1cs& r1cs = recorded.r1cs;
    // One of the two is timed, the other null: a cache hit skips recording.
    rec["record_ms"] = recorded.from_cache ? nlohmann::json(nullptr) : nlohmann::json(recorded.ms);
    rec["cache_load_ms"] = recorded.from_cache ? nlohmann::json(recorded.ms) : nlohmann::json(nullptr);
    rec["circuit_cache"] = recorded.cache_path.empty() ? nlohmann::json(nullptr) : nlohmann::json(recorded.cache_path);
    circuit_summary = recorded.summary();
    constraints = r1cs.num_constraints;
    std::vector<ff::Fr> a(r1cs.num_constraints), b(r1cs.num_constraints), c(r1cs.num_constraints);
    for (int r = 0; r < std::max(1, o.runs); ++r) {
      t0 = Clock::now();
      circuit::evaluate_into(r1cs, inputs, aux, a, b, c);
      spmv_ms.push_back(ms_since(t0));
    }
    for (std::size_t k = 0; k < a.size(); ++k) {
      if (!(a[k] * b[k] == c[k]))
        throw std::runtime_error("the fast witness does not satisfy constraint " + std::to_string(k));
    }
    rec["nnz"] = {{"a", r1cs.a.nnz()}, {"b", r1cs.b.nnz()}, {"c", r1cs.c.nnz()}};
  }

  std::size_t ones = 0, zeros = 0;
  for (const ff::Fr& x : aux) {
    zeros += x.is_zero();
    ones += x.is_one();
  }
  rec["constraints"] = constraints;
  rec["threads"] = threads;
  rec["witness_ms"] = median(witness_ms);
  rec["spmv_ms"] = o.witness_only ? nlohmann::json(nullptr) : nlohmann::json(median(spmv_ms));
  rec["peak_rss_bytes"] = peak_rss_bytes();
  rec["aux"] = aux.size();
  rec["aux_zero_or_one_fraction"] = double(ones + zeros) / double(std::max<std::size_t>(1, aux.size()));
  rec["witness_ms_all"] = witness_ms;
  rec["spmv_ms_all"] = spmv_ms;
  rec["instance_ms"] = instance_ms;
  if (o.generic) {
    // The generic path on the same witness, closure by closure, for comparison; it must
    // produce the same assignment.
    t0 = Clock::now();
    circuit::WitnessConstraintSystem ws;
    ws.reserve(layout.num_inputs, layout.num_aux());
    gadgets::PorepLikeCircuit(params, witness).synthesize(ws);
    rec["generic_witness_ms"] = ms_since(t0);
    if (ws.aux() != aux || ws.inputs() != inputs) throw std::runtime_error("the fast and generic witnesses differ");
  }
  rec["load_average_1min_end"] = load_average();

  if (o.json) {
    std::cout << rec.dump(2) << "\n";
  } else {
    std::printf("porep-like (%s): %llu constraints, %d threads\n", params.describe().c_str(),
                (unsigned long long)constraints, threads);
    std::printf("  witness %.1f ms, SpMV %s ms, peak RSS %.1f MiB\n", rec["witness_ms"].get<double>(),
                o.witness_only ? "-" : std::to_string(median(spmv_ms)).c_str(), double(peak_rss_bytes()) / (1 << 20));
    if (!circuit_summary.empty()) std::printf("  circuit %s\n", circuit_summary.c_str());
    if (o.generic) std::printf("  generic witness %.1f ms\n", rec["generic_witness_ms"].get<double>());
  }
  if (!o.out.empty()) write_record(rec, o.out);
  return 0;
}

}  // namespace

std::vector<Command> register_workload_commands(CLI::App& app) {
  auto o = std::make_shared<SynthOptions>();
  o->spec.name = "porep-like";
  o->spec.scale = "ci";
  auto* c = app.get_subcommand("bench")->add_subcommand(
      "synth", "Time witness generation and constraint evaluation (SpMV) of a workload circuit");
  c->footer(
      "Times --runs fast witness generations, records the circuit or loads it from the circuit cache (record_ms or\n"
      "cache_load_ms), times --runs SpMV passes (medians) and checks the witness satisfies every constraint.\n"
      "peak_rss_bytes covers the whole process (a cached circuit's mapped pages included).\n"
      "Example: snarkpipe bench synth --circuit porep-like --scale ci --threads 1 --json");
  c->add_option("--circuit", o->spec.name, "The workload: porep-like")
      ->check(CLI::IsMember({"porep-like"}))
      ->capture_default_str();
  c->add_option("--scale", o->spec.scale, "Preset: tiny (~480K constraints), ci (~2.8M) or full (~130M)")
      ->check(CLI::IsMember({"tiny", "ci", "full"}))
      ->capture_default_str();
  c->add_option("--challenges", o->spec.challenges, "Challenges (overrides the preset)");
  c->add_option("--layers", o->spec.layers, "Layers (overrides the preset)");
  c->add_option("--log2-nodes", o->spec.log2_nodes, "log2 of the node count, a multiple of 3 (overrides the preset)");
  c->add_option("--parents", o->spec.parents, "Parents per label (overrides the preset)");
  c->add_option("--seed", o->spec.seed, "Seed of the random instance")->capture_default_str();
  c->add_option("--threads", o->threads, "Worker threads (0: all hardware threads)")->capture_default_str();
  c->add_option("--runs", o->runs, "Timed runs of each step (the median is reported)")->capture_default_str();
  c->add_flag("--generic", o->generic, "Also time the generic (constraint-by-constraint) witness and compare");
  c->add_flag("--witness-only", o->witness_only,
              "Skip recording and SpMV (for sizes whose recorded circuit does not fit in memory); constraints are "
              "counted, spmv_ms is null");
  add_cache_options(c, o->cache);
  c->add_flag("--json", o->json, "Print one JSON object");
  c->add_option("-o,--out", o->out, "Also write the JSON record to this file");
  return {make_command(c, o, [](SynthOptions& o, const CLI::App&) { return run_synth(o); })};
}

}  // namespace snarkpipe::cli
