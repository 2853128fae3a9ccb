// snarkpipe serve: the daemon (src/service) over one engine, with the CLI's built-in circuits
// (circuits.hpp) as the circuit types POST /v1/circuits can register (circuits from files
// register by path); --circuit registers one at start. Its settings: config/snarkpipe.toml's
// [service] table, then --set service.KEY=VALUE, then the flags. It binds its port first, then
// restores its circuits and jobs from the state directory (/v1/status says "ready").
// Ctrl-C or SIGTERM drains it: no new work, running jobs get service.shutdown_deadline, what is
// left stays queued for the next start; a registration still setting up is not waited for
// (its state is durable, so the process may end under it).
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "cli/circuits.hpp"
#include "cli/command.hpp"
#include "cuda/zkey_prover.hpp"
#include "engine/config.hpp"

#ifdef SNARKPIPE_HAVE_SERVICE
#include <pthread.h>

#include "engine/engine.hpp"
#include "groth16/setup.hpp"
#include "service/service.hpp"
#include "service/service_config.hpp"
#ifdef SNARKPIPE_HAVE_CLUSTER_SERVICE
#include <unistd.h>

#include "cluster/cluster_worker.hpp"
#include "cluster/postgres_job_store.hpp"
#endif
#endif

namespace snarkpipe::cli {

namespace {

// .zkey circuits on the GPU: the last key proved stays on the device (a job's partitions and
// the next job of the same circuit reuse it); another key replaces it, so the lane holds one
// zkey's device memory beside the engine's. Called from the lane's one worker thread only.
service::ZkeyProve gpu_zkey_prove() {
  struct Resident {
    std::shared_ptr<const circom::ZkeyProver> key;  // kept alive while its device copy is
    std::unique_ptr<cuda::GpuZkeyProver> gpu;
  };
  auto resident = std::make_shared<Resident>();
  return [resident](const std::shared_ptr<const circom::ZkeyProver>& key, std::span<const ff::Fr> witness) {
    if (resident->key != key) {
      resident->gpu.reset();  // its device memory first
      resident->key.reset();
      resident->gpu = std::make_unique<cuda::GpuZkeyProver>(*key);  // may throw: nothing resident then
      resident->key = key;
    }
    return resident->gpu->prove_checked(witness, groth16::ProverRandomness::random());
  };
}

struct ServeOptions {
  std::string listen;  // empty: service.listen (127.0.0.1:8080)
  std::string config_file;
  std::vector<std::string> settings;  // --set section.key=value
  std::string backend;                // empty: from the configuration
  std::string state_dir;              // empty: service.state_dir
  std::string db;                     // empty: service.db (SQLite in the state directory)
  CircuitSpec circuit;
  std::string max_constraints;  // empty: service.max_constraints (2^27)
};

#ifdef SNARKPIPE_HAVE_SERVICE

// POST /v1/circuits's body as a CircuitSpec: "type" is --circuit, the other keys are the
// size options' names (log2_nodes for --log2-nodes). Unknown keys are errors, so a typo does
// not silently register the default size.
CircuitSpec spec_from_json(const nlohmann::json& body) {
  CircuitSpec spec;
  try {
    for (const auto& [key, value] : body.items()) {
      if (key == "type") spec.name = value.get<std::string>();
      else if (key == "constraints")
        spec.constraints = value.is_string() ? value.get<std::string>() : std::to_string(value.get<std::uint64_t>());
      else if (key == "inputs") spec.inputs = value.get<std::size_t>();
      else if (key == "blocks") spec.blocks = value.get<std::size_t>();
      else if (key == "depth") spec.depth = value.get<std::size_t>();
      else if (key == "scale") spec.scale = value.get<std::string>();
      else if (key == "challenges") spec.challenges = value.get<std::size_t>();
      else if (key == "layers") spec.layers = value.get<std::size_t>();
      else if (key == "log2_nodes") spec.log2_nodes = value.get<std::size_t>();
      else if (key == "parents") spec.parents = value.get<std::size_t>();
      else if (key == "seed") spec.seed = value.get<std::uint64_t>();
      else throw std::invalid_argument("unknown circuit parameter '" + key + "'");
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(std::string("bad circuit parameter: ") + e.what());
  }
  if (!body.contains("type"))
    throw std::invalid_argument("'type' is required (sha256-preimage, merkle-sha256, synthetic, porep-like)");
  return spec;
}

// The inverse of spec_from_json: --circuit as the body POST /v1/circuits takes.
nlohmann::json spec_to_json(const CircuitSpec& s) {
  return {{"type", s.name},
          {"constraints", s.constraints},
          {"inputs", s.inputs},
          {"blocks", s.blocks},
          {"depth", s.depth},
          {"scale", s.scale},
          {"challenges", s.challenges},
          {"layers", s.layers},
          {"log2_nodes", s.log2_nodes},
          {"parents", s.parents},
          {"seed", s.seed}};
}

// A registration's size, checked before anything is built: synthetic's constraints against
// the limit, porep-like's challenge data (its witness is drawn before it is recorded) against
// a bound of 8 full PoRep partitions' worth. The recording itself stops at the limit too.
void check_registration(const CircuitSpec& spec, std::uint64_t max_constraints) {
  if (spec.name == "synthetic" && parse_size(spec.constraints) > max_constraints)
    throw std::invalid_argument("'constraints' " + spec.constraints + " is over this daemon's limit of " +
                                std::to_string(max_constraints) + " (serve --max-constraints)");
  if (spec.name == "porep-like") {
    const gadgets::PorepLikeParams p = porep_like_params(spec), full = gadgets::PorepLikeParams::preset("full");
    const double work = double(p.challenges) * double(p.layers) * double(p.parents);
    if (work > 8.0 * double(full.challenges * full.layers * full.parents))
      throw std::invalid_argument("porep-like with " + std::to_string(p.challenges) + " challenges, " +
                                  std::to_string(p.layers) + " layers and " + std::to_string(p.parents) +
                                  " parents is over 8 full partitions' worth: this daemon does not register it");
  }
}

// Partition k of a job seeded S proves the witness drawn from a seed mixed from S and k.
service::CircuitType::Instance seeded_instances(const CircuitSpec& spec) {
  return [spec](std::uint64_t seed, std::size_t partition) {
    CircuitSpec s = spec;
    if (s.name != "synthetic") s.seed = seed ^ (0x9E3779B97F4A7C15ull * (partition + 1));
    return std::move(make_circuit(s).proving);
  };
}

// Records the spec's circuit and sets up fresh keys (as bench pipeline does). Partition k of
// a job seeded S proves the witness drawn from a seed mixed from S and k, so partitions and
// jobs differ; synthetic's seed also draws its shape, so its witness is the registered one.
service::CircuitType make_type(const CircuitSpec& spec, std::uint64_t max_constraints = ~std::uint64_t(0)) {
  check_registration(spec, max_constraints);
  CircuitInstance ci = make_circuit(spec);
  std::fprintf(stderr, "  %s: recording and setting up keys...\n", spec.describe().c_str());
  circuit::R1cs r1cs;
  try {
    r1cs = record(*ci.shape, max_constraints);
  } catch (const std::length_error& e) {
    throw std::invalid_argument(std::string(e.what()) + " (serve --max-constraints)");
  }
  groth16::ProvingKey pk = groth16::setup(r1cs);
  service::CircuitType t;
  t.name = circuit_type(spec);
  t.keys = engine::make_circuit_keys(t.name, std::move(r1cs), std::move(pk));
  t.instance = seeded_instances(spec);
  return t;
}

int run_serve(const ServeOptions& o, bool register_at_start) {
  const engine::MachineFacts machine = engine::MachineFacts::detect();
  engine::EngineConfig config =
      o.config_file.empty() ? engine::EngineConfig::defaults(machine) : engine::load_config(o.config_file, machine);
  service::ServiceConfig sc;
  if (!o.config_file.empty()) service::load_service_config(sc, o.config_file);
  for (const auto& s : o.settings)
    if (!service::apply_service_override(sc, s)) engine::apply_override(config, s, machine);
  if (!o.listen.empty()) sc.listen = o.listen;
  if (!o.state_dir.empty()) sc.options.state_dir = o.state_dir;
  if (!o.max_constraints.empty()) sc.max_constraints = o.max_constraints;
  if (!o.db.empty()) sc.db = o.db;
  if (!o.backend.empty()) config.backend = o.backend;
  config.backend = engine::resolve_backend(config.backend);  // auto: the GPU when there is one, as prove does
  config.validate();

  const auto colon = sc.listen.rfind(':');
  int port = -1;
  if (colon != std::string::npos) {
    try {
      std::size_t used = 0;
      port = std::stoi(sc.listen.substr(colon + 1), &used);
      if (used != sc.listen.size() - colon - 1) port = -1;
    } catch (const std::exception&) {
      port = -1;
    }
  }
  if (port < 0 || port > 65535)
    throw std::invalid_argument("--listen wants HOST:PORT (PORT 0: any free port), not '" + sc.listen + "'");
  const std::string host = sc.listen.substr(0, colon);
  if (!service::is_loopback(host) && sc.options.tokens.empty() && !sc.allow_anonymous)
    throw std::invalid_argument("listening on " + host +
                                " without tokens would let anyone who reaches the port prove: "
                                "configure [[service.tokens]] (or set service.allow_anonymous = true)");
  const bool clustered = sc.db.rfind("postgresql://", 0) == 0 || sc.db.rfind("postgres://", 0) == 0;
  if (!clustered && !sc.db.empty() && sc.db != "sqlite")
    throw std::invalid_argument(
        "--db wants \"sqlite\" (this host's jobs, the default) or postgresql://USER@HOST:PORT/DB, not '" + sc.db + "'");
  if (clustered) {
#ifdef SNARKPIPE_HAVE_CLUSTER_SERVICE
    if (sc.cluster_host.empty()) {
      char name[256] = {};
      ::gethostname(name, sizeof(name) - 1);
      sc.cluster_host = std::string(name) + ":" + std::to_string(port);
    }
    sc.options.open_store = [&sc](const service::Spool& spool) -> std::unique_ptr<service::JobStore> {
      return std::make_unique<cluster::PostgresJobStore>(cluster::PostgresStoreOptions{
          sc.db, sc.cluster_host, spool.witness(""), sc.cluster_witness_inline_limit, sc.cluster_shared_dir});
    };
    // The cluster's hosts prove by claiming partitions (this one too, unless told not to).
    sc.options.proved_by_claims = true;
    sc.options.shared_keys_dir = sc.cluster_shared_dir;
#else
    throw std::invalid_argument(
        "this snarkpipe was built without PostgreSQL (libpq-dev): --db postgresql://... is not available");
#endif
  }
  // Without a state directory the daemon still keeps its jobs on disk, in a directory of its
  // own that goes when it exits.
  std::filesystem::path scratch;
  if (sc.options.state_dir.empty()) {
    char tmpl[] = "/tmp/snarkpipe-serve-XXXXXX";
    if (!::mkdtemp(tmpl)) throw std::runtime_error("cannot create a temporary state directory in /tmp");
    scratch = sc.options.state_dir = tmpl;
  }

  // Block the stop signals before any thread starts (threads inherit the mask), so that only
  // sigwait() below sees them and the shutdown runs on this thread, in order.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  engine::Engine eng(config, std::shared_ptr<engine::BackendProvider>(engine::make_backend_provider(config.backend)));
  if (config.backend == "cuda") sc.options.zkey_prove = gpu_zkey_prove();
  const std::uint64_t max_constraints = parse_size(sc.max_constraints);
  service::Service svc(
      eng,
      {[](const nlohmann::json& b) { return circuit_type(spec_from_json(b)); },
       [max_constraints](const nlohmann::json& b) { return make_type(spec_from_json(b), max_constraints); },
       [](const nlohmann::json& b) { return seeded_instances(spec_from_json(b)); }},
      sc.options);
  // --circuit is registered after the recovery (a restart finds it registered already), and
  // before the daemon reads as ready.
  const int bound = svc.start(host, port, [&] {
    if (!register_at_start) return;
    const nlohmann::json r = svc.register_circuit(spec_to_json(o.circuit).dump());
    std::fprintf(stderr, "  circuit: %s\n", r.value("name", std::string()).c_str());
  });
#ifdef SNARKPIPE_HAVE_CLUSTER_SERVICE
  // Claims begin once the recovery and --circuit are done (startup, below).
  std::unique_ptr<cluster::ClusterQueue> queue;
  std::unique_ptr<cluster::ClusterWorker> worker;
  if (clustered && sc.cluster_prove) {
    queue = std::make_unique<cluster::ClusterQueue>(cluster::QueueOptions{
        sc.db, sc.cluster_host, std::chrono::duration_cast<std::chrono::milliseconds>(sc.cluster_lease),
        config.host_budget, SNARKPIPE_VERSION, sc.cluster_witness_inline_limit, sc.cluster_shared_dir});
    cluster::WorkerOptions w;
    w.slots = sc.cluster_slots ? sc.cluster_slots : unsigned(std::max<std::size_t>(1, eng.stats().devices.size()) * 2);
    w.max_attempts = sc.cluster_max_attempts;
    w.scratch_dir = sc.options.state_dir / "cluster";
    w.zkey_prove = sc.options.zkey_prove;
    worker = std::make_unique<cluster::ClusterWorker>(eng, svc, *queue, std::move(w));
  }
#endif
  const bool tls = !sc.options.tls_cert.empty();
  std::fprintf(
      stderr, "snarkpipe daemon on %s://%s:%d (backend %s); Ctrl-C stops it. State in %s%s. Engine configuration:\n",
      tls ? "https" : "http", host.c_str(), bound, config.backend.c_str(), sc.options.state_dir.c_str(),
      scratch.empty() ? "" : " (temporary: set service.state_dir or --state-dir to keep jobs across restarts)");
  std::istringstream lines(config.describe());
  for (std::string line; std::getline(lines, line);) std::fprintf(stderr, "    %s\n", line.c_str());
  if (sc.options.tokens.empty())
    std::fprintf(stderr, "  no tokens configured: anyone who reaches %s may submit\n", host.c_str());

  // Waits for the recovery and --circuit off this thread, so that a stop signal is heard
  // during them.
  std::atomic<bool> started{false}, start_failed{false};
  std::thread startup([&] {
    try {
      svc.wait_ready();
#ifdef SNARKPIPE_HAVE_CLUSTER_SERVICE
      if (worker) {
        worker->start();
        std::fprintf(stderr, "  cluster host %s: claiming partitions (%u at once, leases of %llds)\n",
                     sc.cluster_host.c_str(), worker->status().value("slots", 0u), (long long)sc.cluster_lease.count());
      } else if (clustered) {
        std::fprintf(stderr, "  cluster host %s: admitting jobs only (service.cluster_prove = false)\n",
                     sc.cluster_host.c_str());
      }
#endif
      if (svc.ready()) std::fprintf(stderr, "snarkpipe daemon: ready\n");
    } catch (const std::exception& e) {
      std::fprintf(stderr, "snarkpipe daemon: start failed: %s\n", e.what());
      start_failed = true;
      ::kill(::getpid(), SIGTERM);
    }
    started = true;
  });

  int sig = 0;
  sigwait(&stop_signals, &sig);
  const auto deadline = std::chrono::duration_cast<std::chrono::milliseconds>(sc.options.shutdown_deadline);
  std::fprintf(stderr, "snarkpipe daemon: %s, draining (running jobs get %llds)\n",
               sig == SIGINT ? "interrupted" : "terminated", (long long)sc.options.shutdown_deadline.count());
#ifdef SNARKPIPE_HAVE_CLUSTER_SERVICE
  if (worker) {
    // Partitions in work get the deadline; the rest go back to the queue for other hosts.
    const auto [proved, released] = worker->drain(deadline);
    std::fprintf(stderr, "snarkpipe daemon: %zu partition(s) finished while draining, %zu given back to the queue\n",
                 proved, released);
  }
#endif
  const auto [finished, left] = svc.drain(deadline);
  std::fprintf(stderr, "snarkpipe daemon: %zu job(s) finished while draining, %zu left queued for the next start\n",
               finished, left);
  // A registration setting up keys (or a request stuck in one) cannot be interrupted; what
  // the daemon accepted is on disk already, so it ends without waiting for them.
  std::atomic<bool> stopped{false};
  std::thread stopper([&] {
    svc.stop();
    stopped = true;
  });
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (!(started && stopped) && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (!(started && stopped)) {
    std::fprintf(
        stderr,
        "snarkpipe daemon: requests still running after 3 s (a circuit registration setting up keys?); exiting "
        "without them (nothing accepted is lost)\n");
    std::fflush(stderr);
    std::_Exit(0);
  }
  startup.join();
  stopper.join();
  if (!scratch.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(scratch, ec);
  }
  return start_failed ? 1 : 0;
}

#endif

}  // namespace

std::vector<Command> register_serve_commands(CLI::App& app) {
  auto o = std::make_shared<ServeOptions>();
  auto* c = app.add_subcommand("serve", "Run the proving daemon: an HTTP JSON API, status and Prometheus metrics");
  c->footer(
      "Endpoints (docs/openapi.json): POST /v1/circuits (a built-in type: {\"type\": \"synthetic\", \"constraints\": \"2^10\"};\n"
      "or files by path: {\"name\": N, \"params\": \"c.params\", \"r1cs\": \"c.snkr1cs\" or circom's \"c.r1cs\"}), GET /v1/circuits,\n"
      "GET /v1/circuits/NAME (shape and verifying key), POST /v1/jobs (JSON {\"circuit\", \"partitions\", \"priority\", \"seed\",\n"
      "\"idempotency_key\"} for a seeded witness, or your witness as an application/octet-stream body with\n"
      "?circuit=N&format=wtns|assignment|packed), GET /v1/jobs, GET /v1/jobs/ID, GET /v1/jobs/ID/wait, DELETE /v1/jobs/ID,\n"
      "GET /v1/status, GET /metrics. Jobs live in SQLite and a spool under --state-dir and survive restarts. Settings: the\n"
      "machine, then --config (its [engine...] and [service] tables), then --set, then the flags. README: \"The daemon\".\n"
      "Example: snarkpipe serve --state-dir /var/lib/snarkpipe --circuit synthetic --constraints 2^10\n"
      "Clients: snarkpipe submit / jobs / cancel.");
  c->add_option("--listen", o->listen,
                "HOST:PORT to serve on (PORT 0: any free port); default service.listen, 127.0.0.1:8080");
  c->add_option("--config", o->config_file, "Configuration (TOML; see config/snarkpipe.toml)")
      ->check(CLI::ExistingFile);
  c->add_option("--set", o->settings,
                "Override one configuration key: section.key=value, service.key=value too (repeatable)");
  c->add_option("--backend", o->backend,
                "Prover backend (engine.backend): cpu, cuda, or auto (the default: the GPU when one is usable)");
  c->add_option(
      "--state-dir", o->state_dir,
      "Where jobs, witnesses and proofs are kept (service.state_dir); default: a temporary directory, removed at exit");
  c->add_option(
      "--db", o->db,
      "The job store (service.db): sqlite (this host's, in the state directory; the default) or postgresql://USER@HOST:PORT/DB, "
      "a queue shared by every daemon given it");
  c->add_option(
      "--max-constraints", o->max_constraints,
      "The largest circuit POST /v1/circuits may record (N or 2^k; service.max_constraints, default 2^27); larger "
      "ones get 400 before any work");
  add_circuit_options(c, o->circuit);
#ifdef SNARKPIPE_HAVE_SERVICE
  return {make_command(c, o, [](ServeOptions& o, const CLI::App& self) {
    return run_serve(o, self.get_option("--circuit")->count() > 0);
  })};
#else
  return {make_command(c, o, [](ServeOptions&, const CLI::App&) -> int {
    throw std::runtime_error(
        "this snarkpipe was built without the daemon: install libcpp-httplib-dev and configure again");
  })};
#endif
}

}  // namespace snarkpipe::cli
