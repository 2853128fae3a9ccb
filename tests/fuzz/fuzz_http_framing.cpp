// The daemon's HTTP/1.1 request framing (service/request_framer.hpp) in-process, without the
// sockets of fuzz_http: the bytes a client sends, fed to a RequestFramer whole and again cut
// into pieces the input chooses, as a connection's reads would cut them.
//
// Asserted per input:
//   - the framing does not depend on the cuts: the same bytes forwarded, the same refusal
//     (status, reason, in a head or a body) and the same state at the end;
//   - what is forwarded is a prefix of what was sent: the relay passes bytes on unchanged,
//     but for the header lines it states for httplib (EMPTY_BODY_HEADER, CLOSE_HEADER), each
//     at the start of a line;
//   - a refusal is a 400, 431 or 501 with a short reason (the relay echoes it to the client);
//   - once the connection's last request has gone whole (finished), reading stops, nothing
//     is refused, and no more of the bytes is forwarded.
// Small limits (a 512-byte head, 8 header lines, 64-byte chunk lines) so that the bounds are
// within reach of short inputs.
//
// Input: byte 0 seeds the cuts (a piece is 1 to 64 bytes), the rest is what the client sends.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "service/request_framer.hpp"

using namespace snarkpipe;

namespace {

struct Framed {
  std::string out;
  bool ok = true;
  service::HeadFraming refusal;
  bool refused_in_head = false, between_requests = true, in_head = false, finished = false;
};

template <class NextPiece>
Framed frame(const service::GateLimits& limits, const char* data, std::size_t size, NextPiece next_piece) {
  service::RequestFramer framer(limits);
  Framed f;
  for (std::size_t at = 0; at < size && f.ok;) {
    const std::size_t n = std::min(next_piece(), size - at);
    f.ok = framer.feed(data + at, n, f.out);
    at += n;
  }
  f.refusal = framer.refusal();
  f.refused_in_head = framer.refused_in_head();
  f.between_requests = framer.between_requests();
  f.in_head = framer.in_head();
  f.finished = framer.finished();
  return f;
}

// Whether `out` is a prefix of `sent` with EMPTY_BODY_HEADER or CLOSE_HEADER lines added at
// line starts: at a line start, an added line that sent does not have there is skipped.
bool sent_with_stated_headers(std::string_view out, std::string_view sent) {
  std::size_t i = 0, j = 0;
  while (i < out.size()) {
    if (i >= 2 && out.substr(i - 2, 2) == "\r\n")
      for (const std::string_view line : {service::EMPTY_BODY_HEADER, service::CLOSE_HEADER})
        if (out.substr(i).starts_with(line) && !sent.substr(j).starts_with(line)) i += line.size();
    if (i == out.size()) break;
    if (j >= sent.size() || out[i] != sent[j]) return false;
    ++i, ++j;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  service::GateLimits limits;
  limits.max_head_bytes = 512;
  limits.max_header_lines = 8;
  limits.max_line_bytes = 64;
  limits.max_requests_per_connection = 4;
  const char* sent = reinterpret_cast<const char*>(data) + 1;
  const std::size_t n = size - 1;
  const Framed whole = frame(limits, sent, n, [&] { return n; });
  std::uint32_t state = data[0] * 2654435761u + 1;
  const Framed cut = frame(limits, sent, n, [&] {
    state = state * 1103515245u + 12345u;
    return std::size_t(1 + (state >> 16) % 64);
  });
  if (whole.ok != cut.ok || whole.out != cut.out || whole.refusal.status != cut.refusal.status ||
      whole.refusal.error != cut.refusal.error || whole.refused_in_head != cut.refused_in_head ||
      whole.between_requests != cut.between_requests || whole.in_head != cut.in_head || whole.finished != cut.finished)
    __builtin_trap();  // the framing depends on how the bytes were cut
  if (!sent_with_stated_headers(whole.out, std::string_view(sent, n)))
    __builtin_trap();  // forwarded bytes that were not sent, or not in order
  if (whole.finished && (whole.ok || whole.refusal.status != 0 || !whole.between_requests))
    __builtin_trap();  // a finished connection that reads on, or refuses
  if (!whole.ok && !whole.finished &&
      ((whole.refusal.status != 400 && whole.refusal.status != 431 && whole.refusal.status != 501) ||
       whole.refusal.error.size() > 200))
    __builtin_trap();  // a refusal the relay could not answer as it should
  return 0;
}
