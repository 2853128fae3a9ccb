// The server → client direction of the daemon's front door (service/http_gate.hpp): which of
// the requests it forwarded httplib has answered whole. The relay needs it to end a connection
// whose client is done (it closed its sending side, or its next head was refused) without
// losing an answer still on its way: httplib drops an answer when it sees the end of the
// stream beside the request, so the relay may only close httplib's connection once nothing is
// owed. The bytes are httplib's, not a client's: no bounds, no refusals.
#pragma once

#include <cstddef>
#include <deque>
#include <string>

namespace snarkpipe::service {

class AnswerCounter {
 public:
  // A request whose head has gone on to httplib; `head_method`: a HEAD, answered without a body.
  void expect(bool head_method) { owed_.push_back(head_method); }
  // Requests forwarded whose answers have not come whole.
  std::size_t owed() const { return owed_.size(); }
  // httplib's bytes as they come, in any pieces.
  void feed(const char* data, std::size_t n);

 private:
  enum class Phase { HEAD, BODY, CHUNK_SIZE, CHUNK_END, TRAILER, UNTIL_CLOSE };
  void end_head();
  void end_line();
  void answered();

  Phase phase_ = Phase::HEAD;
  Phase after_body_ = Phase::HEAD;
  std::string line_;  // the head so far, or a chunk-size or trailer line
  unsigned long long remaining_ = 0;
  std::deque<bool> owed_;
};

}  // namespace snarkpipe::service
