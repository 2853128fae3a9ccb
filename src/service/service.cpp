#include "service/service.hpp"

#include <httplib.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>

#include "base/hex.hpp"
#include "circom/r1cs.hpp"
#include "circom/snarkjs_json.hpp"
#include "circuit/r1cs_file.hpp"
#include "engine/witness.hpp"
#include "groth16/params_file.hpp"
#include "service/http_gate.hpp"
#include "service/sha256.hpp"
#include "service/witness_upload.hpp"

namespace snarkpipe::service {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// An error message quotes what the client sent, but its JSON form never takes more than this.
constexpr std::size_t MAX_ERROR_BYTES = 300;
// Requests are served by a pool of threads, one per connection while it is read and one per
// long poll: enough that slow or stalled clients cannot take them all (a stalled read is
// dropped after the read timeout). A daemon open to strangers belongs behind a reverse
// proxy with header deadlines of its own.
constexpr unsigned MIN_HTTP_THREADS = 256;
// A JSON body over the limit is read on (and dropped) up to this much, so that the client
// hears the 413; past that the connection is dropped.
constexpr std::size_t DRAIN_BYTES = std::size_t(16) << 20;
constexpr std::size_t PROOF_BYTES = 192;
// How often the service looks for jobs the engine finished, and for expired ones.
constexpr auto COMPLETION_POLL = std::chrono::milliseconds(5);
constexpr auto JANITOR_PERIOD = std::chrono::milliseconds(500);
// How often a long poll reads the store for a job a cluster's hosts are proving.
constexpr auto CLUSTER_POLL = std::chrono::milliseconds(100);

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

ApiError bad_request(const std::string& why) { return ApiError(400, why); }

json parse_object(const std::string& body) {
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw bad_request("malformed JSON");
  if (!j.is_object()) throw bad_request("the body must be a JSON object");
  return j;
}

std::string string_field(const json& j, const char* key, std::string fallback) {
  const auto it = j.find(key);
  if (it == j.end()) return fallback;
  if (!it->is_string()) throw bad_request(std::string("'") + key + "' must be a string");
  return it->get<std::string>();
}

std::uint64_t uint_field(const json& j, const char* key, std::uint64_t fallback) {
  const auto it = j.find(key);
  if (it == j.end()) return fallback;
  if (!it->is_number_unsigned()) throw bad_request(std::string("'") + key + "' must be a non-negative integer");
  return it->get<std::uint64_t>();
}

std::uint64_t parse_uint(const std::string& key, const std::string& text) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty())
    throw bad_request("'" + key + "' must be a non-negative integer, not '" + text + "'");
  return v;
}

using base::hex;

void reply(httplib::Response& res, int status, const json& body) {
  res.status = status;
  // A message may quote bytes the client sent that are not UTF-8 (a method, a path): dump()
  // would throw out of httplib's error handler and end the daemon.
  res.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace) + "\n", "application/json");
}

// The length of the well-formed UTF-8 sequence at s[i] (RFC 3629's table: no overlong forms,
// no surrogates, nothing above U+10FFFF), or 0 where the byte there starts none.
std::size_t utf8_sequence_at(std::string_view s, std::size_t i) {
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = at(i);
  if (c < 0x80) return 1;
  std::size_t n;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c >= 0xE0 && c <= 0xEF) n = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
  else if (c >= 0xF0 && c <= 0xF4) n = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
  else return 0;
  if (i + n > s.size() || at(i + 1) < lo || at(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if ((at(i + k) & 0xC0) != 0x80) return 0;
  return n;
}

// `message` made valid UTF-8 (a byte that starts no character becomes U+FFFD) and cut so that
// its JSON string takes at most `budget` bytes: a client's path of 0xFF bytes or control
// characters grows 3 or 6 times in JSON, and the answer must stay short however it was built.
std::string bounded_message(std::string_view message, std::size_t budget) {
  std::string out;
  std::size_t width = 0, i = 0;
  for (; i < message.size();) {
    const std::size_t n = utf8_sequence_at(message, i);
    const unsigned char c = static_cast<unsigned char>(message[i]);
    const std::size_t w = n == 0 ? 3 : c < 0x20 ? 6 : (c == '"' || c == '\\') ? 2 : n;  // its JSON bytes, at most
    if (width + w > budget) break;
    if (n == 0) out += "\xEF\xBF\xBD";  // U+FFFD
    else out.append(message.substr(i, n));
    width += w;
    i += n == 0 ? 1 : n;
  }
  if (i < message.size()) out += "... (" + std::to_string(message.size() - i) + " more bytes)";
  return out;
}

void reply_error(httplib::Response& res, int status, const std::string& message) {
  if (status == 401) res.set_header("WWW-Authenticate", "Bearer");
  reply(res, status, {{"error", bounded_message(message, MAX_ERROR_BYTES)}});
}

// Runs a route and maps its exceptions to the API's error statuses, so no request can take
// the daemon down.
void answer(httplib::Response& res, const std::function<json()>& route) {
  try {
    reply(res, 200, route());
  } catch (const ApiError& e) {
    reply_error(res, e.status(), e.what());
  } catch (const engine::EngineError& e) {
    reply_error(res, 400, e.what());  // a request the engine refuses (see job.hpp)
  } catch (const std::exception& e) {
    reply_error(res, 500, e.what());
  }
}

// The body through httplib's content reader, whatever its framing (Content-Length or
// chunked), kept up to `limit`: a larger one is read on and dropped up to DRAIN_BYTES. Never
// held whole.
std::string read_json_body(const httplib::Request& req, const httplib::ContentReader& reader, std::size_t limit) {
  const std::string too_big = "the body is over the " + std::to_string(limit) + "-byte limit";
  if (req.has_header("Content-Length")) {
    const std::string declared = req.get_header_value("Content-Length");
    std::uint64_t length = 0;
    const auto [end, ec] = std::from_chars(declared.data(), declared.data() + declared.size(), length);
    if (ec != std::errc() || length > DRAIN_BYTES) throw ApiError(413, too_big);
  }
  std::string body;
  std::size_t total = 0;
  const bool read = reader([&](const char* data, std::size_t length) {
    total += length;
    if (total > DRAIN_BYTES) return false;
    if (total <= limit) body.append(data, length);
    return true;
  });
  if (total > limit) throw ApiError(413, too_big);
  if (!read) throw bad_request("the request body could not be read (the connection broke off?)");
  return body;
}

std::string query_string(const std::multimap<std::string, std::string>& q, const std::string& key,
                         std::string fallback) {
  const auto [first, last] = q.equal_range(key);
  if (first == last) return fallback;
  if (std::next(first) != last) throw bad_request("'" + key + "' is given twice");
  return first->second;
}

bool is_under(const fs::path& path, const fs::path& root) {
  const auto [r, p] = std::mismatch(root.begin(), root.end(), path.begin(), path.end());
  return r == root.end();
}

std::string file_magic(const fs::path& path, std::size_t n) {
  std::ifstream in(path, std::ios::binary);
  std::string m(n, '\0');
  in.read(m.data(), std::streamsize(n));
  m.resize(std::size_t(in.gcount()));
  return m;
}

// A name a client may give a circuit: it appears in URLs and file names.
// Two registrations are the same when they are of one kind with one body (the stored one also
// carries its verifying key's digest).
bool same_registration(const json& stored, const json& asked) {
  return stored.value("kind", "") == asked.value("kind", "") && stored.contains("body") &&
         stored["body"] == asked["body"];
}

std::string vk_digest(const std::vector<std::uint8_t>& vk_bytes) {
  return sha256_hex(std::string_view(reinterpret_cast<const char*>(vk_bytes.data()), vk_bytes.size()));
}

bool good_circuit_name(const std::string& name) {
  if (name.empty() || name.size() > 200) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("._-:=,^", c); });
}

// Writes with a function that takes a path (write_params, write_r1cs), durably.
void write_durably(const fs::path& path, const std::function<void(const fs::path&)>& write) {
  const fs::path tmp = path.string() + ".tmp-" + random_name();
  write(tmp);
  const int fd = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot reopen " + tmp.string() + ": " + std::strerror(errno));
  try {
    commit_file(fd, tmp, path);
  } catch (...) {
    ::close(fd);
    remove_quietly(tmp);
    throw;
  }
  ::close(fd);
}

json offsets_json(const std::vector<std::uint64_t>& starts) { return json(starts); }

// A file being received into the spool's incoming/: removed unless it was kept.
struct IncomingFile {
  int fd = -1;
  fs::path path;
  explicit IncomingFile(fs::path p) : path(std::move(p)) {
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) throw std::runtime_error("cannot create " + path.string() + ": " + std::strerror(errno));
  }
  IncomingFile(const IncomingFile&) = delete;
  IncomingFile& operator=(const IncomingFile&) = delete;
  ~IncomingFile() {
    if (fd >= 0) ::close(fd);
    if (!path.empty()) remove_quietly(path);
  }
  // Durably renamed to `to` (fsync, rename, directory fsync); `to` is then the caller's.
  void commit(const fs::path& to) {
    commit_file(fd, path, to);
    ::close(fd);
    fd = -1;
    path.clear();
  }
};

// Streams a request body into `into`, `inspect` seeing each piece first (it throws ApiError
// to refuse the body). Throws ApiError: 413 past `limit`, 400 when the body broke off, 507
// when the disk refuses it. Returns the bytes received.
std::uint64_t receive_body(IncomingFile& into, const Service::BodyReader& read, std::uint64_t limit,
                           const std::function<void(const char*, std::size_t)>& inspect) {
  std::uint64_t total = 0;
  std::optional<ApiError> refused;
  // httplib hands the body over in 4 KiB pieces: written in blocks, a syscall per MiB.
  constexpr std::size_t WRITE_BLOCK = 1 << 20;
  std::vector<char> pending;
  pending.reserve(WRITE_BLOCK + (64 << 10));
  const auto flush = [&] {
    for (std::size_t done = 0; done < pending.size();) {
      const ssize_t n = ::write(into.fd, pending.data() + done, pending.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        refused = ApiError(507, std::string("the daemon cannot store the upload: ") + std::strerror(errno));
        return false;
      }
      done += std::size_t(n);
    }
    pending.clear();
    return true;
  };
  // Nothing is thrown through httplib's reader: a refusal stops it and is thrown after.
  const bool complete = read([&](const char* data, std::size_t size) {
    total += size;
    if (total > limit) {
      refused = ApiError(413, "the upload is over its limit of " + std::to_string(limit) + " bytes");
      return false;
    }
    try {
      inspect(data, size);
    } catch (const ApiError& e) {
      refused = e;
      return false;
    }
    pending.insert(pending.end(), data, data + size);
    return pending.size() < WRITE_BLOCK || flush();
  });
  if (complete && !refused) flush();
  if (refused) throw *refused;
  if (!complete) throw bad_request("the upload broke off after " + std::to_string(total) + " bytes; nothing was kept");
  return total;
}

WitnessShape shape_of(const ServedCircuit& c) { return {c.inputs, c.aux}; }

bool is_snkr1cs(const fs::path& path) { return file_magic(path, 8) == std::string(circuit::R1CS_FILE_MAGIC, 8); }

// A recorded circuit from a .snkr1cs or a circom .r1cs.
circuit::R1cs read_any_r1cs(const fs::path& path) {
  if (is_snkr1cs(path)) return circuit::read_r1cs(path);
  if (file_magic(path, 4) == "r1cs") return std::move(circom::read_circom_r1cs(path.string()).r1cs);
  throw ApiError(400, "'r1cs': " + path.string() + " is neither a .snkr1cs (snarkpipe) nor a circom .r1cs file");
}

// Reads bellperson keys and their circuit when the engine asks (a job needs them, and they
// were not resident or were evicted). On GPUs the key's queries stay in the .params file (the
// backend reads them straight to the device, or once into its page-locked memory) and a
// .snkr1cs is mapped (paged out once uploaded), so the host keeps no copy of either.
engine::CircuitLoader keys_loader(const std::string& name, const fs::path& params, const fs::path& r1cs, bool on_gpus) {
  return [name, params, r1cs, on_gpus] {
    if (!on_gpus) return engine::make_circuit_keys(name, read_any_r1cs(r1cs), groth16::read_params(params.string()));
    circuit::R1cs circuit = is_snkr1cs(r1cs) ? circuit::map_r1cs(r1cs) : read_any_r1cs(r1cs);
    return engine::make_circuit_keys(name, std::move(circuit), groth16::open_params_deferred(params.string()));
  };
}

}  // namespace

Service::Service(engine::Engine& engine, CircuitFactory factory, ServiceOptions options)
    : engine_(engine),
      factory_(std::move(factory)),
      options_(std::move(options)),
      spool_(options_.state_dir.empty()
                 ? throw std::invalid_argument("the service needs a state directory (service.state_dir)")
                 : options_.state_dir),
      store_(options_.open_store ? options_.open_store(spool_)
                                 : std::make_unique<SqliteJobStore>(spool_.database(), spool_.proofs())),
      zkey_lane_(options_.zkey_prove) {}

Service::~Service() { stop(); }

std::vector<std::string> Service::routes() {
  return {"POST /v1/circuits",
          "GET /v1/circuits",
          "GET /v1/circuits/{name}",
          "PUT /v1/circuits/{name}/files/{kind}",
          "POST /v1/jobs",
          "GET /v1/jobs",
          "GET /v1/jobs/{id}",
          "GET /v1/jobs/{id}/wait",
          "GET /v1/jobs/{id}/events",
          "DELETE /v1/jobs/{id}",
          "GET /v1/status",
          "GET /metrics"};
}

Caller Service::authenticate(const std::string& authorization) const {
  if (options_.tokens.empty()) return {};
  if (authorization.empty()) throw ApiError(401, "this daemon wants a token: send 'Authorization: Bearer TOKEN'");
  const auto secret = bearer_secret(authorization);
  if (!secret) throw ApiError(401, "the Authorization header must be 'Bearer TOKEN'");
  const AccessToken* t = find_token(options_.tokens, *secret);
  if (!t) throw ApiError(401, "unknown token (ask the operator for one: service.tokens in the daemon's configuration)");
  return {t};
}

std::shared_ptr<const ServedCircuit> Service::circuit(const std::string& name) const {
  std::lock_guard lock(mu_);
  const auto it = circuits_.find(name);
  return it == circuits_.end() ? nullptr : it->second;
}

void Service::serve_circuit(ServedCircuit c, engine::CircuitLoader loader, const json& spec, bool persist) {
  if (persist) {
    json stored = spec;
    stored["vk_sha256"] = vk_digest(vk_bytes(c.vk));
    store_->add_circuit({c.name, stored.dump(), unix_now()});
  }
  std::lock_guard lock(mu_);
  if (circuits_.count(c.name)) return;
  if (loader && !engine_.circuits().contains(c.name)) engine_.circuits().add(c.name, std::move(loader));
  const std::string name = c.name;
  circuits_.emplace(name, std::make_shared<const ServedCircuit>(std::move(c)));
}

fs::path Service::allowed_path(const json& spec, const char* key) const {
  const std::string text = string_field(spec, key, "");
  if (text.empty()) throw bad_request(std::string("'") + key + "' (a path on the daemon's machine) is required");
  std::error_code ec;
  const fs::path path = fs::weakly_canonical(fs::absolute(text), ec);
  if (ec || !fs::is_regular_file(path, ec))
    throw bad_request(std::string("'") + key + "': no file " + text + " on the daemon's machine");
  if (!options_.circuit_roots.empty() &&
      std::none_of(options_.circuit_roots.begin(), options_.circuit_roots.end(), [&](const fs::path& root) {
        std::error_code e;
        return is_under(path, fs::weakly_canonical(root, e));
      }))
    throw ApiError(403, std::string("'") + key + "': " + text +
                            " is outside the directories this daemon reads circuits from (service.circuit_roots)");
  return path;
}

// A circuit from files: a bellperson .params and its recorded circuit (snarkpipe's .snkr1cs
// or circom's .r1cs), or a snarkjs .zkey and its circom .r1cs; each read with its own checked
// reader, then checked against each other. A .params is checked by its counts and verifying
// key only (a PoRep one is 47 GB): the engine loads it when a job needs it (keys_loader).
std::pair<ServedCircuit, engine::CircuitLoader> Service::load_files(const json& spec) const {
  const char* key_field = spec.contains("zkey") ? "zkey" : "params";
  for (const auto& [key, value] : spec.items())
    if (key != "name" && key != key_field && key != "r1cs")
      throw bad_request("unknown field '" + key + "' (a circuit from files is name, params or zkey, r1cs)");
  const fs::path params = allowed_path(spec, key_field), r1cs_path = allowed_path(spec, "r1cs");
  return load_checked_files(string_field(spec, "name", params.stem().string()), spec.contains("zkey"), params,
                            r1cs_path);
}

fs::path Service::uploaded_file(const std::string& name, const std::string& kind) const {
  // Named by a digest of the circuit's name: any good name is a safe file name.
  return spool_.circuits() / "uploads" / (sha256_hex(name).substr(0, 32) + "." + kind);
}

std::pair<ServedCircuit, engine::CircuitLoader> Service::load_uploaded(const json& spec) const {
  for (const auto& [key, value] : spec.items())
    if (key != "name" && key != "uploaded")
      throw bad_request("unknown field '" + key + "' (a circuit from uploaded files is name, uploaded)");
  const std::string name = string_field(spec, "name", "");
  if (!good_circuit_name(name)) throw bad_request("'name' must be 1-200 of A-Z a-z 0-9 . _ - : = , ^");
  const json& kinds = spec.at("uploaded");
  const bool zkey = kinds == json{"zkey", "r1cs"} || kinds == json{"r1cs", "zkey"};
  if (!zkey && kinds != json{"params", "r1cs"} && kinds != json{"r1cs", "params"})
    throw bad_request("'uploaded' must be [\"params\", \"r1cs\"] or [\"zkey\", \"r1cs\"]");
  const fs::path key = uploaded_file(name, zkey ? "zkey" : "params"), r1cs = uploaded_file(name, "r1cs");
  for (const auto& [path, kind] : {std::pair{key, zkey ? "zkey" : "params"}, std::pair{r1cs, "r1cs"}}) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
      throw bad_request("circuit '" + name + "' has no uploaded " + kind + " file: PUT /v1/circuits/" + name +
                        "/files/" + kind + " first");
  }
  return load_checked_files(name, zkey, key, r1cs);
}

std::pair<ServedCircuit, engine::CircuitLoader> Service::load_checked_files(std::string name, bool zkey,
                                                                            const fs::path& params,
                                                                            const fs::path& r1cs_path) const {
  ServedCircuit c;
  c.name = std::move(name);
  if (!good_circuit_name(c.name)) throw bad_request("'name' must be 1-200 of A-Z a-z 0-9 . _ - : = , ^");
  try {
    if (zkey) {
      // The key carries A and B (its prover needs no more); the .r1cs is checked against it.
      const circom::CircomR1cs r1cs = circom::read_circom_r1cs(r1cs_path.string());
      circom::Zkey zkey = circom::read_zkey(params.string());
      if (r1cs.num_wires != zkey.num_vars || r1cs.num_public() != zkey.num_public)
        throw bad_request("the zkey " + params.string() + " (" + std::to_string(zkey.num_vars) + " signals, " +
                          std::to_string(zkey.num_public) + " public) does not fit the circuit " + r1cs_path.string() +
                          " (" + std::to_string(r1cs.num_wires) + " wires, " + std::to_string(r1cs.num_public()) +
                          " public)");
      c.constraints = r1cs.r1cs.num_constraints;
      c.inputs = r1cs.r1cs.num_inputs;
      c.aux = r1cs.r1cs.num_aux;
      c.zkey = std::make_shared<const circom::ZkeyProver>(std::move(zkey));
      c.vk = c.zkey->vk();
      return {std::move(c), nullptr};
    }
    // Mapped, not copied: only its counts are kept.
    const circuit::R1cs r1cs = is_snkr1cs(r1cs_path) ? circuit::map_r1cs(r1cs_path) : read_any_r1cs(r1cs_path);
    const groth16::ParamsSummary summary = groth16::summarize_params_file(params.string());
    if (summary.kind != groth16::ParamsSummary::Kind::Parameters)
      throw bad_request("'params': " + params.string() +
                        " is a verifying key, not a .params file with the proving key");
    const auto mismatch = [&](const std::string& what) {
      return bad_request("the params " + params.string() + " do not fit the circuit " + r1cs_path.string() + ": " +
                         what);
    };
    if (summary.ic != r1cs.num_inputs)
      throw mismatch(std::to_string(summary.ic) + " IC points for " + std::to_string(r1cs.num_inputs) + " inputs");
    if (summary.l != r1cs.num_aux)
      throw mismatch(std::to_string(summary.l) + " L points for " + std::to_string(r1cs.num_aux) + " aux variables");
    if (summary.h + 1 < r1cs.num_constraints)
      throw mismatch("a domain of " + std::to_string(summary.h + 1) + " for " + std::to_string(r1cs.num_constraints) +
                     " constraints");
    c.vk = groth16::read_params_vk(params.string());
    c.constraints = r1cs.num_constraints;
    c.inputs = r1cs.num_inputs;
    c.aux = r1cs.num_aux;
  } catch (const ApiError&) {
    throw;
  } catch (const std::exception& e) {
    throw bad_request(e.what());
  }
  return {c, keys_loader(c.name, params, r1cs_path, engine_.config().backend == "cuda")};
}

json Service::upload_circuit_file(const std::string& name, const std::string& kind,
                                  std::optional<std::uint64_t> declared, const BodyReader& read, const Caller& caller) {
  if (!caller.admin()) throw ApiError(403, "this token may not upload circuits (service.tokens: admin = true)");
  if (draining_) throw ApiError(503, "the daemon is shutting down");
  if (!good_circuit_name(name)) throw bad_request("a circuit name is 1-200 of A-Z a-z 0-9 . _ - : = , ^");
  if (kind != "params" && kind != "r1cs" && kind != "zkey")
    throw ApiError(404, "no circuit file kind '" + kind + "' (params, r1cs or zkey)");
  const std::uint64_t limit = options_.max_circuit_file_bytes;
  if (declared && *declared > limit)
    throw ApiError(413, "the file is " + std::to_string(*declared) + " bytes, over this daemon's limit of " +
                            std::to_string(limit) + " (service.max_circuit_file)");
  // A registered circuit's files are in use (the engine may be reading them).
  if (circuit(name))
    throw ApiError(409, "circuit '" + name + "' is registered: its files cannot change (register another name)");
  IncomingFile incoming(spool_.incoming(random_name() + ".part"));
  Sha256 digest;
  const std::uint64_t bytes =
      receive_body(incoming, read, limit, [&](const char* data, std::size_t size) { digest.update(data, size); });
  if (declared && bytes != *declared)
    throw bad_request("the upload has " + std::to_string(bytes) + " bytes, not the " + std::to_string(*declared) +
                      " it declared");
  // What the file alone can be checked for; the rest (each against the other) at registration.
  try {
    if (kind == "params") {
      if (groth16::summarize_params_file(incoming.path.string()).kind != groth16::ParamsSummary::Kind::Parameters)
        throw bad_request("this is a verifying key, not a .params file with the proving key");
    } else if (kind == "r1cs") {
      if (is_snkr1cs(incoming.path)) circuit::map_r1cs(incoming.path);
      else if (file_magic(incoming.path, 4) == "r1cs") circom::read_circom_r1cs(incoming.path.string());
      else throw bad_request("neither a .snkr1cs (snarkpipe) nor a circom .r1cs file");
    } else if (file_magic(incoming.path, 4) != "zkey") {
      throw bad_request("not a snarkjs .zkey file");
    }
  } catch (const ApiError& e) {
    throw ApiError(e.status(), "the uploaded " + kind + " file: " + e.what());
  } catch (const std::exception& e) {
    throw bad_request("the uploaded " + kind + " file: " + e.what());
  }
  const fs::path to = uploaded_file(name, kind);
  std::error_code ec;
  fs::create_directories(to.parent_path(), ec);
  // The data synced before the lock (tens of GB may take a while); commit's own sync is then quick.
  if (::fdatasync(incoming.fd) != 0)
    throw ApiError(507, std::string("the daemon cannot store the upload: ") + std::strerror(errno));
  std::lock_guard reg(register_mu_);  // not replaced while a registration reads it
  if (circuit(name)) throw ApiError(409, "circuit '" + name + "' was registered meanwhile: its files cannot change");
  incoming.commit(to);
  return {{"name", name}, {"file", kind}, {"bytes", bytes}, {"sha256", digest.hex()}};
}

json Service::register_circuit(const std::string& body, const Caller& caller) {
  if (!caller.admin()) throw ApiError(403, "this token may not register circuits (service.tokens: admin = true)");
  if (draining_) throw ApiError(503, "the daemon is shutting down");
  const json spec = parse_object(body);
  // Serialized, so two requests for the same new type set it up once.
  std::lock_guard reg(register_mu_);
  if (spec.contains("uploaded")) {
    const std::string name = string_field(spec, "name", "");
    const json stored = {{"kind", "uploaded"}, {"body", spec}};
    for (const auto& c : store_->circuits())
      if (c.name == name) {
        if (!same_registration(json::parse(c.spec), stored))
          throw bad_request("circuit name '" + name + "' is taken by another registration");
        if (circuit(name)) return {{"name", name}, {"created", false}};
      }
    if (circuit(name)) throw bad_request("circuit name '" + name + "' is taken");
    auto [c, loader] = load_uploaded(spec);
    serve_circuit(std::move(c), std::move(loader), stored, true);
    return {{"name", name}, {"created", true}};
  }
  if (spec.contains("params") || spec.contains("zkey")) {
    const std::string name = string_field(
        spec, "name", fs::path(string_field(spec, spec.contains("zkey") ? "zkey" : "params", "")).stem().string());
    const json stored = {{"kind", "files"}, {"body", spec}};
    for (const auto& c : store_->circuits())
      if (c.name == name) {
        if (!same_registration(json::parse(c.spec), stored))
          throw bad_request("circuit name '" + name + "' is taken by another registration");
        if (circuit(name)) return {{"name", name}, {"created", false}};
      }
    if (circuit(name)) throw bad_request("circuit name '" + name + "' is taken");
    auto [c, loader] = load_files(spec);
    serve_circuit(std::move(c), std::move(loader), stored, true);
    return {{"name", name}, {"created", true}};
  }
  if (!factory_.name || !factory_.make)
    throw bad_request("this daemon registers circuits from files only ('params', 'r1cs')");
  std::string name;
  try {
    name = factory_.name(spec);
    if (circuit(name)) return {{"name", name}, {"created", false}};
    const bool cluster = options_.proved_by_claims;
    if (cluster)  // a setup draws fresh keys: the cluster's first registration is every host's
      for (const StoredCircuit& c : store_->circuits())
        if (c.name == name) {
          try {
            restore_circuit(c);
          } catch (const std::exception& e) {
            throw ApiError(409, e.what());
          }
          return {{"name", name}, {"created", false}};
        }
    CircuitType t = factory_.make(spec);
    // Its keys into the spool (or the cluster's shared folder), so a restart, and every host of
    // a cluster, proves with the same keys and serves the same vk. In a shared folder each
    // registration has names of its own: two hosts registering at once do not overwrite.
    const bool shared = !options_.shared_keys_dir.empty();
    const fs::path dir = shared ? fs::absolute(options_.shared_keys_dir) : spool_.circuits();
    const std::string base = sha256_hex(name).substr(0, 32) + (shared ? "-" + random_name().substr(0, 12) : "");
    const fs::path params = dir / (base + ".params"), r1cs = dir / (base + ".snkr1cs");
    write_durably(params, [&](const fs::path& p) { groth16::write_params(p.string(), t.keys->pk); });
    write_durably(r1cs, [&](const fs::path& p) { circuit::write_r1cs(p, t.keys->r1cs); });
    // Served from the files from now on: the engine loads the keys when a job needs them.
    ServedCircuit c{name,    t.keys->pk.vk, t.keys->r1cs.num_constraints, t.keys->r1cs.num_inputs, t.keys->r1cs.num_aux,
                    nullptr, t.instance};
    // Names within the spool's circuits/, so the state directory may move; whole paths in a
    // shared folder.
    const json stored = {{"kind", "builtin"},
                         {"body", spec},
                         {"params", shared ? params.string() : params.filename().string()},
                         {"r1cs", shared ? r1cs.string() : r1cs.filename().string()},
                         {"shape", {{"constraints", c.constraints}, {"inputs", c.inputs}, {"aux", c.aux}}},
                         {"vk_sha256", vk_digest(vk_bytes(c.vk))}};
    t.keys.reset();
    if (cluster) {
      if (const auto first = store_->add_circuit_once({name, stored.dump(), unix_now()})) {
        remove_quietly(params);  // another host registered it meanwhile: its keys are the cluster's
        remove_quietly(r1cs);
        try {
          restore_circuit(*first);
        } catch (const std::exception& e) {
          throw ApiError(409, e.what());
        }
        return {{"name", name}, {"created", false}};
      }
    }
    serve_circuit(std::move(c), keys_loader(name, params, r1cs, engine_.config().backend == "cuda"), stored, !cluster);
  } catch (const std::invalid_argument& e) {
    throw bad_request(e.what());
  }
  return {{"name", name}, {"created", true}};
}

std::size_t Service::in_flight(const std::string& token) const {
  // A cluster's jobs are proved by every host's claims: count them where they all are.
  if (options_.proved_by_claims) return store_->count_queued_of(token);
  std::lock_guard lock(mu_);
  return std::size_t(
      std::count_if(live_.begin(), live_.end(), [&](const auto& kv) { return kv.second.token == token; }));
}

json Service::submit(const std::string& body, const Caller& caller) {
  const json req = parse_object(body);
  for (const auto& [key, value] : req.items())
    if (key != "circuit" && key != "partitions" && key != "priority" && key != "seed" && key != "idempotency_key")
      throw bad_request("unknown field '" + key +
                        "' (a JSON job is circuit, partitions, priority, seed, idempotency_key and proves a seeded "
                        "witness; to prove your own witness, POST it as the body (application/octet-stream) with "
                        "?circuit=...&format=wtns|assignment|packed)");
  if (!ready_ || draining_)
    throw ApiError(503, draining_ ? "the daemon is shutting down" : "the daemon is starting (recovering its jobs)");
  const std::string name = string_field(req, "circuit", "");
  if (name.empty()) throw bad_request("'circuit' (a registered circuit's name) is required");
  const auto type = circuit(name);
  if (!type) throw bad_request("unknown circuit '" + name + "'");
  if (!type->instance)
    throw bad_request("circuit '" + name + "' has no seeded witnesses: upload yours (POST /v1/jobs?circuit=" + name +
                      "&format=wtns with the .wtns as the body)");
  StoredJob row;
  row.circuit = name;
  row.partitions = uint_field(req, "partitions", 1);
  if (row.partitions < 1 || row.partitions > options_.max_partitions)
    throw bad_request("'partitions' must be in 1.." + std::to_string(options_.max_partitions) +
                      " (service.max_partitions)");
  row.priority = string_field(req, "priority", "normal");
  if (!engine::parse_priority(row.priority))
    throw bad_request("unknown priority '" + row.priority + "' (low, normal, high, critical)");
  row.seed = uint_field(req, "seed", 1);
  row.idempotency_key = string_field(req, "idempotency_key", "");
  row.request =
      json{{"circuit", name}, {"partitions", row.partitions}, {"priority", row.priority}, {"seed", row.seed}}.dump();
  return admit(std::move(row), caller);
}

json Service::submit_upload(const std::multimap<std::string, std::string>& query, std::optional<std::uint64_t> declared,
                            const BodyReader& read, const Caller& caller) {
  for (const auto& [key, value] : query)
    if (key != "circuit" && key != "partitions" && key != "priority" && key != "idempotency_key" && key != "format")
      throw bad_request("unknown parameter '" + key +
                        "' (an upload is circuit, format, partitions, priority, idempotency_key)");
  if (!ready_ || draining_)
    throw ApiError(503, draining_ ? "the daemon is shutting down" : "the daemon is starting (recovering its jobs)");
  StoredJob row;
  row.circuit = query_string(query, "circuit", "");
  if (row.circuit.empty()) throw bad_request("'circuit' (a registered circuit's name) is required");
  const auto type = circuit(row.circuit);
  if (!type) throw bad_request("unknown circuit '" + row.circuit + "'");
  const std::string format_name = query_string(query, "format", "");
  const auto format = parse_witness_format(format_name);
  if (!format) throw bad_request("'format' must be wtns, assignment or packed, not '" + format_name + "'");
  row.witness_format = format_name;
  row.partitions = parse_uint("partitions", query_string(query, "partitions", "1"));
  if (row.partitions < 1 || row.partitions > options_.max_partitions)
    throw bad_request("'partitions' must be in 1.." + std::to_string(options_.max_partitions) +
                      " (service.max_partitions)");
  if (*format == WitnessFormat::WTNS && row.partitions != 1)
    throw bad_request("a .wtns holds one partition; upload several as 'assignment' or 'packed'");
  row.priority = query_string(query, "priority", "normal");
  if (!engine::parse_priority(row.priority))
    throw bad_request("unknown priority '" + row.priority + "' (low, normal, high, critical)");
  row.idempotency_key = query_string(query, "idempotency_key", "");

  // Limits before a byte is read.
  const WitnessShape shape = shape_of(*type);
  std::uint64_t limit = std::min(options_.max_upload_bytes, max_upload_bytes(*format, shape, row.partitions));
  if (caller.token && caller.token->max_upload_bytes) limit = std::min(limit, caller.token->max_upload_bytes);
  const std::uint64_t exact = exact_upload_bytes(*format, shape, row.partitions);
  if (declared && exact && *declared != exact && *declared <= limit)
    throw bad_request("the body has " + std::to_string(*declared) + " bytes; " + std::to_string(row.partitions) +
                      " partition(s) of this circuit's assignment are " + std::to_string(exact) + " bytes");
  if (declared && *declared > limit)
    throw ApiError(413, "the witness is " + std::to_string(*declared) + " bytes, over this upload's limit of " +
                            std::to_string(limit));
  if (caller.token && in_flight(caller.name()) >= caller.token->max_jobs_in_flight)
    throw ApiError(429, "token '" + caller.name() + "' has " + std::to_string(caller.token->max_jobs_in_flight) +
                            " jobs in flight, its limit: wait for one to finish");

  // Streamed into the spool and checked as it comes.
  const std::string name = random_name();
  IncomingFile incoming(spool_.incoming(name + ".part"));
  std::optional<UploadChecker> checker;
  if (*format != WitnessFormat::WTNS) checker.emplace(*format, shape, row.partitions);
  Sha256 digest;
  receive_body(incoming, read, limit, [&](const char* data, std::size_t size) {
    try {
      if (checker) checker->feed(reinterpret_cast<const std::uint8_t*>(data), size);
    } catch (const BadWitness& e) {
      throw bad_request(e.what());
    }
    digest.update(data, size);
  });
  std::vector<std::uint64_t> starts;
  try {
    if (checker) starts = checker->finish();
    else check_wtns(incoming.path, shape);
  } catch (const BadWitness& e) {
    throw bad_request(e.what());
  }
  row.witness_file = name;
  row.witness_offsets = offsets_json(starts).dump();
  row.request = json{{"circuit", row.circuit},
                     {"partitions", row.partitions},
                     {"priority", row.priority},
                     {"format", format_name},
                     {"witness_sha256", digest.hex()}}
                    .dump();
  incoming.commit(spool_.witness(name));
  json answer;
  try {
    answer = admit(std::move(row), caller);
  } catch (...) {
    remove_quietly(spool_.witness(name));
    throw;
  }
  if (!answer.value("created", false)) remove_quietly(spool_.witness(name));  // the key's first job has its own
  return answer;
}

json Service::admit(StoredJob row, const Caller& caller) {
  if (caller.token && in_flight(caller.name()) >= caller.token->max_jobs_in_flight)
    throw ApiError(429, "token '" + caller.name() + "' has " + std::to_string(caller.token->max_jobs_in_flight) +
                            " jobs in flight, its limit: wait for one to finish");
  row.token = caller.name();
  row.created_at = unix_now();
  if (const auto type = circuit(row.circuit)) {
    // A partition's witness and its A, B, C evaluations: what a host's budget must hold.
    const std::uint64_t words = type->inputs + type->aux + 3 * type->constraints;
    row.partition_memory_bytes = words * sizeof(ff::Fr);
  }
  const std::string key = row.idempotency_key;
  // Keys are per token: one client cannot reach another's job by guessing its key.
  if (!key.empty()) row.idempotency_key = row.token + '\x1f' + key;
  auto [stored, fresh] = store_->insert(row);
  if (!fresh) {
    if (stored.request != row.request)
      throw bad_request("idempotency_key '" + key + "' was first used with another request (" + stored.request +
                        "); use a new key for a different job");
    return {{"id", stored.id}, {"created", false}};
  }
  if (options_.proved_by_claims) {
    // The store holds the witness now (in the job's row or the shared folder); a host claims it.
    if (!stored.witness_file.empty()) remove_quietly(spool_.witness(stored.witness_file));
    return {{"id", stored.id}, {"created", true}};
  }
  try {
    run(stored);
  } catch (const std::exception& e) {
    store_->finish(stored.id, "failed", e.what(), "", {}, unix_now());
    remove_quietly(spool_.witness(stored.witness_file));
    throw bad_request(e.what());
  }
  return {{"id", stored.id}, {"created", true}};
}

void Service::run(const StoredJob& row) {
  const auto type = circuit(row.circuit);
  if (!type) throw std::runtime_error("circuit '" + row.circuit + "' is not registered (any more)");
  const auto priority = engine::parse_priority(row.priority);
  if (!priority) throw std::runtime_error("unknown priority '" + row.priority + "'");
  auto progress = std::make_shared<Progress>();
  progress->publics.resize(row.partitions);
  const auto record = [progress](std::size_t k, const std::vector<ff::Fr>& inputs) {
    {
      std::lock_guard lock(progress->mu);
      progress->publics[k].assign(inputs.begin() + 1, inputs.end());
    }
    ++progress->synthesized;
  };
  engine::WitnessSource source;
  engine::PackedWitnessSource packed_source;
  if (row.witness_format.empty()) {
    if (!type->instance) throw std::runtime_error("circuit '" + row.circuit + "' has no seeded witnesses");
    source = [type, seed = row.seed, record](std::size_t k, groth16::Witness& out) {
      const std::unique_ptr<circuit::Circuit> c = type->instance(seed, k);
      engine::synthesize_into(*c, out);
      record(k, out.inputs);
    };
  } else {
    const auto format = parse_witness_format(row.witness_format);
    if (!format) throw std::runtime_error("unknown witness format '" + row.witness_format + "'");
    const WitnessShape shape = shape_of(*type);
    const auto starts = json::parse(row.witness_offsets).get<std::vector<std::uint64_t>>();
    source = [file = spool_.witness(row.witness_file), format = *format, shape, starts, record](std::size_t k,
                                                                                                groth16::Witness& out) {
      read_uploaded_partition(file, format, shape, starts, k, out);
      record(k, out.inputs);
    };
    // A packed upload goes to an engine that takes packed witnesses as it is (when it checks
    // no witness): the full 4.2 GB vector of a PoRep partition is never made.
    if (*format == WitnessFormat::PACKED)
      packed_source = [file = spool_.witness(row.witness_file), shape, starts, record](std::size_t k,
                                                                                       groth16::PackedWitness& out) {
        read_uploaded_packed_partition(file, shape, starts, k, out);
        record(k, out.inputs);
      };
  }
  const bool on_lane = type->zkey != nullptr;
  const std::uint64_t id =
      on_lane
          ? zkey_lane_.submit({type->zkey, row.partitions, *priority, std::move(source)})
          : engine_.submit({row.circuit, std::move(source), row.partitions, *priority, "", std::move(packed_source)});
  {
    std::lock_guard lock(mu_);
    live_[row.id] = LiveJob{id, row.token, row.witness_file, std::move(progress), false, on_lane};
  }
  changed_.notify_all();
}

void Service::settle(std::uint64_t id, LiveJob live, const engine::JobResult& r) {
  bool finished = false;
  const std::int64_t now = unix_now();
  if (r.state == engine::JobState::DONE) {
    json publics = json::array();
    {
      std::lock_guard lock(live.progress->mu);
      for (const auto& partition : live.progress->publics) {
        json values = json::array();
        for (const auto& x : partition) values.push_back(x.to_decimal());
        publics.push_back(std::move(values));
      }
    }
    // The store keeps the proofs before the job reads done; false: cancelled by the client meanwhile.
    const std::vector<std::uint8_t> proofs = r.bytes();
    finished = store_->finish(id, "done", "", publics.dump(), proofs, now);
  } else if (live.cancel_requested) {
    store_->finish(id, "cancelled", "cancelled by the client", "", {}, now);
    finished = true;
  } else if (draining_) {
    // Stopped by the shutdown: it stays queued and runs again at the next start.
  } else {
    finished = store_->finish(id, r.state == engine::JobState::FAILED ? "failed" : "cancelled", r.error, "", {}, now);
  }
  if (finished) ++settled_;
  if (finished && !live.witness_file.empty()) remove_quietly(spool_.witness(live.witness_file));
  forget_live(live);
}

std::optional<engine::JobResult> Service::result_of(const LiveJob& j) const {
  return j.on_zkey_lane ? zkey_lane_.result(j.engine_id) : engine_.wait_for(j.engine_id, std::chrono::milliseconds(0));
}
engine::JobState Service::state_of(const LiveJob& j) const {
  return j.on_zkey_lane ? zkey_lane_.state(j.engine_id) : engine_.state(j.engine_id);
}
std::size_t Service::proved_of(const LiveJob& j) const {
  return j.on_zkey_lane ? zkey_lane_.partitions_proved(j.engine_id) : engine_.partitions_proved(j.engine_id);
}
bool Service::cancel_live(const LiveJob& j) {
  return j.on_zkey_lane ? zkey_lane_.cancel(j.engine_id) : engine_.cancel(j.engine_id);
}
void Service::forget_live(const LiveJob& j) {
  if (j.on_zkey_lane) zkey_lane_.forget(j.engine_id);
  else engine_.forget(j.engine_id);
}

void Service::completion_loop() {
  while (!stopping_) {
    std::vector<std::pair<std::uint64_t, LiveJob>> live;
    {
      std::lock_guard lock(mu_);
      live.assign(live_.begin(), live_.end());
    }
    bool any = false;
    for (auto& [id, l] : live) {
      const auto result = result_of(l);
      if (!result) continue;
      {
        std::lock_guard lock(mu_);
        l.cancel_requested = live_.at(id).cancel_requested;
      }
      try {
        settle(id, l, *result);
      } catch (const std::exception& e) {
        // The job stays queued in the database and runs again at the next start.
        std::fprintf(stderr, "snarkpipe daemon: job %llu: could not record its result: %s\n", (unsigned long long)id,
                     e.what());
      }
      std::lock_guard lock(mu_);
      live_.erase(id);
      any = true;
    }
    std::unique_lock lock(mu_);
    if (any) changed_.notify_all();
    changed_.wait_for(lock, COMPLETION_POLL, [&] { return stopping_.load(); });
  }
}

void Service::janitor_loop() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    lock.unlock();
    try {
      for (const StoredJob& gone : store_->expire(unix_now() - std::int64_t(options_.retention.count()))) {
        if (!gone.witness_file.empty()) remove_quietly(spool_.witness(gone.witness_file));
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "snarkpipe daemon: expiring finished jobs failed: %s\n", e.what());
    }
    lock.lock();
    changed_.wait_for(lock, JANITOR_PERIOD, [&] { return stopping_.load(); });
  }
}

void Service::restore_circuit(const StoredCircuit& c) {
  const json spec = json::parse(c.spec);
  std::pair<ServedCircuit, engine::CircuitLoader> restored;
  std::string where;
  try {
    if (spec.at("kind") == "files" || spec.at("kind") == "uploaded") {
      restored = spec.at("kind") == "files" ? load_files(spec.at("body")) : load_uploaded(spec.at("body"));
      where = "its files";
    } else {
      // A name within the spool's circuits/, or a whole path in a cluster's shared folder.
      const fs::path params = spool_.circuits() / spec.at("params").get<std::string>();
      const fs::path r1cs = spool_.circuits() / spec.at("r1cs").get<std::string>();
      const json& shape = spec.at("shape");
      restored.first = ServedCircuit{c.name,
                                     groth16::read_params_vk(params.string()),
                                     shape.at("constraints"),
                                     shape.at("inputs"),
                                     shape.at("aux"),
                                     nullptr,
                                     nullptr};
      if (factory_.instance) restored.first.instance = factory_.instance(spec.at("body"));
      restored.second = keys_loader(c.name, params, r1cs, engine_.config().backend == "cuda");
      where = params.string();
    }
  } catch (const ApiError& e) {
    throw std::runtime_error(e.what());
  }
  // Every host proves under the registered key, or not at all: a proof under another key
  // would not verify for the client.
  if (spec.contains("vk_sha256")) {
    const std::string here = vk_digest(vk_bytes(restored.first.vk));
    if (here != spec["vk_sha256"])
      throw std::runtime_error("circuit '" + c.name + "': the verifying key this host reads from " + where +
                               " (sha256 " + here.substr(0, 16) + "...) is not the registered one (" +
                               spec["vk_sha256"].get<std::string>().substr(0, 16) +
                               "...): give every host the same files");
  }
  serve_circuit(std::move(restored.first), std::move(restored.second), spec, false);
}

std::shared_ptr<const ServedCircuit> Service::circuit_for_claim(const std::string& name) {
  if (auto c = circuit(name)) return c;
  std::lock_guard reg(register_mu_);
  if (auto c = circuit(name)) return c;
  for (const StoredCircuit& c : store_->circuits())
    if (c.name == name) {
      restore_circuit(c);
      if (auto served = circuit(name)) return served;
    }
  throw std::runtime_error("circuit '" + name + "' is not registered in the cluster");
}

void Service::recover(const std::function<void()>& then) {
  try {
    spool_.clear_incoming();
    for (const StoredCircuit& c : store_->circuits()) {
      try {
        restore_circuit(c);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "snarkpipe daemon: circuit '%s' could not be restored (its jobs fail): %s\n",
                     c.name.c_str(), e.what());
      }
    }
    const std::vector<StoredJob> queued = store_->queued();
    // A crash between storing an upload and admitting its job leaves a witness no job names.
    std::set<std::string> named;
    for (const StoredJob& row : queued) named.insert(row.witness_file);
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(spool_.witness(""), ec))
      if (!named.count(entry.path().filename().string())) remove_quietly(entry.path());
    for (const StoredJob& row : options_.proved_by_claims ? std::vector<StoredJob>{} : queued) {
      try {
        run(row);
      } catch (const std::exception& e) {
        store_->finish(row.id, "failed", std::string("at restart: ") + e.what(), "", {}, unix_now());
      }
    }
    if (then) then();
  } catch (...) {
    std::lock_guard lock(mu_);
    recovery_error_ = std::current_exception();
  }
  std::lock_guard lock(mu_);
  ready_ = true;
  changed_.notify_all();
}

void Service::wait_ready() {
  std::unique_lock lock(mu_);
  changed_.wait(lock, [&] { return ready_ || stopping_; });
  if (recovery_error_) std::rethrow_exception(recovery_error_);
}

StoredJob Service::owned_job(const std::string& id_text, const Caller& caller) const {
  std::uint64_t id = 0;
  const auto [end, ec] = std::from_chars(id_text.data(), id_text.data() + id_text.size(), id);
  std::optional<StoredJob> row;
  if (ec == std::errc() && end == id_text.data() + id_text.size()) row = store_->get(id);
  // Another token's job reads as unknown: ids are not secrets, but jobs are.
  if (!row || (!caller.admin() && row->token != caller.name())) throw ApiError(404, "unknown job '" + id_text + "'");
  return *row;
}

json Service::describe(const StoredJob& row) const {
  json out = {{"id", row.id},
              {"circuit", row.circuit},
              {"partitions", row.partitions},
              {"priority", row.priority},
              {"witness", row.witness_format.empty() ? "seeded" : row.witness_format},
              {"state", row.state},
              {"created_at", row.created_at}};
  if (row.state == "queued") {
    if (const auto progress = options_.proved_by_claims ? store_->partition_progress(row.id) : std::nullopt) {
      if (progress->claimed || progress->done) out["state"] = "running";
      out["partitions_proved"] = progress->done;
      return out;
    }
    std::lock_guard lock(mu_);
    const auto it = live_.find(row.id);
    if (it != live_.end()) {
      out["partitions_synthesized"] = it->second.progress->synthesized.load();
      try {
        if (state_of(it->second) != engine::JobState::QUEUED) out["state"] = "running";
        out["partitions_proved"] = proved_of(it->second);
      } catch (const engine::EngineError&) {
        // Finished and handed over already: it reads as done once its result is recorded.
        out["state"] = "running";
        out["partitions_proved"] = row.partitions;
      }
    }
    return out;
  }
  out["finished_at"] = row.finished_at;
  if (!row.error.empty()) out["error"] = row.error;
  if (row.state != "done") return out;
  out["partitions_synthesized"] = out["partitions_proved"] = row.partitions;
  const std::vector<std::uint8_t> bytes = store_->proofs(row).value_or(std::vector<std::uint8_t>{});
  if (bytes.size() != row.partitions * PROOF_BYTES)
    throw std::runtime_error("job " + std::to_string(row.id) + "'s proofs are missing from the job store");
  json proofs = json::array();
  for (std::size_t k = 0; k < row.partitions; ++k)
    proofs.push_back(hex(std::span<const std::uint8_t>(bytes.data() + k * PROOF_BYTES, PROOF_BYTES)));
  out["proofs"] = std::move(proofs);
  out["public_inputs"] = json::parse(row.public_inputs);
  return out;
}

json Service::job(const std::string& id, const Caller& caller) const { return describe(owned_job(id, caller)); }

json Service::wait(const std::string& id_text, std::chrono::milliseconds timeout, const Caller& caller) {
  const StoredJob row = owned_job(id_text, caller);
  if (row.state == "queued" && options_.proved_by_claims) {
    // Any host may finish it: the store tells.
    const auto until =
        std::chrono::steady_clock::now() + std::min<std::chrono::milliseconds>(timeout, options_.max_wait);
    std::unique_lock lock(mu_);
    while (!stopping_ && !draining_ && std::chrono::steady_clock::now() < until) {
      lock.unlock();
      const auto now = store_->get(row.id);
      lock.lock();
      if (!now || now->state != "queued") break;
      changed_.wait_until(lock, std::min(until, std::chrono::steady_clock::now() + CLUSTER_POLL),
                          [&] { return stopping_.load(); });
    }
  } else if (row.state == "queued") {
    std::unique_lock lock(mu_);
    changed_.wait_for(lock, std::min<std::chrono::milliseconds>(timeout, options_.max_wait),
                      [&] { return stopping_ || draining_ || (ready_ && !live_.count(row.id)); });
  }
  return job(id_text, caller);
}

json Service::jobs(const Caller& caller) const {
  json out = json::array();
  for (const StoredJob& row : store_->list(caller.admin() ? "" : caller.name(), 1000)) {
    json j = {{"id", row.id},
              {"circuit", row.circuit},
              {"partitions", row.partitions},
              {"state", row.state},
              {"created_at", row.created_at}};
    if (!row.error.empty()) j["error"] = row.error;
    out.push_back(std::move(j));
  }
  return {{"jobs", std::move(out)}};
}

json Service::cancel(const std::string& id_text, const Caller& caller) {
  const StoredJob row = owned_job(id_text, caller);
  std::optional<LiveJob> live;
  {
    std::lock_guard lock(mu_);
    const auto it = live_.find(row.id);
    if (it != live_.end()) {
      it->second.cancel_requested = true;
      live = it->second;
    }
  }
  // A live job is cancelled in the engine first: only one that did not finish reads as cancelled.
  bool cancelled = live ? cancel_live(*live) : row.state == "queued";
  if (cancelled) cancelled = store_->finish(row.id, "cancelled", "cancelled by the client", "", {}, unix_now()) || live;
  return {{"id", row.id}, {"cancelled", cancelled}, {"state", describe(*store_->get(row.id))["state"]}};
}

std::vector<std::uint8_t> Service::vk_bytes(const groth16::VerifyingKey& vk) const {
  const fs::path tmp = spool_.incoming("vk-" + random_name());
  groth16::write_vk(tmp.string(), vk);
  std::ifstream in(tmp, std::ios::binary);
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  remove_quietly(tmp);
  return bytes;
}

json Service::circuit_info(const std::string& name) const {
  const auto type = circuit(name);
  if (!type) throw ApiError(404, "unknown circuit '" + name + "'");
  const groth16::VerifyingKey& vk = type->vk;
  const std::vector<std::uint8_t> bytes = vk_bytes(vk);
  const WitnessShape shape = shape_of(*type);
  json witnesses = {"wtns", "assignment", "packed"};
  if (type->instance) witnesses.push_back("seeded");
  return {{"name", name},
          {"key", type->zkey ? "snarkjs zkey (proved on the CPU)" : "bellperson"},
          {"constraints", type->constraints},
          {"inputs", shape.num_inputs},
          {"aux", shape.num_aux},
          {"witness_formats", witnesses},
          {"vk", {{"bellperson_hex", hex(bytes)}, {"snarkjs", circom::vk_to_json(vk)}}}};
}

json Service::status() const {
  const engine::EngineStats s = engine_.stats();
  json devices = json::array();
  for (const auto& d : s.devices) {
    devices.push_back(
        {{"index", d.index},
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
  std::map<std::string, std::size_t> counts = {
      {"queued", 0}, {"running", 0}, {"done", 0}, {"failed", 0}, {"cancelled", 0}};
  for (const auto& [state, n] : store_->count_by_state()) counts[state] = n;
  std::size_t partitions_queued = 0;
  json circuits = json::array();
  {
    std::lock_guard lock(mu_);
    for (const auto& [id, l] : live_) {
      if (state_of(l) == engine::JobState::RUNNING) {
        ++counts["running"];
        --counts["queued"];
      } else {
        partitions_queued += l.progress->publics.size();
      }
    }
    for (const auto& [name, _] : circuits_) circuits.push_back(name);
  }
  return {{"ready", ready_.load()},
          {"draining", draining_.load()},
          {"backend", engine_.config().backend},
          {"devices", devices},
          {"proofs",
           {{"partitions_proved", s.partitions_proved},
            {"partitions_retried", s.partitions_retried},
            {"verification_failures", s.verification_failures}}},
          {"jobs", counts},
          {"partitions_queued", partitions_queued},
          {"memory", {{"host_budget", s.host_budget}, {"host_used", s.host_used}, {"host_peak", s.host_peak}}},
          {"buffers", {{"created", s.buffers_created}, {"reused", s.buffers_reused}, {"idle", s.buffers_idle}}},
          {"packed_witnesses",
           {{"created", s.packed_created}, {"idle", s.packed_idle}, {"idle_bytes", s.packed_idle_bytes}}},
          {"circuits", circuits}};
}

int Service::start(const std::string& host, int port, std::function<void()> then) {
  if (http_) throw std::logic_error("the service is already started");
  std::shared_ptr<TlsContext> tls;
  if (!options_.tls_cert.empty() || !options_.tls_key.empty()) {
    if (options_.tls_cert.empty() || options_.tls_key.empty())
      throw std::runtime_error("TLS wants both service.tls_cert and service.tls_key");
    tls = load_tls(options_.tls_cert, options_.tls_key);
  }
  // Every connection's framing is read with bounds before httplib sees it (http_gate.hpp).
  GateLimits gate;
  gate.header_timeout = options_.header_timeout;
  auto http = std::make_unique<httplib::Server>();
  // Uploads are bounded by submit_upload's limits, JSON bodies by read_json_body's.
  http->set_payload_max_length(
      std::max<std::uint64_t>({options_.max_upload_bytes, options_.max_circuit_file_bytes, DRAIN_BYTES}));
  http->set_read_timeout(time_t(options_.read_timeout.count()), 0);
  // An idle keep-alive connection holds a thread, and stop() waits for it: 1 s is plenty
  // between a client's calls.
  http->set_keep_alive_timeout(1);
  // The gate ends a connection after its last request (request_framer.hpp); httplib's own count
  // (5 by default) would close first, while pipelined requests after it were already sent.
  http->set_keep_alive_max_count(gate.max_requests_per_connection);
  const unsigned threads = options_.http_threads
                               ? options_.http_threads
                               : std::max(MIN_HTTP_THREADS, 8 * std::max(1u, std::thread::hardware_concurrency()));
  auto door = std::make_unique<FrontDoor>(*http, gate, std::move(tls), threads);
  const auto caller_of = [this](const httplib::Request& req) {
    return authenticate(req.get_header_value("Authorization"));
  };
  const std::size_t json_limit = options_.max_json_bytes;
  http->Post("/v1/circuits",
             [=, this](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
               answer(res, [&] {
                 const Caller c = caller_of(req);
                 return register_circuit(read_json_body(req, reader, json_limit), c);
               });
             });
  http->Put(R"(/v1/circuits/([^/]+)/files/([^/]+))",
            [=, this](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
              answer(res, [&] {
                std::optional<std::uint64_t> declared;
                try {
                  const Caller c = caller_of(req);
                  if (req.has_header("Content-Length"))
                    declared = parse_uint("Content-Length", req.get_header_value("Content-Length"));
                  return upload_circuit_file(
                      req.matches[1], req.matches[2], declared,
                      [&](const std::function<bool(const char*, std::size_t)>& sink) {
                        return reader([&](const char* d, std::size_t n) { return sink(d, n); });
                      },
                      c);
                } catch (...) {
                  res.set_header("Connection", "close");  // the rest of a refused body is not read
                  throw;
                }
              });
            });
  http->Get(R"(/v1/circuits/(.+))", [=, this](const httplib::Request& req, httplib::Response& res) {
    answer(res, [&] {
      caller_of(req);
      return circuit_info(req.matches[1]);
    });
  });
  http->Get("/v1/circuits", [=, this](const httplib::Request& req, httplib::Response& res) {
    answer(res, [&] {
      caller_of(req);
      return json{{"circuits", status()["circuits"]}};
    });
  });
  http->Post("/v1/jobs",
             [=, this](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
               answer(res, [&] {
                 const Caller c = caller_of(req);
                 if (req.get_header_value("Content-Type").rfind("application/octet-stream", 0) != 0) {
                   if (!req.params.empty())
                     throw bad_request("a JSON job takes no query parameters (an upload is application/octet-stream)");
                   return submit(read_json_body(req, reader, json_limit), c);
                 }
                 std::optional<std::uint64_t> declared;
                 if (req.has_header("Content-Length"))
                   declared = parse_uint("Content-Length", req.get_header_value("Content-Length"));
                 try {
                   return submit_upload(
                       req.params, declared,
                       [&](const std::function<bool(const char*, std::size_t)>& sink) {
                         return reader([&](const char* d, std::size_t n) { return sink(d, n); });
                       },
                       c);
                 } catch (...) {
                   res.set_header("Connection", "close");  // the rest of a refused body is not read
                   throw;
                 }
               });
             });
  http->Get("/v1/jobs", [=, this](const httplib::Request& req, httplib::Response& res) {
    answer(res, [&] { return jobs(caller_of(req)); });
  });
  http->Get(R"(/v1/jobs/([^/]+)/wait)", [=, this](const httplib::Request& req, httplib::Response& res) {
    answer(res, [&] {
      const Caller c = caller_of(req);
      for (const auto& [key, value] : req.params)
        if (key != "timeout_s") throw bad_request("unknown parameter '" + key + "' (wait takes timeout_s)");
      const std::uint64_t timeout_s =
          req.has_param("timeout_s") ? parse_uint("timeout_s", req.get_param_value("timeout_s")) : 30;
      return wait(req.matches[1], std::chrono::seconds(std::min<std::uint64_t>(timeout_s, 86400)), c);
    });
  });
  // Server-sent events: "progress" whenever the job's state or progress changes, then "done"
  // with the whole job (proofs included) once it is finished, or "closing" when the daemon
  // stops first.
  http->Get(R"(/v1/jobs/([^/]+)/events)", [=, this](const httplib::Request& req, httplib::Response& res) {
    Caller c;
    const std::string id = req.matches[1];
    try {
      c = caller_of(req);
      job(id, c);  // an unknown job is 404 before the stream starts
    } catch (const ApiError& e) {
      return reply_error(res, e.status(), e.what());
    } catch (const std::exception& e) {
      return reply_error(res, 500, e.what());
    }
    auto last = std::make_shared<std::string>();
    auto ended = std::make_shared<bool>(false);
    res.set_header("Cache-Control", "no-cache");
    res.set_chunked_content_provider(
        "text/event-stream", [this, c, id, last, ended](std::size_t, httplib::DataSink& sink) {
          if (*ended) {
            sink.done();
            return true;
          }
          json j;
          try {
            j = job(id, c);
          } catch (const std::exception& e) {
            j = {{"error", e.what()}};
          }
          const std::string state = j.value("state", "");
          const bool finished = state != "queued" && state != "running";
          const bool closing = !finished && (stopping_ || draining_);
          const std::string text = j.dump();
          if (text != *last || finished || closing) {
            *last = text;
            const std::string event = std::string("event: ") +
                                      (finished  ? "done"
                                       : closing ? "closing"
                                                 : "progress") +
                                      "\ndata: " + text + "\n\n";
            *ended = finished || closing;
            return sink.write(event.data(), event.size());
          }
          std::unique_lock lock(mu_);
          changed_.wait_for(lock, std::chrono::milliseconds(100), [&] { return stopping_ || draining_; });
          return true;
        });
  });
  http->Get(R"(/v1/jobs/([^/]+))", [=, this](const httplib::Request& req, httplib::Response& res) {
    answer(res, [&] { return job(req.matches[1], caller_of(req)); });
  });
  // A content reader that is never called: httplib would read a body of a handler without one
  // whole into memory (up to the upload limit); a DELETE needs none.
  http->Delete(R"(/v1/jobs/([^/]+))",
               [=, this](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader&) {
                 if (req.has_header("Content-Length") || req.has_header("Transfer-Encoding"))
                   res.set_header("Connection", "close");  // a body, if any, is not read
                 answer(res, [&] { return cancel(req.matches[1], caller_of(req)); });
               });
  http->Get("/v1/status",
            [this](const httplib::Request&, httplib::Response& res) { answer(res, [&] { return status(); }); });
  http->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    try {
      res.set_content(metrics_text(), "text/plain; version=0.0.4");
    } catch (const std::exception& e) {
      reply_error(res, 500, e.what());
    }
  });
  // A body to a path no route takes is not read either (httplib would read it whole): 404,
  // and the connection closes.
  const auto no_route = [](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader&) {
    res.set_header("Connection", "close");
    reply_error(res, 404, "no route " + req.method + " " + req.path);
  };
  http->Post(".*", no_route);
  http->Put(".*", no_route);
  http->Patch(".*", no_route);
  http->Delete(".*", no_route);
  // Paths no route takes, and bodies over httplib's own limit, get the API's error shape too.
  http->set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (res.body.empty())
      reply_error(res, res.status,
                  res.status == 404   ? "no route " + req.method + " " + req.path
                  : res.status == 413 ? "the body is over this daemon's upload limit"
                                      : "HTTP " + std::to_string(res.status));
  });
  const int bound = door->start(host, port);
  http_ = std::move(http);
  door_ = std::move(door);
  completion_ = std::thread([this] { completion_loop(); });
  janitor_ = std::thread([this] { janitor_loop(); });
  recovery_ = std::thread([this, then = std::move(then)] { recover(then); });
  return bound;
}

std::pair<std::size_t, std::size_t> Service::drain(std::chrono::milliseconds deadline) {
  draining_ = true;
  const auto until = std::chrono::steady_clock::now() + deadline;
  // The recovery is not waited for: it may be registering a circuit, which cannot be
  // interrupted; jobs it hands to the engine from now on stay queued for the next start.
  const std::size_t settled_before = settled_;
  std::vector<LiveJob> jobs;
  {
    std::lock_guard lock(mu_);
    for (const auto& [id, l] : live_) jobs.push_back(l);
    changed_.notify_all();  // long polls answer now
  }
  // What has not started stays queued for the next start; what runs may finish.
  for (const LiveJob& j : jobs)
    if (state_of(j) == engine::JobState::QUEUED) cancel_live(j);
  std::unique_lock lock(mu_);
  changed_.wait_until(lock, until, [&] { return live_.empty(); });
  jobs.clear();
  for (const auto& [id, l] : live_) jobs.push_back(l);
  lock.unlock();
  for (const LiveJob& j : jobs) cancel_live(j);
  lock.lock();
  changed_.wait_for(lock, std::chrono::seconds(10), [&] { return live_.empty(); });
  return {settled_ - settled_before, store_->count_queued()};
}

void Service::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    changed_.notify_all();
  }
  if (door_) door_->stop();
  for (std::thread* t : {&recovery_, &completion_, &janitor_})
    if (t->joinable()) t->join();
  door_.reset();
  http_.reset();
}

}  // namespace snarkpipe::service
