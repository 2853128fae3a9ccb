// snarkpipe bench service: what the daemon costs over the engine alone (issue 25: "service
// overhead against the engine alone <= 2 %, measured at full shape with packed witnesses
// uploaded over loopback; report the upload throughput").
//
// Both runs prove the same keys (one CircuitKeys object) with the same witnesses, made once up
// front: the engine alone copies them into its buffers (bench pipeline --witness-cache); the
// daemon's clients upload them packed, and the daemon's engine reads them back from its spool.
// So neither pays witness generation, and what the daemon adds is all it does for a job:
// the HTTP upload, checking and spooling the witness durably, reading it back, storing the
// proofs, the events and the answer.
#include "cli/bench_service.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cli/bench_record.hpp"
#include "cli/bench_pipeline.hpp"
#include "cli/measure.hpp"

#ifdef SNARKPIPE_HAVE_SERVICE
#include "base/hex.hpp"
#include "circuit/r1cs_file.hpp"
#include "circuit/synthetic_shape.hpp"
#include "engine/engine.hpp"
#include "engine/memory_budget.hpp"
#include "engine/pipeline_metrics.hpp"
#include "groth16/params_file.hpp"
#include "groth16/proof.hpp"
#include "groth16/verifier.hpp"
#include "service/client.hpp"
#include "service/service.hpp"
#include "service/spool.hpp"
#include "service/witness_upload.hpp"
#endif

namespace snarkpipe::cli {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct ServiceBenchOptions {
  PipelineOptions pipeline;
  std::size_t concurrency = 2;  // jobs in flight: the engine's, and the daemon's client threads
  std::string state_dir;        // the daemon's state goes in a fresh directory here (default: the temp dir)
  std::size_t rounds = 1;       // engine alone, then the daemon, this many times
};

#ifdef SNARKPIPE_HAVE_SERVICE

constexpr const char* CIRCUIT_NAME = "bench";
// The largest shape whose key and circuit this benchmark writes itself (a few GB).
constexpr std::uint64_t MAX_CONSTRAINTS_WRITTEN = std::uint64_t(1) << 23;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Steady state as the engine's timeline counts it: from the first job's end to the last's,
// per job; with one job, its latency.
double steady_s_per_proof(std::vector<double> ends, double first_latency) {
  if (ends.size() < 2) return first_latency;
  std::sort(ends.begin(), ends.end());
  return (ends.back() - ends.front()) / double(ends.size() - 1);
}

// The key files the daemon registers the circuit from: the ones given, else the workload's
// keys written into `dir`.
struct CircuitFiles {
  fs::path params, r1cs;
};

CircuitFiles circuit_files(const PipelineOptions& o, const Workload& work, const fs::path& dir) {
  CircuitFiles f{o.params_file, o.r1cs_file};
  if (f.params.empty()) {
    f.params = dir / "bench.params";
    std::fprintf(stderr, "  writing the key to %s...\n", f.params.c_str());
    groth16::write_params(f.params.string(), work.keys->pk);
  }
  if (f.r1cs.empty()) {
    f.r1cs = dir / "bench.snkr1cs";
    std::fprintf(stderr, "  writing the circuit to %s...\n", f.r1cs.c_str());
    circuit::write_r1cs(f.r1cs, work.keys->r1cs);
  }
  return {fs::absolute(f.params), fs::absolute(f.r1cs)};
}

groth16::PreparedVerifyingKey served_vk(service::Client& client, const fs::path& scratch) {
  const json info = client.circuit(CIRCUIT_NAME);
  const std::vector<std::uint8_t> bytes = base::unhex(info.at("vk").at("bellperson_hex").get<std::string>());
  const fs::path vk_path = scratch / "served.vk";
  std::ofstream(vk_path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  const groth16::VerifyingKey vk = groth16::read_vk(vk_path.string());
  fs::remove(vk_path);
  return groth16::PreparedVerifyingKey::from(vk);
}

// One job as a client saw it, in seconds from the run's start.
struct ClientJob {
  double upload_start = 0, accepted = 0, done = 0;
  std::uint64_t bytes = 0;
};

// The daemon over a fresh engine of `config`, serving the workload's keys; `concurrency`
// client threads, each uploading one job's packed witnesses, following its events until it
// is done and verifying its proofs against the served vk, then the next, until
// o.proofs jobs are done.
json run_service(const ServiceBenchOptions& o, const engine::EngineConfig& config, const Workload& work,
                 const CircuitFiles& files, const std::vector<std::vector<std::uint8_t>>& packed,
                 const fs::path& state) {
  const PipelineOptions& p = o.pipeline;
  auto provider = std::shared_ptr<engine::BackendProvider>(engine::make_backend_provider(config.backend));
  engine::Engine eng(config, provider);
  // The engine-alone run's keys object: the daemon's own loader would read the same bytes
  // from the same files again (a minute at full shape, outside the steady state either way).
  eng.circuits().add(CIRCUIT_NAME, [keys = work.keys] { return keys; });
  service::ServiceOptions options;
  options.state_dir = state;
  service::Service svc(eng, service::CircuitFactory{}, options);
  const int port = svc.start("127.0.0.1", 0);
  svc.wait_ready();
  const std::string url = "http://127.0.0.1:" + std::to_string(port);
  std::fprintf(stderr, "  daemon on %s, state in %s\n", url.c_str(), state.c_str());

  // Registered by path as an operator would: the daemon checks the files against each other.
  service::Client admin(url, "");
  admin.register_circuit({{"name", CIRCUIT_NAME}, {"params", files.params.string()}, {"r1cs", files.r1cs.string()}});
  const groth16::PreparedVerifyingKey pvk = served_vk(admin, state);
  if (pvk.ic != work.keys->pvk.ic)
    throw std::runtime_error("the daemon serves another verifying key than the workload's");

  std::vector<std::span<const std::uint8_t>> body;  // every job uploads the same bytes
  for (std::size_t k = 0; k < p.partitions; ++k) body.emplace_back(packed[k % packed.size()]);
  std::uint64_t body_bytes = 0;
  for (const auto& piece : body) body_bytes += piece.size();

  std::atomic<std::size_t> next{0}, verified{0};
  std::atomic<bool> failed{false};
  std::mutex mu;  // jobs, error, the progress line
  std::vector<ClientJob> jobs;
  std::string error;
  const auto t0 = std::chrono::steady_clock::now();
  const auto client_loop = [&] {
    try {
      service::Client client(url, "");
      for (std::size_t i; !failed && (i = next++) < p.proofs;) {
        ClientJob cj;
        cj.bytes = body_bytes;
        service::Upload up;
        up.circuit = CIRCUIT_NAME;
        up.format = "packed";
        up.partitions = p.partitions;
        cj.upload_start = seconds_since(t0);
        const json accepted = client.submit(up, body);
        cj.accepted = seconds_since(t0);
        const std::uint64_t id = accepted.at("id").get<std::uint64_t>();
        const json done = client.follow(id);
        cj.done = seconds_since(t0);
        if (done.value("state", "") != "done")
          throw std::runtime_error("job " + std::to_string(id) + ": " + done.dump());
        const json& proofs = done.at("proofs");
        const json& publics = done.at("public_inputs");
        if (proofs.size() != p.partitions || publics.size() != p.partitions)
          throw std::runtime_error("job " + std::to_string(id) + " returned " + std::to_string(proofs.size()) +
                                   " proofs");
        for (std::size_t k = 0; k < p.partitions; ++k) {
          std::vector<ff::Fr> inputs;
          for (const auto& x : publics[k]) inputs.push_back(ff::Fr::from_decimal(x.get<std::string>()).value());
          if (inputs != work.publics[k % work.publics.size()])
            throw std::runtime_error("job " + std::to_string(id) + " partition " + std::to_string(k) +
                                     ": the daemon returned other public inputs than the uploaded witness's");
          const groth16::Proof proof = groth16::Proof::from_bytes(base::unhex(proofs[k].get<std::string>()));
          if (!groth16::verify(pvk, proof, inputs))
            throw std::runtime_error("job " + std::to_string(id) + " partition " + std::to_string(k) +
                                     ": the proof does not verify against the served vk");
        }
        std::lock_guard lock(mu);
        jobs.push_back(cj);
        std::fprintf(stderr, "\r  daemon J=%zu S=%zu: %zu/%zu proofs", o.concurrency, config.synthesis_workers,
                     ++verified, p.proofs);
      }
    } catch (const std::exception& e) {
      std::lock_guard lock(mu);
      if (error.empty()) error = e.what();
      failed = true;
    }
  };
  std::vector<std::thread> clients;
  for (std::size_t c = 0; c < o.concurrency; ++c) clients.emplace_back(client_loop);
  for (auto& t : clients) t.join();
  std::fprintf(stderr, "\n");
  svc.stop();
  if (failed) throw std::runtime_error("bench service: " + error);

  std::vector<double> ends, latencies, to_accepted, throughputs;
  double upload_seconds = 0;
  for (const ClientJob& j : jobs) {
    ends.push_back(j.done);
    latencies.push_back(j.done - j.upload_start);
    to_accepted.push_back(j.accepted - j.upload_start);
    throughputs.push_back(double(j.bytes) / std::max(1e-9, j.accepted - j.upload_start));
    upload_seconds += j.accepted - j.upload_start;
  }
  std::sort(jobs.begin(), jobs.end(), [](const ClientJob& a, const ClientJob& b) { return a.done < b.done; });
  const engine::TimelineSnapshot tl = eng.timeline();
  const engine::EngineStats stats = eng.stats();
  double busy = 0;
  for (std::size_t d = 0; d < stats.devices.size(); ++d)
    busy += engine::device_use(tl, int(d)).busy_pct / double(stats.devices.size());
  const double s_per_proof = steady_s_per_proof(ends, jobs.empty() ? 0 : jobs.front().done - jobs.front().upload_start);
  const double engine_s_per_proof = engine::throughput(tl).s_per_proof;
  return {{"s_per_proof", s_per_proof},
          // The daemon's engine by its own timeline: what the engine did, without the HTTP ends.
          {"engine_s_per_proof", engine_s_per_proof},
          // The HTTP ends alone (answers, events, proofs stored): the clients' view over the
          // daemon's engine's; less noisy than against another run, on a shared machine.
          {"over_own_engine", engine_s_per_proof > 0 ? s_per_proof / engine_s_per_proof - 1 : 0.0},
          {"gpu_busy_pct", busy},
          {"latency_p50_s", engine::percentile(latencies, 50)},
          {"latency_p99_s", engine::percentile(latencies, 99)},
          {"upload_bytes_per_job", body_bytes},
          // Body bytes over the time from the upload's first byte to the job's id (the daemon
          // checks and spools the witness durably before it answers).
          {"upload_throughput_bytes_per_s",
           upload_seconds > 0 ? double(body_bytes) * double(jobs.size()) / upload_seconds : 0},
          {"upload_throughput_p50_bytes_per_s", engine::percentile(throughputs, 50)},
          {"upload_to_accepted_p50_s", engine::percentile(to_accepted, 50)},
          {"upload_to_accepted_p99_s", engine::percentile(to_accepted, 99)},
          {"peak_rss_bytes", peak_rss_bytes()},
          {"proofs_verified", verified.load()}};
}

// The daemon's state for one round, removed when done.
struct ScratchDir {
  fs::path path;
  explicit ScratchDir(const std::string& under) {
    const fs::path root = under.empty() ? fs::temp_directory_path() : fs::path(under);
    path = root / ("snarkpipe-bench-service-" + service::random_name().substr(0, 12));
    fs::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void print_summary(const json& r) {
  const json& e = r["engine_alone"];
  const json& s = r["service"];
  std::printf("engine alone      %.4f s/proof   (steady state; device busy %.1f %%)\n", e["s_per_proof"].get<double>(),
              e["gpu_busy_pct"].get<double>());
  std::printf(
      "through daemon    %.4f s/proof   (clients' view; its engine's own timeline %.4f s/proof, busy %.1f %%)\n",
      s["s_per_proof"].get<double>(), s["engine_s_per_proof"].get<double>(), s["gpu_busy_pct"].get<double>());
  std::printf("overhead          %+.2f %%   (clients' view over its own engine's: %+.2f %%)\n",
              100 * r["overhead"].get<double>(), 100 * s["over_own_engine"].get<double>());
  std::printf("upload            %s per job, %.1f MB/s (from the first byte to the job's id), p50 %.3f s, p99 %.3f s\n",
              engine::format_bytes(s["upload_bytes_per_job"].get<std::uint64_t>()).c_str(),
              s["upload_throughput_bytes_per_s"].get<double>() / 1e6, s["upload_to_accepted_p50_s"].get<double>(),
              s["upload_to_accepted_p99_s"].get<double>());
  std::printf(
      "latency           engine alone p50 %.4f s; through the daemon p50 %.4f s, p99 %.4f s (upload to proofs)\n",
      e["latency_p50_s"].get<double>(), s["latency_p50_s"].get<double>(), s["latency_p99_s"].get<double>());
  std::printf("proofs verified   %zu alone, %zu through the daemon (against the served vk)\n",
              e["proofs_verified"].get<std::size_t>(), s["proofs_verified"].get<std::size_t>());
}

int run_bench_service(ServiceBenchOptions o, const std::string& command_line) {
  PipelineOptions& p = o.pipeline;
  if (p.proofs < 1) throw std::invalid_argument("--proofs must be at least 1");
  if (p.partitions < 1) throw std::invalid_argument("--partitions must be at least 1");
  if (o.concurrency < 1) throw std::invalid_argument("--concurrency must be at least 1");
  if (o.rounds < 1) throw std::invalid_argument("--rounds must be at least 1");
  if ((!p.params_file.empty() || !p.r1cs_file.empty()) && p.shape_scale.empty())
    throw std::invalid_argument("--params and --r1cs go with --shape-scale (the synthetic circuit they were made for)");
  // The daemon registers its circuit from files: without them they are written to the state
  // directory, which at PoRep sizes is tens of GB (the key alone is 47 GB at full shape).
  if (!p.shape_scale.empty() && (p.params_file.empty() || p.r1cs_file.empty())) {
    const auto shape = circuit::SyntheticShape{}.scaled(circuit::parse_scale(p.shape_scale));
    if (shape.num_constraints > MAX_CONSTRAINTS_WRITTEN)
      throw std::invalid_argument(
          "at --shape-scale " + p.shape_scale + " (" + std::to_string(shape.num_constraints) +
          " constraints) give both --params and --r1cs (bench prove --circuit synthetic --params "
          "writes the key, snarkpipe synthetic --out the circuit): this run would write them");
  }
  // Both runs copy witnesses made up front: each distinct one once (a --circuit has one).
  if (p.witness_cache == 0) p.witness_cache = std::min<std::size_t>(p.partitions, 2);
  p.concurrency = {o.concurrency};
  double load_start[1] = {-1};
  getloadavg(load_start, 1);
  const engine::EngineConfig config = pipeline_config(p);
  const Workload work = p.shape_scale.empty() ? gadget_workload(p) : shape_workload(p, config.backend);
  std::fprintf(stderr, "  %llu constraints, %llu aux variables; engine configuration:\n",
               static_cast<unsigned long long>(work.keys->r1cs.num_constraints),
               static_cast<unsigned long long>(work.keys->r1cs.num_aux));
  std::istringstream lines(config.describe());
  for (std::string line; std::getline(lines, line);) std::fprintf(stderr, "    %s\n", line.c_str());

  // The packed bytes of each witness made up front, once: every job uploads these.
  std::vector<std::vector<std::uint8_t>> packed;
  for (const groth16::Witness& w : *work.premade) packed.push_back(service::encode_packed(w));
  std::fprintf(stderr, "  packed witness: %s per partition (%s full)\n", engine::format_bytes(packed[0].size()).c_str(),
               engine::format_bytes(work.witness_bytes).c_str());

  const ScratchDir keys_dir(o.state_dir);
  const CircuitFiles files = circuit_files(p, work, keys_dir.path);
  json rounds = json::array();
  std::vector<double> alone_s, service_s;
  for (std::size_t r = 0; r < o.rounds; ++r) {
    if (o.rounds > 1) std::fprintf(stderr, "  round %zu of %zu\n", r + 1, o.rounds);
    json round;
    round["engine_alone"] = run_pipeline(p, config, o.concurrency, work, "").metrics;
    const ScratchDir state(o.state_dir);
    round["service"] = run_service(o, config, work, files, packed, state.path);
    alone_s.push_back(round["engine_alone"]["s_per_proof"].get<double>());
    service_s.push_back(round["service"]["s_per_proof"].get<double>());
    round["overhead"] = service_s.back() / alone_s.back() - 1;
    rounds.push_back(std::move(round));
  }
  json results = rounds.back();
  if (o.rounds > 1) {
    // The rounds' medians: one slow round (a neighbour's load) does not decide it.
    results["engine_alone"]["s_per_proof"] = median(alone_s);
    results["service"]["s_per_proof"] = median(service_s);
    results["overhead"] = median(service_s) / median(alone_s) - 1;
    results["rounds"] = rounds;
  }
  results["overhead_pct"] = 100 * results["overhead"].get<double>();
  results["upload_throughput_bytes_per_s"] = results["service"]["upload_throughput_bytes_per_s"];
  results["upload_to_accepted_p50_s"] = results["service"]["upload_to_accepted_p50_s"];
  if (p.json) std::cout << results.dump(2) << "\n";
  else print_summary(results);
  if (!p.out.empty()) {
    json rec = bench_record(command_line);
    double load[1] = {-1};
    getloadavg(load, 1);
    rec["load_average_1min_start"] = load_start[0];
    rec["load_average_1min_end"] = load[0];
    rec["circuit"] = work.describe;
    rec["constraints"] = work.keys->r1cs.num_constraints;
    rec["partitions"] = p.partitions;
    rec["proofs"] = p.proofs;
    rec["concurrency"] = o.concurrency;
    rec["witness_form_uploaded"] = "packed (0/1 values as bits)";
    json cfg = json::object();
    std::istringstream cfg_lines(config.describe());
    for (std::string line; std::getline(cfg_lines, line);)
      if (const auto eq = line.find(" = "); eq != std::string::npos) cfg[line.substr(0, eq)] = line.substr(eq + 3);
    rec["config"] = cfg;
    rec["results"] = results;
    write_record(rec, p.out);
  }
  return 0;
}

#else

int run_bench_service(ServiceBenchOptions, const std::string&) {
  throw std::runtime_error("this snarkpipe was built without the daemon (src/service needs cpp-httplib)");
}

#endif

}  // namespace

void register_service_bench(CLI::App* bench, std::vector<Command>& cmds) {
  auto o = std::make_shared<ServiceBenchOptions>();
  o->pipeline.circuit.name = "synthetic";
  o->pipeline.circuit.constraints = "2^10";
  o->pipeline.proofs = 6;
  auto* c = bench->add_subcommand(
      "service",
      "The daemon's overhead over the engine alone: the same jobs through both, packed witnesses uploaded over loopback");
  c->footer(
      "In one process, on the same keys and witnesses (made once up front, --witness-cache): first bench pipeline's run\n"
      "(--proofs jobs of --partitions partitions, --concurrency in flight, straight into the engine), then a daemon on a\n"
      "free port of 127.0.0.1 over a fresh engine of the same configuration, the circuit registered from its files\n"
      "(--params/--r1cs, or the keys written to the state directory), and --concurrency client threads that each upload\n"
      "a job's packed witnesses over HTTP, follow its events until it is done and verify its proofs against the served vk.\n"
      "Reports s/proof in steady state for both (from the first job's end to the last's, per job), overhead =\n"
      "daemon/engine - 1, the upload throughput (witness bytes per second, from the first byte to the job's id) and the\n"
      "time from upload start to the job accepted.\n"
      "Examples: snarkpipe bench service --backend cpu --shape-scale 1/4096 --partitions 2 --proofs 6\n"
      "          snarkpipe bench service --backend cuda --shape-scale 1 --params porep.params --r1cs porep.snkr1cs \\\n"
      "            --partitions 10 --proofs 6 --concurrency 2 --json -o bench/results/service-overhead-h200.json");
  add_circuit_options(c, o->pipeline.circuit);
  c->add_option("--proofs", o->pipeline.proofs, "Jobs (proofs) per run")->capture_default_str();
  c->add_option("--concurrency", o->concurrency, "Jobs in flight at a time (the daemon's: client threads)")
      ->capture_default_str();
  c->add_option("--partitions", o->pipeline.partitions, "Partitions per job")->capture_default_str();
  c->add_option("--gpu-workers", o->pipeline.gpu_workers, "Workers per device (gpu.workers_per_device)");
  c->add_option("--synthesis-workers", o->pipeline.synthesis_workers, "Synthesis workers (synthesis.workers)")
      ->expected(1);
  c->add_option("--backend", o->pipeline.backend, "Prover backend (engine.backend): cpu, cuda or auto");
  c->add_option(
      "--shape-scale", o->pipeline.shape_scale,
      "Prove the PoRep-partition-shape synthetic circuit at this scale (1 = 130,278,869 constraints; 1/4096 ...) "
      "instead of --circuit");
  c->add_option("--params", o->pipeline.params_file,
                "With --shape-scale: the key from this .params (and the daemon registers it)")
      ->check(CLI::ExistingFile);
  c->add_option("--r1cs", o->pipeline.r1cs_file,
                "With --shape-scale: the circuit from this .snkr1cs (and the daemon registers it)")
      ->check(CLI::ExistingFile);
  c->add_option("--witness-cache", o->pipeline.witness_cache,
                "Distinct witnesses made up front (partition k proves witness k mod N); default min(partitions, 2)");
  c->add_option(
      "--state-dir", o->state_dir,
      "Where the daemon's state (database, spool of uploaded witnesses) goes, in a fresh directory removed at the "
      "end (default: the temp directory); its disk is part of what is measured");
  c->add_option("--rounds", o->rounds, "Engine alone then daemon, this many times; the medians decide")
      ->capture_default_str();
  c->add_option("--config", o->pipeline.config_file, "Engine configuration (TOML; see config/snarkpipe.toml)")
      ->check(CLI::ExistingFile);
  c->add_option("--set", o->pipeline.settings, "Override one configuration key: section.key=value (repeatable)");
  c->add_flag("--json", o->pipeline.json, "Print one JSON object");
  c->add_option("-o,--out", o->pipeline.out,
                "Also write a record (machine, command, date, configuration, results) to this file");
  cmds.push_back(make_command(c, o, [](ServiceBenchOptions& o, const CLI::App& self) -> int {
    std::string cmd = "snarkpipe bench service";
    for (const CLI::Option* opt : self.get_options()) {
      if (opt->count() == 0 || opt->get_name() == "--help") continue;
      cmd += " " + opt->get_name();
      if (opt->get_items_expected_max() != 0)
        for (const auto& v : opt->results()) cmd += " " + v;
    }
    return run_bench_service(o, cmd);
  }));
}

}  // namespace snarkpipe::cli
