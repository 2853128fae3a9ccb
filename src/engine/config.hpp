// The engine's configuration: every knob defaults from the machine (cores, RAM, the
// backend's devices), a TOML file (config/snarkpipe.toml documents every key) overrides
// the defaults, and command-line flags override the file.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace snarkpipe::engine {

struct MachineFacts {
  unsigned cores = 1;     // CPUs this process may run on
  std::uint64_t ram = 0;  // bytes: MemTotal, or the cgroup's limit when lower
  static MachineFacts detect();
};

// "auto" margins: host max(2 GiB, 10 % of RAM) but at most half; device max(1 GiB, 5 %).
std::uint64_t auto_host_margin(std::uint64_t ram);
std::uint64_t auto_device_margin(std::uint64_t device_memory);

struct EngineConfig {
  std::string backend = "auto";                // engine.backend: cpu, cuda, or auto (the GPU when one is usable)
  bool timeline = true;                        // engine.timeline
  std::size_t synthesis_workers = 1;           // synthesis.workers ("auto": half the cores)
  bool check_witness = true;                   // synthesis.check_witness: a·b = c before proving
  bool pack_as_generated = true;               // synthesis.pack_as_generated: no full witness where a source can pack
  std::size_t lookahead = 0;                   // synthesis.lookahead (0, "auto": synthesis workers + device workers)
  std::vector<int> devices;                    // gpus.devices (empty: all the backend has)
  std::size_t workers_per_device = 2;          // gpu.workers_per_device
  unsigned max_retries = 2;                    // gpu.max_retries: device errors per partition
  unsigned device_failure_limit = 3;           // gpu.failures_before_out_of_service (consecutive)
  bool cpu_fallback = true;                    // gpu.cpu_fallback: prove on the CPU once no device is in service
  std::size_t finalizer_workers = 1;           // finalizer.workers ("auto": a quarter of the cores, 1..4)
  std::uint64_t host_budget = 0;               // memory.budget ("auto": RAM − memory.margin)
  std::optional<std::uint64_t> device_budget;  // memory.device_budget per device ("auto": none set)
  std::optional<std::uint64_t> device_margin;  // memory.device_margin ("auto": auto_device_margin)

  static EngineConfig defaults(const MachineFacts& machine);
  // Device memory the engine may reserve on a device with `memory` bytes (UNLIMITED for 0).
  std::uint64_t device_budget_for(std::uint64_t memory) const;
  // Throws ConfigError naming the first knob out of range.
  void validate() const;
  std::string describe() const;  // one "key = value" line per knob
};

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "4096", "512 MiB", "1.5GiB", "48G" (binary units; KB/MB/GB/TB are decimal). Throws ConfigError.
std::uint64_t parse_bytes(std::string_view text);

// The defaults for `machine`, overridden by the TOML text; `source` names it in errors,
// which give the key and line (unknown keys are errors, so typos do not pass silently).
EngineConfig parse_config(std::string_view toml_text, const MachineFacts& machine,
                          const std::string& source = "config");
EngineConfig load_config(const std::string& path, const MachineFacts& machine);
// Applies TOML text over `config` (the keys it sets; "auto" restores the machine default).
void apply_toml(EngineConfig& config, std::string_view toml_text, const MachineFacts& machine,
                const std::string& source);
// One "section.key=value" setting (the command line's --set), as the file would give it:
// apply_override(c, "memory.budget=8GiB", m). Throws ConfigError.
void apply_override(EngineConfig& config, std::string_view assignment, const MachineFacts& machine);

}  // namespace snarkpipe::engine
