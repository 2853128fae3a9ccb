// The daemon's HTTP framing, fed raw bytes over a real loopback connection. The request
// line, headers, Content-Length and chunked bodies are framed first by the daemon's front door
// (service/http_gate.cpp: its head, line and header-count bounds, its refusals of ambiguous
// framing), then parsed by cpp-httplib (a system library, not instrumented for coverage); what
// is fuzzed is the project's framing and limits (service/service.cpp): httplib's payload limit as the daemon sets it,
// read_json_body's 1 MiB limit and 16 MiB drain, the upload limits, the error handler and
// reply_error's bound on echoed text. Each input is one connection: its bytes are sent,
// the write side is shut, and every answer is read until the daemon closes.
//
// Asserted per input:
//   - the daemon's live heap grows by at most MEMORY_BOUND while it serves the connection,
//     whatever was sent (up to MAX_SENT bytes; counted through the sanitizer allocator's hooks);
//   - every error answer (status >= 400) is a short JSON body: no error echoes unbounded input;
//   - the daemon answers and closes within ANSWER_DEADLINE once the input has ended;
//   - every request the front door frames whole is answered, in order (pipelined too).
//
// Input: the bytes to send, where FF FE k L <L bytes> stands for those L bytes repeated
// 2^(k mod 26) times, so that small inputs can send bodies, header lists and URIs far over the
// limits (the whole capped at MAX_SENT).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sanitizer/allocator_interface.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_daemon.hpp"
#include "service/request_framer.hpp"

using namespace snarkpipe;

namespace {

constexpr std::size_t MAX_SENT = std::size_t(48) << 20;
constexpr std::int64_t MEMORY_BOUND = std::int64_t(24) << 20;
// reply_error keeps 300 bytes of a message's JSON form, plus its "... (N more bytes)" and the braces.
constexpr std::size_t ERROR_BODY_BOUND = 512;
constexpr std::size_t READ_CAP = std::size_t(4) << 20;
constexpr auto ANSWER_DEADLINE = std::chrono::seconds(8);

// Live heap bytes, process-wide, and their peak since the last reset.
std::atomic<std::int64_t> live{0}, peak{0};

void on_malloc(const volatile void*, std::size_t size) {
  const std::int64_t now = live.fetch_add(std::int64_t(size), std::memory_order_relaxed) + std::int64_t(size);
  std::int64_t p = peak.load(std::memory_order_relaxed);
  while (now > p && !peak.compare_exchange_weak(p, now, std::memory_order_relaxed)) {}
}

void on_free(const volatile void* ptr) {
  const void* p = const_cast<const void*>(ptr);
  if (p && __sanitizer_get_ownership(p))
    live.fetch_sub(std::int64_t(__sanitizer_get_allocated_size(p)), std::memory_order_relaxed);
}

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "fuzz_http: %s\n", what.c_str());
  std::abort();
}

int daemon_port() {
  static const int port = [] {
    service::ServiceOptions o;
    o.max_wait = std::chrono::seconds(1);  // a long poll must not outlast the input
    o.read_timeout = std::chrono::seconds(1);
    o.http_threads = 4;
    o.max_upload_bytes = std::uint64_t(2) << 20;
    o.max_circuit_file_bytes = std::uint64_t(2) << 20;
    service::Service* svc = nullptr;
    const int p = fuzz::start_daemon(svc, o);
    __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
    return p;
  }();
  return port;
}

// The input with its repeat escapes expanded, at most MAX_SENT bytes.
std::string expand(const std::uint8_t* data, std::size_t size) {
  std::string out;
  for (std::size_t i = 0; i < size && out.size() < MAX_SENT;) {
    if (i + 3 < size && data[i] == 0xFF && data[i + 1] == 0xFE) {
      const std::size_t times = std::size_t(1) << (data[i + 2] % 26), length = data[i + 3];
      const std::size_t start = i + 4, n = std::min(length, size - start);
      const std::string_view piece(reinterpret_cast<const char*>(data) + start, n);
      for (std::size_t t = 0; t < times && n && out.size() < MAX_SENT; ++t) out.append(piece);
      i = start + n;
    } else {
      out.push_back(char(data[i++]));
    }
  }
  if (out.size() > MAX_SENT) out.resize(MAX_SENT);
  return out;
}

int connect_to(int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(std::uint16_t(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int fd = -1;
  // The machine running out of local ports (EADDRNOTAVAIL: many fuzzing processes, each a
  // connection per input) is the harness's trouble, not the daemon's: wait for one, up to 5 s.
  // Anything else (refused: the daemon stopped listening; too many open files) is a finding.
  for (int attempt = 0;; ++attempt) {
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) finding(std::string("cannot open a socket: ") + std::strerror(errno));
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) break;
    const int error = errno;
    ::close(fd);
    if ((error != EADDRNOTAVAIL && error != EAGAIN && error != EINTR) || attempt == 250)
      finding(std::string("cannot connect to the daemon: ") + std::strerror(error));
    ::usleep(20000);
  }
  int yes = 1;  // small requests go out at once, not after a delayed ACK
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  return fd;
}

// Sends `request`, shuts the write side, and reads into `answer` (up to READ_CAP) until the
// daemon closes. The daemon may close first (a refused body is not read to its end): the rest
// of the request is then dropped.
void exchange(int fd, const std::string& request, std::string& answer) {
  const auto until = std::chrono::steady_clock::now() + ANSWER_DEADLINE;
  std::size_t sent = 0;
  bool writing = true;
  char buffer[1 << 16];
  if (request.empty()) ::shutdown(fd, SHUT_WR), writing = false;
  while (true) {
    pollfd p{fd, short(POLLIN | (writing ? POLLOUT : 0)), 0};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0) finding("the daemon did not answer and close within the deadline");
    if (::poll(&p, 1, int(left.count())) < 0) continue;
    if (writing && (p.revents & POLLOUT)) {
      const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
      if (n > 0) sent += std::size_t(n);
      if (n < 0 && errno != EAGAIN && errno != EINTR) writing = false;  // the daemon closed
      if (sent == request.size()) ::shutdown(fd, SHUT_WR), writing = false;
    }
    if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return;
      if (n > 0 && answer.size() < READ_CAP) answer.append(buffer, std::size_t(std::min<std::size_t>(n, READ_CAP)));
    }
  }
}

// Checks each answer on the connection (answers to pipelined requests follow each other).
// An answer to HEAD states the Content-Length of the GET it stands for but carries no body
// (RFC 9110 9.3.2), so where a HEAD was sent an answer followed at once by the next status
// line is taken as bodiless (device-9's finding was this harness skipping into that line).
void check_answers(std::string_view a, bool head_sent) {
  const std::string_view whole = a;
  while (!a.empty()) {
    if (!a.starts_with("HTTP/1.1 ") || a.size() < 12)
      finding("an answer that is not HTTP/1.1: " + std::string(a.substr(0, 40)) +
              "\nafter: " + std::string(whole.substr(0, 1500)));
    const int status = std::atoi(std::string(a.substr(9, 3)).c_str());
    const std::size_t head_end = a.find("\r\n\r\n");
    if (head_end == std::string_view::npos) return;  // cut off by READ_CAP or a reset
    const std::string_view head = a.substr(0, head_end);
    const std::size_t at = head.find("Content-Length: ");
    if (at == std::string_view::npos) return;  // a chunked answer (an event stream): the last one
    const std::size_t length = std::strtoull(std::string(head.substr(at + 16, 20)).c_str(), nullptr, 10);
    if (status >= 400 && (length > ERROR_BODY_BOUND || head.size() > 1024))
      finding("an error answer of " + std::to_string(length) + " bytes: " + std::string(a.substr(0, 600)));
    const bool bodiless = head_sent && a.substr(head_end + 4).starts_with("HTTP/1.1 ");
    a.remove_prefix(std::min(a.size(), head_end + 4 + (bodiless ? 0 : length)));
  }
}

// The requests of `request` as the daemon's front door frames them: those whose heads go on
// to httplib (true for a HEAD), whether the last of them is whole, and whether a later head is
// refused (then the front door answers it after them).
struct Framed {
  std::vector<bool> heads;
  bool last_whole = true;
  bool refusal_answered = false;
};
Framed frame_as_the_daemon(const std::string& request) {
  const service::GateLimits limits;
  service::RequestFramer framer(limits);
  std::string forwarded;
  const bool reading = framer.feed(request.data(), request.size(), forwarded);
  Framed f;
  for (const auto& r : framer.take_forwarded()) f.heads.push_back(r.head_method);
  f.last_whole = framer.between_requests() || framer.finished();
  f.refusal_answered = !reading && framer.refusal().status != 0 && framer.refused_in_head();
  return f;
}

// Every whole request is answered, in order, and a refused head after them too, unless an
// answer ends the connection first (Connection: close: httplib reads no further). Found
// missing: a request answered while a malformed line after it was refused (the relay ended
// httplib's connection before it wrote), and every request pipelined behind another.
void check_every_request_answered(std::string_view a, const Framed& f) {
  if (a.size() >= READ_CAP) return;
  const std::string_view whole = a;
  const std::size_t owed = f.heads.size() - (f.last_whole || f.heads.empty() ? 0 : 1);
  auto lost = [&](const std::string& what) {
    finding(what + " (" + std::to_string(f.heads.size()) + " requests framed, the last " +
            (f.last_whole ? "whole" : "cut short") + "); the answers: " + std::string(whole.substr(0, 1500)));
  };
  for (std::size_t k = 0; k <= f.heads.size(); ++k) {
    while (a.starts_with("HTTP/1.1 1")) {  // an interim answer (100 Continue)
      const std::size_t end = a.find("\r\n\r\n");
      if (end == std::string_view::npos) return;
      a.remove_prefix(end + 4);
    }
    if (k == f.heads.size()) {
      if (f.refusal_answered && a.empty()) lost("no answer to the refused head");
      return;
    }
    if (a.empty()) {
      if (k < owed) lost("request " + std::to_string(k + 1) + " was not answered");
      return;
    }
    const std::size_t head_end = a.find("\r\n\r\n");
    if (head_end == std::string_view::npos) return;  // cut off by a reset
    const std::string_view head = a.substr(0, head_end);
    if (head.find("\r\nConnection: close") != std::string_view::npos) return;  // the connection's last
    const int status = std::atoi(std::string(a.substr(9, 3)).c_str());
    const std::size_t at = head.find("Content-Length: ");
    const bool bodiless = f.heads[k] || status == 204 || status == 304;
    if (at == std::string_view::npos && !bodiless) return;  // a chunked answer (an event stream)
    const std::size_t length = bodiless ? 0 : std::strtoull(std::string(head.substr(at + 16, 20)).c_str(), nullptr, 10);
    a.remove_prefix(std::min(a.size(), head_end + 4 + length));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const int port = daemon_port();
  const std::string request = expand(data, size);
  // One buffer for every input: a fresh 4 MiB reserve per input (its shadow poisoned and
  // quarantined by ASan) cost more than the whole exchange of a small request.
  static std::string answer;
  answer.clear();
  const int fd = connect_to(port);
  peak.store(live.load());
  const std::int64_t before = live.load();
  const auto started = std::chrono::steady_clock::now();
  exchange(fd, request, answer);
  ::close(fd);
  if (static const char* slow = std::getenv("FUZZ_HTTP_SLOW_MS"); slow) {  // where the time goes
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
    if (ms.count() >= std::atoll(slow)) {
      std::string line = request.substr(0, 120);
      for (char& c : line)
        if (c < 0x20 || c > 0x7e) c = '.';
      std::fprintf(stderr, "fuzz_http: %lld ms, %zu bytes sent, %zu answered: %s\n", (long long)ms.count(),
                   request.size(), answer.size(), line.c_str());
      if (const char* dir = std::getenv("FUZZ_HTTP_SLOW_DIR"); dir) {
        static int count = 0;
        if (FILE* f = std::fopen((std::string(dir) + "/slow-" + std::to_string(count++)).c_str(), "wb")) {
          std::fwrite(request.data(), 1, request.size(), f);
          std::fclose(f);
        }
      }
    }
  }
  const std::int64_t grew = peak.load() - before;
  if (grew > MEMORY_BOUND)
    finding("the daemon's heap grew by " + std::to_string(grew >> 10) + " KiB serving " +
            std::to_string(request.size()) + " bytes (bound " + std::to_string(MEMORY_BOUND >> 10) + " KiB)");
  check_answers(answer, request.find("HEAD") != std::string::npos);
  check_every_request_answered(answer, frame_as_the_daemon(request));
  return 0;
}
