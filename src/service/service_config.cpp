#include "service/service_config.hpp"

#include <toml++/toml.h>

#include <cctype>
#include <fstream>
#include <sstream>

#include "engine/config.hpp"

namespace snarkpipe::service {

namespace {

using engine::ConfigError;

[[noreturn]] void fail(const std::string& source, const toml::node& n, const std::string& what) {
  throw ConfigError(source + ":" + std::to_string(n.source().begin.line) + ": " + what);
}

std::string text_of(const std::string& source, const toml::node& n, const std::string& key) {
  if (const auto v = n.value<std::string>()) return *v;
  if (const auto v = n.value<std::int64_t>()) return std::to_string(*v);
  fail(source, n, "service." + key + " must be a string or a number");
}

std::uint64_t count_of(const std::string& source, const toml::node& n, const std::string& key) {
  const auto v = n.value<std::int64_t>();
  if (!v || *v < 0) fail(source, n, "service." + key + " must be a non-negative integer");
  return std::uint64_t(*v);
}

bool flag_of(const std::string& source, const toml::node& n, const std::string& key) {
  const auto v = n.value<bool>();
  if (!v) fail(source, n, "service." + key + " must be true or false");
  return *v;
}

AccessToken token_of(const std::string& source, const toml::node& n) {
  const toml::table* t = n.as_table();
  if (!t) fail(source, n, "each of service.tokens must be a table {name = ..., sha256 = ...}");
  AccessToken token;
  for (const auto& [k, v] : *t) {
    const std::string key(k.str());
    if (key == "name") token.name = text_of(source, v, "tokens.name");
    else if (key == "sha256") token.sha256 = text_of(source, v, "tokens.sha256");
    else if (key == "admin") token.admin = flag_of(source, v, "tokens.admin");
    else if (key == "max_jobs_in_flight") token.max_jobs_in_flight = count_of(source, v, "tokens.max_jobs_in_flight");
    else if (key == "max_upload") token.max_upload_bytes = engine::parse_bytes(text_of(source, v, "tokens.max_upload"));
    else
      fail(source, v, "unknown key 'service.tokens." + key + "' (name, sha256, admin, max_jobs_in_flight, max_upload)");
  }
  if (token.name.empty()) fail(source, n, "a token needs a name");
  for (char& c : token.sha256) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (token.sha256.size() != 64 || token.sha256.find_first_not_of("0123456789abcdef") != std::string::npos)
    fail(source, n, "token '" + token.name + "': sha256 must be 64 hex digits (printf %s TOKEN | sha256sum)");
  return token;
}

void apply_key(ServiceConfig& c, const std::string& key, const toml::node& v, const std::string& source) {
  ServiceOptions& o = c.options;
  if (key == "listen") c.listen = text_of(source, v, key);
  else if (key == "state_dir") o.state_dir = text_of(source, v, key);
  else if (key == "retention") o.retention = parse_duration(text_of(source, v, key));
  else if (key == "shutdown_deadline") o.shutdown_deadline = parse_duration(text_of(source, v, key));
  else if (key == "max_upload") o.max_upload_bytes = engine::parse_bytes(text_of(source, v, key));
  else if (key == "max_json_body") o.max_json_bytes = engine::parse_bytes(text_of(source, v, key));
  else if (key == "max_circuit_file") o.max_circuit_file_bytes = engine::parse_bytes(text_of(source, v, key));
  else if (key == "http_threads") o.http_threads = unsigned(count_of(source, v, key));
  else if (key == "read_timeout") o.read_timeout = parse_duration(text_of(source, v, key));
  else if (key == "header_timeout") o.header_timeout = parse_duration(text_of(source, v, key));
  else if (key == "max_wait") o.max_wait = parse_duration(text_of(source, v, key));
  else if (key == "max_partitions") {
    o.max_partitions = count_of(source, v, key);
    if (o.max_partitions < 1) fail(source, v, "max_partitions must be at least 1");
  } else if (key == "max_constraints") c.max_constraints = text_of(source, v, key);
  else if (key == "db") c.db = text_of(source, v, key);
  else if (key == "cluster_host") c.cluster_host = text_of(source, v, key);
  else if (key == "cluster_shared_dir" || key == "cluster_witness_dir") c.cluster_shared_dir = text_of(source, v, key);
  else if (key == "cluster_prove") c.cluster_prove = flag_of(source, v, key);
  else if (key == "cluster_slots") c.cluster_slots = unsigned(count_of(source, v, key));
  else if (key == "cluster_max_attempts") {
    c.cluster_max_attempts = int(count_of(source, v, key));
    if (c.cluster_max_attempts < 1) fail(source, v, "service.cluster_max_attempts must be at least 1");
  } else if (key == "cluster_lease") {
    c.cluster_lease = parse_duration(text_of(source, v, key));
    if (c.cluster_lease.count() < 1) fail(source, v, "service.cluster_lease must be at least 1s");
  } else if (key == "cluster_witness_inline_limit")
    c.cluster_witness_inline_limit = engine::parse_bytes(text_of(source, v, key));
  else if (key == "allow_anonymous") c.allow_anonymous = flag_of(source, v, key);
  else if (key == "tls_cert") o.tls_cert = text_of(source, v, key);
  else if (key == "tls_key") o.tls_key = text_of(source, v, key);
  else if (key == "circuit_roots") {
    const toml::array* a = v.as_array();
    if (!a) fail(source, v, "service.circuit_roots must be a list of directories");
    o.circuit_roots.clear();
    for (const auto& e : *a) o.circuit_roots.emplace_back(text_of(source, e, key));
  } else if (key == "tokens") {
    const toml::array* a = v.as_array();
    if (!a) fail(source, v, "service.tokens must be a list: [[service.tokens]] tables");
    o.tokens.clear();
    for (const auto& e : *a) o.tokens.push_back(token_of(source, e));
  } else {
    fail(source, v, "unknown key 'service." + key + "' (see config/snarkpipe.toml's [service] section)");
  }
}

}  // namespace

std::chrono::seconds parse_duration(std::string_view text) {
  std::string t(text);
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
  std::size_t used = 0;
  long long n = -1;
  try {
    n = std::stoll(t, &used);
  } catch (const std::exception&) {}
  const std::string unit = t.substr(used);
  const long long scale = unit.empty() || unit == "s" ? 1
                          : unit == "m"               ? 60
                          : unit == "h"               ? 3600
                          : unit == "d"               ? 86400
                                                      : -1;
  if (n < 0 || scale < 0) throw ConfigError("'" + std::string(text) + "' is not a duration (90, 90s, 15m, 24h, 7d)");
  return std::chrono::seconds(n * scale);
}

bool is_loopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host == "[::1]" || host.rfind("127.", 0) == 0;
}

void apply_service_toml(ServiceConfig& c, std::string_view text, const std::string& source) {
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    throw ConfigError(source + ":" + std::to_string(e.source().begin.line) + ": " + std::string(e.description()));
  }
  const toml::node* section = root.get("service");
  if (!section) return;
  const toml::table* t = section->as_table();
  if (!t) fail(source, *section, "[service] must be a table");
  for (const auto& [k, v] : *t) apply_key(c, std::string(k.str()), v, source);
}

void load_service_config(ServiceConfig& c, const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError("cannot read the configuration " + path);
  std::stringstream text;
  text << in.rdbuf();
  apply_service_toml(c, text.str(), path);
}

bool apply_service_override(ServiceConfig& c, std::string_view assignment) {
  constexpr std::string_view prefix = "service.";
  if (assignment.rfind(prefix, 0) != 0) return false;
  const auto eq = assignment.find('=');
  if (eq == std::string_view::npos)
    throw ConfigError("--set wants service.KEY=VALUE, not '" + std::string(assignment) + "'");
  const std::string key(assignment.substr(prefix.size(), eq - prefix.size()));
  const std::string value(assignment.substr(eq + 1));
  // The value as TOML when it reads as TOML (numbers, booleans, lists), else as a string.
  toml::table parsed;
  try {
    parsed = toml::parse(std::string_view("v = " + value), std::string_view("--set"));
  } catch (const toml::parse_error&) {
    parsed = toml::table{{"v", value}};
  }
  apply_key(c, key, *parsed.get("v"), "--set " + std::string(assignment));
  return true;
}

}  // namespace snarkpipe::service
