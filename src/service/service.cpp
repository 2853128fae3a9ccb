#include "service/service.hpp"

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <thread>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "base/hex.hpp"
#include "circom/snarkjs_json.hpp"
#include "engine/witness.hpp"
#include "groth16/params_file.hpp"

namespace snarkpipe::service {

namespace {

using nlohmann::json;

// Bounds a single request may ask for; beyond them it is a mistake, not a workload.
constexpr std::uint64_t MAX_PARTITIONS = 1 << 16;
constexpr std::size_t MAX_BODY_BYTES = 1 << 20;
// An error message quotes what the client sent, but never more than this much of it.
constexpr std::size_t MAX_ERROR_CHARS = 300;
// Requests are served by a pool of threads, one per connection while it is read: enough that
// a few slow or stalled clients cannot take them all (each stalled read is dropped after
// READ_TIMEOUT_S). A daemon open to strangers belongs behind a reverse proxy with header
// deadlines of its own.
constexpr unsigned MIN_HTTP_THREADS = 64;
constexpr time_t READ_TIMEOUT_S = 2;

json parse_object(const std::string& body) {
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw BadRequest("malformed JSON");
  if (!j.is_object()) throw BadRequest("the body must be a JSON object");
  return j;
}

std::string string_field(const json& j, const char* key, std::string fallback) {
  const auto it = j.find(key);
  if (it == j.end()) return fallback;
  if (!it->is_string()) throw BadRequest(std::string("'") + key + "' must be a string");
  return it->get<std::string>();
}

std::uint64_t uint_field(const json& j, const char* key, std::uint64_t fallback) {
  const auto it = j.find(key);
  if (it == j.end()) return fallback;
  if (!it->is_number_unsigned()) throw BadRequest(std::string("'") + key + "' must be a non-negative integer");
  return it->get<std::uint64_t>();
}

using base::hex;

void reply(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(body.dump() + "\n", "application/json");
}

void reply_error(httplib::Response& res, int status, std::string message) {
  if (message.size() > MAX_ERROR_CHARS) {
    const std::size_t dropped = message.size() - MAX_ERROR_CHARS;
    message.resize(MAX_ERROR_CHARS);
    while (!message.empty() && (static_cast<unsigned char>(message.back()) & 0xC0) == 0x80) message.pop_back();
    message += "... (" + std::to_string(dropped) + " more bytes)";
  }
  reply(res, status, {{"error", message}});
}

// The body through httplib's content reader, whatever its framing (Content-Length or chunked),
// kept up to MAX_BODY_BYTES: a larger one is read on and dropped up to DRAIN_BYTES, so that
// the client hears the 413, and past that the connection is dropped. Never held whole.
constexpr std::size_t DRAIN_BYTES = std::size_t(16) << 20;
std::optional<std::string> read_body(const httplib::Request& req, const httplib::ContentReader& reader) {
  if (req.has_header("Content-Length")) {
    const std::string declared = req.get_header_value("Content-Length");
    std::uint64_t length = 0;
    const auto [end, ec] = std::from_chars(declared.data(), declared.data() + declared.size(), length);
    if (ec != std::errc() || length > DRAIN_BYTES) return std::nullopt;
  }
  std::string body;
  std::size_t total = 0;
  const bool read = reader([&](const char* data, std::size_t length) {
    total += length;
    if (total > DRAIN_BYTES) return false;
    if (total <= MAX_BODY_BYTES) body.append(data, length);
    return true;
  });
  if (total > MAX_BODY_BYTES) return std::nullopt;
  if (!read) throw BadRequest("the request body could not be read (the connection broke off?)");
  return body;
}

// Runs a route and maps its exceptions to the API's error statuses, so no request can take
// the daemon down.
void answer(httplib::Response& res, const std::function<json()>& route) {
  try {
    reply(res, 200, route());
  } catch (const BadRequest& e) {
    reply_error(res, 400, e.what());
  } catch (const NotFound& e) {
    reply_error(res, 404, e.what());
  } catch (const engine::EngineError& e) {
    reply_error(res, 400, e.what());  // a request the engine refuses (see job.hpp)
  } catch (const std::exception& e) {
    reply_error(res, 500, e.what());
  }
}

// A POST route whose body is read by read_body (413 past the limit).
template <class Route>
httplib::Server::HandlerWithContentReader with_body(Route route) {
  return [route](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
    std::optional<std::string> body;
    try {
      body = read_body(req, reader);
    } catch (const BadRequest& e) {
      return reply_error(res, 400, e.what());
    }
    if (!body) return reply_error(res, 413, "the body is over the " + std::to_string(MAX_BODY_BYTES >> 20) + " MiB limit");
    answer(res, [&] { return route(*body); });
  };
}

}  // namespace

Service::Service(engine::Engine& engine, CircuitFactory factory) : engine_(engine), factory_(std::move(factory)) {}

Service::~Service() { stop(); }

bool Service::add_circuit(CircuitType type) {
  std::lock_guard lock(mu_);
  if (circuits_.count(type.name) || engine_.circuits().contains(type.name)) return false;
  auto t = std::make_shared<const CircuitType>(std::move(type));
  engine_.circuits().add(t->name, [keys = t->keys] { return keys; });
  circuits_.emplace(t->name, std::move(t));
  return true;
}

std::shared_ptr<const CircuitType> Service::circuit(const std::string& name) const {
  std::lock_guard lock(mu_);
  const auto it = circuits_.find(name);
  return it == circuits_.end() ? nullptr : it->second;
}

json Service::register_circuit(const std::string& body) {
  const json spec = parse_object(body);
  if (!factory_.name || !factory_.make) throw BadRequest("this daemon registers its circuits at start only");
  // Serialized, so two requests for the same new type set it up once.
  std::lock_guard reg(register_mu_);
  std::string name;
  try {
    name = factory_.name(spec);
    if (circuit(name)) return {{"name", name}, {"created", false}};
    add_circuit(factory_.make(spec));
  } catch (const std::invalid_argument& e) {
    throw BadRequest(e.what());
  }
  return {{"name", name}, {"created", true}};
}

json Service::submit(const std::string& body) {
  const json req = parse_object(body);
  for (const auto& [key, value] : req.items())
    if (key != "circuit" && key != "partitions" && key != "priority" && key != "seed" && key != "idempotency_key")
      throw BadRequest("unknown field '" + key +
                       "' (a job is circuit, partitions, priority, seed, idempotency_key; this daemon proves seeded "
                       "witnesses of its registered circuits)");
  const std::string name = string_field(req, "circuit", "");
  if (name.empty()) throw BadRequest("'circuit' (a registered circuit's name) is required");
  const auto type = circuit(name);
  if (!type) throw BadRequest("unknown circuit '" + name + "'");
  const std::uint64_t partitions = uint_field(req, "partitions", 1);
  if (partitions < 1 || partitions > MAX_PARTITIONS)
    throw BadRequest("'partitions' must be in 1.." + std::to_string(MAX_PARTITIONS));
  const std::string priority_text = string_field(req, "priority", "normal");
  const auto priority = engine::parse_priority(priority_text);
  if (!priority) throw BadRequest("unknown priority '" + priority_text + "' (low, normal, high, critical)");
  const std::uint64_t seed = uint_field(req, "seed", 1);
  const std::string idempotency_key = string_field(req, "idempotency_key", "");
  if (!idempotency_key.empty()) {
    // The same key again returns the first job, but only for the same request.
    const std::string canonical = json{{"circuit", name}, {"partitions", partitions}, {"priority", priority_text},
                                       {"seed", seed}}.dump();
    std::lock_guard lock(mu_);
    const auto [it, fresh] = idempotent_requests_.try_emplace(idempotency_key, canonical);
    if (!fresh && it->second != canonical)
      throw BadRequest("idempotency_key '" + idempotency_key + "' was first used with another request (" + it->second +
                       "); use a new key for a different job");
  }

  auto publics = std::make_shared<Publics>();
  publics->values.resize(partitions);
  engine::WitnessSource source = [type, seed, publics](std::size_t k, groth16::Witness& out) {
    const std::unique_ptr<circuit::Circuit> c = type->instance(seed, k);
    engine::synthesize_into(*c, out);
    std::lock_guard lock(publics->mu);
    publics->values[k].assign(out.inputs.begin() + 1, out.inputs.end());
  };
  const engine::JobId id =
      engine_.submit({name, std::move(source), partitions, *priority, idempotency_key});
  std::lock_guard lock(mu_);
  // A repeated idempotency key returns the first job, whose record (and witnesses) stand.
  jobs_.try_emplace(id, JobRecord{name, partitions, std::move(publics)});
  return {{"id", id}};
}

engine::JobId Service::find_job(const std::string& id) const {
  engine::JobId v = 0;
  const auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), v);
  std::lock_guard lock(mu_);
  if (ec != std::errc() || end != id.data() + id.size() || !jobs_.count(v)) throw NotFound("unknown job '" + id + "'");
  return v;
}

json Service::job(const std::string& id_text) const {
  const engine::JobId id = find_job(id_text);
  json out = {{"id", id}};
  std::shared_ptr<Publics> publics;
  {
    std::lock_guard lock(mu_);
    const JobRecord& r = jobs_.at(id);
    out["circuit"] = r.circuit;
    out["partitions"] = r.partitions;
    publics = r.publics;
  }
  const engine::JobState state = engine_.state(id);
  out["state"] = std::string(engine::state_name(state));
  if (!engine::is_terminal(state)) return out;
  const engine::JobResult r = *engine_.wait_for(id, std::chrono::milliseconds(0));
  if (!r.error.empty()) out["error"] = r.error;
  if (!r.ok()) return out;
  json proofs = json::array();
  for (const auto& p : r.proofs) proofs.push_back(hex(p.to_bytes()));
  json inputs = json::array();
  std::lock_guard lock(publics->mu);
  for (const auto& partition : publics->values) {
    json values = json::array();
    for (const auto& x : partition) values.push_back(x.to_decimal());
    inputs.push_back(std::move(values));
  }
  out["proofs"] = std::move(proofs);
  out["public_inputs"] = std::move(inputs);
  return out;
}

json Service::circuit_info(const std::string& name) const {
  const auto type = circuit(name);
  if (!type) throw NotFound("unknown circuit '" + name + "'");
  const groth16::VerifyingKey& vk = type->keys->pk.vk;
  // The bellperson bytes as write_vk puts them in a .vk file.
  const std::filesystem::path tmp =
      std::filesystem::temp_directory_path() / ("snarkpipe-vk-" + std::to_string(::getpid()) + "-" +
                                                std::to_string(std::hash<std::string>{}(name)) + ".vk");
  groth16::write_vk(tmp.string(), vk);
  std::ifstream in(tmp, std::ios::binary);
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  std::error_code ec;
  std::filesystem::remove(tmp, ec);
  const circuit::R1cs& r1cs = type->keys->r1cs;
  return {{"name", name},
          {"constraints", r1cs.num_constraints},
          {"inputs", r1cs.num_inputs},
          {"aux", r1cs.num_aux},
          {"vk", {{"bellperson_hex", hex(bytes)}, {"snarkjs", circom::vk_to_json(vk)}}}};
}

json Service::cancel(const std::string& id_text) {
  const engine::JobId id = find_job(id_text);
  const bool cancelled = engine_.cancel(id);
  return {{"id", id}, {"cancelled", cancelled}, {"state", std::string(engine::state_name(engine_.state(id)))}};
}

Service::JobCounts Service::count_jobs() const {
  std::vector<std::pair<engine::JobId, std::size_t>> ids;
  {
    std::lock_guard lock(mu_);
    for (const auto& [id, r] : jobs_) ids.emplace_back(id, r.partitions);
  }
  JobCounts c;
  for (auto s : {engine::JobState::QUEUED, engine::JobState::RUNNING, engine::JobState::DONE, engine::JobState::FAILED,
                 engine::JobState::CANCELLED})
    c.jobs[s] = 0;
  for (const auto& [id, partitions] : ids) {
    const engine::JobState s = engine_.state(id);
    ++c.jobs[s];
    if (s == engine::JobState::QUEUED) c.partitions_queued += partitions;
  }
  return c;
}

json Service::status() const {
  const engine::EngineStats s = engine_.stats();
  const JobCounts counts = count_jobs();
  json devices = json::array();
  for (const auto& d : s.devices) {
    devices.push_back({{"index", d.index},
                       {"name", d.name},
                       {"in_service", d.in_service},
                       {"out_of_service_reason", d.out_of_service_reason},
                       {"workers", d.workers},
                       // No budget of its own (the CPU): null rather than 2^64-1.
                       {"memory_budget", d.memory_budget == engine::MemoryBudget::UNLIMITED ? json() : json(d.memory_budget)},
                       {"memory_peak", d.memory_peak},
                       {"partitions_proved", d.partitions_proved},
                       {"failures", d.failures}});
  }
  json jobs = json::object();
  for (const auto& [state, n] : counts.jobs) jobs[std::string(engine::state_name(state))] = n;
  json circuits = json::array();
  {
    std::lock_guard lock(mu_);
    for (const auto& [name, _] : circuits_) circuits.push_back(name);
  }
  return {{"backend", engine_.config().backend},
          {"devices", devices},
          {"proofs",
           {{"partitions_proved", s.partitions_proved},
            {"partitions_retried", s.partitions_retried},
            {"verification_failures", s.verification_failures}}},
          {"jobs", jobs},
          {"partitions_queued", counts.partitions_queued},
          {"memory", {{"host_budget", s.host_budget}, {"host_used", s.host_used}, {"host_peak", s.host_peak}}},
          {"buffers", {{"created", s.buffers_created}, {"reused", s.buffers_reused}, {"idle", s.buffers_idle}}},
          {"packed_witnesses", {{"created", s.packed_created}, {"idle", s.packed_idle}, {"idle_bytes", s.packed_idle_bytes}}},
          {"circuits", circuits}};
}

int Service::start(const std::string& host, int port) {
  if (http_) throw std::logic_error("the service is already started");
  auto http = std::make_unique<httplib::Server>();
  http->set_payload_max_length(DRAIN_BYTES);  // read_body keeps at most MAX_BODY_BYTES
  http->set_read_timeout(READ_TIMEOUT_S, 0);
  http->new_task_queue = [] {
    return new httplib::ThreadPool(std::max(MIN_HTTP_THREADS, 8 * std::max(1u, std::thread::hardware_concurrency())));
  };
  // httplib's default sets SO_REUSEPORT, which lets a second daemon bind the same port and
  // silently take half the requests (and answer 404 for the other's jobs). SO_REUSEADDR
  // alone still allows a restart while old connections linger in TIME_WAIT.
  http->set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  http->Post("/v1/circuits", with_body([this](const std::string& body) { return register_circuit(body); }));
  http->Get(R"(/v1/circuits/(.+))", [this](const httplib::Request& req, httplib::Response& res) {
    answer(res, [&] { return circuit_info(req.matches[1]); });
  });
  http->Get("/v1/circuits", [this](const httplib::Request&, httplib::Response& res) {
    answer(res, [&] { return json{{"circuits", status()["circuits"]}}; });
  });
  http->Post("/v1/jobs", with_body([this](const std::string& body) { return submit(body); }));
  http->Get(R"(/v1/jobs/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
    answer(res, [&] { return job(req.matches[1]); });
  });
  http->Delete(R"(/v1/jobs/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
    answer(res, [&] { return cancel(req.matches[1]); });
  });
  http->Get("/v1/status", [this](const httplib::Request&, httplib::Response& res) {
    answer(res, [&] { return status(); });
  });
  http->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    try {
      res.set_content(metrics_text(), "text/plain; version=0.0.4");
    } catch (const std::exception& e) {
      reply_error(res, 500, e.what());
    }
  });
  // Paths no route takes, and bodies over the limit, get the API's error shape too.
  http->set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (res.body.empty())
      reply_error(res, res.status,
                  res.status == 404 ? "no route " + req.method + " " + req.path
                  : res.status == 413 ? "the body is over the " + std::to_string(MAX_BODY_BYTES >> 20) + " MiB limit"
                                      : "HTTP " + std::to_string(res.status));
  });
  const int bound = port == 0 ? http->bind_to_any_port(host) : (http->bind_to_port(host, port) ? port : -1);
  if (bound < 0) throw std::runtime_error("cannot listen on " + host + ":" + std::to_string(port));
  http_ = std::move(http);
  auto returned = std::make_shared<std::atomic<bool>>(false);
  listener_ = std::thread([server = http_.get(), returned] {
    server->listen_after_bind();
    *returned = true;
  });
  // stop() only reaches a server that is running; wait for it, so a stop() right after
  // start() cannot be missed and leave the listener blocked for ever.
  while (!http_->is_running() && !*returned) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return bound;
}

void Service::stop() {
  if (!http_) return;
  http_->stop();
  listener_.join();
  http_.reset();
}

}  // namespace snarkpipe::service
