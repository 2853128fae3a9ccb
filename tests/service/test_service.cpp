// The daemon's API end to end over HTTP: real servers on free ports of 127.0.0.1, in process,
// over CPU engines, proving small synthetic circuits drawn from fresh seeds. Each server keeps
// its state (SQLite + spool) in a fresh directory; "restarts" build a new engine and service
// over the same directory.
#include <gtest/gtest.h>
#include <httplib.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "circom/snarkjs_json.hpp"
#include "circom/wtns.hpp"
#include "circuit/r1cs_file.hpp"
#include "engine/circuit_store.hpp"
#include "engine/witness.hpp"
#include "gadgets/synthetic.hpp"
#include "groth16/params_file.hpp"
#include "groth16/verifier.hpp"
#include "service/access.hpp"
#include "service/client.hpp"
#include "service/service.hpp"
#include "service/service_config.hpp"
#include "service/sha256.hpp"
#include "service/witness_upload.hpp"
#include "test_seed.hpp"

using namespace snarkpipe;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t MiB = 1 << 20;

struct SyntheticParams {
  std::size_t constraints, inputs;
  std::uint64_t seed;
};

SyntheticParams synthetic_params(const json& b) {
  if (b.value("type", "") != "synthetic") throw std::invalid_argument("only synthetic circuits here");
  for (const auto& [k, v] : b.items())
    if (k != "type" && k != "constraints" && k != "inputs" && k != "seed")
      throw std::invalid_argument("unknown parameter " + k);
  return {b.value("constraints", std::size_t(200)), b.value("inputs", std::size_t(2)),
          b.value("seed", std::uint64_t(1))};
}

std::string synthetic_name(const SyntheticParams& p) {
  return "synthetic:constraints=" + std::to_string(p.constraints) + ",inputs=" + std::to_string(p.inputs) +
         ",seed=" + std::to_string(p.seed);
}

// POST /v1/circuits for {"type": "synthetic", "constraints": N, "inputs": I, "seed": S}. The
// synthetic circuit's seed draws its shape and its witness, so a job's seed does not change it.
service::CircuitFactory synthetic_factory() {
  auto instance = [](const json& b) -> service::CircuitType::Instance {
    const SyntheticParams p = synthetic_params(b);
    return [p](std::uint64_t, std::size_t) -> std::unique_ptr<circuit::Circuit> {
      return std::make_unique<gadgets::SyntheticCircuit>(p.constraints, p.inputs, p.seed);
    };
  };
  return {[](const json& b) { return synthetic_name(synthetic_params(b)); },
          [instance](const json& b) {
            const SyntheticParams p = synthetic_params(b);
            service::CircuitType t;
            t.name = synthetic_name(p);
            t.keys = engine::record_and_setup(
                t.name, std::make_shared<gadgets::SyntheticCircuit>(p.constraints, p.inputs, p.seed))();
            t.instance = instance(b);
            return t;
          },
          instance};
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

std::string percent_encoded(const std::string& name) {
  std::string path;
  for (const char ch : name) {
    char buf[4];
    std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(ch));
    path += std::isalnum(static_cast<unsigned char>(ch)) ? std::string(1, ch) : std::string(buf);
  }
  return path;
}

// The tests' state directories, removed when the program ends.
std::vector<fs::path>& scratch_dirs() {
  static struct Dirs {
    std::vector<fs::path> dirs;
    ~Dirs() {
      std::error_code ec;
      for (const auto& d : dirs)
        if (fs::remove_all(d, ec) == static_cast<std::uintmax_t>(-1))
          std::fprintf(stderr, "cannot remove %s: %s\n", d.c_str(), ec.message().c_str());
    }
  } d;
  return d.dirs;
}

fs::path fresh_dir(const std::string& what) {
  const fs::path d =
      fs::path(::testing::TempDir()) / ("snarkpipe-svc-" + what + "-" + service::random_name().substr(0, 12));
  fs::create_directories(d);
  scratch_dirs().push_back(d);
  return d;
}

std::size_t files_in(const fs::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

// The CPU backend as a GPU's engine sees it: it takes packed witnesses (and unpacks them).
class PackedCpuProvider final : public engine::BackendProvider {
 public:
  std::string kind() const override { return "cpu-packed"; }
  std::vector<engine::DeviceSpec> devices() const override { return cpu_.devices(); }
  std::unique_ptr<groth16::ProverBackend> make_backend(const engine::DeviceSpec& d) const override {
    return cpu_.make_backend(d);
  }
  engine::MemoryNeeds needs(const engine::CircuitKeys& keys) const override { return cpu_.needs(keys); }
  bool packed_witnesses() const override { return true; }

 private:
  engine::CpuBackendProvider cpu_;
};

// One daemon: an engine and a service over a state directory, serving on loopback.
class Daemon {
 public:
  explicit Daemon(service::ServiceOptions options, engine::EngineConfig config = small_config(),
                  std::shared_ptr<engine::BackendProvider> provider = std::make_shared<engine::CpuBackendProvider>())
      : options_(std::move(options)),
        engine_(std::make_unique<engine::Engine>(config, std::move(provider), [](const std::string&) {})),
        svc_(std::make_unique<service::Service>(*engine_, synthetic_factory(), options_)) {
    port_ = svc_->start("127.0.0.1", 0);
    svc_->wait_ready();
    client_ = std::make_unique<httplib::Client>("127.0.0.1", port_);
    client_->set_read_timeout(60, 0);
  }
  ~Daemon() {
    svc_.reset();
    engine_.reset();
  }

  service::Service& svc() { return *svc_; }
  engine::Engine& engine() { return *engine_; }
  int port() const { return port_; }
  const fs::path& state_dir() const { return options_.state_dir; }
  void set_token(const std::string& t) { token_ = t; }

  // {status, parsed body}; the body must be JSON for every route but /metrics.
  std::pair<int, json> call(const std::string& method, const std::string& path, const std::string& body = "",
                            const std::string& content_type = "application/json") {
    httplib::Headers headers;
    if (!token_.empty()) headers.emplace("Authorization", "Bearer " + token_);
    httplib::Result r = method == "GET"      ? client_->Get(path.c_str(), headers)
                        : method == "DELETE" ? client_->Delete(path.c_str(), headers)
                        : method == "PUT"    ? client_->Put(path.c_str(), headers, body, content_type.c_str())
                                             : client_->Post(path.c_str(), headers, body, content_type.c_str());
    if (!r) {
      ADD_FAILURE() << method << " " << path << ": no response";
      return {0, json()};
    }
    json j = json::parse(r->body, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << method << " " << path << " answered: " << r->body;
    return {r->status, j};
  }
  std::pair<int, json> upload(const std::string& query, const std::vector<std::uint8_t>& bytes) {
    return call("POST", "/v1/jobs?" + query, std::string(bytes.begin(), bytes.end()), "application/octet-stream");
  }

  std::string register_synthetic(std::size_t constraints, std::size_t inputs, std::uint64_t seed) {
    const auto [status, body] =
        call("POST", "/v1/circuits",
             json{{"type", "synthetic"}, {"constraints", constraints}, {"inputs", inputs}, {"seed", seed}}.dump());
    EXPECT_EQ(status, 200) << body.dump();
    return body.value("name", "");
  }

  std::uint64_t submit(const json& request) {
    const auto [status, body] = call("POST", "/v1/jobs", request.dump());
    EXPECT_EQ(status, 200) << body.dump();
    return body.value("id", std::uint64_t(0));
  }

  json wait_done(std::uint64_t id, int seconds = 30) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    json body;
    while (std::chrono::steady_clock::now() < deadline) {
      body = call("GET", "/v1/jobs/" + std::to_string(id) + "/wait?timeout_s=5").second;
      const std::string state = body.value("state", "");
      if (state == "done" || state == "failed" || state == "cancelled") return body;
    }
    ADD_FAILURE() << "job " << id << " did not finish: " << body.dump();
    return body;
  }

  // The served verifying key (bellperson bytes), prepared.
  groth16::PreparedVerifyingKey served_vk(const std::string& name, json* info_out = nullptr) {
    const auto [status, info] = call("GET", "/v1/circuits/" + percent_encoded(name));
    EXPECT_EQ(status, 200) << info.dump();
    const fs::path vk_path = state_dir() / ("served-" + service::random_name() + ".vk");
    const std::vector<std::uint8_t> bytes = unhex(info["vk"]["bellperson_hex"].get<std::string>());
    std::ofstream(vk_path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    const groth16::VerifyingKey vk = groth16::read_vk(vk_path.string());
    fs::remove(vk_path);
    if (info_out) *info_out = info;
    return groth16::PreparedVerifyingKey::from(vk);
  }

 private:
  service::ServiceOptions options_;
  std::unique_ptr<engine::Engine> engine_;
  std::unique_ptr<service::Service> svc_;
  int port_ = 0;
  std::unique_ptr<httplib::Client> client_;
  std::string token_;
};

service::ServiceOptions options_in(const fs::path& dir) {
  service::ServiceOptions o;
  o.state_dir = dir;
  return o;
}

std::vector<ff::Fr> publics_of(const json& partition) {
  std::vector<ff::Fr> inputs;
  for (const auto& x : partition) inputs.push_back(*ff::Fr::from_decimal(x.get<std::string>()));
  return inputs;
}

// Every proof of a done job verifies against `pvk` with its public inputs, and not with others.
void expect_proofs_verify(const json& done, const groth16::PreparedVerifyingKey& pvk, std::size_t partitions) {
  ASSERT_EQ(done.value("state", ""), "done") << done.dump();
  ASSERT_EQ(done["proofs"].size(), partitions);
  ASSERT_EQ(done["public_inputs"].size(), partitions);
  for (std::size_t k = 0; k < partitions; ++k) {
    const std::vector<std::uint8_t> bytes = unhex(done["proofs"][k].get<std::string>());
    ASSERT_EQ(bytes.size(), groth16::Proof::BYTES);
    const groth16::Proof proof = groth16::Proof::from_bytes(bytes);
    std::vector<ff::Fr> inputs = publics_of(done["public_inputs"][k]);
    EXPECT_TRUE(groth16::verify(pvk, proof, inputs)) << "partition " << k;
    if (inputs.empty()) continue;
    inputs[0] += ff::Fr::one();  // the check above means something
    EXPECT_FALSE(groth16::verify(pvk, proof, inputs)) << "partition " << k;
  }
}

groth16::Witness synthetic_witness(std::size_t constraints, std::size_t inputs, std::uint64_t seed) {
  groth16::Witness w;
  engine::synthesize_into(gadgets::SyntheticCircuit(constraints, inputs, seed), w);
  return w;
}

std::vector<std::uint8_t> assignment_bytes(const groth16::Witness& w) {
  std::vector<std::uint8_t> out((w.inputs.size() + w.aux.size()) * 32);
  std::uint8_t* p = out.data();
  for (const auto* v : {&w.inputs, &w.aux})
    for (const auto& x : *v) x.to_bytes_le(p), p += 32;
  return out;
}

std::vector<std::uint8_t> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::uint8_t> wtns_bytes(const groth16::Witness& w, const fs::path& dir) {
  std::vector<ff::Fr> z(w.inputs);
  z.insert(z.end(), w.aux.begin(), w.aux.end());
  const fs::path p = dir / ("w-" + service::random_name() + ".wtns");
  circom::write_wtns(p.string(), z);
  auto bytes = read_bytes(p);
  fs::remove(p);
  return bytes;
}

class DaemonTest : public ::testing::Test {
 protected:
  void SetUp() override { daemon_ = std::make_unique<Daemon>(options_in(fresh_dir("t"))); }
  Daemon& d() { return *daemon_; }
  std::unique_ptr<Daemon> daemon_;
};

TEST_F(DaemonTest, ProvesASeededJobAndEveryReturnedProofVerifiesAgainstTheServedVk) {
  const std::uint64_t seed = test_seed("seeded job");
  const std::string name = d().register_synthetic(200, 2, seed);
  ASSERT_EQ(name, "synthetic:constraints=200,inputs=2,seed=" + std::to_string(seed));
  // Registering the same parameters again sets nothing up again.
  const auto [again_status, again] = d().call(
      "POST", "/v1/circuits", json{{"type", "synthetic"}, {"constraints", 200}, {"inputs", 2}, {"seed", seed}}.dump());
  EXPECT_EQ(again_status, 200);
  EXPECT_EQ(again.value("created", true), false);
  EXPECT_EQ(d().call("GET", "/v1/circuits").second["circuits"], json::array({name}));

  const std::uint64_t id = d().submit({{"circuit", name}, {"partitions", 2}, {"priority", "HIGH"}, {"seed", 3}});
  json info;
  const auto pvk = d().served_vk(name, &info);
  expect_proofs_verify(d().wait_done(id), pvk, 2);
  EXPECT_EQ(info.value("inputs", 0), 3);  // ONE and two public inputs
  // The snarkjs form of the served key is the same key.
  const groth16::VerifyingKey from_json = circom::vk_from_json(info["vk"]["snarkjs"]);
  EXPECT_EQ(from_json.ic, pvk.ic);
}

// A registered circuit's keys are the engine's to load (from the spool) and evict under its
// budget: none is resident until a job needs it.
TEST_F(DaemonTest, KeysAreLoadedWhenAJobNeedsThem) {
  const std::string a = d().register_synthetic(150, 1, test_seed("lazy a"));
  const std::string b = d().register_synthetic(150, 2, test_seed("lazy b"));
  EXPECT_TRUE(d().engine().circuits().resident().empty());
  EXPECT_EQ(d().wait_done(d().submit({{"circuit", b}})).value("state", ""), "done");
  EXPECT_EQ(d().engine().circuits().resident(), std::vector<std::string>{b});
  expect_proofs_verify(d().wait_done(d().submit({{"circuit", a}})), d().served_vk(a), 1);
}

// A witness the client computed, in each of the three forms, proves; the public inputs the
// daemon returns are the witness's.
TEST_F(DaemonTest, UploadedWitnessesInEveryFormatProve) {
  const std::uint64_t seed = test_seed("uploads");
  const std::string name = d().register_synthetic(300, 3, seed);
  const auto pvk = d().served_vk(name);
  const groth16::Witness w = synthetic_witness(300, 3, seed);
  const std::string q = "circuit=" + percent_encoded(name);

  std::vector<std::uint8_t> two_assignments = assignment_bytes(w);
  two_assignments.insert(two_assignments.end(), two_assignments.begin(), two_assignments.end());
  std::vector<std::uint8_t> two_packed = service::encode_packed(w);
  two_packed.insert(two_packed.end(), two_packed.begin(), two_packed.end());
  EXPECT_LT(service::encode_packed(w).size(), assignment_bytes(w).size());  // the 0/1 values are bits

  const std::vector<std::pair<std::string, std::vector<std::uint8_t>>> uploads = {
      {q + "&format=wtns", wtns_bytes(w, d().state_dir())},
      {q + "&format=assignment&partitions=2", two_assignments},
      {q + "&format=packed&partitions=2", two_packed}};
  for (const auto& [query, bytes] : uploads) {
    SCOPED_TRACE(query);
    const auto [status, body] = d().upload(query, bytes);
    ASSERT_EQ(status, 200) << body.dump();
    const std::size_t partitions = query.find("partitions=2") != std::string::npos ? 2 : 1;
    const json done = d().wait_done(body["id"].get<std::uint64_t>());
    expect_proofs_verify(done, pvk, partitions);
    for (std::size_t k = 0; k < partitions; ++k)
      EXPECT_EQ(publics_of(done["public_inputs"][k]), std::vector<ff::Fr>(w.inputs.begin() + 1, w.inputs.end()));
  }
  // Finished jobs' witnesses leave the spool; their proofs stay.
  EXPECT_EQ(files_in(d().state_dir() / "witnesses"), 0u);
  EXPECT_EQ(files_in(d().state_dir() / "proofs"), 3u);
}

// On an engine that takes packed witnesses and checks none (a GPU's, in production), a packed
// upload goes to it as it is: no full witness buffer is made, and the proofs verify.
TEST(DaemonPacked, PackedUploadsReachAPackedEngineWithoutAFullWitness) {
  engine::EngineConfig c = small_config();
  c.check_witness = false;
  Daemon d(options_in(fresh_dir("packed")), c, std::make_shared<PackedCpuProvider>());
  const std::uint64_t seed = test_seed("packed engine");
  const std::string name = d.register_synthetic(260, 2, seed);
  const groth16::Witness a = synthetic_witness(260, 2, seed);
  std::vector<std::uint8_t> two = service::encode_packed(a);
  two.insert(two.end(), two.begin(), two.end());
  const auto [status, body] = d.upload("circuit=" + percent_encoded(name) + "&format=packed&partitions=2", two);
  ASSERT_EQ(status, 200) << body.dump();
  const json done = d.wait_done(body["id"].get<std::uint64_t>());
  expect_proofs_verify(done, d.served_vk(name), 2);
  EXPECT_EQ(publics_of(done["public_inputs"][1]), std::vector<ff::Fr>(a.inputs.begin() + 1, a.inputs.end()));
  EXPECT_EQ(d.engine().stats().buffers_created, 0u) << "a full witness buffer was made for a packed upload";
  // Other forms still reach it, unpacked into a buffer and packed by the engine.
  const auto full = d.upload("circuit=" + percent_encoded(name) + "&format=assignment", assignment_bytes(a));
  ASSERT_EQ(full.first, 200) << full.second.dump();
  expect_proofs_verify(d.wait_done(full.second["id"].get<std::uint64_t>()), d.served_vk(name), 1);
  EXPECT_GE(d.engine().stats().buffers_created, 1u);
}

// Uploads that break their format, do not fit the circuit or exceed a limit are refused
// before admission, with the reason, and leave nothing behind.
TEST_F(DaemonTest, MalformedOversizedAndMismatchedUploadsAreRefused) {
  const std::uint64_t seed = test_seed("bad uploads");
  const std::string name = d().register_synthetic(120, 2, seed);
  const std::string other = d().register_synthetic(64, 1, seed + 1);
  const groth16::Witness w = synthetic_witness(120, 2, seed);
  const std::string q = "circuit=" + percent_encoded(name);
  const std::vector<std::uint8_t> good = assignment_bytes(w);

  auto refused = [&](int want, const std::string& query, const std::vector<std::uint8_t>& bytes,
                     const std::string& says) {
    SCOPED_TRACE(query + " expecting " + says);
    const auto [status, body] = d().upload(query, bytes);
    EXPECT_EQ(status, want) << body.dump();
    EXPECT_NE(body.value("error", "").find(says), std::string::npos) << body.dump();
  };
  std::vector<std::uint8_t> short_one(good.begin(), good.end() - 32);
  refused(400, q + "&format=assignment", short_one, "bytes");
  std::vector<std::uint8_t> above_r = good;
  for (int i = 0; i < 32; ++i) above_r[good.size() - 32 + std::size_t(i)] = 0xff;  // the last aux value >= r
  refused(400, q + "&format=assignment", above_r, "not below r");
  std::vector<std::uint8_t> no_one = good;
  no_one[0] = 2;
  refused(400, q + "&format=assignment", no_one, "ONE");
  refused(400, q + "&format=assignment&partitions=2", good, "bytes");
  std::vector<std::uint8_t> packed = service::encode_packed(w);
  std::vector<std::uint8_t> overlapping = packed;
  const std::size_t words = (w.aux.size() + 63) / 64, bitmaps = w.inputs.size() * 32;
  for (std::size_t i = 0; i < 8 * words; ++i) overlapping[bitmaps + 8 * words + i] |= overlapping[bitmaps + i];
  if (overlapping != packed) refused(400, q + "&format=packed", overlapping, "overlap");
  std::vector<std::uint8_t> past_end = packed;
  past_end[bitmaps + 8 * words - 1] |= 0x80;  // bit 63 of the last general word, past num_aux
  if (w.aux.size() % 64) refused(400, q + "&format=packed", past_end, "past num_aux");
  std::vector<std::uint8_t> truncated(packed.begin(), packed.end() - 1);
  refused(400, q + "&format=packed", truncated, "ends early");
  std::vector<std::uint8_t> trailing = packed;
  trailing.push_back(0);
  refused(400, q + "&format=packed", trailing, "after the last partition");
  refused(400, q + "&format=wtns", good, "wtns");
  refused(400, "circuit=" + percent_encoded(other) + "&format=wtns", wtns_bytes(w, d().state_dir()), "values");
  refused(400, q + "&format=json", good, "format");
  refused(400, q + "&format=assignment&witness=x", good, "unknown parameter");
  refused(400, "circuit=nope&format=assignment", good, "unknown circuit");
  refused(400, q + "&format=wtns&partitions=2", good, "one partition");
  // Chunked (no Content-Length) is checked the same way.
  {
    httplib::Client c("127.0.0.1", d().port());
    std::size_t at = 0;
    const httplib::Result r = c.Post(("/v1/jobs?" + q + "&format=assignment").c_str(),
                                     [&](std::size_t, httplib::DataSink& sink) {
                                       if (at >= above_r.size()) {
                                         sink.done();
                                         return true;
                                       }
                                       const std::size_t n = std::min<std::size_t>(1000, above_r.size() - at);
                                       sink.write(reinterpret_cast<const char*>(above_r.data() + at), n);
                                       at += n;
                                       return true;
                                     },
                                     "application/octet-stream");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400) << r->body;
    EXPECT_NE(r->body.find("not below r"), std::string::npos) << r->body;
  }
  EXPECT_EQ(d().call("GET", "/v1/jobs").second["jobs"].size(), 0u);
  EXPECT_EQ(files_in(d().state_dir() / "witnesses"), 0u);
  EXPECT_EQ(files_in(d().state_dir() / "incoming"), 0u);
  // The right one is still admitted.
  const auto [status, body] = d().upload(q + "&format=assignment", good);
  ASSERT_EQ(status, 200) << body.dump();
  EXPECT_EQ(d().wait_done(body["id"]).value("state", ""), "done");
}

TEST(DaemonLimits, UploadsOverTheDaemonsLimitAre413WhateverTheFraming) {
  service::ServiceOptions o = options_in(fresh_dir("limit"));
  o.max_upload_bytes = 4096;
  Daemon d(o);
  const std::uint64_t seed = test_seed("upload limit");
  const std::string name = d.register_synthetic(200, 2, seed);
  const std::vector<std::uint8_t> bytes = assignment_bytes(synthetic_witness(200, 2, seed));
  ASSERT_GT(bytes.size(), 4096u);
  const auto [status, body] = d.upload("circuit=" + percent_encoded(name) + "&format=assignment", bytes);
  EXPECT_EQ(status, 413) << body.dump();
  httplib::Client c("127.0.0.1", d.port());
  std::size_t sent = 0;
  const httplib::Result r = c.Post(("/v1/jobs?circuit=" + percent_encoded(name) + "&format=assignment").c_str(),
                                   [&](std::size_t, httplib::DataSink& sink) {
                                     if (sent + 1024 > bytes.size()) {
                                       sink.done();
                                       return true;
                                     }
                                     sent += 1024;
                                     return sink.write(reinterpret_cast<const char*>(bytes.data() + sent - 1024), 1024);
                                   },
                                   "application/octet-stream");
  if (r) {
    EXPECT_EQ(r->status, 413) << r->body;  // or the daemon closed the connection on it
  }
  EXPECT_EQ(files_in(d.state_dir() / "incoming"), 0u);
  EXPECT_EQ(files_in(d.state_dir() / "witnesses"), 0u);
  EXPECT_EQ(d.call("GET", "/v1/status").first, 200);
}

// A client that goes away in the middle of its upload leaves no job and no file.
TEST_F(DaemonTest, AClientDisconnectingMidUploadAdmitsNothing) {
  const std::uint64_t seed = test_seed("disconnect");
  const std::string name = d().register_synthetic(400, 2, seed);
  const std::vector<std::uint8_t> bytes = assignment_bytes(synthetic_witness(400, 2, seed));
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(std::uint16_t(d().port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  const std::string head = "POST /v1/jobs?circuit=" + percent_encoded(name) +
                           "&format=assignment HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\n"
                           "Content-Length: " +
                           std::to_string(bytes.size()) + "\r\n\r\n";
  ASSERT_EQ(::send(fd, head.data(), head.size(), 0), ssize_t(head.size()));
  ASSERT_EQ(::send(fd, bytes.data(), bytes.size() / 2, 0), ssize_t(bytes.size() / 2));
  // The daemon is receiving it now: the upload is in incoming/.
  const auto t0 = std::chrono::steady_clock::now();
  while (files_in(d().state_dir() / "incoming") == 0 && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5))
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(files_in(d().state_dir() / "incoming"), 1u);
  ::close(fd);
  while (files_in(d().state_dir() / "incoming") != 0 &&
         std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10))
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(files_in(d().state_dir() / "incoming"), 0u);
  EXPECT_EQ(files_in(d().state_dir() / "witnesses"), 0u);
  EXPECT_EQ(d().call("GET", "/v1/jobs").second["jobs"].size(), 0u);
  EXPECT_EQ(d().call("GET", "/v1/status").first, 200);
}

TEST_F(DaemonTest, BadRequestsAreAnswered400AndUnknownJobs404) {
  const std::string name = d().register_synthetic(100, 2, test_seed("bad requests"));
  auto expect = [&](int want, const std::string& method, const std::string& path, const std::string& body) {
    const auto [status, reply] = d().call(method, path, body);
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
  expect(400, "POST", "/v1/circuits", R"({"zkey": "/x.zkey", "r1cs": "/x.r1cs"})");
  // Fields the daemon does not take are errors, not silently ignored.
  expect(400, "POST", "/v1/jobs", R"({"circuit": ")" + name + R"(", "witness": "/path/w.wtns"})");
  expect(404, "GET", "/v1/circuits/no-such-circuit", "");
  expect(404, "GET", "/v1/jobs/999", "");
  expect(404, "GET", "/v1/jobs/abc", "");
  expect(404, "GET", "/v1/jobs/99999999999999999999999", "");
  expect(404, "GET", "/v1/jobs/999/wait", "");
  expect(404, "DELETE", "/v1/jobs/999", "");
  expect(404, "GET", "/v2/nothing", "");
  EXPECT_EQ(d().call("GET", "/v1/status").first, 200);
}

std::size_t status_kib(const char* field) {  // VmRSS / VmHWM of this process
  std::ifstream f("/proc/self/status");
  for (std::string line; std::getline(f, line);)
    if (line.rfind(field, 0) == 0) return std::stoul(line.substr(std::strlen(field)));
  return 0;
}

// A JSON body over the limit is refused whatever its framing, and not read whole.
TEST_F(DaemonTest, OversizedJsonBodiesAreRefusedWithoutBeingReadWhole) {
  const std::string big(2 * MiB, ' ');
  const auto [status, reply] = d().call("POST", "/v1/jobs", "{\"circuit\": \"x\"}" + big);
  EXPECT_EQ(status, 413) << reply.dump();
  EXPECT_NE(reply.value("error", "").find("limit"), std::string::npos) << reply.dump();

  const std::size_t peak_before = status_kib("VmHWM:");
  const std::string chunk(64 * 1024, ' ');
  std::size_t sent = 0;
  httplib::Client chunked("127.0.0.1", d().port());
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
  if (r) {
    EXPECT_EQ(r->status, 413) << r->body;
  }
  EXPECT_LT(status_kib("VmHWM:"), peak_before + 64 * 1024) << "the daemon read the chunked body whole";
  EXPECT_EQ(d().call("GET", "/v1/status").first, 200);
}

TEST_F(DaemonTest, ErrorsDoNotEchoWholeBodies) {
  const std::string name(100'000, 'n');
  const auto [status, reply] = d().call("POST", "/v1/jobs", json{{"circuit", name}}.dump());
  EXPECT_EQ(status, 400);
  const std::string error = reply.value("error", "");
  EXPECT_NE(error.find("unknown circuit"), std::string::npos) << error.substr(0, 200);
  EXPECT_LT(error.size(), 400u);
  EXPECT_NE(error.find("more bytes"), std::string::npos) << error.substr(0, 400);
}

// Clients that open connections and stall their headers do not starve the daemon.
TEST_F(DaemonTest, StalledClientsDoNotStarveTheOthers) {
  std::vector<int> stalled;
  for (int i = 0; i < 48; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(std::uint16_t(d().port()));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ASSERT_EQ(::send(fd, "G", 1, 0), 1);  // one byte of a request line, then nothing
    stalled.push_back(fd);
  }
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(d().call("GET", "/v1/status").first, 200);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(3));
  for (int fd : stalled) ::close(fd);
}

// An idempotency key returns the first job for the same request and is refused for another.
TEST_F(DaemonTest, IdempotencyKeysAreBoundToTheirRequest) {
  const std::uint64_t seed = test_seed("idempotency");
  const std::string name = d().register_synthetic(100, 2, seed);
  const json first = {{"circuit", name}, {"seed", 5}, {"idempotency_key", "sector-17"}};
  const std::uint64_t id = d().submit(first);
  EXPECT_EQ(d().submit(first), id);
  json other = first;
  other["seed"] = 6;
  const auto [status, reply] = d().call("POST", "/v1/jobs", other.dump());
  EXPECT_EQ(status, 400) << reply.dump();
  EXPECT_NE(reply.value("error", "").find("idempotency_key"), std::string::npos) << reply.dump();
  other["priority"] = "high";
  other["seed"] = 5;
  EXPECT_EQ(d().call("POST", "/v1/jobs", other.dump()).first, 400);
  // An upload's key is bound to its bytes.
  const groth16::Witness w = synthetic_witness(100, 2, seed);
  const std::string q = "circuit=" + percent_encoded(name) + "&format=assignment&idempotency_key=up-1";
  const auto a = d().upload(q, assignment_bytes(w));
  ASSERT_EQ(a.first, 200) << a.second.dump();
  const auto again = d().upload(q, assignment_bytes(w));
  EXPECT_EQ(again.second["id"], a.second["id"]);
  groth16::Witness changed = w;
  changed.aux[0] += ff::Fr::one();
  EXPECT_EQ(d().upload(q, assignment_bytes(changed)).first, 400);
  EXPECT_EQ(d().wait_done(id).value("state", ""), "done");
  EXPECT_EQ(d().wait_done(a.second["id"]).value("state", ""), "done");
}

TEST_F(DaemonTest, CancelsQueuedAndRunningJobs) {
  const std::string name = d().register_synthetic(2000, 2, test_seed("cancel"));
  // One synthesis and one device worker: the second job waits behind the first's partitions.
  const std::uint64_t running = d().submit({{"circuit", name}, {"partitions", 40}});
  const std::uint64_t waiting = d().submit({{"circuit", name}, {"partitions", 2}, {"priority", "low"}});
  const auto [status, cancelled] = d().call("DELETE", "/v1/jobs/" + std::to_string(waiting));
  EXPECT_EQ(status, 200);
  EXPECT_EQ(cancelled.value("cancelled", false), true) << cancelled.dump();
  const json after = d().call("GET", "/v1/jobs/" + std::to_string(waiting)).second;
  EXPECT_EQ(after.value("state", ""), "cancelled");
  EXPECT_FALSE(after.contains("proofs"));

  const auto t0 = std::chrono::steady_clock::now();
  json r;
  do {
    r = d().call("GET", "/v1/jobs/" + std::to_string(running)).second;
  } while (r.value("state", "") == "queued" && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));
  ASSERT_EQ(r.value("state", ""), "running") << r.dump();
  EXPECT_EQ(d().call("DELETE", "/v1/jobs/" + std::to_string(running)).second.value("cancelled", false), true);
  const json gone = d().wait_done(running);
  EXPECT_EQ(gone.value("state", ""), "cancelled");
  EXPECT_FALSE(gone.contains("proofs"));
  EXPECT_EQ(d().call("GET", "/v1/status").second["jobs"]["cancelled"], 2);
  // Cancelling a finished job changes nothing, and the daemon goes on proving.
  const std::uint64_t next = d().submit({{"circuit", name}});
  EXPECT_EQ(d().wait_done(next).value("state", ""), "done");
  EXPECT_EQ(d().call("DELETE", "/v1/jobs/" + std::to_string(next)).second.value("cancelled", true), false);
  EXPECT_EQ(d().call("GET", "/v1/jobs/" + std::to_string(next)).second.value("state", ""), "done");
}

TEST_F(DaemonTest, StatusAndMetricsCountTheProofs) {
  const std::string name = d().register_synthetic(100, 2, test_seed("status"));
  ASSERT_EQ(d().wait_done(d().submit({{"circuit", name}, {"partitions", 2}})).value("state", ""), "done");
  const json status = d().call("GET", "/v1/status").second;
  EXPECT_EQ(status["ready"], true);
  EXPECT_EQ(status["proofs"]["partitions_proved"], 2);
  EXPECT_EQ(status["jobs"]["done"], 1);
  EXPECT_EQ(status["partitions_queued"], 0);
  ASSERT_EQ(status["devices"].size(), 1u);
  EXPECT_EQ(status["devices"][0]["in_service"], true);

  httplib::Client c("127.0.0.1", d().port());
  const httplib::Result r = c.Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  for (const char* line :
       {"# TYPE snarkpipe_proofs_total counter\n", "\nsnarkpipe_proofs_total 2\n", "\nsnarkpipe_partitions_queued 0\n",
        "\nsnarkpipe_jobs{state=\"done\"} 1\n", "\nsnarkpipe_device_in_service{device=\"0\",name=\"cpu\"} 1\n"})
    EXPECT_NE(r->body.find(line), std::string::npos) << "no " << line << " in\n" << r->body;
}

// The long poll answers when the job finishes, and at its timeout before that.
TEST_F(DaemonTest, WaitAnswersWhenTheJobFinishes) {
  const std::string name = d().register_synthetic(1000, 2, test_seed("wait"));
  const std::uint64_t id = d().submit({{"circuit", name}, {"partitions", 4}});
  const auto t0 = std::chrono::steady_clock::now();
  const json early = d().call("GET", "/v1/jobs/" + std::to_string(id) + "/wait?timeout_s=0").second;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
  EXPECT_TRUE(early.value("state", "") == "queued" || early.value("state", "") == "running") << early.dump();
  EXPECT_EQ(d().call("GET", "/v1/jobs/" + std::to_string(id) + "/wait?timeout=3").first, 400);
  const json done = d().call("GET", "/v1/jobs/" + std::to_string(id) + "/wait?timeout_s=60").second;
  EXPECT_EQ(done.value("state", ""), "done") << done.dump();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
}

// Server-sent events: progress as the partitions are synthesized, then the finished job.
TEST_F(DaemonTest, EventsReportProgressThenTheFinishedJob) {
  const std::string name = d().register_synthetic(12000, 2, test_seed("events"));
  const std::uint64_t id = d().submit({{"circuit", name}, {"partitions", 6}});
  httplib::Client c("127.0.0.1", d().port());
  c.set_read_timeout(60, 0);
  std::string stream;
  const httplib::Result r =
      c.Get(("/v1/jobs/" + std::to_string(id) + "/events").c_str(), [&](const char* data, std::size_t n) {
        stream.append(data, n);
        return true;
      });
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->get_header_value("Content-Type").find("text/event-stream"), std::string::npos);
  std::vector<std::pair<std::string, json>> events;
  for (std::size_t at = 0; (at = stream.find("event: ", at)) != std::string::npos;) {
    const std::size_t nl = stream.find('\n', at), data = stream.find("data: ", nl), end = stream.find("\n\n", data);
    ASSERT_NE(end, std::string::npos) << stream;
    events.emplace_back(stream.substr(at + 7, nl - at - 7), json::parse(stream.substr(data + 6, end - data - 6)));
    at = end;
  }
  ASSERT_GE(events.size(), 2u) << stream;
  std::size_t synthesized = 0, proved = 0;
  std::set<std::size_t> proved_seen;
  for (std::size_t i = 0; i + 1 < events.size(); ++i) {
    EXPECT_EQ(events[i].first, "progress");
    const std::size_t now = events[i].second.value("partitions_synthesized", std::size_t(0));
    const std::size_t now_proved = events[i].second.value("partitions_proved", std::size_t(0));
    EXPECT_GE(now, synthesized);
    EXPECT_GE(now_proved, proved);
    EXPECT_LE(now_proved, now);  // a partition is proved only after its witness is loaded
    EXPECT_LE(now_proved, 6u);
    synthesized = now;
    proved = now_proved;
    if (events[i].second.contains("partitions_proved")) proved_seen.insert(now_proved);
  }
  // Partitions are reported as each is proved, not only at the end: the stream shows counts
  // between none and all (each partition here takes far longer than the stream's 100 ms poll).
  EXPECT_TRUE(std::any_of(proved_seen.begin(), proved_seen.end(), [](std::size_t n) { return n > 0 && n < 6; }))
      << stream;
  EXPECT_EQ(events.back().first, "done");
  EXPECT_EQ(events.back().second.value("partitions_proved", 0), 6);
  expect_proofs_verify(events.back().second, d().served_vk(name), 6);
  EXPECT_EQ(d().call("GET", "/v1/jobs/" + std::to_string(id)).second.value("partitions_proved", 0), 6);
  EXPECT_EQ(d().call("GET", "/v1/jobs/999/events").first, 404);
}

// 200 clients at once, each submitting and waiting: every job done once, every proof valid.
TEST_F(DaemonTest, TwoHundredConcurrentClients) {
  const std::uint64_t seed = test_seed("200 clients");
  const std::string name = d().register_synthetic(40, 1, seed);
  const auto pvk = d().served_vk(name);
  const groth16::Witness w = synthetic_witness(40, 1, seed);
  constexpr int CLIENTS = 200;
  std::vector<json> results(CLIENTS);
  std::vector<std::thread> threads;
  std::atomic<int> refused{0};
  for (int i = 0; i < CLIENTS; ++i)
    threads.emplace_back([&, i] {
      httplib::Client c("127.0.0.1", d().port());
      c.set_read_timeout(120, 0);
      httplib::Result r =
          i % 2 ? c.Post("/v1/jobs", json{{"circuit", name}, {"seed", i}}.dump(), "application/json") : [&] {
            const auto bytes = assignment_bytes(w);
            return c.Post(("/v1/jobs?format=assignment&circuit=" + percent_encoded(name)).c_str(),
                          std::string(bytes.begin(), bytes.end()), "application/octet-stream");
          }();
      if (!r || r->status != 200) {
        ++refused;
        std::fprintf(stderr, "client %d: %s\n", i, r ? r->body.c_str() : httplib::to_string(r.error()).c_str());
        return;
      }
      const std::uint64_t id = json::parse(r->body)["id"];
      for (int polls = 0; polls < 20; ++polls) {
        r = c.Get(("/v1/jobs/" + std::to_string(id) + "/wait?timeout_s=30").c_str());
        if (!r) break;
        results[std::size_t(i)] = json::parse(r->body);
        if (results[std::size_t(i)].value("state", "") == "done") break;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(refused.load(), 0);
  std::set<std::uint64_t> ids;
  for (const json& r : results) {
    ASSERT_EQ(r.value("state", ""), "done") << r.dump();
    ids.insert(r["id"].get<std::uint64_t>());
    expect_proofs_verify(r, pvk, 1);
  }
  EXPECT_EQ(ids.size(), std::size_t(CLIENTS));
}

// Jobs outlive the process: a new daemon over the same state directory runs again what was
// queued (and running), and keeps what was done, with the same proofs and the same keys.
TEST(DaemonRestart, QueuedJobsRunAgainAndFinishedProofsStay) {
  const fs::path dir = fresh_dir("restart");
  const std::uint64_t seed = test_seed("restart");
  std::string name;
  json first_done;
  std::vector<std::uint64_t> pending;
  std::string vk_before;
  {
    Daemon d(options_in(dir));
    name = d.register_synthetic(1500, 2, seed);
    vk_before = d.call("GET", "/v1/circuits/" + percent_encoded(name)).second["vk"]["bellperson_hex"];
    first_done = d.wait_done(d.submit({{"circuit", name}}));
    ASSERT_EQ(first_done.value("state", ""), "done");
    const groth16::Witness w = synthetic_witness(1500, 2, seed);
    for (int i = 0; i < 6; ++i) {
      if (i % 2) pending.push_back(d.submit({{"circuit", name}, {"partitions", 3}, {"seed", i}}));
      else
        pending.push_back(
            d.upload("circuit=" + percent_encoded(name) + "&format=packed", service::encode_packed(w)).second["id"]);
    }
    // Destroyed without a drain, as a crash would leave it (the engine cancels what runs).
  }
  // The state directory may move between runs.
  const fs::path moved = dir.string() + "-moved";
  scratch_dirs().push_back(moved);
  fs::rename(dir, moved);
  std::ofstream(moved / "witnesses" / "orphan") << "an upload whose job was never stored";
  Daemon d(options_in(moved));
  EXPECT_FALSE(fs::exists(moved / "witnesses" / "orphan"));
  EXPECT_EQ(d.call("GET", "/v1/circuits/" + percent_encoded(name)).second["vk"]["bellperson_hex"], vk_before);
  const auto pvk = d.served_vk(name);
  EXPECT_EQ(d.call("GET", "/v1/jobs/" + first_done["id"].dump()).second["proofs"], first_done["proofs"]);
  for (std::size_t i = 0; i < pending.size(); ++i) {
    const json done = d.wait_done(pending[i]);
    expect_proofs_verify(done, pvk, i % 2 ? 3 : 1);
  }
  EXPECT_EQ(files_in(moved / "witnesses"), 0u);
}

// drain() lets running work finish within its deadline and leaves the rest queued for the next
// start; nothing is lost and nothing proved twice.
TEST(DaemonRestart, DrainRequeuesWhatItCannotFinish) {
  const fs::path dir = fresh_dir("drain");
  const std::uint64_t seed = test_seed("drain");
  std::vector<std::uint64_t> ids;
  std::string name;
  {
    Daemon d(options_in(dir));
    name = d.register_synthetic(1500, 2, seed);
    for (int i = 0; i < 5; ++i) ids.push_back(d.submit({{"circuit", name}, {"partitions", 4}, {"seed", i}}));
    const auto [finished, left] = d.svc().drain(std::chrono::milliseconds(50));
    EXPECT_GE(left, 4u);
    EXPECT_EQ(finished + left, 5u);
    EXPECT_EQ(d.call("POST", "/v1/jobs", json{{"circuit", name}}.dump()).first, 503);
  }
  Daemon d(options_in(dir));
  const auto pvk = d.served_vk(name);
  for (std::uint64_t id : ids) expect_proofs_verify(d.wait_done(id), pvk, 4);
  EXPECT_EQ(d.call("GET", "/v1/jobs").second["jobs"].size(), 5u);
}

TEST(DaemonRetention, FinishedJobsExpire) {
  service::ServiceOptions o = options_in(fresh_dir("retention"));
  o.retention = std::chrono::seconds(1);
  Daemon d(o);
  const std::string name = d.register_synthetic(60, 1, test_seed("retention"));
  const std::uint64_t id = d.submit({{"circuit", name}});
  ASSERT_EQ(d.wait_done(id).value("state", ""), "done");
  EXPECT_EQ(files_in(d.state_dir() / "proofs"), 1u);
  const auto t0 = std::chrono::steady_clock::now();
  while (d.call("GET", "/v1/jobs/" + std::to_string(id)).first == 200 &&
         std::chrono::steady_clock::now() - t0 < std::chrono::seconds(6))
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(d.call("GET", "/v1/jobs/" + std::to_string(id)).first, 404);
  EXPECT_EQ(files_in(d.state_dir() / "proofs"), 0u);
}

// Tokens: 401 without a valid one, 403 for what a token may not do, 413 and 429 past its own
// limits; each token sees only its jobs.
TEST(DaemonAccess, TokensAreCheckedAndLimitsHold) {
  const std::string admin_secret = service::random_name(), user_secret = service::random_name();
  service::ServiceOptions o = options_in(fresh_dir("auth"));
  o.tokens = {{"operator", service::sha256_hex(admin_secret), true, 16, 0},
              {"client", service::sha256_hex(user_secret), false, 1, 8192}};
  Daemon d(o);
  auto status_with = [&](const std::string& auth, const std::string& method, const std::string& path,
                         const std::string& body = "") {
    httplib::Client c("127.0.0.1", d.port());
    httplib::Headers h;
    if (!auth.empty()) h.emplace("Authorization", auth);
    const httplib::Result r = method == "GET"   ? c.Get(path.c_str(), h)
                              : method == "PUT" ? c.Put(path.c_str(), h, body, "application/octet-stream")
                                                : c.Post(path.c_str(), h, body, "application/json");
    EXPECT_TRUE(r);
    if (r && r->status == 401) {
      EXPECT_EQ(r->get_header_value("WWW-Authenticate"), "Bearer");
    }
    if (r && r->status != 200) {
      EXPECT_FALSE(json::parse(r->body).value("error", "").empty()) << r->body;
    }
    return r ? r->status : 0;
  };
  EXPECT_EQ(status_with("", "GET", "/v1/circuits"), 401);
  EXPECT_EQ(status_with("Bearer " + service::random_name(), "GET", "/v1/circuits"), 401);
  EXPECT_EQ(status_with("Basic " + admin_secret, "GET", "/v1/circuits"), 401);
  EXPECT_EQ(status_with("Bearer", "GET", "/v1/jobs"), 401);
  EXPECT_EQ(status_with("", "POST", "/v1/jobs", "{}"), 401);
  EXPECT_EQ(status_with("", "GET", "/v1/status"), 200);  // health checks need no token
  EXPECT_EQ(status_with("Bearer " + user_secret, "POST", "/v1/circuits", R"({"type": "synthetic"})"), 403);
  // Circuit files are uploaded by admin tokens only, and nothing of a refused one is kept.
  EXPECT_EQ(status_with("", "PUT", "/v1/circuits/x/files/params", "not a key"), 401);
  EXPECT_EQ(status_with("Bearer " + user_secret, "PUT", "/v1/circuits/x/files/params", "not a key"), 403);
  EXPECT_EQ(status_with("Bearer " + admin_secret, "PUT", "/v1/circuits/x/files/params", "not a key"), 400);
  EXPECT_EQ(files_in(d.state_dir() / "incoming"), 0u);

  const std::uint64_t seed = test_seed("auth");
  d.set_token(admin_secret);
  const std::string name = d.register_synthetic(1500, 2, seed);
  const std::uint64_t operators = d.submit({{"circuit", name}, {"partitions", 8}});

  d.set_token(user_secret);
  EXPECT_EQ(d.call("GET", "/v1/jobs/" + std::to_string(operators)).first, 404);  // not its job
  EXPECT_EQ(d.call("DELETE", "/v1/jobs/" + std::to_string(operators)).first, 404);
  EXPECT_EQ(d.call("GET", "/v1/jobs").second["jobs"].size(), 0u);
  const auto big = d.upload("circuit=" + percent_encoded(name) + "&format=assignment",
                            assignment_bytes(synthetic_witness(1500, 2, seed)));
  EXPECT_EQ(big.first, 413) << big.second.dump();
  const std::uint64_t mine = d.submit({{"circuit", name}, {"priority", "low"}});
  const auto [too_many, why] = d.call("POST", "/v1/jobs", json{{"circuit", name}}.dump());
  EXPECT_EQ(too_many, 429) << why.dump();
  EXPECT_EQ(d.call("GET", "/v1/jobs").second["jobs"].size(), 1u);
  EXPECT_EQ(d.wait_done(mine).value("state", ""), "done");
  EXPECT_EQ(d.call("POST", "/v1/jobs", json{{"circuit", name}}.dump()).first, 200);  // room again
  d.set_token(admin_secret);
  EXPECT_EQ(d.call("GET", "/v1/jobs").second["jobs"].size(), 3u);  // the operator sees all
  EXPECT_EQ(d.wait_done(operators).value("state", ""), "done");
}

// A circuit registered from files (a bellperson .params and a .snkr1cs) proves uploaded
// witnesses, serves the file's verifying key, and is refused when the files do not fit.
TEST(DaemonFiles, CircuitsRegisterFromFilesByPath) {
  const fs::path dir = fresh_dir("files");
  const std::uint64_t seed = test_seed("files");
  const auto keys = engine::record_and_setup("f", std::make_shared<gadgets::SyntheticCircuit>(250, 2, seed))();
  const auto other = engine::record_and_setup("g", std::make_shared<gadgets::SyntheticCircuit>(250, 3, seed))();
  fs::create_directories(dir / "keys");
  groth16::write_params((dir / "keys/c.params").string(), keys->pk);
  circuit::write_r1cs(dir / "keys/c.snkr1cs", keys->r1cs);
  circuit::write_r1cs(dir / "keys/other.snkr1cs", other->r1cs);
  groth16::write_params((dir / "outside.params").string(), keys->pk);

  service::ServiceOptions o = options_in(dir / "state");
  o.circuit_roots = {dir / "keys"};
  json served;
  {
    Daemon d(o);
    const auto reg = [&](const json& body) { return d.call("POST", "/v1/circuits", body.dump()); };
    const auto [status, body] = reg(
        {{"name", "mine"}, {"params", (dir / "keys/c.params").string()}, {"r1cs", (dir / "keys/c.snkr1cs").string()}});
    ASSERT_EQ(status, 200) << body.dump();
    EXPECT_EQ(reg({{"name", "mine"},
                   {"params", (dir / "keys/c.params").string()},
                   {"r1cs", (dir / "keys/c.snkr1cs").string()}})
                  .second.value("created", true),
              false);
    EXPECT_EQ(reg({{"name", "bad"},
                   {"params", (dir / "keys/c.params").string()},
                   {"r1cs", (dir / "keys/other.snkr1cs").string()}})
                  .first,
              400);
    EXPECT_EQ(reg({{"name", "out"},
                   {"params", (dir / "outside.params").string()},
                   {"r1cs", (dir / "keys/c.snkr1cs").string()}})
                  .first,
              403);
    EXPECT_EQ(reg({{"name", "none"},
                   {"params", (dir / "keys/nothing.params").string()},
                   {"r1cs", (dir / "keys/c.snkr1cs").string()}})
                  .first,
              400);
    EXPECT_EQ(reg({{"name", "mine2"},
                   {"params", (dir / "keys/c.params").string()},
                   {"r1cs", (dir / "keys/c.snkr1cs").string()},
                   {"x", 1}})
                  .first,
              400);
    // Seeded witnesses are for built-in circuits only.
    EXPECT_EQ(d.call("POST", "/v1/jobs", R"({"circuit": "mine"})").first, 400);
    const auto pvk = d.served_vk("mine", &served);
    EXPECT_EQ(pvk.ic, keys->pk.vk.ic);
    const groth16::Witness w = synthetic_witness(250, 2, seed);
    const auto up = d.upload("circuit=mine&format=wtns", wtns_bytes(w, dir));
    ASSERT_EQ(up.first, 200) << up.second.dump();
    expect_proofs_verify(d.wait_done(up.second["id"]), pvk, 1);
  }
  // Restored at the next start, from the same files.
  Daemon d(o);
  EXPECT_EQ(d.call("GET", "/v1/circuits/mine").second["vk"], served["vk"]);
}

// A client connected to the daemon's port on loopback, speaking raw HTTP (to break off mid-body).
int connect_loopback(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(std::uint16_t(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool wait_until(const std::function<bool()>& done, std::chrono::seconds limit) {
  const auto t0 = std::chrono::steady_clock::now();
  while (!done()) {
    if (std::chrono::steady_clock::now() - t0 > limit) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// Circuits uploaded (PUT .../files/KIND, then POST naming the uploads): streamed into the
// spool, refused when truncated, oversized, of the wrong kind, broken off or mismatched,
// leaving nothing behind; a registered one proves, and is restored at the next start.
TEST(DaemonFiles, CircuitsUploadedThenRegistered) {
  const fs::path dir = fresh_dir("uploaded");
  const std::uint64_t seed = test_seed("uploaded circuit");
  const auto keys = engine::record_and_setup("u", std::make_shared<gadgets::SyntheticCircuit>(230, 2, seed))();
  const auto other = engine::record_and_setup("o", std::make_shared<gadgets::SyntheticCircuit>(230, 3, seed))();
  groth16::write_params((dir / "c.params").string(), keys->pk);
  circuit::write_r1cs(dir / "c.snkr1cs", keys->r1cs);
  circuit::write_r1cs(dir / "other.snkr1cs", other->r1cs);
  const std::vector<std::uint8_t> params = read_bytes(dir / "c.params"), r1cs = read_bytes(dir / "c.snkr1cs"),
                                  other_r1cs = read_bytes(dir / "other.snkr1cs");
  service::ServiceOptions o = options_in(dir / "state");
  o.circuit_roots = {dir / "nowhere"};  // by path, nothing here registers: uploads need no root
  o.max_circuit_file_bytes = std::max(params.size(), r1cs.size());
  const fs::path uploads = dir / "state" / "circuits" / "uploads";
  const auto put = [](Daemon& d, const std::string& path, const std::vector<std::uint8_t>& bytes) {
    return d.call("PUT", path, std::string(bytes.begin(), bytes.end()), "application/octet-stream");
  };
  const auto nothing_left = [&] {
    EXPECT_EQ(files_in(dir / "state" / "incoming"), 0u);
    EXPECT_TRUE(!fs::exists(uploads) || files_in(uploads) == 0u);
  };
  json served;
  {
    Daemon d(o);
    auto refused = [&](int want, const std::string& path, const std::vector<std::uint8_t>& bytes,
                       const std::string& says) {
      SCOPED_TRACE(path + " expecting " + says);
      const auto [status, body] = put(d, path, bytes);
      EXPECT_EQ(status, want) << body.dump();
      EXPECT_NE(body.value("error", "").find(says), std::string::npos) << body.dump();
    };
    refused(400, "/v1/circuits/up/files/params", std::vector<std::uint8_t>(params.begin(), params.end() - 100),
            "truncated");
    refused(400, "/v1/circuits/up/files/r1cs", std::vector<std::uint8_t>(r1cs.begin(), r1cs.begin() + r1cs.size() / 2),
            "r1cs");
    refused(400, "/v1/circuits/up/files/r1cs", params, "neither");
    refused(400, "/v1/circuits/up/files/zkey", r1cs, "zkey");
    refused(404, "/v1/circuits/up/files/wasm", r1cs, "kind");
    std::vector<std::uint8_t> oversized(o.max_circuit_file_bytes + 1, 0x5a);
    refused(413, "/v1/circuits/up/files/params", oversized, "limit");
    // Chunked, so only the bytes tell: refused once past the limit (or the connection closed on it).
    {
      httplib::Client c("127.0.0.1", d.port());
      std::size_t sent = 0;
      const httplib::Result r = c.Put(
          "/v1/circuits/up/files/params",
          [&](std::size_t, httplib::DataSink& sink) {
            if (sent >= oversized.size()) {
              sink.done();
              return true;
            }
            const std::size_t n = std::min<std::size_t>(4096, oversized.size() - sent);
            sent += n;
            return sink.write(reinterpret_cast<const char*>(oversized.data() + sent - n), n);
          },
          "application/octet-stream");
      if (r) {
        EXPECT_EQ(r->status, 413) << r->body;
      }
    }
    nothing_left();
    // A client that goes away mid-upload: the partial file is dropped.
    {
      const int fd = connect_loopback(d.port());
      ASSERT_GE(fd, 0);
      const std::string head =
          "PUT /v1/circuits/up/files/params HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\n"
          "Content-Length: " +
          std::to_string(params.size()) + "\r\n\r\n";
      ASSERT_EQ(::send(fd, head.data(), head.size(), 0), ssize_t(head.size()));
      ASSERT_EQ(::send(fd, params.data(), params.size() / 2, 0), ssize_t(params.size() / 2));
      EXPECT_TRUE(wait_until([&] { return files_in(dir / "state" / "incoming") == 1; }, std::chrono::seconds(5)));
      ::close(fd);
      EXPECT_TRUE(wait_until([&] { return files_in(dir / "state" / "incoming") == 0; }, std::chrono::seconds(10)));
    }
    nothing_left();
    EXPECT_EQ(d.call("GET", "/v1/status").first, 200);

    // By path it is refused (outside the roots); uploaded it registers.
    EXPECT_EQ(
        d.call("POST", "/v1/circuits",
               json{{"name", "up"}, {"params", (dir / "c.params").string()}, {"r1cs", (dir / "c.snkr1cs").string()}}
                   .dump())
            .first,
        403);
    const auto uploaded = put(d, "/v1/circuits/up/files/params", params);
    ASSERT_EQ(uploaded.first, 200) << uploaded.second.dump();
    EXPECT_EQ(uploaded.second.value("bytes", 0u), params.size());
    EXPECT_EQ(uploaded.second.value("sha256", ""), service::sha256_hex(std::string(params.begin(), params.end())));
    const std::string upload_body = json{{"name", "up"}, {"uploaded", {"params", "r1cs"}}}.dump();
    const auto early = d.call("POST", "/v1/circuits", upload_body);
    EXPECT_EQ(early.first, 400);
    EXPECT_NE(early.second.value("error", "").find("no uploaded r1cs"), std::string::npos) << early.second.dump();
    // The wrong circuit's r1cs does not fit the key: refused at registration.
    ASSERT_EQ(put(d, "/v1/circuits/up/files/r1cs", other_r1cs).first, 200);
    EXPECT_EQ(d.call("POST", "/v1/circuits", upload_body).first, 400);
    EXPECT_EQ(d.call("GET", "/v1/circuits/up").first, 404);
    // Uploaded again, the right one replaces it.
    ASSERT_EQ(put(d, "/v1/circuits/up/files/r1cs", r1cs).first, 200);
    EXPECT_EQ(d.call("POST", "/v1/circuits", json{{"name", "up"}, {"uploaded", {"params"}}}.dump()).first, 400);
    const auto reg = d.call("POST", "/v1/circuits", upload_body);
    ASSERT_EQ(reg.first, 200) << reg.second.dump();
    EXPECT_EQ(reg.second.value("created", false), true);
    EXPECT_EQ(d.call("POST", "/v1/circuits", upload_body).second.value("created", true), false);
    EXPECT_EQ(put(d, "/v1/circuits/up/files/r1cs", r1cs).first, 409);  // in use now
    const auto pvk = d.served_vk("up", &served);
    EXPECT_EQ(pvk.ic, keys->pk.vk.ic);
    const groth16::Witness w = synthetic_witness(230, 2, seed);
    const auto job = d.upload("circuit=up&format=packed", service::encode_packed(w));
    ASSERT_EQ(job.first, 200) << job.second.dump();
    expect_proofs_verify(d.wait_done(job.second["id"]), pvk, 1);
    EXPECT_EQ(files_in(dir / "state" / "incoming"), 0u);
  }
  // Restored at the next start from the spool's copies.
  Daemon d(o);
  EXPECT_EQ(d.call("GET", "/v1/circuits/up").second["vk"], served["vk"]);
  const groth16::Witness w = synthetic_witness(230, 2, seed);
  const auto job = d.upload("circuit=up&format=wtns", wtns_bytes(w, dir));
  ASSERT_EQ(job.first, 200) << job.second.dump();
  expect_proofs_verify(d.wait_done(job.second["id"]), d.served_vk("up"), 1);
}

// The client side of uploads (snarkpipe register --upload): files streamed from disk, then
// registered by what was uploaded; the same files again change nothing.
TEST(DaemonFiles, TheClientUploadsAndRegistersACircuit) {
  const fs::path dir = fresh_dir("client-upload");
  const std::uint64_t seed = test_seed("client upload");
  const auto keys = engine::record_and_setup("c", std::make_shared<gadgets::SyntheticCircuit>(190, 1, seed))();
  groth16::write_params((dir / "k.params").string(), keys->pk);
  circuit::write_r1cs(dir / "k.snkr1cs", keys->r1cs);
  Daemon d(options_in(dir / "state"));
  service::Client client("http://127.0.0.1:" + std::to_string(d.port()), "");
  const json params = client.upload_circuit_file("from-client", "params", (dir / "k.params").string());
  EXPECT_EQ(params.value("bytes", 0u), fs::file_size(dir / "k.params"));
  client.upload_circuit_file("from-client", "r1cs", (dir / "k.snkr1cs").string());
  EXPECT_EQ(
      client.register_circuit({{"name", "from-client"}, {"uploaded", {"params", "r1cs"}}}).value("created", false),
      true);
  try {
    client.upload_circuit_file("from-client", "params", (dir / "k.params").string());
    ADD_FAILURE() << "a registered circuit's file was replaced";
  } catch (const service::ClientError& e) {
    EXPECT_EQ(e.status(), 409) << e.what();
  }
  const auto pvk = d.served_vk("from-client");
  EXPECT_EQ(pvk.ic, keys->pk.vk.ic);
  const groth16::Witness w = synthetic_witness(190, 1, seed);
  const auto job = d.upload("circuit=from-client&format=assignment", assignment_bytes(w));
  ASSERT_EQ(job.first, 200) << job.second.dump();
  expect_proofs_verify(d.wait_done(job.second["id"]), pvk, 1);
}

// docs/openapi.json describes exactly the routes the daemon serves, and each is there.
TEST_F(DaemonTest, OpenApiDocumentMatchesTheRoutes) {
  std::ifstream in(std::string(SNARKPIPE_SOURCE_DIR) + "/docs/openapi.json");
  ASSERT_TRUE(in) << "docs/openapi.json is missing";
  const json doc = json::parse(in);
  EXPECT_EQ(doc.value("openapi", "").substr(0, 2), "3.");
  std::set<std::string> documented;
  for (const auto& [path, item] : doc["paths"].items())
    for (const auto& [method, op] : item.items()) {
      std::string m = method;
      for (char& c : m) c = char(std::toupper(static_cast<unsigned char>(c)));
      documented.insert(m + " " + path);
      EXPECT_TRUE(op.contains("responses")) << m << " " << path;
    }
  const std::vector<std::string> served = service::Service::routes();
  EXPECT_EQ(documented, std::set<std::string>(served.begin(), served.end()));
  for (const std::string& route : served) {
    const auto space = route.find(' ');
    std::string method = route.substr(0, space), path = route.substr(space + 1);
    for (const auto& [tmpl, value] : {std::pair{std::string("{id}"), std::string("1")},
                                      {std::string("{name}"), std::string("x")},
                                      {std::string("{kind}"), std::string("params")}})
      if (const auto at = path.find(tmpl); at != std::string::npos) path.replace(at, tmpl.size(), value);
    httplib::Client c("127.0.0.1", d().port());
    const httplib::Result r = method == "GET"      ? c.Get(path.c_str())
                              : method == "DELETE" ? c.Delete(path.c_str())
                              : method == "PUT"    ? c.Put(path.c_str(), "", "application/octet-stream")
                                                   : c.Post(path.c_str(), "{}", "application/json");
    ASSERT_TRUE(r) << route;
    EXPECT_EQ(r->body.find("no route"), std::string::npos) << route << ": " << r->body;
  }
}

// HTTPS with the configured certificate: the client that trusts it gets answers; plain HTTP
// to the same port gets none.
TEST(DaemonTls, ServesHttpsWithTheConfiguredCertificate) {
  const fs::path dir = fresh_dir("tls");
  const std::string cert = (dir / "cert.pem").string(), key = (dir / "key.pem").string();
  const std::string cmd =
      "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 -keyout " +
      key + " -out " + cert + " > /dev/null 2>&1";
  if (std::system(cmd.c_str()) != 0) GTEST_SKIP() << "the openssl command is not installed";
  service::ServiceOptions o = options_in(dir / "state");
  o.tls_cert = cert;
  o.tls_key = key;
  Daemon d(o);
  httplib::SSLClient tls("127.0.0.1", d.port());
  tls.set_ca_cert_path(cert.c_str());
  tls.enable_server_certificate_verification(true);
  const httplib::Result r = tls.Get("/v1/status");
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 200);
  service::Client client("https://127.0.0.1:" + std::to_string(d.port()), "", cert);
  EXPECT_EQ(client.jobs()["jobs"].size(), 0u);
  httplib::Client plain("127.0.0.1", d.port());
  plain.set_read_timeout(2, 0);
  EXPECT_FALSE(plain.Get("/v1/status"));
  service::ServiceOptions bad = options_in(dir / "state2");
  bad.tls_cert = cert;
  bad.tls_key = (dir / "missing.pem").string();
  engine::Engine eng(small_config(), std::make_shared<engine::CpuBackendProvider>(), [](const std::string&) {});
  service::Service s(eng, {}, bad);
  EXPECT_THROW(s.start("127.0.0.1", 0), std::runtime_error);
}

TEST(DaemonConfig, ServiceSectionParsesAndRefusesUnknownKeys) {
  service::ServiceConfig c;
  service::apply_service_toml(c, R"(
[engine]
backend = "cpu"
[service]
listen = "0.0.0.0:9000"
state_dir = "/var/lib/snarkpipe"
retention = "2d"
shutdown_deadline = "90s"
max_upload = "1GiB"
circuit_roots = ["/srv/circuits"]
[[service.tokens]]
name = "op"
sha256 = "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855"
admin = true
max_jobs_in_flight = 3
max_upload = "2MiB"
)",
                              "test.toml");
  EXPECT_EQ(c.listen, "0.0.0.0:9000");
  EXPECT_EQ(c.options.retention, std::chrono::seconds(2 * 86400));
  EXPECT_EQ(c.options.shutdown_deadline, std::chrono::seconds(90));
  EXPECT_EQ(c.options.max_upload_bytes, std::uint64_t(1) << 30);
  ASSERT_EQ(c.options.tokens.size(), 1u);
  EXPECT_EQ(c.options.tokens[0].max_upload_bytes, 2 * MiB);
  EXPECT_EQ(service::find_token(c.options.tokens, ""), &c.options.tokens[0]);  // sha256("") above
  EXPECT_EQ(service::find_token(c.options.tokens, "x"), nullptr);
  EXPECT_TRUE(service::apply_service_override(c, "service.retention=3h"));
  EXPECT_EQ(c.options.retention, std::chrono::seconds(3 * 3600));
  EXPECT_FALSE(service::apply_service_override(c, "engine.backend=cpu"));
  EXPECT_THROW(service::apply_service_toml(c, "[service]\nretension = 5\n", "t"), engine::ConfigError);
  EXPECT_THROW(service::apply_service_toml(c, "[service]\nretention = \"5y\"\n", "t"), engine::ConfigError);
  EXPECT_THROW(service::apply_service_toml(c, "[[service.tokens]]\nname = \"a\"\nsha256 = \"12\"\n", "t"),
               engine::ConfigError);
  // The shipped file parses, engine and service tables alike.
  service::ServiceConfig shipped;
  EXPECT_NO_THROW(service::load_service_config(shipped, std::string(SNARKPIPE_SOURCE_DIR) + "/config/snarkpipe.toml"));
  EXPECT_NO_THROW(engine::load_config(std::string(SNARKPIPE_SOURCE_DIR) + "/config/snarkpipe.toml",
                                      engine::MachineFacts{2, 4096 * MiB}));
  EXPECT_TRUE(service::is_loopback(shipped.listen.substr(0, shipped.listen.rfind(':'))));
}

TEST(DaemonLifecycle, StopsRightAfterStartingAndRefusesATakenPort) {
  engine::Engine eng(small_config(), std::make_shared<engine::CpuBackendProvider>(), [](const std::string&) {});
  service::Service a(eng, {}, options_in(fresh_dir("life-a")));
  const int port = a.start("127.0.0.1", 0);
  service::Service b(eng, {}, options_in(fresh_dir("life-b")));
  EXPECT_THROW(b.start("127.0.0.1", port), std::runtime_error);
  a.stop();
  a.stop();
  // Without a factory, circuits come from files only.
  service::Service c(eng, {}, options_in(fresh_dir("life-c")));
  try {
    c.register_circuit(R"({"type": "synthetic"})");
    ADD_FAILURE() << "registered without a factory";
  } catch (const service::ApiError& e) {
    EXPECT_EQ(e.status(), 400);
  }
}

}  // namespace
