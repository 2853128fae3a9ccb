// The cluster queue's own costs (issue 26), against a real PostgreSQL started here (the test
// fixture): claim latency p50/p99 with 1, 2 and 4 hosts competing, partitions per second the
// queue sustains (claim + complete with a 192-byte proof, no proving: the queue's ceiling),
// database round trips per partition, and the time from a host's last heartbeat to the
// re-claim of its partition by another host. Writes one JSON record.
//
//   bench_cluster_queue [--out FILE] [--jobs N] [--partitions P] [--lease-ms L]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_util.hpp"
#include "cli/bench_record.hpp"
#include "cluster/cluster_queue.hpp"
#include "postgres_fixture.hpp"

using namespace snarkpipe::cluster;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::uint64_t kMemory = 1ull << 40;

using bench::percentile;
using bench::shell_line;

QueueOptions options_for(const std::string& conninfo, const std::string& name, std::chrono::milliseconds lease) {
  QueueOptions o;
  o.conninfo = conninfo;
  o.host = name;
  o.lease = lease;
  o.memory_budget_bytes = kMemory;
  o.version = "bench";
  return o;
}

// Submits `jobs` jobs of `partitions` each, then drains them with `hosts` threads.
nlohmann::json drain(testing::PostgresServer& server, int hosts, int jobs, int partitions) {
  const std::string conninfo = server.create_database();
  {
    ClusterQueue submitter(options_for(conninfo, "submitter", 30s));
    for (int j = 0; j < jobs; ++j) {
      JobSubmission s;
      s.circuit = "synthetic:2^10";
      s.partitions = static_cast<std::uint32_t>(partitions);
      s.priority = j % 3;
      s.request = "{\"job\":" + std::to_string(j) + "}";
      submitter.submit(s);
    }
  }
  std::vector<std::unique_ptr<ClusterQueue>> queues;
  for (int h = 0; h < hosts; ++h)
    queues.push_back(std::make_unique<ClusterQueue>(options_for(conninfo, "host-" + std::to_string(h), 30s)));
  std::vector<std::uint64_t> trips_before;
  for (auto& q : queues) trips_before.push_back(q->round_trips());
  std::vector<std::vector<double>> latencies(hosts);
  std::atomic<int> completed{0};
  const std::vector<std::uint8_t> proof(192, 0x5a);
  const auto t0 = Clock::now();
  std::vector<std::thread> threads;
  for (int h = 0; h < hosts; ++h)
    threads.emplace_back([&, h] {
      for (;;) {
        const auto c0 = Clock::now();
        auto c = queues[h]->claim(kMemory);
        latencies[h].push_back(std::chrono::duration<double, std::micro>(Clock::now() - c0).count());
        if (!c) break;
        if (queues[h]->complete(*c, proof, true) != CompleteOutcome::not_holder) ++completed;
      }
    });
  for (auto& t : threads) t.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  std::vector<double> all;
  for (auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  std::uint64_t trips = 0;
  for (int h = 0; h < hosts; ++h) trips += queues[h]->round_trips() - trips_before[h];
  const int total = jobs * partitions;
  return {{"hosts", hosts},
          {"partitions", total},
          {"completed", completed.load()},
          {"seconds", seconds},
          {"partitions_per_second", total / seconds},
          {"claims", all.size()},
          {"claim_latency_us_p50", percentile(all, 0.50)},
          {"claim_latency_us_p99", percentile(all, 0.99)},
          {"round_trips", trips},
          // claim + complete per partition, plus one empty claim per host at the end
          {"round_trips_per_partition", static_cast<double>(trips) / total}};
}

// A host claims and stops beating; another polls claim every 5 ms until it gets the partition.
nlohmann::json lost_host(testing::PostgresServer& server, std::chrono::milliseconds lease, int trials) {
  std::vector<double> after_last_beat, after_expiry;
  for (int t = 0; t < trials; ++t) {
    const std::string conninfo = server.create_database();
    ClusterQueue dying(options_for(conninfo, "dying", lease));
    ClusterQueue survivor(options_for(conninfo, "survivor", lease));
    JobSubmission s;
    s.circuit = "synthetic:2^10";
    s.request = "{}";
    dying.submit(s);
    if (!dying.claim(kMemory)) throw std::runtime_error("no claim");
    dying.heartbeat();
    const auto last_beat = Clock::now();
    while (!survivor.claim(kMemory)) std::this_thread::sleep_for(5ms);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - last_beat).count();
    after_last_beat.push_back(ms);
    after_expiry.push_back(ms - static_cast<double>(lease.count()));
  }
  return {{"lease_ms", lease.count()},
          {"trials", trials},
          {"poll_interval_ms", 5},
          {"reclaim_after_last_heartbeat_ms_p50", percentile(after_last_beat, 0.5)},
          {"reclaim_after_last_heartbeat_ms_max", percentile(after_last_beat, 1.0)},
          {"reclaim_after_lease_expiry_ms_p50", percentile(after_expiry, 0.5)},
          {"reclaim_after_lease_expiry_ms_max", percentile(after_expiry, 1.0)}};
}

}  // namespace

int main(int argc, char** argv) {
  std::string out;
  int jobs = 100, partitions = 10;
  long lease_ms = 1000;
  snarkpipe::cli::record_invocation(argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    if (a == "--out") out = next();
    else if (a == "--jobs") jobs = std::stoi(next());
    else if (a == "--partitions") partitions = std::stoi(next());
    else if (a == "--lease-ms") lease_ms = std::stol(next());
    else {
      std::cerr << "unknown argument " << a << "\n";
      return 2;
    }
  }
  if (auto why = testing::PostgresServer::unavailable_reason()) {
    std::cerr << "bench_cluster_queue: " << *why << "\n";
    return 1;
  }
  testing::PostgresServer server;
  const std::string version = shell_line(
      "postgres_version=$(ls /usr/lib/postgresql | sort -n | tail -1); "
      "/usr/lib/postgresql/$postgres_version/bin/postgres --version");
  nlohmann::json record = snarkpipe::cli::bench_record();
  record["what"] =
      "cluster queue: claim latency, partitions/s with 1, 2, 4 hosts (threads, one connection each), "
      "round trips per partition, re-claim after a lost host; no proving";
  record["database"] = version + ", local server on 127.0.0.1 (TCP), fsync off (the test fixture)";
  record["jobs"] = jobs;
  record["partitions_per_job"] = partitions;
  for (int hosts : {1, 2, 4}) {
    record["drain"].push_back(drain(server, hosts, jobs, partitions));
    std::cerr << record["drain"].back().dump() << "\n";
  }
  const double one = record["drain"][0]["partitions_per_second"].get<double>();
  for (auto& d : record["drain"]) d["scale_vs_1_host"] = d["partitions_per_second"].get<double>() / one;
  record["lost_host"] = lost_host(server, std::chrono::milliseconds(lease_ms), 5);
  std::cerr << record["lost_host"].dump() << "\n";
  if (out.empty()) std::cout << record.dump(2) << "\n";
  else snarkpipe::cli::write_record(record, out);
  return 0;
}
