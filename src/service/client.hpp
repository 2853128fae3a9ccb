// The client side of the daemon's API (docs/openapi.json), for `snarkpipe submit`, `jobs`
// and `cancel`: bearer token, witness uploads streamed from a file, waits by long poll.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace httplib {
class Client;
}

namespace snarkpipe::service {

// A failed call: the status (0: no answer) and the daemon's error message.
class ClientError : public std::runtime_error {
 public:
  ClientError(int status, const std::string& what) : std::runtime_error(what), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

struct Upload {
  std::string circuit;
  std::string format = "wtns";  // wtns, assignment, packed (witness_upload.hpp)
  std::string file;             // streamed as the body
  std::uint64_t partitions = 1;
  std::string priority = "normal";
  std::string idempotency_key;
};

class Client {
 public:
  // `server`: http://HOST:PORT or https://HOST:PORT; `ca_cert`: a PEM file to trust for
  // https (empty: the system's).
  Client(const std::string& server, const std::string& token, const std::string& ca_cert = "");
  ~Client();

  nlohmann::json submit(const Upload& upload);  // {"id": ..., "created": ...}
  // The same with the body from memory (upload.file unused): the pieces back to back, streamed
  // as one body without being joined.
  nlohmann::json submit(const Upload& upload, const std::vector<std::span<const std::uint8_t>>& body);
  // POST /v1/circuits (an admin token's): {"name": ..., "created": ...}.
  nlohmann::json register_circuit(const nlohmann::json& spec);
  // PUT /v1/circuits/NAME/files/KIND (params, r1cs, zkey), the file streamed as the body:
  // {"name", "file", "bytes", "sha256"}. Then register_circuit({"name": NAME, "uploaded": [...]}).
  nlohmann::json upload_circuit_file(const std::string& name, const std::string& kind, const std::string& file);
  // Follows the job's server-sent events (GET /v1/jobs/ID/events) until it is finished:
  // `on_progress` sees the job of each "progress" event; returns the finished job (proofs
  // included when done). Throws ClientError when the stream ends before (the daemon stopped).
  nlohmann::json follow(std::uint64_t id, const std::function<void(const nlohmann::json&)>& on_progress = {});
  nlohmann::json job(std::uint64_t id);
  // Long polls until the job is done, failed or cancelled, or `timeout` passes (then the
  // last answer, still queued or running).
  nlohmann::json wait(std::uint64_t id, std::chrono::seconds timeout);
  nlohmann::json jobs();
  nlohmann::json cancel(std::uint64_t id);
  nlohmann::json circuit(const std::string& name);

 private:
  nlohmann::json call(const std::string& method, const std::string& path);
  std::string server_;
  std::unique_ptr<httplib::Client> http_;
};

}  // namespace snarkpipe::service
