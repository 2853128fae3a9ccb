// The daemon's front door (issue 27): every connection passes through a relay that reads the
// HTTP/1.1 framing itself, with bounds, before cpp-httplib sees a byte of it.
//
// Why: the system's httplib (0.11.4) buffers a request line, a header line or a chunk-size line
// whole before it looks at its length, and reads any number of header lines, so one connection
// could grow the daemon's heap without end (tests/fuzz/regressions/fuzz_http). A trickled head
// also held a thread for as long as each byte came within the read timeout.
//
// The relay (one per connection, on a thread of the gate's pool) forwards the client's bytes
// unchanged to httplib, which serves the routes on a private Unix socket, once they are known
// to frame well:
//   - a request head (request line and headers) is held until it is whole, and must fit in
//     GateLimits::max_head_bytes and max_header_lines and arrive within header_timeout;
//   - the body is framed by Content-Length or chunked coding (a request with both, two
//     different lengths, another transfer coding or a folded header line is refused, so that
//     httplib and the relay can never read one request two ways); chunk-size and trailer lines
//     are bounded too;
//   - the request line must be METHOD SP TARGET SP HTTP/1.x, and a connection ends after the
//     request that closes it (Connection: close, HTTP/1.0) or its max_requests_per_connection-th:
//     what follows is not read, so pipelined junk after a close is never framed as requests.
// httplib serves no pipelining, so each request waits in the relay until httplib has answered
// every one before it (service/answer_counter.hpp counts them), and httplib's connection ends
// only once it owes no answer.
// A head that breaks a bound is answered here (431, 408 or 400, the API's JSON error shape),
// after the answers to the requests before it, and the connection is closed; a body that
// breaks one is cut short, which httplib answers. With TLS configured the relay terminates it
// (OpenSSL), so the same bounds hold for HTTPS. Memory per connection: the head buffer and two
// 16 KiB relay buffers.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <thread>

#include "service/request_framer.hpp"

#include <httplib.h>

namespace snarkpipe::service {

class TlsContext;
class GatedServer;

// The daemon's HTTP serving: `routes` (an httplib server with the API's handlers) listens on a
// private Unix socket (in a fresh 0700 folder), and the gate listens on host:port and relays
// every connection it accepts to it. Both use `threads` threads.
class FrontDoor {
 public:
  FrontDoor(httplib::Server& routes, GateLimits limits, std::shared_ptr<TlsContext> tls, unsigned threads);
  ~FrontDoor();  // stops both, removes the socket
  FrontDoor(const FrontDoor&) = delete;
  FrontDoor& operator=(const FrontDoor&) = delete;

  // Binds host:port (0: any free port) and starts both listeners; the bound port. Throws
  // std::runtime_error when it cannot.
  int start(const std::string& host, int port);
  void stop();

 private:
  httplib::Server& routes_;
  std::unique_ptr<GatedServer> gate_;
  std::string socket_dir_, socket_path_;
  std::thread routes_listener_, gate_listener_;
};

// A server certificate and key (PEM files) loaded once; throws std::runtime_error with what is
// wrong when they cannot be used.
std::shared_ptr<TlsContext> load_tls(const std::string& cert_pem, const std::string& key_pem);

}  // namespace snarkpipe::service
