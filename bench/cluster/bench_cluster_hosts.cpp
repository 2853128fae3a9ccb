// The cluster measured with real hosts (issue 26): `snarkpipe serve --db postgresql://...`
// daemons, each pinned to one CPU, proving a small synthetic circuit on the CPU against one
// PostgreSQL started here (the tests' fixture and their Daemon, tests/cluster/). For 1, 2 and 4
// hosts the same jobs are submitted and drained, and it reports:
//   - partition proofs per second, from the database's clock (first job created to last
//     partition finished), and its ratio to 1 host;
//   - claim latency p50/p99: the claim statement's time as each host saw it (its log line);
//   - database transactions per partition: pg_stat_database's xact_commit + xact_rollback
//     over the run (heartbeats, empty claims and submissions included; this program's own
//     statements subtracted), and what an idle cluster costs per second;
//   - the cost of a lost host: a host holding live leases is SIGKILLed; the time from the kill
//     to another host's claim of each of its partitions, beside the lease left at the kill.
// Every proof is fetched from a host and verified under the verifying key the cluster serves.
// Writes one JSON record (cli/bench_record.hpp).
//
//   bench_cluster_hosts [--out FILE] [--jobs N] [--partitions P] [--constraints 2^k]
//                       [--lease-s S] [--lost-lease-s S] [--trials T]
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/hex.hpp"
#include "bench_util.hpp"
#include "cli/bench_record.hpp"
#include "cluster/pg_connection.hpp"
#include "daemon_process.hpp"
#include "ff/fields.hpp"
#include "groth16/params_file.hpp"
#include "groth16/proof.hpp"
#include "groth16/verifier.hpp"
#include "postgres_fixture.hpp"

using namespace snarkpipe;
using namespace snarkpipe::cluster;
using namespace std::chrono_literals;
using nlohmann::json;
using testing::Daemon;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

namespace {

struct Workload {
  int jobs = 12;
  int partitions = 4;
  std::string constraints = "2^12";
  int lease_s = 30;      // the drains': the default lease, so heartbeats run as in production
  int lost_lease_s = 3;  // the lost host's: short, so the re-claim is seen soon
  int trials = 4;
  std::uint64_t seed = 1;  // the circuit's shape; jobs draw seed + j
};

using bench::percentile;
using bench::shell_line;

double load_average() {
  std::ifstream in("/proc/loadavg");
  double one = 0;
  in >> one;
  return one;
}

// The CPUs this program may run on; host h is pinned to the (h mod n)-th.
std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (::sched_getaffinity(0, sizeof set, &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  if (cpus.empty()) cpus.push_back(0);
  return cpus;
}

PgResult sql(PgConnection& db, const std::string& statement) { return db.execute({"bench_query", statement}); }

// Committed and rolled-back transactions of this database so far. The server publishes a
// backend's counts at most once a second (and when it ends), so callers let a second or more
// pass after the activity they count.
std::int64_t transactions(PgConnection& db) {
  return sql(db, "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()")
      .integer(0, 0);
}

// The CPUs the kernel lets process `pid` run on ("0", "0-1"): the pinning as it took effect.
std::string cpus_allowed(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("Cpus_allowed_list:", 0) == 0) return line.substr(line.find_first_not_of(" \t", 18));
  return "unknown";
}

// CPU seconds process `pid` has used (user + system, /proc/<pid>/stat): how much of its CPU a
// host got, on a machine other work shares.
double cpu_seconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream fields(text.substr(text.rfind(')') + 2));  // after "pid (comm) "
  std::string f;
  double ticks = 0;
  for (int i = 3; i <= 15 && fields >> f; ++i)
    if (i == 14 || i == 15) ticks += std::stod(f);  // utime, stime
  return ticks / double(::sysconf(_SC_CLK_TCK));
}

// A fresh database, its URI as `--db` takes it and its conninfo.
std::pair<std::string, std::string> new_database(testing::PostgresServer& server) {
  const std::string conninfo = server.create_database();
  const auto at = conninfo.find("dbname=") + 7;
  return {server.uri(conninfo.substr(at, conninfo.find(' ', at) - at)), conninfo};
}

// A cluster of hosts on one database and one shared folder.
struct Hosts {
  std::string uri, conninfo;
  fs::path dir;
  std::vector<std::unique_ptr<Daemon>> daemons;
  std::vector<int> pinned;

  Daemon& start(const std::string& name, int cpu, const Workload& w, int lease_s) {
    std::vector<std::string> args = {"--circuit",     "synthetic",
                                     "--constraints", w.constraints,
                                     "--inputs",      "2",
                                     "--seed",        std::to_string(w.seed),
                                     "--set",         "service.cluster_shared_dir=" + (dir / "shared").string(),
                                     "--set",         "service.cluster_lease=" + std::to_string(lease_s) + "s"};
    fs::create_directories(dir / "shared");
    daemons.push_back(
        std::make_unique<Daemon>(uri, name, dir / name, args, std::vector<std::string>{}, std::vector<int>{cpu}));
    pinned.push_back(cpu);
    return *daemons.back();
  }
};

// The verifying key the cluster serves for `circuit`, prepared.
groth16::PreparedVerifyingKey served_vk(const Daemon& host, const std::string& circuit, const fs::path& dir) {
  const json info = host.request("GET", "/v1/circuits/" + circuit);
  const fs::path file = dir / "served.vk";
  const auto bytes = base::unhex(info.at("vk").at("bellperson_hex").get<std::string>());
  std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return groth16::PreparedVerifyingKey::from(groth16::read_vk(file.string()));
}

// Fetches each job from a host (in turn) and verifies every partition's proof; throws on any
// job not done or any proof that does not verify. Returns the proofs verified.
int verify_all(const std::vector<const Daemon*>& hosts, const std::vector<std::string>& ids,
               const groth16::PreparedVerifyingKey& pvk, int partitions) {
  int verified = 0;
  for (std::size_t j = 0; j < ids.size(); ++j) {
    const json job = hosts[(j + 1) % hosts.size()]->request("GET", "/v1/jobs/" + ids[j]);
    if (job.at("state") != "done" || job.at("proofs").size() != std::size_t(partitions))
      throw std::runtime_error("job " + ids[j] + " is not done with its proofs: " + job.dump());
    for (std::size_t k = 0; k < job.at("proofs").size(); ++k) {
      const auto proof = groth16::Proof::from_bytes(base::unhex(job.at("proofs")[k].get<std::string>()));
      std::vector<ff::Fr> inputs;
      for (const json& x : job.at("public_inputs")[k]) inputs.push_back(*ff::Fr::from_decimal(x.get<std::string>()));
      if (!groth16::verify(pvk, proof, inputs))
        throw std::runtime_error("job " + ids[j] + " partition " + std::to_string(k) + ": the proof does not verify");
      ++verified;
    }
  }
  return verified;
}

std::string submit(const Daemon& host, const std::string& circuit, int partitions, std::uint64_t seed) {
  const json r =
      host.request("POST", "/v1/jobs", json{{"circuit", circuit}, {"partitions", partitions}, {"seed", seed}}.dump());
  if (r.at("http_status") != 200) throw std::runtime_error("submission refused: " + r.dump());
  return std::to_string(r.at("id").get<std::int64_t>());
}

// Waits until `done` partitions of the database are done; throws when a job failed or after
// `limit`.
void wait_done(PgConnection& db, std::int64_t done, std::chrono::seconds limit) {
  const auto give_up = Clock::now() + limit;
  for (;;) {
    const PgResult r = sql(db,
                           "SELECT (SELECT count(*) FROM partitions WHERE state = 'done'), "
                           "(SELECT count(*) FROM jobs WHERE state IN ('failed', 'cancelled'))");
    if (r.integer(0, 1) > 0) throw std::runtime_error("a job failed");
    if (r.integer(0, 0) >= done) return;
    if (Clock::now() > give_up) throw std::runtime_error("the partitions were not done in time");
    std::this_thread::sleep_for(50ms);
  }
}

// The claim statement times (ms) the hosts logged, one per claim.
std::vector<double> claim_times(const std::vector<std::unique_ptr<Daemon>>& hosts) {
  static const std::regex line(R"(: claimed \(attempt \d+\) in ([0-9.]+) ms)");
  std::vector<double> ms;
  for (const auto& d : hosts) {
    const std::string log = d->log();
    for (auto it = std::sregex_iterator(log.begin(), log.end(), line); it != std::sregex_iterator(); ++it)
      ms.push_back(std::stod((*it)[1]));
  }
  return ms;
}

// `hosts` hosts drain the same workload: jobs submitted once every host is ready.
json drain(testing::PostgresServer& server, const fs::path& root, int hosts, const Workload& w,
           const std::vector<int>& cpus) {
  Hosts c;
  std::tie(c.uri, c.conninfo) = new_database(server);
  c.dir = root / ("hosts-" + std::to_string(hosts));
  for (int h = 0; h < hosts; ++h) c.start("host-" + std::to_string(h), cpus[h % cpus.size()], w, w.lease_s);
  const std::string circuit = c.daemons[0]->request("GET", "/v1/circuits").at("circuits")[0];
  const auto pvk = served_vk(*c.daemons.back(), circuit, c.dir);
  const double load_before = load_average();

  PgConnection db({c.conninfo, 20000ms});
  std::this_thread::sleep_for(2500ms);  // the hosts' start-up transactions published
  const std::int64_t xacts_before = transactions(db);
  const std::uint64_t trips_before = db.round_trips();
  const auto window_start = Clock::now();
  std::vector<double> cpu_before;
  for (const auto& d : c.daemons) cpu_before.push_back(cpu_seconds(d->pid()));
  std::vector<std::string> ids;
  for (int j = 0; j < w.jobs; ++j) ids.push_back(submit(*c.daemons[j % hosts], circuit, w.partitions, w.seed + j));
  const int total = w.jobs * w.partitions;
  wait_done(db, total, 600s);
  // Busy time by the database's clock: the first job's creation to the last partition's finish.
  const PgResult span = sql(db,
                            "SELECT extract(epoch FROM (SELECT max(finished) FROM partitions) - "
                            "(SELECT min(created) FROM jobs))::double precision");
  const double seconds = span.real(0, 0);
  json cpu_share = json::array();  // CPU seconds per second of the drain, per host
  double cpu_total = 0;
  for (std::size_t h = 0; h < c.daemons.size(); ++h) {
    cpu_share.push_back((cpu_seconds(c.daemons[h]->pid()) - cpu_before[h]) /
                        std::chrono::duration<double>(Clock::now() - window_start).count());
    cpu_total += cpu_share.back().get<double>();
  }
  std::this_thread::sleep_for(3000ms);                            // every host's last transactions published
  const std::uint64_t own = db.round_trips() - trips_before + 1;  // with the first count's own
  const std::int64_t xacts_run = transactions(db) - xacts_before - std::int64_t(own);
  const double window = std::chrono::duration<double>(Clock::now() - window_start).count();
  // What the cluster costs idle, over 5 s: each host's janitor (expiring finished jobs every
  // 500 ms), its slots' empty claims (every 2 s each), its heartbeats (a third of the lease).
  const std::int64_t idle0 = transactions(db);
  std::this_thread::sleep_for(5000ms);
  const double idle_per_second = double(transactions(db) - idle0 - 1) / 5.0;
  const double load_after = load_average();

  std::map<std::string, std::int64_t> by_host;
  const PgResult shares =
      sql(db, "SELECT claimed_by, count(*) FROM partitions WHERE state = 'done' GROUP BY claimed_by ORDER BY 1");
  for (int i = 0; i < shares.rows(); ++i) by_host[shares.text(i, 0)] = shares.integer(i, 1);
  const std::int64_t reclaimed = sql(db, "SELECT count(*) FROM partitions WHERE attempts > 1").integer(0, 0);
  const std::vector<double> claims = claim_times(c.daemons);
  std::vector<const Daemon*> serving;
  for (const auto& d : c.daemons) serving.push_back(d.get());
  const int verified = verify_all(serving, ids, pvk, w.partitions);
  json pins = json::array(), allowed = json::array();
  for (int p : c.pinned) pins.push_back(p);
  for (const auto& d : c.daemons) allowed.push_back(cpus_allowed(d->pid()));
  return {{"hosts", hosts},
          {"pinned_cpus", pins},
          {"cpus_allowed_per_host", allowed},  // read from /proc/<pid>/status
          {"host_cpu_share", cpu_share},
          {"hosts_cpu_share", cpu_total},
          // Throughput for the CPU the hosts were given: where other work takes the cores, this
          // is what shows whether more hosts cost more per proof.
          {"proofs_per_host_cpu_second", total / seconds / cpu_total},
          {"partitions", total},
          {"proofs_verified", verified},
          {"partitions_per_host", by_host},
          {"reclaimed_partitions", reclaimed},
          {"seconds", seconds},
          {"proofs_per_second", total / seconds},
          {"claims_logged", claims.size()},
          {"claim_latency_ms_p50", percentile(claims, 0.50)},
          {"claim_latency_ms_p99", percentile(claims, 0.99)},
          {"claim_latency_ms_max", percentile(claims, 1.0)},
          {"transactions", xacts_run},
          {"transactions_window_seconds", window},
          {"bench_statements_subtracted", own},
          // The 3 s after the last partition (waiting for the counts) at the idle rate, taken off.
          {"transactions_per_partition", (double(xacts_run) - 3.0 * idle_per_second) / total},
          {"idle_transactions_per_second", idle_per_second},
          {"load_average_1m_before", load_before},
          {"load_average_1m_after", load_after}};
}

// A survivor keeps a backlog moving; each trial starts a victim host, lets it claim, kills it
// (SIGKILL) at a random point of its heartbeat period and times the re-claim of each partition
// it held. All jobs are then finished by the survivor and verified.
json lost_host(testing::PostgresServer& server, const fs::path& root, const Workload& w, const std::vector<int>& cpus) {
  Hosts c;
  std::tie(c.uri, c.conninfo) = new_database(server);
  c.dir = root / "lost-host";
  Daemon& survivor = c.start("survivor", cpus[1 % cpus.size()], w, w.lost_lease_s);
  const std::string circuit = survivor.request("GET", "/v1/circuits").at("circuits")[0];
  const auto pvk = served_vk(survivor, circuit, c.dir);
  PgConnection db({c.conninfo, 20000ms});
  std::mt19937_64 rng(w.seed);
  std::vector<std::string> ids;
  std::vector<double> after_kill, lease_left, after_expiry;
  const std::int64_t lease_ms = w.lost_lease_s * 1000;
  for (int t = 0; t < w.trials; ++t) {
    // A backlog, so that the victim claims at once and the survivor is busy (as under load).
    while (sql(db, "SELECT count(*) FROM partitions WHERE state = 'queued'").integer(0, 0) < 3)
      ids.push_back(submit(survivor, circuit, w.partitions, w.seed + 1000 + ids.size()));
    const std::string name = "victim-" + std::to_string(t);
    Daemon& victim = c.start(name, cpus[0], w, w.lost_lease_s);
    const std::string held_sql =
        "SELECT job_id, index, claim_token, (extract(epoch FROM lease_until - now()) * 1000)::bigint FROM partitions "
        "WHERE claimed_by = '" +
        name + "' AND state = 'claimed' AND lease_until >= now()";
    PgResult held;
    const auto give_up = Clock::now() + 60s;
    for (;;) {
      if (Clock::now() > give_up) throw std::runtime_error(name + " never held a lease:\n" + victim.log());
      if (sql(db, held_sql).rows() == 0) {
        std::this_thread::sleep_for(10ms);
        continue;
      }
      // A random point of the heartbeat period (a third of the lease).
      std::this_thread::sleep_for(std::chrono::milliseconds(rng() % (lease_ms / 3)));
      held = sql(db, held_sql);
      if (held.rows() > 0) break;
    }
    const auto killed = Clock::now();
    victim.stop(SIGKILL);
    for (int i = 0; i < held.rows(); ++i) {
      // Taken: another claim's token. Done under the victim's own token: it finished in the
      // moment between the last look and the kill, and nothing was lost (not timed).
      const std::string look = "SELECT claim_token IS DISTINCT FROM " + held.text(i, 2) +
                               ", state = 'done' FROM partitions WHERE job_id = " + held.text(i, 0) +
                               " AND index = " + held.text(i, 1);
      bool finished_before = false;
      for (;;) {
        const PgResult r = sql(db, look);
        if (r.boolean(0, 0)) break;
        if (r.boolean(0, 1)) {
          finished_before = true;
          break;
        }
        if (Clock::now() - killed > 120s) throw std::runtime_error("a lost partition was never claimed again");
        std::this_thread::sleep_for(5ms);
      }
      if (finished_before) continue;
      // Partitions are polled in turn: the first one's wait covers the others' (they expire
      // together, renewed by the same heartbeat), so each is timed to when it was seen taken.
      const double ms = std::chrono::duration<double, std::milli>(Clock::now() - killed).count();
      after_kill.push_back(ms);
      lease_left.push_back(double(held.integer(i, 3)));
      after_expiry.push_back(ms - double(held.integer(i, 3)));
    }
    std::cerr << "lost host trial " << t << ": " << held.rows() << " lease(s) held at the kill\n";
  }
  const std::int64_t total = sql(db, "SELECT count(*) FROM partitions").integer(0, 0);
  wait_done(db, total, 600s);
  const std::int64_t reclaimed = sql(db, "SELECT count(*) FROM partitions WHERE attempts > 1").integer(0, 0);
  const int verified = verify_all({&survivor}, ids, pvk, w.partitions);
  return {{"lease_ms", lease_ms},
          {"heartbeat_period_ms", lease_ms / 3},
          {"trials", w.trials},
          {"leases_lost", after_kill.size()},
          {"poll_interval_ms", 5},
          {"survivor", "busy with a backlog (2 slots): it claims a lost partition when a slot frees"},
          {"lease_left_at_kill_ms", lease_left},
          {"reclaim_after_kill_ms", after_kill},
          {"reclaim_after_kill_ms_p50", percentile(after_kill, 0.5)},
          {"reclaim_after_kill_ms_max", percentile(after_kill, 1.0)},
          {"reclaim_after_lease_expiry_ms_p50", percentile(after_expiry, 0.5)},
          {"reclaim_after_lease_expiry_ms_max", percentile(after_expiry, 1.0)},
          {"partitions", total},
          {"reclaimed_partitions", reclaimed},
          {"proofs_verified", verified}};
}

}  // namespace

int main(int argc, char** argv) {
  std::string out;
  Workload w;
  w.seed = std::random_device{}() % 1000000 + 1;
  cli::record_invocation(argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    if (a == "--out") out = next();
    else if (a == "--jobs") w.jobs = std::stoi(next());
    else if (a == "--partitions") w.partitions = std::stoi(next());
    else if (a == "--constraints") w.constraints = next();
    else if (a == "--lease-s") w.lease_s = std::stoi(next());
    else if (a == "--lost-lease-s") w.lost_lease_s = std::stoi(next());
    else if (a == "--trials") w.trials = std::stoi(next());
    else {
      std::cerr << "unknown argument " << a << "\n";
      return 2;
    }
  }
  if (auto why = testing::PostgresServer::unavailable_reason()) {
    std::cerr << "bench_cluster_hosts: " << *why << "\n";
    return 1;
  }
  char tmpl[] = "/tmp/snarkpipe-bench-hosts-XXXXXX";
  const fs::path root = ::mkdtemp(tmpl);
  const auto started = Clock::now();
  const std::vector<int> cpus = allowed_cpus();
  json record = cli::bench_record();
  try {
    testing::PostgresServer server;
    record["what"] =
        "cluster with real `snarkpipe serve` hosts (CPU backend, one CPU each), one PostgreSQL: proofs/s with 1, 2, 4 "
        "hosts, claim latency as the hosts logged it, database transactions per partition, re-claim after a "
        "SIGKILLed host; every proof verified under the served vk";
    record["database"] = shell_line(
                             "postgres_version=$(ls /usr/lib/postgresql | sort -n | tail -1); "
                             "/usr/lib/postgresql/$postgres_version/bin/postgres --version") +
                         ", local server on 127.0.0.1 (TCP), fsync off (the test fixture), not pinned";
    record["cpus"] = cpus;
    record["pinning"] = "host h on CPU cpus[h mod " + std::to_string(cpus.size()) +
                        "] (sched_setaffinity before exec), each host in a session (autogroup) of its own; " +
                        (cpus.size() < 4 ? "4 hosts share " + std::to_string(cpus.size()) + " CPUs" : "one CPU each");
    record["circuit"] = "synthetic, " + w.constraints + " constraints, 2 public inputs, shape seed " +
                        std::to_string(w.seed) + "; each host: 2 claim slots, 1 synthesis worker, 1 finalizer";
    record["jobs"] = w.jobs;
    record["partitions_per_job"] = w.partitions;
    record["lease_s"] = w.lease_s;
    record["load_average_1m_start"] = load_average();
    record["nice"] = ::getpriority(PRIO_PROCESS, 0);  // the hosts inherit it
    for (int hosts : {1, 2, 4}) {
      record["drain"].push_back(drain(server, root, hosts, w, cpus));
      std::cerr << record["drain"].back().dump() << "\n";
    }
    const double one = record["drain"][0]["proofs_per_second"].get<double>();
    for (auto& d : record["drain"]) d["scale_vs_1_host"] = d["proofs_per_second"].get<double>() / one;
    record["lost_host"] = lost_host(server, root, w, cpus);
    std::cerr << record["lost_host"].dump() << "\n";
    record["load_average_1m_end"] = load_average();
    record["wall_seconds"] = std::chrono::duration<double>(Clock::now() - started).count();
  } catch (const std::exception& e) {
    std::cerr << "bench_cluster_hosts: " << e.what() << "\n";
    std::error_code ec;
    fs::remove_all(root, ec);
    return 1;
  }
  std::error_code ec;
  fs::remove_all(root, ec);
  if (out.empty()) std::cout << record.dump(2) << "\n";
  else cli::write_record(record, out);
  return 0;
}
