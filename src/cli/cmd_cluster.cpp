// `snarkpipe cluster status --db postgresql://...`: the hosts sharing a PostgreSQL queue, their
// leases and the queue's depth by priority (issue 26). Reads only: it joins no cluster.
#include <cstdio>
#include <string>

#include "cli/command.hpp"

#ifdef SNARKPIPE_HAVE_CLUSTER
#include "cluster/cluster_queue.hpp"
#include "cluster/schema.hpp"
#endif

namespace snarkpipe::cli {

namespace {

struct ClusterStatusOptions {
  std::string db;
};

#ifdef SNARKPIPE_HAVE_CLUSTER
int run_cluster_status(const ClusterStatusOptions& o) {
  try {
    cluster::PgConnection db({o.db, std::chrono::milliseconds(5000)});
    const int version = cluster::schema_version(db);
    if (version == 0) {
      std::printf("no cluster schema in this database yet (a host applies it when it starts)\n");
      return 1;
    }
    const cluster::ClusterStatus s = cluster::read_cluster_status(db);
    std::printf("schema version %d\n\nhosts (%zu)\n", version, s.hosts.size());
    std::printf("  %-24s %12s %7s %10s %12s %s\n", "name", "heartbeat", "leases", "memory", "clock", "version");
    for (const auto& h : s.hosts) {
      const std::string clock = h.clock_offset_ms ? std::to_string(*h.clock_offset_ms) + " ms" : "-";
      std::printf("  %-24s %9.1f s %7lld %7.1f GiB %12s %s\n", h.name.c_str(), h.heartbeat_age_ms / 1000.0,
                  static_cast<long long>(h.leases_held), static_cast<double>(h.memory_budget_bytes) / (1ull << 30),
                  clock.c_str(), h.version.c_str());
    }
    std::printf("\nleases (%zu)\n", s.leases.size());
    std::printf("  %10s %9s %-24s %12s %8s\n", "job", "partition", "host", "remaining", "attempts");
    for (const auto& l : s.leases)
      std::printf("  %10lld %9d %-24s %9.1f s%s %8d\n", static_cast<long long>(l.job_id), l.index, l.host.c_str(),
                  l.remaining_ms / 1000.0, l.remaining_ms < 0 ? " (expired)" : "", l.attempts);
    std::printf("\nqueue depth by priority\n  %8s %8s %8s %8s\n", "priority", "queued", "claimed", "expired");
    for (const auto& d : s.depth)
      std::printf("  %8d %8lld %8lld %8lld\n", d.priority, static_cast<long long>(d.queued),
                  static_cast<long long>(d.claimed), static_cast<long long>(d.expired));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "snarkpipe cluster status: %s\n", e.what());
    return 1;
  }
}
#endif

}  // namespace

std::vector<Command> register_cluster_commands(CLI::App& app) {
  auto* cluster = app.add_subcommand("cluster", "The PostgreSQL queue several daemons share");
  cluster->require_subcommand(1);
  auto o = std::make_shared<ClusterStatusOptions>();
  auto* status = cluster->add_subcommand("status", "Show the hosts, their leases and the queue depth by priority");
  status->add_option("--db", o->db, "The cluster database, postgresql://user@host:port/db")->required();
  return {make_command(status, o, [](ClusterStatusOptions& o, const CLI::App&) {
#ifdef SNARKPIPE_HAVE_CLUSTER
    return run_cluster_status(o);
#else
    (void)o;
    std::fprintf(stderr, "snarkpipe cluster: built without libpq; install libpq-dev (make deps) and build again\n");
    return 1;
#endif
  })};
}

}  // namespace snarkpipe::cli
