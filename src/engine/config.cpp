#include "engine/config.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>
#include <thread>
#include <toml++/toml.h>

#include "base/sizes.hpp"
#include "engine/memory_budget.hpp"

namespace snarkpipe::engine {

namespace {

constexpr std::uint64_t GiB = std::uint64_t(1) << 30;

std::uint64_t read_meminfo_total() {
  std::ifstream f("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (f >> key >> kib >> unit)
    if (key == "MemTotal:") return kib * 1024;
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : 0;
}

std::optional<std::uint64_t> read_cgroup_limit() {
  for (const char* path : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream f(path);
    std::string s;
    if (f >> s && !s.empty() && std::isdigit(static_cast<unsigned char>(s[0]))) return std::stoull(s);
  }
  return std::nullopt;
}

}  // namespace

MachineFacts MachineFacts::detect() {
  MachineFacts m;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0) m.cores = unsigned(CPU_COUNT(&set));
  if (m.cores == 0) m.cores = std::max(1u, std::thread::hardware_concurrency());
  m.ram = read_meminfo_total();
  if (const auto cg = read_cgroup_limit(); cg && *cg < m.ram) m.ram = *cg;
  return m;
}

std::uint64_t auto_host_margin(std::uint64_t ram) { return std::min(std::max(2 * GiB, ram / 10), ram / 2); }
std::uint64_t auto_device_margin(std::uint64_t memory) { return std::min(std::max(GiB, memory / 20), memory / 2); }

EngineConfig EngineConfig::defaults(const MachineFacts& machine) {
  EngineConfig c;
  c.synthesis_workers = std::max(1u, machine.cores / 2);
  c.finalizer_workers = std::clamp(machine.cores / 4, 1u, 4u);
  c.host_budget = machine.ram - auto_host_margin(machine.ram);
  return c;
}

std::uint64_t EngineConfig::device_budget_for(std::uint64_t memory) const {
  if (memory == 0) return MemoryBudget::UNLIMITED;
  if (device_budget) return std::min(*device_budget, memory);
  const std::uint64_t margin = device_margin ? *device_margin : auto_device_margin(memory);
  return memory > margin ? memory - margin : 0;
}

void EngineConfig::validate() const {
  auto need = [](bool ok, const std::string& what) {
    if (!ok) throw ConfigError(what);
  };
  need(synthesis_workers >= 1 && synthesis_workers <= 4096, "synthesis.workers must be in 1..4096");
  need(workers_per_device >= 1 && workers_per_device <= 64, "gpu.workers_per_device must be in 1..64");
  need(lookahead <= 1000000, "synthesis.lookahead must be in 0..1000000 (0: auto)");
  need(finalizer_workers >= 1 && finalizer_workers <= 4096, "finalizer.workers must be in 1..4096");
  need(max_retries <= 100, "gpu.max_retries must be in 0..100");
  need(device_failure_limit >= 1 && device_failure_limit <= 1000,
       "gpu.failures_before_out_of_service must be in 1..1000");
  need(host_budget > 0, "memory.budget must be more than 0 bytes");
  for (int d : devices) need(d >= 0, "gpus.devices: device numbers are 0 or more");
}

std::string EngineConfig::describe() const {
  std::ostringstream o;
  o << "engine.backend = " << backend << "\n"
    << "engine.timeline = " << (timeline ? "true" : "false") << "\n"
    << "synthesis.workers = " << synthesis_workers << "\n"
    << "synthesis.check_witness = " << (check_witness ? "true" : "false") << "\n"
    << "synthesis.pack_as_generated = " << (pack_as_generated ? "true" : "false") << "\n"
    << "synthesis.lookahead = " << (lookahead ? std::to_string(lookahead) : std::string("auto")) << "\n"
    << "gpus.devices = ";
  if (devices.empty()) o << "all";
  for (std::size_t i = 0; i < devices.size(); ++i) o << (i ? "," : "") << devices[i];
  o << "\n"
    << "gpu.workers_per_device = " << workers_per_device << "\n"
    << "gpu.max_retries = " << max_retries << "\n"
    << "gpu.failures_before_out_of_service = " << device_failure_limit << "\n"
    << "gpu.cpu_fallback = " << (cpu_fallback ? "true" : "false") << "\n"
    << "finalizer.workers = " << finalizer_workers << "\n"
    << "memory.budget = " << format_bytes(host_budget) << "\n"
    << "memory.device_budget = " << (device_budget ? format_bytes(*device_budget) : std::string("auto")) << "\n"
    << "memory.device_margin = " << (device_margin ? format_bytes(*device_margin) : std::string("auto")) << "\n";
  return o.str();
}

std::uint64_t parse_bytes(std::string_view text) {
  try {
    return base::parse_bytes(text);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(e.what());
  }
}

namespace {

// Reads the known keys of one table, refusing unknown ones.
class TableReader {
 public:
  TableReader(const toml::table& root, std::string section, const std::string& source)
      : source_(source), section_(std::move(section)) {
    if (const toml::node* n = root.get(section_)) {
      table_ = n->as_table();
      if (!table_) fail(*n, "'" + section_ + "' must be a table ([" + section_ + "])");
    }
  }
  [[noreturn]] void fail(const toml::node& n, const std::string& what) const {
    throw ConfigError(source_ + ":" + std::to_string(n.source().begin.line) + ": " + what);
  }
  std::string key(std::string_view k) const { return section_ + "." + std::string(k); }
  const toml::node* get(std::string_view k) {
    seen_.emplace_back(k);
    return table_ ? table_->get(k) : nullptr;
  }
  void finish() const {
    if (!table_) return;
    for (const auto& [k, v] : *table_)
      if (std::find(seen_.begin(), seen_.end(), std::string(k.str())) == seen_.end())
        fail(v, "unknown key '" + key(k.str()) + "'");
  }

  void boolean(std::string_view k, bool& out) {
    if (const auto* n = get(k)) {
      if (!n->is_boolean()) fail(*n, key(k) + " must be true or false");
      out = n->as_boolean()->get();
    }
  }
  void string(std::string_view k, std::string& out) {
    if (const auto* n = get(k)) {
      if (!n->is_string()) fail(*n, key(k) + " must be a string");
      out = n->as_string()->get();
    }
  }
  // A count: an integer >= 0, or "auto". False for "auto" (the caller puts the machine's
  // default back), true otherwise (absent keys leave `out` as it is).
  template <class T>
  bool count(std::string_view k, T& out) {
    const auto* n = get(k);
    if (!n) return true;
    if (n->is_string() && n->as_string()->get() == "auto") return false;
    if (!n->is_integer() || n->as_integer()->get() < 0) fail(*n, key(k) + " must be a whole number or \"auto\"");
    out = T(n->as_integer()->get());
    return true;
  }
  // A byte size: an integer, a string with a unit, or "auto" (nullopt).
  std::optional<std::uint64_t> bytes(std::string_view k, bool& present) {
    present = false;
    const auto* n = get(k);
    if (!n) return std::nullopt;
    present = true;
    if (n->is_string() && n->as_string()->get() == "auto") return std::nullopt;
    if (n->is_integer() && n->as_integer()->get() >= 0) return std::uint64_t(n->as_integer()->get());
    if (n->is_string()) {
      try {
        return parse_bytes(n->as_string()->get());
      } catch (const ConfigError& e) {
        fail(*n, key(k) + ": " + e.what());
      }
    }
    fail(*n, key(k) + " must be a size (bytes, or a string like \"48GiB\") or \"auto\"");
  }

 private:
  const std::string& source_;
  std::string section_;
  const toml::table* table_ = nullptr;
  std::vector<std::string> seen_;
};

}  // namespace

void apply_toml(EngineConfig& c, std::string_view text, const MachineFacts& machine, const std::string& source) {
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    throw ConfigError(source + ":" + std::to_string(e.source().begin.line) + ": " + std::string(e.description()));
  }
  for (const auto& [k, v] : root)
    if (k.str() != "engine" && k.str() != "synthesis" && k.str() != "gpus" && k.str() != "gpu" &&
        k.str() != "finalizer" && k.str() != "memory" &&
        k.str() != "service")  // [service]: the daemon's (service_config.hpp)
      throw ConfigError(source + ":" + std::to_string(v.source().begin.line) + ": unknown section or key '" +
                        std::string(k.str()) + "'");
  {
    TableReader t(root, "engine", source);
    t.string("backend", c.backend);
    t.boolean("timeline", c.timeline);
    t.finish();
  }
  {
    TableReader t(root, "synthesis", source);
    if (!t.count("workers", c.synthesis_workers))
      c.synthesis_workers = EngineConfig::defaults(machine).synthesis_workers;
    t.boolean("check_witness", c.check_witness);
    t.boolean("pack_as_generated", c.pack_as_generated);
    if (!t.count("lookahead", c.lookahead)) c.lookahead = 0;
    t.finish();
  }
  {
    TableReader t(root, "gpus", source);
    if (const auto* n = t.get("devices")) {
      if (n->is_string() && n->as_string()->get() == "all") {
        c.devices.clear();
      } else if (const auto* arr = n->as_array()) {
        c.devices.clear();
        for (const auto& d : *arr) {
          if (!d.is_integer() || d.as_integer()->get() < 0) t.fail(d, "gpus.devices: device numbers are integers >= 0");
          c.devices.push_back(int(d.as_integer()->get()));
        }
      } else {
        t.fail(*n, "gpus.devices must be \"all\" or a list of device numbers like [0, 1]");
      }
    }
    t.finish();
  }
  {
    const EngineConfig d = EngineConfig::defaults(machine);
    TableReader t(root, "gpu", source);
    if (!t.count("workers_per_device", c.workers_per_device)) c.workers_per_device = d.workers_per_device;
    if (!t.count("max_retries", c.max_retries)) c.max_retries = d.max_retries;
    if (!t.count("failures_before_out_of_service", c.device_failure_limit))
      c.device_failure_limit = d.device_failure_limit;
    t.boolean("cpu_fallback", c.cpu_fallback);
    t.finish();
  }
  {
    TableReader t(root, "finalizer", source);
    if (!t.count("workers", c.finalizer_workers))
      c.finalizer_workers = EngineConfig::defaults(machine).finalizer_workers;
    t.finish();
  }
  {
    TableReader t(root, "memory", source);
    // budget "auto" (or absent with a margin given) is RAM minus the margin.
    bool margin_set = false, budget_set = false, present = false;
    const std::optional<std::uint64_t> margin = t.bytes("margin", margin_set);
    const std::optional<std::uint64_t> budget = t.bytes("budget", budget_set);
    if (margin && *margin >= machine.ram)
      t.fail(*t.get("margin"),
             "memory.margin (" + format_bytes(*margin) + ") leaves nothing of " + format_bytes(machine.ram));
    if (budget) c.host_budget = *budget;
    else if (budget_set || margin_set) c.host_budget = machine.ram - (margin ? *margin : auto_host_margin(machine.ram));
    if (auto b = t.bytes("device_budget", present); present) c.device_budget = b;
    if (auto b = t.bytes("device_margin", present); present) c.device_margin = b;
    t.finish();
  }
  try {
    c.validate();
  } catch (const ConfigError& e) {
    throw ConfigError(source + ": " + e.what());
  }
}

EngineConfig parse_config(std::string_view text, const MachineFacts& machine, const std::string& source) {
  EngineConfig c = EngineConfig::defaults(machine);
  apply_toml(c, text, machine, source);
  return c;
}

void apply_override(EngineConfig& c, std::string_view assignment, const MachineFacts& machine) {
  const std::size_t eq = assignment.find('=');
  const std::size_t dot = assignment.find('.');
  if (eq == std::string_view::npos || dot == std::string_view::npos || dot > eq)
    throw ConfigError("bad setting '" + std::string(assignment) +
                      "': expected section.key=value, like synthesis.workers=4");
  auto trim = [](std::string_view v) {
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.remove_prefix(1);
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.remove_suffix(1);
    return std::string(v);
  };
  const std::string section = trim(assignment.substr(0, dot)), key = trim(assignment.substr(dot + 1, eq - dot - 1));
  std::string value = trim(assignment.substr(eq + 1));
  // A bare word (auto, 48GiB, cpu) is taken as a string; numbers, booleans, lists and
  // quoted strings as TOML reads them.
  const bool bare = !value.empty() && value != "true" && value != "false" && value.front() != '"' &&
                    value.front() != '[' && value.find_first_not_of("0123456789_+-") != std::string::npos;
  if (bare) value = "\"" + value + "\"";
  apply_toml(c, "[" + section + "]\n" + key + " = " + value + "\n", machine,
             "setting '" + std::string(assignment) + "'");
}

EngineConfig load_config(const std::string& path, const MachineFacts& machine) {
  std::ifstream f(path);
  if (!f) throw ConfigError("cannot read the configuration file " + path);
  std::ostringstream s;
  s << f.rdbuf();
  return parse_config(s.str(), machine, path);
}

}  // namespace snarkpipe::engine
