// `snarkpipe serve --db postgresql://...` as processes against a real PostgreSQL: hosts that
// share one queue (issue 26). A job submitted to one host is proved by partitions any host
// claims, found and served (with the same proofs) by every host; one idempotency key names one
// job across hosts; a host killed mid-partition loses nothing; priorities hold across hosts; the
// hosts go on after the database restarts; a host whose clock is skewed steals no live lease;
// witnesses travel in the row or through the shared folder; a host that reads another
// verifying key for a circuit does not prove it. Every proof is verified here, under the vk.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "base/hex.hpp"
#include "cluster/pg_connection.hpp"
#include "daemon_process.hpp"
#include "groth16/params_file.hpp"
#include "groth16/proof.hpp"
#include "groth16/verifier.hpp"
#include "postgres_fixture.hpp"
#include "service/sha256.hpp"
#include "test_seed.hpp"

namespace snarkpipe::cluster {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::Daemon;
using testing::PostgresServer;

// Runs a CLI command, failing the test on a non-zero exit.
void run_cli(const std::string& args) {
  const std::string command = std::string(SNARKPIPE_BINARY) + " " + args + " >/dev/null 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
}

struct Cluster : ::testing::Test {
  void SetUp() override {
    if (auto why = PostgresServer::unavailable_reason()) GTEST_SKIP() << *why;
    // The server is killed with the thread that started it: this one outlives the test.
    server = std::make_unique<PostgresServer>();
    const std::string conninfo = server->create_database();
    const auto at = conninfo.find("dbname=") + 7;
    uri = server->uri(conninfo.substr(at, conninfo.find(' ', at) - at));
    db_conninfo = conninfo;
    char tmpl[] = "/tmp/snarkpipe-cluster-serve-XXXXXX";
    dir = ::mkdtemp(tmpl);
    shared = dir / "shared";
    fs::create_directories(shared);
  }
  void TearDown() override {
    daemons.clear();
    std::error_code ec;
    if (!dir.empty()) fs::remove_all(dir, ec);
  }
  // A host with the cluster's shared folder and short leases (a lost host's partition returns
  // to the queue 3 s after its last heartbeat).
  Daemon& start(const std::string& host, std::vector<std::string> extra = {}, std::vector<std::string> env = {}) {
    std::vector<std::string> args = {"--set", "service.cluster_shared_dir=" + shared.string(), "--set",
                                     "service.cluster_lease=3s"};
    for (auto& a : extra) args.push_back(a);
    daemons.push_back(std::make_unique<Daemon>(uri, host, dir / host, args, env));
    return *daemons.back();
  }
  // The built-in synthetic circuit every host registers at start (the first host's keys).
  static std::vector<std::string> synthetic(std::uint64_t seed, const std::string& constraints = "2^10") {
    return {"--circuit", "synthetic", "--constraints", constraints, "--inputs", "2", "--seed", std::to_string(seed)};
  }
  PgResult sql(const std::string& statement) {
    PgConnection db({db_conninfo, std::chrono::milliseconds(20000)});
    return db.execute({"test_query", statement});
  }
  // Every proof of a done job verifies under the vk `host` serves for its circuit.
  void expect_verified(const Daemon& host, const json& job) {
    ASSERT_EQ(job.at("state"), "done") << job.dump();
    const json info = host.request("GET", "/v1/circuits/" + job.at("circuit").get<std::string>());
    const fs::path vk_file = dir / ("vk-" + std::to_string(job.at("id").get<std::int64_t>()));
    {
      const auto bytes = base::unhex(info.at("vk").at("bellperson_hex").get<std::string>());
      std::ofstream(vk_file, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    }
    const auto pvk = groth16::PreparedVerifyingKey::from(groth16::read_vk(vk_file.string()));
    ASSERT_EQ(job.at("proofs").size(), job.at("partitions").get<std::size_t>());
    for (std::size_t k = 0; k < job.at("proofs").size(); ++k) {
      const groth16::Proof proof = groth16::Proof::from_bytes(base::unhex(job.at("proofs")[k].get<std::string>()));
      std::vector<ff::Fr> inputs;
      for (const json& x : job.at("public_inputs")[k]) inputs.push_back(*ff::Fr::from_decimal(x.get<std::string>()));
      EXPECT_TRUE(groth16::verify(pvk, proof, inputs)) << "job " << job.at("id") << " partition " << k;
    }
  }
  std::unique_ptr<PostgresServer> server;
  std::string uri, db_conninfo;
  fs::path dir, shared;
  std::vector<std::unique_ptr<Daemon>> daemons;
};

std::string id_of(const json& submitted) { return std::to_string(submitted.at("id").get<std::int64_t>()); }

TEST_F(Cluster, AJobSubmittedToOneHostIsServedByAnotherWithItsProofs) {
  const std::uint64_t seed = test_seed("ClusterServe") % 1000000 + 1;
  const Daemon& a = start("host-a", synthetic(seed));
  const Daemon& b = start("host-b", synthetic(seed));
  const json circuits = a.request("GET", "/v1/circuits");
  ASSERT_EQ(circuits.at("circuits").size(), 1u) << circuits.dump();
  const std::string circuit = circuits.at("circuits")[0];

  const json submitted =
      a.request("POST", "/v1/jobs", json{{"circuit", circuit}, {"partitions", 2}, {"seed", seed}}.dump());
  ASSERT_EQ(submitted.at("http_status"), 200) << submitted.dump();
  const std::string id = std::to_string(submitted.at("id").get<std::int64_t>());
  const json done = a.request("GET", "/v1/jobs/" + id + "/wait?timeout_s=120");
  ASSERT_EQ(done.at("state"), "done") << done.dump();
  ASSERT_EQ(done.at("proofs").size(), 2u);
  expect_verified(b, done);

  // Host b reads it from the shared store too: the same proofs, the same inputs.
  const json seen = b.request("GET", "/v1/jobs/" + id);
  EXPECT_EQ(seen.at("state"), "done") << seen.dump();
  EXPECT_EQ(seen.at("proofs"), done.at("proofs"));
  EXPECT_EQ(seen.at("public_inputs"), done.at("public_inputs"));
  const json listing = b.request("GET", "/v1/jobs");
  bool listed = false;
  for (const json& j : listing.at("jobs")) listed |= std::to_string(j.at("id").get<std::int64_t>()) == id;
  EXPECT_TRUE(listed) << listing.dump();
}

TEST_F(Cluster, OneIdempotencyKeyNamesOneJobAcrossHosts) {
  const std::uint64_t seed = test_seed("ClusterServeKey") % 1000000 + 1;
  const Daemon& a = start("host-a", synthetic(seed));
  const Daemon& b = start("host-b", synthetic(seed));
  const std::string circuit = a.request("GET", "/v1/circuits").at("circuits")[0];
  const std::string key = "sector-" + std::to_string(seed);
  const std::string body =
      json{{"circuit", circuit}, {"partitions", 1}, {"seed", seed}, {"idempotency_key", key}}.dump();
  const json first = a.request("POST", "/v1/jobs", body);
  const json again = b.request("POST", "/v1/jobs", body);
  ASSERT_EQ(first.at("http_status"), 200) << first.dump();
  ASSERT_EQ(again.at("http_status"), 200) << again.dump();
  EXPECT_TRUE(first.at("created").get<bool>());
  EXPECT_FALSE(again.at("created").get<bool>());
  EXPECT_EQ(first.at("id"), again.at("id"));
  // The key with another request is refused on the other host too.
  const json other =
      b.request("POST", "/v1/jobs",
                json{{"circuit", circuit}, {"partitions", 2}, {"seed", seed}, {"idempotency_key", key}}.dump());
  EXPECT_EQ(other.at("http_status"), 400) << other.dump();
}

// Jobs of several partitions spread over three hosts; one host is killed with SIGKILL while it
// holds partitions. The others finish every job: nothing lost, no partition stored twice.
TEST_F(Cluster, AHostKilledMidPartitionLosesNothing) {
  const std::uint64_t seed = test_seed("ClusterKill") % 1000000 + 1;
  const auto circuit_args = synthetic(seed, "2^13");
  Daemon& a = start("host-a", circuit_args);
  start("host-b", circuit_args);
  Daemon& c = start("host-c", circuit_args);
  const std::string circuit = a.request("GET", "/v1/circuits").at("circuits")[0];
  std::vector<std::string> ids;
  for (int j = 0; j < 6; ++j) {
    const json submitted =
        a.request("POST", "/v1/jobs", json{{"circuit", circuit}, {"partitions", 3}, {"seed", seed + j}}.dump());
    ASSERT_EQ(submitted.at("http_status"), 200) << submitted.dump();
    ids.push_back(id_of(submitted));
  }
  // Killed while it holds a live lease: a partition in work.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  bool holding = false;
  while (!holding && std::chrono::steady_clock::now() < give_up) {
    holding =
        sql("SELECT count(*) FROM partitions WHERE claimed_by = 'host-c' AND state = 'claimed'").integer(0, 0) > 0;
    if (!holding) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(holding) << "host-c never claimed a partition:\n" << c.log();
  const std::int64_t held =
      sql("SELECT count(*) FROM partitions WHERE claimed_by = 'host-c' AND state = 'claimed'").integer(0, 0);
  c.stop(SIGKILL);
  for (const std::string& id : ids) {
    const json done = a.request("GET", "/v1/jobs/" + id + "/wait?timeout_s=120");
    expect_verified(a, done);
  }
  // Each partition done once, by one holder; the killed host's were claimed again.
  EXPECT_EQ(sql("SELECT count(*) FROM partitions WHERE state = 'done' AND verified").integer(0, 0), 18);
  EXPECT_GE(sql("SELECT count(*) FROM partitions WHERE attempts >= 2").integer(0, 0), held);
  EXPECT_EQ(sql("SELECT count(*) FROM jobs WHERE state = 'done' AND length(proof) = 3 * 192").integer(0, 0), 6);
  EXPECT_EQ(sql("SELECT count(DISTINCT claimed_by) FROM partitions WHERE state = 'done'").integer(0, 0) >= 2, true);
}

// Jobs admitted through two hosts that prove nothing, then proved by two hosts one partition
// at a time: the partitions are taken highest priority first, then oldest, whichever host
// admitted them.
TEST_F(Cluster, PrioritiesHoldAcrossHosts) {
  const std::uint64_t seed = test_seed("ClusterPriority") % 1000000 + 1;
  const auto front = [&](const std::string& name) {
    auto args = synthetic(seed, "2^11");
    args.insert(args.end(), {"--set", "service.cluster_prove=false"});
    return &start(name, args);
  };
  Daemon* fa = front("front-a");
  Daemon* fb = front("front-b");
  const std::string circuit = fa->request("GET", "/v1/circuits").at("circuits")[0];
  const std::vector<std::string> order = {"low", "normal", "low", "critical", "high", "low", "normal", "high"};
  std::map<std::string, int> rank = {{"low", 0}, {"normal", 1}, {"high", 2}, {"critical", 3}};
  for (std::size_t j = 0; j < order.size(); ++j) {
    const json submitted = (j % 2 ? fb : fa)
                               ->request("POST", "/v1/jobs",
                                         json{{"circuit", circuit}, {"priority", order[j]}, {"seed", seed + j}}.dump());
    ASSERT_EQ(submitted.at("http_status"), 200) << submitted.dump();
  }
  start("worker-a", {"--set", "service.cluster_slots=1"});
  start("worker-b", {"--set", "service.cluster_slots=1"});
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (sql("SELECT count(*) FROM jobs WHERE state = 'done'").integer(0, 0) < std::int64_t(order.size()) &&
         std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const PgResult r = sql("SELECT j.priority FROM jobs j JOIN partitions p ON p.job_id = j.id ORDER BY p.finished");
  ASSERT_EQ(r.rows(), int(order.size()));
  // Two hosts work at once, so a neighbour may finish first; no partition finishes before one
  // of higher priority that was claimed two places earlier.
  for (int k = 0; k < r.rows(); ++k)
    for (int later = k + 2; later < r.rows(); ++later)
      EXPECT_GE(r.integer(k, 0), r.integer(later, 0)) << "finish order position " << k << " against " << later;
  (void)rank;
}

// The database restarts while hosts are proving: they reconnect and every job finishes.
TEST_F(Cluster, TheHostsGoOnAfterTheDatabaseRestarts) {
  const std::uint64_t seed = test_seed("ClusterDbRestart") % 1000000 + 1;
  const auto circuit_args = synthetic(seed, "2^12");
  Daemon& a = start("host-a", circuit_args);
  start("host-b", circuit_args);
  const std::string circuit = a.request("GET", "/v1/circuits").at("circuits")[0];
  std::vector<std::string> ids;
  for (int j = 0; j < 4; ++j)
    ids.push_back(
        id_of(a.request("POST", "/v1/jobs", json{{"circuit", circuit}, {"partitions", 3}, {"seed", seed + j}}.dump())));
  // Restarted once some partitions are done and others are not.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (sql("SELECT count(*) FROM partitions WHERE state = 'done'").integer(0, 0) < 2 &&
         std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  server->restart();
  for (const std::string& id : ids) {
    json done;
    // The host answering may itself be reconnecting: ask again until it answers.
    for (int tries = 0; tries < 20; ++tries) {
      done = a.request("GET", "/v1/jobs/" + id + "/wait?timeout_s=60");
      if (done.value("state", "") == "done") break;
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    expect_verified(a, done);
  }
  EXPECT_EQ(sql("SELECT count(*) FROM partitions WHERE state = 'done'").integer(0, 0), 12);
}

// A host whose wall clock runs an hour ahead (faketime) claims nothing another host holds
// under a live lease: leases are timed by the database's clock. Its skew shows in the status.
TEST_F(Cluster, AHostWithASkewedClockStealsNoLiveLease) {
  const char* libfaketime = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1";
  if (!fs::exists(libfaketime)) GTEST_SKIP() << libfaketime << " is missing (faketime, in make deps)";
  const std::uint64_t seed = test_seed("ClusterSkew") % 1000000 + 1;
  const auto circuit_args = synthetic(seed, "2^14");
  auto honest_args = circuit_args;
  honest_args.insert(honest_args.end(), {"--set", "service.cluster_slots=1"});
  Daemon& honest = start("honest", honest_args);
  const std::string circuit = honest.request("GET", "/v1/circuits").at("circuits")[0];
  const std::string id =
      id_of(honest.request("POST", "/v1/jobs", json{{"circuit", circuit}, {"partitions", 1}, {"seed", seed}}.dump()));
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (sql("SELECT count(*) FROM partitions WHERE claimed_by = 'honest'").integer(0, 0) == 0 &&
         std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  // Monotonic clocks stay true (the daemon's waits); only the wall clock is an hour ahead.
  start("ahead", {},
        {std::string("LD_PRELOAD=") + libfaketime, "FAKETIME=+1h", "FAKETIME_DONT_FAKE_MONOTONIC=1",
         "FAKETIME_NO_CACHE=1"});
  const json done = honest.request("GET", "/v1/jobs/" + id + "/wait?timeout_s=120");
  expect_verified(honest, done);
  const PgResult p = sql("SELECT claimed_by, attempts FROM partitions");
  EXPECT_EQ(p.text(0, 0), "honest");
  EXPECT_EQ(p.integer(0, 1), 1) << "the partition was claimed again";
  const std::int64_t offset = sql("SELECT clock_offset_ms FROM hosts WHERE name = 'ahead'").integer(0, 0);
  EXPECT_NEAR(double(offset), 3600e3, 120e3);
}

// An uploaded witness under the inline limit travels in the job's row, one over it through the
// shared folder; a host other than the accepting one proves both. A host that reads another
// verifying key from the circuit's files (its own files at the same relative path) proves none.
TEST_F(Cluster, WitnessesTravelInTheRowOrTheSharedFolderAndKeysAreCheckedPerHost) {
  const std::uint64_t seed = test_seed("ClusterUpload") % 1000000 + 1;
  // The circuit's files, the same relative path in each host's folder: a and b the same keys,
  // c keys of its own from another setup.
  const fs::path made = dir / "made";
  fs::create_directories(made);
  run_cli("export-circuit --circuit synthetic --constraints 2^10 --inputs 2 --seed " + std::to_string(seed) +
          " --no-cache --r1cs " + (made / "c.snkr1cs").string() + " --wtns " + (made / "c.wtns").string());
  run_cli("setup --r1cs " + (made / "c.snkr1cs").string() + " --params " + (made / "c.params").string() + " --vk " +
          (made / "c.vk").string());
  run_cli("setup --r1cs " + (made / "c.snkr1cs").string() + " --params " + (made / "other.params").string() + " --vk " +
          (made / "other.vk").string());
  for (const std::string host : {"host-a", "host-b", "host-c"}) {
    fs::create_directories(dir / host / "keys");
    fs::copy_file(made / (host == "host-c" ? "other.params" : "c.params"), dir / host / "keys" / "c.params");
    fs::copy_file(made / "c.snkr1cs", dir / host / "keys" / "c.snkr1cs");
  }
  // Host a admits only, with a limit between the two uploads' sizes.
  const std::uint64_t wtns_bytes = fs::file_size(made / "c.wtns");
  Daemon& a = start("host-a", {"--set", "service.cluster_prove=false", "--set",
                               "service.cluster_witness_inline_limit=" + std::to_string(wtns_bytes - 1)});
  Daemon& c = start("host-c");
  const json reg = a.request("POST", "/v1/circuits",
                             json{{"name", "files"}, {"params", "keys/c.params"}, {"r1cs", "keys/c.snkr1cs"}}.dump());
  ASSERT_EQ(reg.at("http_status"), 200) << reg.dump();
  std::ifstream in(made / "c.wtns", std::ios::binary);
  const std::string wtns((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const json shared_job = a.request("UPLOAD", "/v1/jobs?circuit=files&format=wtns", wtns);
  ASSERT_EQ(shared_job.at("http_status"), 200) << shared_job.dump();
  EXPECT_FALSE(sql("SELECT witness_path FROM jobs WHERE id = " + id_of(shared_job)).is_null(0, 0));
  // Host c reads other keys: it gives the partition back and skips the circuit.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (c.log().find("is not the registered one") == std::string::npos && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_NE(c.log().find("is not the registered one"), std::string::npos) << c.log();
  EXPECT_EQ(sql("SELECT state FROM jobs WHERE id = " + id_of(shared_job)).text(0, 0), "queued");
  // Host b has the registered keys and proves it, and a second job that travels in its row.
  Daemon& b = start("host-b");
  const json inline_job = b.request("UPLOAD", "/v1/jobs?circuit=files&format=wtns", wtns);
  ASSERT_EQ(inline_job.at("http_status"), 200) << inline_job.dump();
  EXPECT_TRUE(sql("SELECT witness_path FROM jobs WHERE id = " + id_of(inline_job)).is_null(0, 0));
  for (const json* j : {&shared_job, &inline_job}) {
    const json done = a.request("GET", "/v1/jobs/" + id_of(*j) + "/wait?timeout_s=120");
    expect_verified(b, done);
  }
  EXPECT_EQ(sql("SELECT count(*) FROM partitions WHERE state = 'done' AND claimed_by = 'host-b'").integer(0, 0), 2);
}

// A token's jobs in flight are counted across the cluster: two queued through one host leave
// no room for a third through another, until one of them is cancelled.
TEST_F(Cluster, ATokensJobsInFlightAreCountedAcrossHosts) {
  const std::uint64_t seed = test_seed("ClusterTokens") % 1000000 + 1;
  const std::string token = "cluster-token-" + std::to_string(seed);
  const fs::path config = dir / "tokens.toml";
  std::ofstream(config) << "[service]\n[[service.tokens]]\nname = \"operator\"\nsha256 = \""
                        << service::sha256_hex(token) << "\"\nadmin = true\nmax_jobs_in_flight = 2\n";
  // Admission only: the jobs stay queued.
  std::vector<std::string> args = synthetic(seed);
  for (const char* a : {"--config", config.c_str(), "--set", "service.cluster_prove=false"}) args.push_back(a);
  Daemon& a = start("host-a", args);
  Daemon& b = start("host-b", args);
  a.set_token(token);
  b.set_token(token);
  const std::string circuit = a.request("GET", "/v1/circuits").at("circuits")[0];
  const std::string body = json{{"circuit", circuit}, {"partitions", 1}, {"seed", seed}}.dump();
  const json first = a.request("POST", "/v1/jobs", body);
  ASSERT_EQ(first.at("http_status"), 200) << first.dump();
  ASSERT_EQ(a.request("POST", "/v1/jobs", body).at("http_status"), 200);
  const json third = b.request("POST", "/v1/jobs", body);
  EXPECT_EQ(third.at("http_status"), 429) << third.dump();
  EXPECT_NE(third.value("error", "").find("jobs in flight"), std::string::npos) << third.dump();
  ASSERT_EQ(b.request("DELETE", "/v1/jobs/" + id_of(first)).at("http_status"), 200);
  EXPECT_EQ(b.request("POST", "/v1/jobs", body).at("http_status"), 200);
}

}  // namespace
}  // namespace snarkpipe::cluster
