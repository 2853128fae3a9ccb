// The daemon's API end to end over HTTP: a server on a free port of 127.0.0.1, in process,
// over a CPU engine, proving a ~200-constraint synthetic circuit.
#include <gtest/gtest.h>
#include <httplib.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <thread>

#include "circom/snarkjs_json.hpp"
#include "engine/circuit_store.hpp"
#include "groth16/params_file.hpp"
#include "gadgets/synthetic.hpp"
#include "groth16/verifier.hpp"
#include "service/service.hpp"

using namespace snarkpipe;
using nlohmann::json;

namespace {

constexpr std::uint64_t MiB = 1 << 20;

// POST /v1/circuits for {"type": "synthetic", "constraints": N, "inputs": I, "seed": S}.
// The synthetic circuit's seed draws its shape and its witness, so a job's seed does not
// change it.
service::CircuitFactory synthetic_factory() {
  struct Params {
    std::size_t constraints, inputs;
    std::uint64_t seed;
  };
  auto params = [](const json& b) {
    if (b.value("type", "") != "synthetic") throw std::invalid_argument("only synthetic circuits here");
    return Params{b.value("constraints", std::size_t(200)), b.value("inputs", std::size_t(2)), b.value("seed", std::uint64_t(1))};
  };
  auto name = [params](const json& b) {
    const Params p = params(b);
    return "synthetic:constraints=" + std::to_string(p.constraints) + ",inputs=" + std::to_string(p.inputs) +
           ",seed=" + std::to_string(p.seed);
  };
  return {name, [params, name](const json& b) {
            const Params p = params(b);
            service::CircuitType t;
            t.name = name(b);
            t.keys = engine::record_and_setup(t.name, std::make_shared<gadgets::SyntheticCircuit>(p.constraints, p.inputs, p.seed))();
            t.instance = [p](std::uint64_t, std::size_t) -> std::unique_ptr<circuit::Circuit> {
              return std::make_unique<gadgets::SyntheticCircuit>(p.constraints, p.inputs, p.seed);
            };
            return t;
          }};
}

engine::EngineConfig small_config() {
  engine::EngineConfig c = engine::EngineConfig::defaults(engine::MachineFacts{2, 4096 * MiB});
  c.synthesis_workers = 1;
  c.workers_per_device = 1;
  c.finalizer_workers = 1;
  c.host_budget = 512 * MiB;
  return c;
}

std::vector<std::uint8_t> unhex(const std::string& s) {
  std::vector<std::uint8_t> out;
  for (std::size_t i = 0; i + 1 < s.size(); i += 2) out.push_back(std::uint8_t(std::stoi(s.substr(i, 2), nullptr, 16)));
  return out;
}

class Daemon : public ::testing::Test {
 protected:
  void SetUp() override {
    port_ = svc_.start("127.0.0.1", 0);
    ASSERT_GT(port_, 0);
    client_ = std::make_unique<httplib::Client>("127.0.0.1", port_);
  }

  // {status, parsed body}; the body must be JSON for every route but /metrics.
  std::pair<int, json> call(const std::string& method, const std::string& path, const std::string& body = "") {
    httplib::Result r = method == "GET"      ? client_->Get(path.c_str())
                        : method == "DELETE" ? client_->Delete(path.c_str())
                                             : client_->Post(path.c_str(), body, "application/json");
    if (!r) {
      ADD_FAILURE() << method << " " << path << ": no response";
      return {0, json()};
    }
    json j = json::parse(r->body, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << method << " " << path << " answered: " << r->body;
    return {r->status, j};
  }

  std::string register_circuit() {
    const auto [status, body] = call("POST", "/v1/circuits", R"({"type": "synthetic", "constraints": 200, "inputs": 2, "seed": 7})");
    EXPECT_EQ(status, 200) << body.dump();
    return body.value("name", "");
  }

  std::uint64_t submit(const json& request) {
    const auto [status, body] = call("POST", "/v1/jobs", request.dump());
    EXPECT_EQ(status, 200) << body.dump();
    return body.value("id", std::uint64_t(0));
  }

  json wait_done(std::uint64_t id) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    json body;
    while (std::chrono::steady_clock::now() < deadline) {
      body = call("GET", "/v1/jobs/" + std::to_string(id)).second;
      const std::string state = body.value("state", "");
      if (state == "done" || state == "failed" || state == "cancelled") return body;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ADD_FAILURE() << "job " << id << " did not finish: " << body.dump();
    return body;
  }

  engine::Engine engine_{small_config(), std::make_shared<engine::CpuBackendProvider>(), [](const std::string&) {}};
  service::Service svc_{engine_, synthetic_factory()};
  int port_ = 0;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(Daemon, ProvesAJobAndEveryReturnedProofVerifies) {
  const std::string name = register_circuit();
  ASSERT_EQ(name, "synthetic:constraints=200,inputs=2,seed=7");
  // Registering the same parameters again sets nothing up again.
  const auto [again_status, again] = call("POST", "/v1/circuits", R"({"type": "synthetic", "constraints": 200, "inputs": 2, "seed": 7})");
  EXPECT_EQ(again_status, 200);
  EXPECT_EQ(again.value("created", true), false);
  EXPECT_EQ(call("GET", "/v1/circuits").second["circuits"], json::array({name}));

  const std::uint64_t id = submit({{"circuit", name}, {"partitions", 2}, {"priority", "HIGH"}, {"seed", 3}});
  const json done = wait_done(id);
  ASSERT_EQ(done.value("state", ""), "done") << done.dump();
  ASSERT_EQ(done["proofs"].size(), 2u);
  ASSERT_EQ(done["public_inputs"].size(), 2u);
  const auto type = svc_.circuit(name);
  ASSERT_TRUE(type);
  for (std::size_t k = 0; k < 2; ++k) {
    const std::vector<std::uint8_t> bytes = unhex(done["proofs"][k].get<std::string>());
    ASSERT_EQ(bytes.size(), groth16::Proof::BYTES);
    const groth16::Proof proof = groth16::Proof::from_bytes(bytes);
    std::vector<ff::Fr> inputs;
    for (const auto& x : done["public_inputs"][k]) {
      const auto v = ff::Fr::from_decimal(x.get<std::string>());
      ASSERT_TRUE(v) << x;
      inputs.push_back(*v);
    }
    EXPECT_EQ(inputs.size(), 2u);
    EXPECT_TRUE(groth16::verify(type->keys->pvk, proof, inputs)) << "partition " << k;
    // A proof against other public inputs must not verify: the check above means something.
    inputs[0] += ff::Fr::one();
    EXPECT_FALSE(groth16::verify(type->keys->pvk, proof, inputs)) << "partition " << k;
  }

  // The same idempotency key returns the same job.
  const json keyed = {{"circuit", name}, {"idempotency_key", "k-1"}};
  EXPECT_EQ(submit(keyed), submit(keyed));
}

TEST_F(Daemon, BadRequestsAreAnswered400AndUnknownJobs404) {
  const std::string name = register_circuit();
  auto expect = [&](int want, const std::string& method, const std::string& path, const std::string& body) {
    const auto [status, reply] = call(method, path, body);
    EXPECT_EQ(status, want) << method << " " << path << " " << body;
    EXPECT_TRUE(reply.contains("error") && !reply["error"].get<std::string>().empty()) << reply.dump();
  };
  expect(400, "POST", "/v1/jobs", R"({"circuit": "no-such-circuit"})");
  expect(400, "POST", "/v1/jobs", R"({"circuit": ")" + name + R"(", "priority": "URGENT"})");
  expect(400, "POST", "/v1/jobs", R"({"circuit": ")" + name + R"(", "partitions": 0})");
  expect(400, "POST", "/v1/jobs", R"({"circuit": ")" + name + R"(", "partitions": "two"})");
  expect(400, "POST", "/v1/jobs", R"({"circuit": ")" + name + R"(", "seed": -1})");
  expect(400, "POST", "/v1/jobs", R"({"circuit": )");
  expect(400, "POST", "/v1/jobs", R"([1, 2])");
  expect(400, "POST", "/v1/jobs", "");
  expect(400, "POST", "/v1/circuits", R"({"type": "merkle-sha256"})");
  expect(400, "POST", "/v1/circuits", "{not json");
  // Fields the daemon does not take are errors, not silently ignored.
  expect(400, "POST", "/v1/jobs", R"({"circuit": ")" + name + R"(", "witness": "/path/w.wtns"})");
  expect(404, "GET", "/v1/circuits/no-such-circuit", "");
  expect(404, "GET", "/v1/jobs/999", "");
  expect(404, "GET", "/v1/jobs/abc", "");
  expect(404, "GET", "/v1/jobs/99999999999999999999999", "");
  expect(404, "DELETE", "/v1/jobs/999", "");
  expect(404, "GET", "/v2/nothing", "");
  // Still serving after all that.
  EXPECT_EQ(call("GET", "/v1/status").first, 200);
}

std::size_t status_kib(const char* field) {  // VmRSS / VmHWM of this process
  std::ifstream f("/proc/self/status");
  for (std::string line; std::getline(f, line);)
    if (line.rfind(field, 0) == 0) return std::stoul(line.substr(std::strlen(field)));
  return 0;
}

// A body over the limit is refused whatever its framing. A chunked one (no Content-Length)
// is not read whole: 256 MiB sent, the daemon's memory does not follow.
TEST_F(Daemon, OversizedBodiesAreRefusedWithoutBeingReadWhole) {
  const std::string big(2 * MiB, ' ');
  const auto [status, reply] = call("POST", "/v1/jobs", "{\"circuit\": \"x\"}" + big);
  EXPECT_EQ(status, 413) << reply.dump();
  EXPECT_NE(reply.value("error", "").find("limit"), std::string::npos) << reply.dump();

  const std::size_t peak_before = status_kib("VmHWM:");
  const std::string chunk(64 * 1024, ' ');
  std::size_t sent = 0;
  httplib::Client chunked("127.0.0.1", port_);
  const httplib::Result r = chunked.Post(
      "/v1/jobs",
      [&](std::size_t, httplib::DataSink& sink) {
        if (sent >= 256 * MiB) {
          sink.done();
          return true;
        }
        sent += chunk.size();
        return sink.write(chunk.data(), chunk.size());
      },
      "application/json");
  // The daemon stops reading at the limit: it answers 413, or the client finds the
  // connection closed while it still writes.
  if (r) {
    EXPECT_EQ(r->status, 413) << r->body;
  }
  EXPECT_LT(status_kib("VmHWM:"), peak_before + 64 * 1024) << "the daemon read the chunked body whole";
  EXPECT_EQ(call("GET", "/v1/status").first, 200);
}

// Errors quote what the client sent, but not all of it.
TEST_F(Daemon, ErrorsDoNotEchoWholeBodies) {
  const std::string name(100'000, 'n');
  const auto [status, reply] = call("POST", "/v1/jobs", json{{"circuit", name}}.dump());
  EXPECT_EQ(status, 400);
  const std::string error = reply.value("error", "");
  EXPECT_NE(error.find("unknown circuit"), std::string::npos) << error.substr(0, 200);
  EXPECT_LT(error.size(), 400u);
  EXPECT_NE(error.find("more bytes"), std::string::npos) << error.substr(0, 400);
}

// Clients that open connections and trickle (or stall) their headers do not starve the
// daemon: /v1/status still answers at once.
TEST_F(Daemon, StalledClientsDoNotStarveTheOthers) {
  std::vector<int> stalled;
  // 48 stalled connections: with the old 8-thread pool /v1/status waited for six rounds of 2 s
  // read timeouts; with 64 threads it answers at once (3 s leaves room for a loaded machine).
  for (int i = 0; i < 48; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(std::uint16_t(port_));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ASSERT_EQ(::send(fd, "G", 1, 0), 1);  // one byte of a request line, then nothing
    stalled.push_back(fd);
  }
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(call("GET", "/v1/status").first, 200);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(3));
  for (int fd : stalled) ::close(fd);
}

// An idempotency key returns the first job for the same request and is refused for another.
TEST_F(Daemon, IdempotencyKeysAreBoundToTheirRequest) {
  const std::string name = register_circuit();
  const json first = {{"circuit", name}, {"seed", 5}, {"idempotency_key", "sector-17"}};
  const std::uint64_t id = submit(first);
  EXPECT_EQ(submit(first), id);
  json other = first;
  other["seed"] = 6;
  const auto [status, reply] = call("POST", "/v1/jobs", other.dump());
  EXPECT_EQ(status, 400) << reply.dump();
  EXPECT_NE(reply.value("error", "").find("idempotency_key"), std::string::npos) << reply.dump();
  other["priority"] = "high";
  other["seed"] = 5;
  EXPECT_EQ(call("POST", "/v1/jobs", other.dump()).first, 400);
  EXPECT_EQ(wait_done(id).value("state", ""), "done");
}

// The verifying key the daemon serves (bellperson bytes and snarkjs JSON) checks its proofs.
TEST_F(Daemon, ServedVerifyingKeyChecksTheProofs) {
  const std::string name = register_circuit();
  const json done = wait_done(submit({{"circuit", name}, {"seed", 9}}));
  ASSERT_EQ(done.value("state", ""), "done") << done.dump();
  std::string path = "/v1/circuits/";
  for (const char ch : name) {  // percent-encoded, as a client sends a name with ':', '=' and ','
    char buf[4];
    std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(ch));
    path += std::isalnum(static_cast<unsigned char>(ch)) ? std::string(1, ch) : std::string(buf);
  }
  const auto [status, info] = call("GET", path);
  ASSERT_EQ(status, 200) << info.dump();
  EXPECT_EQ(info.value("name", ""), name);
  EXPECT_EQ(info.value("inputs", 0), 3);  // ONE and two public inputs
  const std::string vk_path = ::testing::TempDir() + "served.vk";
  {
    const std::string vk_hex = info["vk"]["bellperson_hex"];
    const std::vector<std::uint8_t> bytes = unhex(vk_hex);
    std::ofstream(vk_path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  }
  const groth16::VerifyingKey vk = groth16::read_vk(vk_path);
  const groth16::VerifyingKey from_json = circom::vk_from_json(info["vk"]["snarkjs"]);
  EXPECT_EQ(from_json.alpha_g1, vk.alpha_g1);
  EXPECT_EQ(from_json.ic, vk.ic);
  const auto pvk = groth16::PreparedVerifyingKey::from(vk);
  const groth16::Proof proof = groth16::Proof::from_bytes(unhex(done["proofs"][0].get<std::string>()));
  std::vector<ff::Fr> inputs;
  for (const auto& x : done["public_inputs"][0]) inputs.push_back(*ff::Fr::from_decimal(x.get<std::string>()));
  EXPECT_TRUE(groth16::verify(pvk, proof, inputs));
  inputs[0] += ff::Fr::one();
  EXPECT_FALSE(groth16::verify(pvk, proof, inputs));
}

TEST_F(Daemon, CancelsAQueuedJob) {
  const std::string name = register_circuit();
  // One synthesis and one device worker: the low-priority job waits behind the first one's
  // partitions.
  const std::uint64_t first = submit({{"circuit", name}, {"partitions", 6}});
  const std::uint64_t waiting = submit({{"circuit", name}, {"partitions", 2}, {"priority", "low"}});
  const auto [status, cancelled] = call("DELETE", "/v1/jobs/" + std::to_string(waiting));
  EXPECT_EQ(status, 200);
  EXPECT_EQ(cancelled.value("cancelled", false), true) << cancelled.dump();
  const json after = call("GET", "/v1/jobs/" + std::to_string(waiting)).second;
  EXPECT_EQ(after.value("state", ""), "cancelled");
  EXPECT_FALSE(after.contains("proofs"));
  EXPECT_EQ(wait_done(first).value("state", ""), "done");
  // Cancelling a finished job changes nothing.
  EXPECT_EQ(call("DELETE", "/v1/jobs/" + std::to_string(first)).second.value("cancelled", true), false);
  EXPECT_EQ(call("GET", "/v1/status").second["jobs"]["cancelled"], 1);
}

TEST_F(Daemon, StatusAndMetricsCountTheProofs) {
  const std::string name = register_circuit();
  ASSERT_EQ(wait_done(submit({{"circuit", name}, {"partitions", 2}})).value("state", ""), "done");

  const json status = call("GET", "/v1/status").second;
  EXPECT_EQ(status["proofs"]["partitions_proved"], 2);
  EXPECT_EQ(status["jobs"]["done"], 1);
  EXPECT_EQ(status["partitions_queued"], 0);
  ASSERT_EQ(status["devices"].size(), 1u);
  EXPECT_EQ(status["devices"][0]["in_service"], true);
  EXPECT_GT(status["memory"]["host_budget"].get<std::uint64_t>(), 0u);

  const httplib::Result r = client_->Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->get_header_value("Content-Type").find("text/plain"), std::string::npos);
  for (const char* line : {"# TYPE snarkpipe_proofs_total counter\n", "\nsnarkpipe_proofs_total 2\n",
                           "\nsnarkpipe_partitions_queued 0\n", "\nsnarkpipe_jobs{state=\"done\"} 1\n",
                           "\nsnarkpipe_device_in_service{device=\"0\",name=\"cpu\"} 1\n",
                           "\nsnarkpipe_device_proofs_total{device=\"0\"} 2\n"})
    EXPECT_NE(r->body.find(line), std::string::npos) << "no " << line << " in\n" << r->body;
}

TEST(DaemonLifecycle, StopsRightAfterStartingAndRefusesATakenPort) {
  engine::Engine eng(small_config(), std::make_shared<engine::CpuBackendProvider>(), [](const std::string&) {});
  service::Service a(eng);
  const int port = a.start("127.0.0.1", 0);
  service::Service b(eng);
  EXPECT_THROW(b.start("127.0.0.1", port), std::runtime_error);
  a.stop();
  a.stop();
  // Without a factory, circuits come from add_circuit() only.
  service::Service c(eng);
  EXPECT_THROW(c.register_circuit(R"({"type": "synthetic"})"), service::BadRequest);
}

}  // namespace
