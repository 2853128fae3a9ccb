// The daemon's settings: the [service] table of the configuration file (config/snarkpipe.toml
// documents every key), then `--set service.KEY=VALUE` overrides. Unknown keys are errors.
#pragma once

#include <string>
#include <string_view>

#include "service/service.hpp"

namespace snarkpipe::service {

struct ServiceConfig {
  std::string listen = "127.0.0.1:8080";  // loopback unless told otherwise
  std::string max_constraints = "2^27";   // the largest built-in circuit POST /v1/circuits records
  bool allow_anonymous = false;           // serve a non-loopback address without tokens
  ServiceOptions options;                 // state_dir empty: a temporary directory, removed at exit
  // The job store: empty or "sqlite" (this host's, in state_dir), or "postgresql://..." (a
  // cluster's, shared by every daemon given the same database).
  std::string db;
  std::string cluster_host;  // this host's name in the cluster; empty: HOSTNAME:PORT
  // A folder every host reads at the same path: witnesses over the inline limit and built-in
  // circuits' keys. ("cluster_witness_dir" is its older name.)
  std::string cluster_shared_dir;
  std::uint64_t cluster_witness_inline_limit = 16u << 20;
  bool cluster_prove = true;               // claim and prove the cluster's partitions; false: only admit
  unsigned cluster_slots = 0;              // partitions in work at once; 0: two per device
  int cluster_max_attempts = 3;            // claims of one partition before its job fails
  std::chrono::seconds cluster_lease{30};  // a claim without a heartbeat returns to the queue after this
};

// The [service] table of a TOML file (the other tables are the engine's); throws
// engine::ConfigError naming the key and line.
void apply_service_toml(ServiceConfig& c, std::string_view toml_text, const std::string& source);
void load_service_config(ServiceConfig& c, const std::string& path);
// "service.retention=2d": one key; false when `assignment` is not a service key.
bool apply_service_override(ServiceConfig& c, std::string_view assignment);

// "90", "90s", "15m", "24h", "7d" → seconds. Throws engine::ConfigError.
std::chrono::seconds parse_duration(std::string_view text);

// Whether `host` is a loopback address (127.0.0.0/8, ::1, localhost).
bool is_loopback(const std::string& host);

}  // namespace snarkpipe::service
