#include "service/client.hpp"

#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <cstdio>
#include <optional>
#include <filesystem>
#include <fstream>

namespace snarkpipe::service {

using nlohmann::json;

namespace {

json parse_answer(const httplib::Result& r, const std::string& what) {
  if (!r) throw ClientError(0, what + ": no answer (" + httplib::to_string(r.error()) + ")");
  json j = json::parse(r->body, nullptr, false);
  if (r->status != 200) {
    const std::string why =
        !j.is_discarded() && j.is_object() && j.contains("error") ? j["error"].get<std::string>() : r->body;
    throw ClientError(r->status, what + ": HTTP " + std::to_string(r->status) + ": " + why);
  }
  if (j.is_discarded()) throw ClientError(r->status, what + ": the answer is not JSON");
  return j;
}

bool terminal(const json& job) {
  const std::string s = job.value("state", "");
  return s == "done" || s == "failed" || s == "cancelled";
}

}  // namespace

Client::Client(const std::string& server, const std::string& token, const std::string& ca_cert) : server_(server) {
  http_ = std::make_unique<httplib::Client>(server);
  if (!http_->is_valid())
    throw ClientError(0, "'" + server + "' is not a server URL (http://HOST:PORT or https://HOST:PORT)");
  if (!token.empty()) http_->set_bearer_token_auth(token);
  if (!ca_cert.empty()) http_->set_ca_cert_path(ca_cert.c_str());
  http_->set_connection_timeout(10, 0);
  http_->set_read_timeout(330, 0);  // a long poll lasts up to the daemon's max_wait (300 s)
  http_->set_write_timeout(60, 0);
}

Client::~Client() = default;

json Client::call(const std::string& method, const std::string& path) {
  const httplib::Result r = method == "DELETE" ? http_->Delete(path.c_str()) : http_->Get(path.c_str());
  return parse_answer(r, method + " " + server_ + path);
}

namespace {

// A circuit name as one URL path segment: every byte but letters, digits and -._~ escaped.
std::string path_segment(const std::string& text) {
  static constexpr char digits[] = "0123456789ABCDEF";
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || (ch != 0 && std::strchr("-._~", ch))) out += ch;
    else out += {'%', digits[c >> 4], digits[c & 15]};
  }
  return out;
}

// POSTs or PUTs `file` as the body, streamed from the file in blocks: a PoRep witness or key
// is never held whole.
httplib::Result send_file(httplib::Client& http, const std::string& method, const std::string& path,
                          const std::string& file, const std::string& what) {
  std::error_code ec;
  const std::uint64_t size = std::filesystem::file_size(file, ec);
  if (ec) throw ClientError(0, "cannot read the " + what + " " + file + ": " + ec.message());
  auto in = std::make_shared<std::ifstream>(file, std::ios::binary);
  if (!*in) throw ClientError(0, "cannot open the " + what + " " + file);
  const auto provider = [in](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
    static thread_local std::vector<char> buf(1 << 20);
    in->seekg(std::streamoff(offset));
    const std::size_t n = std::min(length, buf.size());
    in->read(buf.data(), std::streamsize(n));
    if (in->gcount() <= 0) return false;
    sink.write(buf.data(), std::size_t(in->gcount()));
    return true;
  };
  return method == "PUT" ? http.Put(path.c_str(), std::size_t(size), provider, "application/octet-stream")
                         : http.Post(path.c_str(), std::size_t(size), provider, "application/octet-stream");
}

}  // namespace

json Client::submit(const Upload& u) {
  httplib::Params q = {{"circuit", u.circuit},
                       {"format", u.format},
                       {"partitions", std::to_string(u.partitions)},
                       {"priority", u.priority}};
  if (!u.idempotency_key.empty()) q.emplace("idempotency_key", u.idempotency_key);
  const std::string path = httplib::append_query_params("/v1/jobs", q);
  return parse_answer(send_file(*http_, "POST", path, u.file, "witness"), "POST " + server_ + "/v1/jobs");
}

json Client::upload_circuit_file(const std::string& name, const std::string& kind, const std::string& file) {
  const std::string path = "/v1/circuits/" + path_segment(name) + "/files/" + kind;
  return parse_answer(send_file(*http_, "PUT", path, file, kind + " file"), "PUT " + server_ + path);
}

json Client::submit(const Upload& u, const std::vector<std::span<const std::uint8_t>>& body) {
  httplib::Params q = {{"circuit", u.circuit},
                       {"format", u.format},
                       {"partitions", std::to_string(u.partitions)},
                       {"priority", u.priority}};
  if (!u.idempotency_key.empty()) q.emplace("idempotency_key", u.idempotency_key);
  const std::string path = httplib::append_query_params("/v1/jobs", q);
  std::vector<std::uint64_t> ends;  // where each piece ends in the body
  std::uint64_t size = 0;
  for (const auto& piece : body) ends.push_back(size += piece.size());
  const httplib::Result r = http_->Post(
      path.c_str(), std::size_t(size),
      [&](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
        const std::size_t k = std::size_t(std::upper_bound(ends.begin(), ends.end(), offset) - ends.begin());
        if (k == body.size()) return false;
        const std::uint64_t within = offset - (ends[k] - body[k].size());
        const std::size_t n =
            std::size_t(std::min<std::uint64_t>({length, body[k].size() - within, std::uint64_t(1) << 20}));
        return sink.write(reinterpret_cast<const char*>(body[k].data() + within), n);
      },
      "application/octet-stream");
  return parse_answer(r, "POST " + server_ + "/v1/jobs");
}

json Client::register_circuit(const json& spec) {
  return parse_answer(http_->Post("/v1/circuits", spec.dump(), "application/json"), "POST " + server_ + "/v1/circuits");
}

json Client::follow(std::uint64_t id, const std::function<void(const json&)>& on_progress) {
  const std::string path = "/v1/jobs/" + std::to_string(id) + "/events";
  std::string stream;
  std::optional<json> done;
  std::string failure;
  // Events are "event: NAME\ndata: JSON\n\n"; pieces of the stream may split them anywhere.
  const httplib::Result r = http_->Get(path.c_str(), [&](const char* data, std::size_t n) {
    stream.append(data, n);
    for (std::size_t end; (end = stream.find("\n\n")) != std::string::npos; stream.erase(0, end + 2)) {
      const std::string event = stream.substr(0, end);
      const std::size_t data_at = event.find("\ndata: ");
      if (event.rfind("event: ", 0) != 0 || data_at == std::string::npos) continue;
      const std::string name = event.substr(7, data_at - 7);
      json j = json::parse(event.substr(data_at + 7), nullptr, false);
      if (j.is_discarded()) continue;
      if (name == "done") {
        done = std::move(j);
        return false;
      }
      if (name == "closing") {
        failure = "the daemon is stopping";
        return false;
      }
      if (on_progress) on_progress(j);
    }
    return true;
  });
  if (done) return *done;
  if (!failure.empty()) throw ClientError(503, "GET " + server_ + path + ": " + failure);
  if (r && r->status != 200) return parse_answer(r, "GET " + server_ + path);
  throw ClientError(0, "GET " + server_ + path + ": the event stream ended before the job finished");
}

json Client::job(std::uint64_t id) { return call("GET", "/v1/jobs/" + std::to_string(id)); }

json Client::wait(std::uint64_t id, std::chrono::seconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::seconds>(until - std::chrono::steady_clock::now());
    const long long poll = std::max<long long>(1, std::min<long long>(left.count(), 300));
    json j = call("GET", "/v1/jobs/" + std::to_string(id) + "/wait?timeout_s=" + std::to_string(poll));
    if (terminal(j) || std::chrono::steady_clock::now() >= until) return j;
    if (j.value("state", "") == "queued" && !j.contains("partitions_synthesized"))
      std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the daemon is draining or starting
  }
}

json Client::jobs() { return call("GET", "/v1/jobs"); }
json Client::cancel(std::uint64_t id) { return call("DELETE", "/v1/jobs/" + std::to_string(id)); }
json Client::circuit(const std::string& name) { return call("GET", "/v1/circuits/" + name); }

}  // namespace snarkpipe::service
