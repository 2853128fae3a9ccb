// The daemon's request bodies (service/service.hpp), without the network: the routes'
// public entry points Service::register_circuit (POST /v1/circuits) and Service::submit
// (POST /v1/jobs) take the body string, job and cancel (GET/DELETE /v1/jobs/{id}) the id
// from the path, circuit_info (GET /v1/circuits/{name}) the name. The first input byte picks
// the route (its value mod 5: register, submit, job, cancel, circuit_info), the rest is the
// body, id or name.
// Rejections: BadRequest (std::invalid_argument, answered 400) and NotFound
// (std::runtime_error, 404).
//
// One engine (CPU backend, one worker of each kind) and one Service (state in a temporary
// directory, started on a loopback port) for the whole run, with one circuit "c" registered
// (a 4-constraint synthetic circuit set up once).
// Its instances throw, so a job that starts fails at once; every accepted job is looked up
// and cancelled at once. The factory accepts {"type": "c"} (already registered) and refuses
// every other body, so register_circuit's own parsing is what is exercised.
#include <cstdlib>
#include <memory>
#include <string>
#include "engine/backend_factory.hpp"
#include "engine/circuit_store.hpp"
#include "engine/config.hpp"
#include "engine/engine.hpp"
#include "fuzz_common.hpp"
#include "gadgets/synthetic.hpp"
#include "service/service.hpp"

using namespace snarkpipe;
using nlohmann::json;

namespace {

engine::Engine& the_engine() {
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

const service::CircuitType& the_circuit() {
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

service::CircuitFactory factory() {
  auto name = [](const json& body) -> std::string {
    const auto it = body.find("type");
    if (it != body.end() && it->is_string() && it->get<std::string>() == "c") return "c";
    throw std::invalid_argument("fuzz factory: only {\"type\": \"c\"}");
  };
  return {name, [](const json&) { return the_circuit(); }, [](const json&) { return the_circuit().instance; }};
}

// One daemon for the run (its state in a fresh temporary directory), started on a loopback
// port so that it is ready to take jobs, with "c" registered.
service::Service& the_service() {
  static service::Service* s = [] {
    char dir[] = "/tmp/fuzz_service-XXXXXX";
    if (!mkdtemp(dir)) std::abort();
    service::ServiceOptions o;
    o.state_dir = dir;
    auto* svc = new service::Service(the_engine(), factory(), o);
    svc->start("127.0.0.1", 0);
    svc->wait_ready();
    (void)svc->register_circuit(R"({"type": "c"})");
    return svc;
  }();
  return *s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  service::Service& svc = the_service();
  const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 5) {
    case 0:
      fuzz::expect_rejection_or_success([&] { (void)svc.register_circuit(rest).dump(); });
      break;
    case 1:
      fuzz::expect_rejection_or_success([&] {
        const json r = svc.submit(rest);
        const std::string id = std::to_string(r.at("id").get<std::uint64_t>());
        (void)svc.job(id).dump();
        (void)svc.cancel(id).dump();
      });
      break;
    case 2:
      fuzz::expect_rejection_or_success([&] { (void)svc.job(rest).dump(); });
      break;
    case 3:
      fuzz::expect_rejection_or_success([&] { (void)svc.cancel(rest).dump(); });
      break;
    default:
      fuzz::expect_rejection_or_success([&] { (void)svc.circuit_info(rest).dump(); });
      break;
  }
  return 0;
}
