// snarkpipe bench pipeline: a stream of multi-partition jobs through the engine (src/engine),
// J in flight at a time, and what it achieved: s/proof in steady state, device busy %, idle
// gaps, job latency percentiles, peak RSS and device memory, every proof verified; a
// waterfall of the run; a sweep over J and the synthesis workers.
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include <tbb/parallel_for.h>

#include "circuit/synthetic_shape.hpp"
#include "cli/bench_record.hpp"
#include "cli/bench_pipeline.hpp"
#include "cli/circuits.hpp"
#include "cli/command.hpp"
#include "cli/measure.hpp"
#include "cli/memory_sampler.hpp"
#include "circuit/r1cs_file.hpp"
#include "groth16/params_file.hpp"
#include "engine/config.hpp"
#include "engine/engine.hpp"
#include "engine/pipeline_metrics.hpp"
#include "engine/waterfall.hpp"
#include "engine/witness.hpp"
#include "cli/backend_choice.hpp"
#include "groth16/packed_witness.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"

namespace snarkpipe::cli {

namespace {

std::string timeline_path_for(const std::string& path, std::size_t j, std::size_t s, bool sweep) {
  if (!sweep) return path;
  const std::filesystem::path p(path);
  return (p.parent_path() /
          (p.stem().string() + "-c" + std::to_string(j) + "-s" + std::to_string(s) + p.extension().string()))
      .string();
}

}  // namespace

void Workload::measure(const groth16::Witness& w) {
  witness_bytes = (w.inputs.size() + w.aux.size()) * sizeof(ff::Fr);
  groth16::PackedWitness p;
  groth16::pack_witness(w.inputs, w.aux, p);
  packed_witness_bytes = p.capacity_bytes();
}

RunResult run_pipeline(const PipelineOptions& o, engine::EngineConfig config, std::size_t concurrency,
                       const Workload& work, const std::string& timeline_path) {
  auto provider = std::shared_ptr<engine::BackendProvider>(engine::make_backend_provider(config.backend));
  const std::string backend_kind = provider->kind();
  engine::Engine eng(config, provider);
  const auto& keys = work.keys;
  eng.circuits().add(keys->type, [keys] { return keys; });
  const engine::WitnessSource& source = work.source;

  std::deque<engine::JobId> running;
  std::size_t submitted = 0, verified = 0;
  auto submit = [&] {
    running.push_back(eng.submit({keys->type, source, o.partitions, engine::Priority::NORMAL, "", work.packed_source}));
    ++submitted;
  };
  while (submitted < o.proofs && running.size() < concurrency) submit();
  while (!running.empty()) {
    const engine::JobResult r = eng.wait(running.front());
    running.pop_front();
    if (!r.ok())
      throw std::runtime_error("job " + std::to_string(r.id) + " " + std::string(engine::state_name(r.state)) + ": " +
                               r.error);
    // The engine verified each partition already; this checks what it hands out, independently.
    bool all = r.proofs.size() == o.partitions;
    for (std::size_t k = 0; k < r.proofs.size(); ++k)
      all = all && groth16::verify(keys->pvk, r.proofs[k], work.publics[k % work.publics.size()]);
    if (!all) throw std::runtime_error("job " + std::to_string(r.id) + ": a returned proof does not verify");
    ++verified;
    eng.forget(r.id);
    std::fprintf(stderr, "\r  J=%zu S=%zu: %zu/%zu proofs", concurrency, config.synthesis_workers, verified, o.proofs);
    if (submitted < o.proofs) submit();
  }
  std::fprintf(stderr, "\n");

  const engine::TimelineSnapshot tl = eng.timeline();
  const engine::EngineStats stats = eng.stats();
  const engine::Throughput tp = engine::throughput(tl);
  double busy = 0;
  engine::IdleGaps gaps;
  std::uint64_t vram = 0;
  std::set<std::string> names;
  for (std::size_t d = 0; d < stats.devices.size(); ++d) {
    const engine::DeviceUse u = engine::device_use(tl, int(d));
    busy += u.busy_pct / double(stats.devices.size());
    gaps.count += u.gaps.count;
    gaps.total += u.gaps.total;
    gaps.largest = std::max(gaps.largest, u.gaps.largest);
    if (stats.devices[d].memory_budget != engine::MemoryBudget::UNLIMITED) vram += stats.devices[d].memory_peak;
    names.insert(stats.devices[d].name);
  }
  std::string device;
  for (const auto& n : names) device += (device.empty() ? "" : ", ") + n;
  if (backend_kind == "cpu") device += " (" + cpu_model() + ")";
  if (!timeline_path.empty())
    engine::write_waterfall(tl,
                            "snarkpipe bench pipeline: " + work.describe + ", " + std::to_string(o.partitions) +
                                " partitions, " + std::to_string(o.proofs) + " proofs, J=" +
                                std::to_string(concurrency) + ", S=" + std::to_string(config.synthesis_workers),
                            timeline_path);
  RunResult res;
  res.concurrency = concurrency;
  res.synthesis_workers = config.synthesis_workers;
  res.metrics = {
      {"device", device},
      {"gpus", backend_kind == "cpu" ? 0 : stats.devices.size()},
      {"s_per_proof", tp.s_per_proof},
      {"gpu_busy_pct", busy},
      {"idle_gaps", {{"count", gaps.count}, {"total_s", gaps.total}, {"largest_s", gaps.largest}}},
      {"latency_p50_s", engine::percentile(tp.latencies, 50)},
      {"latency_p99_s", engine::percentile(tp.latencies, 99)},
      {"peak_rss_bytes", peak_rss_bytes()},
      {"peak_vram_bytes", vram},
      {"proofs_verified", verified},
      // Host bytes of one partition's witness while it waits for a device.
      {"witness_bytes_per_partition", provider->packed_witnesses() ? work.packed_witness_bytes : work.witness_bytes},
      {"witness_form", provider->packed_witnesses() ? "packed (0/1 values as bits)" : "full"}};
  return res;
}

namespace {

// Partition k's witness as a copy of premade[k % size] (in parallel: 4 GiB at full shape).
engine::WitnessSource copying_source(std::shared_ptr<const std::vector<groth16::Witness>> premade) {
  return [premade](std::size_t k, groth16::Witness& out) {
    const groth16::Witness& src = (*premade)[k % premade->size()];
    out.inputs = src.inputs;
    out.aux.resize(src.aux.size());
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, src.aux.size(), 1 << 20), [&](const auto& r) {
      std::copy(src.aux.begin() + r.begin(), src.aux.begin() + r.end(), out.aux.begin() + r.begin());
    });
  };
}

// Partition k's packed witness as a copy of premade[k % size], packed once up front: with a
// backend that takes packed witnesses and no witness check, no full vector is made.
engine::PackedWitnessSource copying_packed_source(const std::vector<groth16::Witness>& premade) {
  auto packed = std::make_shared<std::vector<groth16::PackedWitness>>(premade.size());
  for (std::size_t i = 0; i < premade.size(); ++i)
    groth16::pack_witness(premade[i].inputs, premade[i].aux, (*packed)[i]);
  return [packed](std::size_t k, groth16::PackedWitness& out) {
    const groth16::PackedWitness& src = (*packed)[k % packed->size()];
    out.inputs = src.inputs;
    out.num_aux = src.num_aux;
    out.general.assign(src.general.begin(), src.general.end());
    out.ones.assign(src.ones.begin(), src.ones.end());
    out.rank.assign(src.rank.begin(), src.rank.end());
    out.values.assign(src.values.begin(), src.values.end());
  };
}

void print_run(const RunResult& r) {
  const auto& m = r.metrics;
  std::printf("device            %s\n", m["device"].get<std::string>().c_str());
  std::printf("s/proof           %.4f   (steady state: from the first proof's end to the last's, per proof)\n",
              m["s_per_proof"].get<double>());
  std::printf("device busy       %.1f %%\n", m["gpu_busy_pct"].get<double>());
  std::printf("idle gaps         %zu, %.4f s in all, the largest %.4f s   (gaps >= 1 ms)\n",
              m["idle_gaps"]["count"].get<std::size_t>(), m["idle_gaps"]["total_s"].get<double>(),
              m["idle_gaps"]["largest_s"].get<double>());
  std::printf("latency           p50 %.4f s, p99 %.4f s\n", m["latency_p50_s"].get<double>(),
              m["latency_p99_s"].get<double>());
  std::printf("peak RSS          %s   (ru_maxrss: mapped file pages included)\n",
              engine::format_bytes(m["peak_rss_bytes"].get<std::uint64_t>()).c_str());
  if (m.contains("peak_private_rss_bytes"))
    std::printf(
        "peak private mem. %s   (RssAnon + RssShmem, page-locked buffers included; anonymous alone %s);"
        " machine in use %s at peak\n",
        engine::format_bytes(m["peak_private_rss_bytes"].get<std::uint64_t>()).c_str(),
        engine::format_bytes(m["peak_anonymous_rss_bytes"].get<std::uint64_t>()).c_str(),
        engine::format_bytes(m["peak_machine_used_bytes"].get<std::uint64_t>()).c_str());
  std::printf("peak device mem.  %s\n", engine::format_bytes(m["peak_vram_bytes"].get<std::uint64_t>()).c_str());
  std::printf("proofs verified   %zu\n", m["proofs_verified"].get<std::size_t>());
  std::printf("witness in flight %s per partition (%s)\n",
              engine::format_bytes(m["witness_bytes_per_partition"].get<std::uint64_t>()).c_str(),
              m["witness_form"].get<std::string>().c_str());
}

}  // namespace

engine::EngineConfig pipeline_config(const PipelineOptions& o) {
  const engine::MachineFacts machine = engine::MachineFacts::detect();
  engine::EngineConfig base =
      o.config_file.empty() ? engine::EngineConfig::defaults(machine) : engine::load_config(o.config_file, machine);
  for (const auto& s : o.settings) engine::apply_override(base, s, machine);
  if (!o.backend.empty()) base.backend = o.backend;
  base.backend = engine::resolve_backend(base.backend);
  if (o.gpu_workers) base.workers_per_device = o.gpu_workers;
  // One --synthesis-workers value is the configuration's (so the dump below says what runs);
  // several are a sweep, each run setting its own.
  if (o.synthesis_workers.size() == 1) base.synthesis_workers = o.synthesis_workers[0];
  base.validate();
  return base;
}

// A circuit of the CLI's registry (src/cli/circuits.hpp): recorded, set up on the CPU, every
// partition the same witness.
Workload gadget_workload(const PipelineOptions& o) {
  CircuitInstance ci = make_circuit(o.circuit);
  std::fprintf(stderr, "  %s: recording and setting up keys...\n", o.circuit.describe().c_str());
  circuit::R1cs r1cs = record(*ci.shape);
  groth16::ProvingKey pk = groth16::setup(r1cs);
  Workload w;
  w.describe = o.circuit.describe();
  w.keys = engine::make_circuit_keys(w.describe, std::move(r1cs), std::move(pk));
  const std::shared_ptr<const circuit::Circuit> proving(std::move(ci.proving));
  w.source = engine::circuit_witness_source([proving](std::size_t) { return proving; });
  groth16::Witness one;
  engine::synthesize_into(*proving, one);
  w.publics = {std::vector<ff::Fr>(one.inputs.begin() + 1, one.inputs.end())};
  w.measure(one);
  if (o.witness_cache > 0) {
    // Every partition's witness is the same one: a single copy serves them all.
    auto premade = std::make_shared<std::vector<groth16::Witness>>();
    premade->push_back(std::move(one));
    w.source = copying_source(premade);
    w.packed_source = copying_packed_source(*premade);
    w.premade = std::move(premade);
    w.describe += ", witnesses copied from 1 made up front";
  }
  return w;
}

// The PoRep-shape synthetic circuit (circuit/synthetic_shape.hpp) at --shape-scale: built
// directly, set up with the GPU's fixed-base multiplications on the cuda backend, and a
// fresh satisfying witness per partition index (witness seed = index).
Workload shape_workload(const PipelineOptions& o, const std::string& backend) {
  const circuit::SyntheticShape shape = circuit::SyntheticShape{}.scaled(circuit::parse_scale(o.shape_scale));
  circuit::R1cs r1cs;
  groth16::ProvingKey pk;
  if (!o.r1cs_file.empty()) {
    // Mapped in place: once the GPU holds the circuit its pages leave this process.
    r1cs = circuit::map_r1cs(o.r1cs_file);
    if (r1cs.num_constraints != shape.num_constraints || r1cs.num_inputs != shape.num_inputs ||
        r1cs.num_aux != shape.num_aux)
      throw std::invalid_argument("--r1cs " + o.r1cs_file + ": " + std::to_string(r1cs.num_constraints) +
                                  " constraints, not the synthetic shape at --shape-scale " + o.shape_scale + " (" +
                                  shape.describe() + "); write it with snarkpipe synthetic --scale " + o.shape_scale);
    std::fprintf(stderr, "  circuit mapped from %s\n", o.r1cs_file.c_str());
  } else {
    std::fprintf(stderr, "  PoRep-shape synthetic: %s; generating...\n", shape.describe().c_str());
    r1cs = circuit::generate_synthetic_r1cs(shape);
  }
  if (!o.params_file.empty()) {
    // On a GPU the queries stay in the file and go straight to the device (or the backend's
    // page-locked copy): the host holds no copy of the key.
    pk = backend == "cuda" ? groth16::open_params_deferred(o.params_file) : groth16::read_params(o.params_file);
    std::fprintf(stderr, "  key %s from %s\n", backend == "cuda" ? "opened (queries left in the file)" : "read",
                 o.params_file.c_str());
  } else {
    std::fprintf(stderr, "  setting up keys...\n");
    const SetupMultiplierChoice mult(backend == "cuda");
    pk = groth16::setup(r1cs, {}, mult.get());
  }
  Workload w;
  w.describe =
      "porep-shape synthetic, scale " + o.shape_scale + " (" + std::to_string(r1cs.num_constraints) + " constraints)";
  w.keys = engine::make_circuit_keys(w.describe, std::move(r1cs), std::move(pk));
  if (o.witness_cache > 0) {
    // Copies of a few witnesses made up front: the synthesis stage then costs a memcpy, so a
    // run measures the provers (this generator's witness costs ~15 CPU-seconds at full size).
    auto cache = std::make_shared<std::vector<groth16::Witness>>();
    for (std::size_t k = 0; k < o.witness_cache; ++k) {
      circuit::SyntheticWitness sw = circuit::generate_synthetic_witness(shape, k);
      cache->push_back(groth16::Witness{std::move(sw.inputs), std::move(sw.aux)});
    }
    w.measure((*cache)[0]);
    w.source = copying_source(cache);
    w.packed_source = copying_packed_source(*cache);
    for (std::size_t k = 0; k < o.partitions; ++k) {
      const auto& in = (*cache)[k % cache->size()].inputs;
      w.publics.emplace_back(in.begin() + 1, in.end());
    }
    w.premade = std::move(cache);
    w.describe += ", witnesses copied from " + std::to_string(o.witness_cache) + " made up front";
    return w;
  }
  w.source = [shape](std::size_t k, groth16::Witness& out) {
    out.inputs.resize(shape.num_inputs);
    out.aux.resize(shape.num_aux);
    circuit::generate_synthetic_witness_into(shape, k, out.inputs, out.aux);
  };
  // Packed as it is generated, 2^22 values (128 MiB) at a time: with synthesis.check_witness =
  // false a GPU partition then never holds its 4.2 GB full witness.
  w.packed_source = [shape](std::size_t k, groth16::PackedWitness& out) {
    std::vector<ff::Fr> inputs(shape.num_inputs);
    std::optional<groth16::PackedWitnessWriter> writer;  // once the inputs are made (before the first chunk)
    circuit::generate_synthetic_witness_chunks(shape, k, inputs, std::uint64_t(1) << 22,
                                               [&](std::uint64_t, std::span<const ff::Fr> values) {
                                                 if (!writer) writer.emplace(out, inputs, shape.num_aux);
                                                 writer->append(values);
                                               });
    if (!writer) writer.emplace(out, inputs, shape.num_aux);  // no aux values at all
    writer->finish();
  };
  for (std::size_t k = 0; k < o.partitions; ++k) {
    circuit::SyntheticWitness sw = circuit::generate_synthetic_witness(shape, k);
    w.publics.emplace_back(sw.inputs.begin() + 1, sw.inputs.end());
    if (k == 0) w.measure(groth16::Witness{sw.inputs, sw.aux});
  }
  return w;
}

namespace {

int run_bench_pipeline(const PipelineOptions& o, const std::string& command_line) {
  if (o.proofs < 1) throw std::invalid_argument("--proofs must be at least 1");
  if (o.partitions < 1) throw std::invalid_argument("--partitions must be at least 1");
  for (auto j : o.concurrency)
    if (j < 1) throw std::invalid_argument("--concurrency must be at least 1");
  if ((!o.params_file.empty() || !o.r1cs_file.empty()) && o.shape_scale.empty())
    throw std::invalid_argument("--params and --r1cs go with --shape-scale (the synthetic circuit they were made for)");
  MemorySampler memory;  // host memory over the whole run, loading included
  double load_start[1] = {-1};
  getloadavg(load_start, 1);  // a shared machine's load is part of what a number means
  const engine::EngineConfig base = pipeline_config(o);

  // The circuit's keys are made once, outside the measured runs (a service loads them once).
  const Workload work = o.shape_scale.empty() ? gadget_workload(o) : shape_workload(o, base.backend);
  const auto& keys = work.keys;
  std::fprintf(stderr, "  %llu constraints, %llu aux variables; engine configuration:\n",
               static_cast<unsigned long long>(keys->r1cs.num_constraints),
               static_cast<unsigned long long>(keys->r1cs.num_aux));
  std::istringstream lines(base.describe());
  for (std::string line; std::getline(lines, line);) std::fprintf(stderr, "    %s\n", line.c_str());
  if (o.synthesis_workers.size() > 1) std::fprintf(stderr, "    (synthesis.workers swept by --synthesis-workers)\n");

  const std::vector<std::size_t> synth =
      o.synthesis_workers.empty() ? std::vector<std::size_t>{base.synthesis_workers} : o.synthesis_workers;
  std::vector<std::size_t> gpu_counts = o.gpu_counts;
  if (gpu_counts.empty()) gpu_counts.push_back(0);  // 0: the configuration's devices
  const bool sweep = o.concurrency.size() * synth.size() * gpu_counts.size() > 1;
  // The reference the targets use: one partition alone, s/proof in steady state.
  double baseline_s = 0;
  if (o.baseline) {
    PipelineOptions alone = o;
    alone.proofs = 4;
    alone.partitions = 1;
    baseline_s = run_pipeline(alone, base, 1, work, "").metrics["s_per_proof"].get<double>();
    std::fprintf(stderr, "  one partition alone: %.4f s\n", baseline_s);
  }
  std::vector<RunResult> runs;
  // Loading the key and circuit, apart from the runs (a service does it once).
  const std::uint64_t loading_peak_private = memory.peak_private_bytes(),
                      loading_peak_machine = memory.peak_machine_used_bytes();
  for (std::size_t g : gpu_counts)
    for (std::size_t s : synth)
      for (std::size_t j : o.concurrency) {
        engine::EngineConfig c = base;
        c.synthesis_workers = s;
        if (g > 0) {
          c.devices.clear();
          for (std::size_t d = 0; d < g; ++d) c.devices.push_back(int(d));
        }
        c.validate();
        std::string tl = o.timeline.empty() ? "" : timeline_path_for(o.timeline, j, s, sweep);
        if (!tl.empty() && gpu_counts.size() > 1) {
          const std::filesystem::path p(tl);
          tl = (p.parent_path() / (p.stem().string() + "-g" + std::to_string(g) + p.extension().string())).string();
        }
        memory.restart();
        runs.push_back(run_pipeline(o, c, j, work, tl));
        // Peaks over this run (resident keys included), and over loading before the runs.
        runs.back().metrics["loading_peak_private_rss_bytes"] = loading_peak_private;
        runs.back().metrics["loading_peak_machine_used_bytes"] = loading_peak_machine;
        runs.back().metrics["peak_private_rss_bytes"] = memory.peak_private_bytes();
        runs.back().metrics["peak_anonymous_rss_bytes"] = memory.peak_anonymous_bytes();
        runs.back().metrics["peak_machine_used_bytes"] = memory.peak_machine_used_bytes();
        runs.back().metrics["private_rss_bytes_at_end"] = private_rss_bytes();
      }

  nlohmann::json out;
  if (!sweep) {
    out = runs[0].metrics;
    if (o.json) {
      std::cout << out.dump(2) << "\n";
    } else {
      print_run(runs[0]);
      if (o.baseline)
        std::printf("vs one partition  %.4f s alone; s/proof = %.3f x (partitions x that)\n", baseline_s,
                    out["s_per_proof"].get<double>() / (double(o.partitions) * baseline_s));
    }
  } else {
    out = nlohmann::json::array();
    for (const auto& r : runs) {
      nlohmann::json m = r.metrics;
      m["concurrency"] = r.concurrency;
      m["synthesis_workers"] = r.synthesis_workers;
      out.push_back(m);
    }
    if (o.json) {
      std::cout << out.dump(2) << "\n";
    } else {
      std::printf("%5s %5s %10s %8s %6s %10s %10s %10s %12s %9s\n", "J", "S", "s/proof", "busy %", "gaps", "gaps s",
                  "p50 s", "p99 s", "peak private", "verified");
      for (const auto& r : runs) {
        const auto& m = r.metrics;
        std::printf("%5zu %5zu %10.4f %8.1f %6zu %10.4f %10.4f %10.4f %12s %9zu\n", r.concurrency, r.synthesis_workers,
                    m["s_per_proof"].get<double>(), m["gpu_busy_pct"].get<double>(),
                    m["idle_gaps"]["count"].get<std::size_t>(), m["idle_gaps"]["total_s"].get<double>(),
                    m["latency_p50_s"].get<double>(), m["latency_p99_s"].get<double>(),
                    engine::format_bytes(m.value("peak_private_rss_bytes", std::uint64_t(0))).c_str(),
                    m["proofs_verified"].get<std::size_t>());
      }
    }
  }
  if (!o.out.empty()) {
    nlohmann::json rec = bench_record(command_line);
    double load[1] = {-1};
    getloadavg(load, 1);
    rec["load_average_1min_start"] = load_start[0];
    rec["load_average_1min_end"] = load[0];
    rec["circuit"] = work.describe;
    rec["constraints"] = keys->r1cs.num_constraints;
    rec["partitions"] = o.partitions;
    rec["proofs"] = o.proofs;
    // The engine configuration as key -> value (synthesis.workers is the swept one's base).
    nlohmann::json cfg = nlohmann::json::object();
    std::istringstream cfg_lines(base.describe());
    for (std::string line; std::getline(cfg_lines, line);)
      if (const auto eq = line.find(" = "); eq != std::string::npos) cfg[line.substr(0, eq)] = line.substr(eq + 3);
    rec["config"] = cfg;
    if (o.baseline) rec["baseline_single_partition_s"] = baseline_s;
    rec["results"] = out;
    write_record(rec, o.out);
  }
  return 0;
}

}  // namespace

std::vector<Command> register_engine_commands(CLI::App& app) {
  std::vector<Command> cmds;
  auto o = std::make_shared<PipelineOptions>();
  o->circuit.name = "synthetic";
  o->circuit.constraints = "2^10";
  auto* c = app.get_subcommand("bench")->add_subcommand(
      "pipeline",
      "Run a stream of multi-partition jobs through the proving engine and report throughput and idle time");
  c->footer(
      "Submits --proofs jobs of --partitions partitions each, --concurrency of them in flight at a time (a new one as\n"
      "each finishes), and reports: s/proof in steady state (from the first proof's end to the last's, per proof),\n"
      "the device's busy share between its first and last start() and its idle gaps (>= 1 ms), the p50/p99 job\n"
      "latency, peak RSS (of the whole process), peak device memory reserved (0 on the CPU), and the proofs\n"
      "verified (every returned proof is verified again here). --json prints one object with the keys device,\n"
      "gpus, s_per_proof, gpu_busy_pct, idle_gaps, latency_p50_s, latency_p99_s, peak_rss_bytes, peak_vram_bytes,\n"
      "proofs_verified. Several values for --concurrency and/or --synthesis-workers run the grid and print a table\n"
      "(a JSON array with --json; one timeline per point, named FILE-cJ-sS.html).\n"
      "Engine settings come from the machine, then --config, then --set, then the flags.\n"
      "Example: snarkpipe bench pipeline --circuit synthetic --constraints 2^10 --proofs 8 --concurrency 2 --partitions 3 \\\n"
      "           --json --timeline build/pipeline.html");
  add_circuit_options(c, o->circuit);
  c->add_option("--proofs", o->proofs, "Jobs (proofs) to run")->capture_default_str();
  c->add_option("--concurrency", o->concurrency, "Jobs in flight at a time (several values: a sweep)")
      ->delimiter(',')
      ->capture_default_str();
  c->add_option("--partitions", o->partitions, "Partitions per job")->capture_default_str();
  c->add_option("--gpu-workers", o->gpu_workers, "Workers per device (gpu.workers_per_device)");
  c->add_option("--synthesis-workers", o->synthesis_workers, "Synthesis workers (several values: a sweep)")
      ->delimiter(',');
  c->add_option("--backend", o->backend,
                "Prover backend (engine.backend): cpu, or cuda (every GPU; see --set gpus.devices)");
  c->add_option(
      "--shape-scale", o->shape_scale,
      "Prove the PoRep-partition-shape synthetic circuit at this scale (1 = 130,278,869 constraints; 1/1024 ...) "
      "instead of --circuit; set up on the GPU with --backend cuda");
  c->add_option("--params", o->params_file,
                "With --shape-scale: the key from this .params (bench prove --circuit synthetic --params writes it) "
                "instead of a fresh setup; with --backend cuda its queries go from the file straight to the GPU")
      ->check(CLI::ExistingFile);
  c->add_option("--r1cs", o->r1cs_file,
                "With --shape-scale: the circuit mapped from this .snkr1cs (snarkpipe synthetic --scale S --out F) "
                "instead of generating it in memory")
      ->check(CLI::ExistingFile);
  c->add_option("--gpu-counts", o->gpu_counts,
                "Run once per count k with devices 0..k-1 (e.g. 1,2: one GPU, then two), same keys and witnesses")
      ->delimiter(',');
  c->add_option("--witness-cache", o->witness_cache,
                "Make this many witnesses up front and give each partition a copy (measures the provers without the "
                "witness generator's CPU time; a --circuit has one witness, so any N > 0 makes one); 0 generates every "
                "partition's witness");
  c->add_option("--config", o->config_file, "Engine configuration (TOML; see config/snarkpipe.toml)")
      ->check(CLI::ExistingFile);
  c->add_option("--set", o->settings, "Override one configuration key: section.key=value (repeatable)");
  c->add_flag("--json", o->json, "Print one JSON object (an array for a sweep)");
  c->add_flag("--baseline", o->baseline,
              "First run one partition alone (4 jobs of 1 partition, one at a time) and report s/proof against "
              "partitions x that time");
  c->add_option("--timeline", o->timeline, "Write the waterfall (HTML) of the run here");
  c->add_option("-o,--out", o->out,
                "Also write a record (machine, command, date, configuration, results) to this file");
  cmds.push_back(make_command(c, o, [](PipelineOptions& o, const CLI::App& self) -> int {
    // The command as given (CLI11 keeps the parsed options, not argv), for the record.
    std::string cmd = "snarkpipe bench pipeline";
    for (const CLI::Option* opt : self.get_options()) {
      if (opt->count() == 0 || opt->get_name() == "--help") continue;
      cmd += " " + opt->get_name();
      if (opt->get_items_expected_max() != 0)  // not a flag
        for (const auto& v : opt->results()) cmd += " " + v;
    }
    return run_bench_pipeline(o, cmd);
  }));
  return cmds;
}

}  // namespace snarkpipe::cli
