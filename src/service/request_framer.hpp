// The HTTP/1.1 request framing the daemon's front door reads (service/http_gate.hpp says why):
// where each request head ends, how its body is framed, and the bounds a client's bytes must
// keep. No sockets here: the relay feeds it the bytes as they arrive.
#pragma once

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace snarkpipe::service {

struct GateLimits {
  std::size_t max_head_bytes = 64 << 10;  // request line and headers, with their line ends
  std::size_t max_header_lines = 128;
  std::size_t max_line_bytes = 16 << 10;            // a chunk-size or trailer line
  std::chrono::milliseconds header_timeout{10000};  // from a head's first byte to its end
  // Requests on one connection (nginx's keepalive_requests default before 1.19.10): a client
  // that pipelines without end costs the daemon work without end; after these the connection
  // closes and a client opens a new one.
  std::size_t max_requests_per_connection = 100;
};

// What one request head's framing says about the bytes after it (exposed for the tests).
struct HeadFraming {
  int status = 0;                 // 0: the head is good; else the status to refuse it with
  std::string error;              // why, for the client
  bool chunked = false;           // the body is chunked
  unsigned long long length = 0;  // else its Content-Length (0 without one)
  bool close = false;             // the connection ends after this request (RFC 9112 9.6):
                                  // "Connection: close", or HTTP/1.0 without keep-alive
  // A POST, PUT, PATCH or DELETE with neither Content-Length nor chunked (curl -X POST): its
  // body is empty (RFC 9112 6.3), but httplib reads such a body until the connection closes.
  bool unstated_empty_body = false;
};
// Header lines the framer adds to a head, after its request line, where httplib would read the
// request otherwise than the framer did and so wait on the connection for its read timeout:
// an empty body stated (unstated_empty_body), and the connection's end stated on its last
// request (httplib reads only the first Connection header, and only the exact value "close";
// it knows nothing of max_requests_per_connection).
inline constexpr std::string_view EMPTY_BODY_HEADER = "Content-Length: 0\r\n";
inline constexpr std::string_view CLOSE_HEADER = "Connection: close\r\n";
HeadFraming frame_head(const std::string& head);

namespace detail {
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}
inline HeadFraming refuse(int status, std::string why) {
  HeadFraming f;
  f.status = status;
  f.error = std::move(why);
  return f;
}
}  // namespace detail

// The client → server direction: what of the client's bytes may go on to httplib, request by
// request, and the first bound a request breaks. Its output does not depend on how the bytes
// are cut into feed() calls (tests/fuzz/fuzz_http_framing checks it).
class RequestFramer {
 public:
  explicit RequestFramer(const GateLimits& l) : limits_(l) {}

  // Takes the client's bytes; appends what may go on to `out` (the client's bytes as they came,
  // but for the lines EMPTY_BODY_HEADER and CLOSE_HEADER say). False once no more is to be read:
  // a bound is broken (then `refusal` says how, and nothing after it is forwarded), or the
  // connection's last request has gone whole (finished(); what follows it is not forwarded).
  bool feed(const char* data, std::size_t n, std::string& out) {
    std::size_t i = 0;
    while (true) {
      if (closing_ && phase_ == Phase::HEAD) {
        finished_ = true;
        return false;
      }
      if (i == n) return true;
      switch (phase_) {
        case Phase::HEAD: {
          const char c = data[i++];
          if (head_.empty()) head_started_ = std::chrono::steady_clock::now();
          head_.push_back(c);
          if (c == '\n') {
            ++lines_;
            // The head ends at its first empty line (frame_head refuses lines not ended by CRLF).
            if (head_.ends_with("\n\n") || head_.ends_with("\n\r\n")) {
              if (!end_head(out)) return false;
              break;
            }
            if (lines_ > limits_.max_header_lines + 1)
              return fail(detail::refuse(
                  431, "the request has more than " + std::to_string(limits_.max_header_lines) + " header lines"));
          }
          if (head_.size() > limits_.max_head_bytes)
            return fail(detail::refuse(
                431, "the request line and headers are over " + std::to_string(limits_.max_head_bytes) + " bytes"));
          break;
        }
        case Phase::BODY: {
          const std::size_t take = std::size_t(std::min<unsigned long long>(remaining_, n - i));
          out.append(data + i, take);
          i += take;
          remaining_ -= take;
          if (remaining_ == 0) phase_ = after_body_;
          break;
        }
        case Phase::CHUNK_SIZE:
        case Phase::CHUNK_END:
        case Phase::TRAILER: {
          const char c = data[i++];
          line_.push_back(c);
          if (line_.size() > limits_.max_line_bytes)
            return fail(detail::refuse(
                400, "a chunk-size or trailer line is over " + std::to_string(limits_.max_line_bytes) + " bytes"));
          if (c == '\n' && !end_line(out)) return false;
          break;
        }
      }
    }
  }
  // True once the request that ends the connection (HeadFraming::close, or the
  // max_requests_per_connection-th) has been forwarded whole.
  bool finished() const { return finished_; }
  // True while no body is under way: what comes next is a request head.
  bool between_requests() const { return phase_ == Phase::HEAD; }
  // True while a head is partly read: the header deadline runs.
  bool in_head() const { return phase_ == Phase::HEAD && !head_.empty(); }
  std::chrono::steady_clock::time_point head_started() const { return head_started_; }
  // Whether the broken bound was in a head (answered by the relay) or in a body (cut short).
  bool refused_in_head() const { return refused_in_head_; }
  const HeadFraming& refusal() const { return refusal_; }
  // The requests whose heads went on since the last call, in order.
  struct Forwarded {
    std::size_t at;    // where the head starts in the `out` of the feed() that framed it
    bool head_method;  // a HEAD: its answer has no body
  };
  std::vector<Forwarded> take_forwarded() { return std::exchange(forwarded_, {}); }
  void time_out() {
    fail(detail::refuse(408, "the request's headers did not arrive within " +
                                 std::to_string(limits_.header_timeout.count() / 1000) + " s"));
  }

 private:
  enum class Phase { HEAD, BODY, CHUNK_SIZE, CHUNK_END, TRAILER };

  bool fail(HeadFraming why) {
    refused_in_head_ = phase_ == Phase::HEAD;
    refusal_ = std::move(why);
    return false;
  }
  bool end_head(std::string& out) {
    const HeadFraming f = frame_head(head_);
    if (f.status) return fail(f);
    if (f.close || ++requests_ >= limits_.max_requests_per_connection) closing_ = true;
    const std::size_t after_request_line = head_.find('\n') + 1;
    forwarded_.push_back({out.size(), head_.starts_with("HEAD ")});
    out.append(head_, 0, after_request_line);
    if (f.unstated_empty_body) out += EMPTY_BODY_HEADER;
    if (closing_) out += CLOSE_HEADER;
    out.append(head_, after_request_line);
    head_.clear();
    lines_ = 0;
    if (f.chunked) {
      phase_ = Phase::CHUNK_SIZE;
    } else if (f.length > 0) {
      phase_ = Phase::BODY;
      remaining_ = f.length;
      after_body_ = Phase::HEAD;
    }
    return true;
  }
  bool end_line(std::string& out) {
    out += line_;
    const std::string_view text = detail::trim(std::string_view(line_).substr(0, line_.size() - 1));
    switch (phase_) {
      case Phase::CHUNK_SIZE: {
        const std::string_view size = detail::trim(text.substr(0, text.find(';')));
        unsigned long long v = 0;
        if (size.empty() || size.size() > 15 ||
            !std::all_of(size.begin(), size.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); }))
          return fail(detail::refuse(400, "a chunk size is not a hexadecimal number of at most 15 digits"));
        for (char c : size)
          v = v * 16 + unsigned(std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : (c | 0x20) - 'a' + 10);
        if (v == 0) {
          phase_ = Phase::TRAILER;
          trailers_ = 0;
        } else {
          phase_ = Phase::BODY;
          remaining_ = v;
          after_body_ = Phase::CHUNK_END;
        }
        break;
      }
      case Phase::CHUNK_END:
        if (line_ != "\r\n") return fail(detail::refuse(400, "a chunk's data does not end where its size says"));
        phase_ = Phase::CHUNK_SIZE;
        break;
      case Phase::TRAILER:
        if (text.empty()) {
          phase_ = Phase::HEAD;
        } else if (++trailers_ > limits_.max_header_lines) {
          return fail(detail::refuse(
              400, "the chunked body has more than " + std::to_string(limits_.max_header_lines) + " trailer lines"));
        }
        break;
      default:
        break;
    }
    line_.clear();
    return true;
  }

  const GateLimits& limits_;
  Phase phase_ = Phase::HEAD;
  Phase after_body_ = Phase::HEAD;
  std::string head_, line_;
  std::size_t lines_ = 0, trailers_ = 0, requests_ = 0;
  unsigned long long remaining_ = 0;
  std::chrono::steady_clock::time_point head_started_;
  HeadFraming refusal_;
  std::vector<Forwarded> forwarded_;
  bool refused_in_head_ = false;
  bool closing_ = false, finished_ = false;  // the current request is the last; it has gone
};

}  // namespace snarkpipe::service
