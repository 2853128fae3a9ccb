// `snarkpipe cluster status --db URI` against a real server: what the queue holds is what it prints.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>

#include "cluster/cluster_queue.hpp"
#include "postgres_fixture.hpp"
#include "test_seed.hpp"

namespace snarkpipe::cluster {
namespace {

using testing::PostgresServer;

std::pair<int, std::string> run(const std::string& command) {
  std::string out;
  FILE* f = ::popen((command + " 2>&1").c_str(), "r");
  if (!f) return {-1, ""};
  char buf[512];
  while (std::fgets(buf, sizeof buf, f)) out += buf;
  const int status = ::pclose(f);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

TEST(ClusterStatusCommand, PrintsHostsLeasesAndQueueDepth) {
  if (auto why = PostgresServer::unavailable_reason()) GTEST_SKIP() << *why;
  ff::SeededRng rng(test_seed("ClusterStatusCommand"));
  PostgresServer server;
  const std::string conninfo = server.create_database();
  const std::string database = conninfo.substr(
      conninfo.find("dbname=") + 7, conninfo.find(' ', conninfo.find("dbname=")) - conninfo.find("dbname=") - 7);
  // Before any host started: no schema, said plainly, exit status 1.
  auto [empty_rc, empty_out] = run(std::string(SNARKPIPE_BINARY) + " cluster status --db " + server.uri(database));
  EXPECT_EQ(empty_rc, 1) << empty_out;
  EXPECT_NE(empty_out.find("no cluster schema"), std::string::npos) << empty_out;

  const std::string host = "gpu-host-" + std::to_string(rng.next_u64() % 100000);
  const int priority = static_cast<int>(rng.next_u64() % 50);
  QueueOptions o{conninfo, host};
  ClusterQueue q(o);
  JobSubmission j;
  j.circuit = "synthetic:2^10";
  j.partitions = 3;
  j.priority = priority;
  j.request = "{}";
  const std::int64_t id = q.submit(j).job_id;
  ASSERT_TRUE(q.claim(1ull << 40).has_value());

  auto [rc, out] = run(std::string(SNARKPIPE_BINARY) + " cluster status --db " + server.uri(database));
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find(host), std::string::npos) << out;
  // The lease line: job id, partition 0, the host.
  EXPECT_NE(out.find(std::to_string(id) + "         0 " + host), std::string::npos) << out;
  // The depth line: this priority, 2 queued, 1 claimed, 0 expired.
  char depth[128];
  std::snprintf(depth, sizeof depth, "  %8d %8d %8d %8d\n", priority, 2, 1, 0);
  EXPECT_NE(out.find(depth), std::string::npos) << out;
}

}  // namespace
}  // namespace snarkpipe::cluster
