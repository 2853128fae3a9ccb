// Shared by the daemon's fuzz targets (fuzz_service, fuzz_http): one engine (CPU backend, one
// worker of each kind) and one circuit "c" (a 4-constraint synthetic circuit set up once)
// whose instances throw, so a job that starts without an uploaded witness fails at once.
// The factory accepts {"type": "c"} (already registered) and refuses every other body, so
// register_circuit's own parsing is what is exercised.
#pragma once
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include "engine/backend_factory.hpp"
#include "engine/circuit_store.hpp"
#include "engine/config.hpp"
#include "engine/engine.hpp"
#include "gadgets/synthetic.hpp"
#include "service/service.hpp"

namespace snarkpipe::fuzz {

inline engine::Engine& the_engine() {
  static engine::Engine* e = [] {
    engine::EngineConfig c = engine::EngineConfig::defaults(engine::MachineFacts{2, std::uint64_t(4) << 30});
    c.synthesis_workers = 1;
    c.workers_per_device = 1;
    c.finalizer_workers = 1;
    c.host_budget = std::uint64_t(512) << 20;
    return new engine::Engine(c, std::make_shared<engine::CpuBackendProvider>(), [](const std::string&) {});
  }();
  return *e;
}

inline const service::CircuitType& the_circuit() {
  static const service::CircuitType t = [] {
    service::CircuitType t;
    t.name = "c";
    t.keys = engine::record_and_setup(t.name, std::make_shared<gadgets::SyntheticCircuit>(4, 1, 1))();
    t.instance = [](std::uint64_t, std::size_t) -> std::unique_ptr<circuit::Circuit> {
      throw std::runtime_error("fuzz: no witness");
    };
    return t;
  }();
  return t;
}

inline service::CircuitFactory the_factory() {
  auto name = [](const nlohmann::json& body) -> std::string {
    const auto it = body.find("type");
    if (it != body.end() && it->is_string() && it->get<std::string>() == "c") return "c";
    throw std::invalid_argument("fuzz factory: only {\"type\": \"c\"}");
  };
  return {name, [](const nlohmann::json&) { return the_circuit(); },
          [](const nlohmann::json&) { return the_circuit().instance; }};
}

// A daemon with its state in a fresh temporary directory, started on a loopback port and
// ready to take jobs, with "c" registered. Returns the port.
inline int start_daemon(service::Service*& out, service::ServiceOptions o) {
  char dir[] = "/tmp/fuzz_daemon-XXXXXX";
  if (!mkdtemp(dir)) std::abort();
  o.state_dir = dir;
  out = new service::Service(the_engine(), the_factory(), o);
  const int port = out->start("127.0.0.1", 0);
  out->wait_ready();
  (void)out->register_circuit(R"({"type": "c"})");
  return port;
}

}  // namespace snarkpipe::fuzz
