// snarkpipe serve: the daemon (src/service) over one engine, with the CLI's built-in circuits
// (circuits.hpp) as the circuit types POST /v1/circuits can register; --circuit registers
// one at start. Ctrl-C or SIGTERM stops it: the server first, then the engine (which cancels
// what is still running).
#include <csignal>
#include <cstdio>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include "cli/circuits.hpp"
#include "cli/command.hpp"
#include "engine/config.hpp"

#ifdef SNARKPIPE_HAVE_SERVICE
#include <pthread.h>

#include "engine/engine.hpp"
#include "groth16/setup.hpp"
#include "service/service.hpp"
#endif

namespace snarkpipe::cli {

namespace {

struct ServeOptions {
  std::string listen = "127.0.0.1:8080";
  std::string config_file;
  std::vector<std::string> settings;  // --set section.key=value
  std::string backend;                // empty: from the configuration
  CircuitSpec circuit;
  std::string max_constraints = "2^27";  // POST /v1/circuits: the largest circuit it records
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
      else if (key == "constraints") spec.constraints = value.is_string() ? value.get<std::string>() : std::to_string(value.get<std::uint64_t>());
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
  if (!body.contains("type")) throw std::invalid_argument("'type' is required (sha256-preimage, merkle-sha256, synthetic, porep-like)");
  return spec;
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
  t.instance = [spec](std::uint64_t seed, std::size_t partition) {
    CircuitSpec s = spec;
    if (s.name != "synthetic") s.seed = seed ^ (0x9E3779B97F4A7C15ull * (partition + 1));
    return std::move(make_circuit(s).proving);
  };
  return t;
}

int run_serve(const ServeOptions& o, bool register_at_start) {
  const auto colon = o.listen.rfind(':');
  int port = -1;
  if (colon != std::string::npos) {
    try {
      std::size_t used = 0;
      port = std::stoi(o.listen.substr(colon + 1), &used);
      if (used != o.listen.size() - colon - 1) port = -1;
    } catch (const std::exception&) {
      port = -1;
    }
  }
  if (port < 0 || port > 65535) throw std::invalid_argument("--listen wants HOST:PORT (PORT 0: any free port), not '" + o.listen + "'");
  const std::string host = o.listen.substr(0, colon);

  const engine::MachineFacts machine = engine::MachineFacts::detect();
  engine::EngineConfig config =
      o.config_file.empty() ? engine::EngineConfig::defaults(machine) : engine::load_config(o.config_file, machine);
  for (const auto& s : o.settings) engine::apply_override(config, s, machine);
  if (!o.backend.empty()) config.backend = o.backend;
  config.backend = engine::resolve_backend(config.backend);  // auto: the GPU when there is one, as prove does
  config.validate();

  // Block the stop signals before any thread starts (threads inherit the mask), so that only
  // sigwait() below sees them and the shutdown runs on this thread, in order.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  engine::Engine eng(config, std::shared_ptr<engine::BackendProvider>(engine::make_backend_provider(config.backend)));
  const std::uint64_t max_constraints = parse_size(o.max_constraints);
  service::Service svc(eng, {[](const nlohmann::json& b) { return circuit_type(spec_from_json(b)); },
                             [max_constraints](const nlohmann::json& b) { return make_type(spec_from_json(b), max_constraints); }});
  if (register_at_start) svc.add_circuit(make_type(o.circuit));
  const int bound = svc.start(host, port);
  std::fprintf(stderr, "snarkpipe daemon on http://%s:%d (backend %s); Ctrl-C stops it. Engine configuration:\n",
               host.c_str(), bound, config.backend.c_str());
  std::istringstream lines(config.describe());
  for (std::string line; std::getline(lines, line);) std::fprintf(stderr, "    %s\n", line.c_str());
  if (register_at_start) std::fprintf(stderr, "  circuit: %s\n", circuit_type(o.circuit).c_str());

  int sig = 0;
  sigwait(&stop_signals, &sig);
  std::fprintf(stderr, "snarkpipe daemon: %s, stopping\n", sig == SIGINT ? "interrupted" : "terminated");
  svc.stop();
  return 0;
}

#endif

}  // namespace

std::vector<Command> register_serve_commands(CLI::App& app) {
  auto o = std::make_shared<ServeOptions>();
  auto* c = app.add_subcommand("serve", "Run the proving daemon: an HTTP JSON API, status and Prometheus metrics");
  c->footer(
      "Endpoints: POST /v1/circuits (register a built-in circuit type: {\"type\": \"synthetic\", \"constraints\": \"2^10\"}),\n"
      "GET /v1/circuits, GET /v1/circuits/NAME (shape and verifying key: bellperson hex, snarkjs JSON), POST /v1/jobs\n"
      "({\"circuit\": NAME, \"partitions\": N, \"priority\": \"high\", \"idempotency_key\": K, \"seed\": S}; other fields are\n"
      "refused, and a key reused for another request), GET /v1/jobs/ID, DELETE /v1/jobs/ID, GET /v1/status, GET /metrics.\n"
      "Bodies over 1 MiB get 413. --circuit registers one type at\n"
      "start. Engine settings come from the machine, then --config, then --set, then --backend. README: \"The daemon\".\n"
      "Example: snarkpipe serve --listen 127.0.0.1:8080 --circuit synthetic --constraints 2^10");
  c->add_option("--listen", o->listen, "HOST:PORT to serve on (PORT 0: any free port)")->capture_default_str();
  c->add_option("--config", o->config_file, "Engine configuration (TOML; see config/snarkpipe.toml)")->check(CLI::ExistingFile);
  c->add_option("--set", o->settings, "Override one configuration key: section.key=value (repeatable)");
  c->add_option("--backend", o->backend, "Prover backend (engine.backend): cpu, cuda, or auto (the default: the GPU when one is usable)");
  c->add_option("--max-constraints", o->max_constraints,
                "The largest circuit POST /v1/circuits may register (N or 2^k); larger ones get 400 before any work")
      ->capture_default_str();
  add_circuit_options(c, o->circuit);
#ifdef SNARKPIPE_HAVE_SERVICE
  return {make_command(c, o, [](ServeOptions& o, const CLI::App& self) {
    return run_serve(o, self.get_option("--circuit")->count() > 0);
  })};
#else
  return {make_command(c, o, [](ServeOptions&, const CLI::App&) -> int {
    throw std::runtime_error("this snarkpipe was built without the daemon: install libcpp-httplib-dev and configure again");
  })};
#endif
}

}  // namespace snarkpipe::cli
