#include "service/answer_counter.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "service/request_framer.hpp"

namespace snarkpipe::service {

namespace {

bool starts_with_nocase(std::string_view line, std::string_view name) {
  return line.size() >= name.size() && std::equal(name.begin(), name.end(), line.begin(), [](char a, char b) {
           return a == std::tolower(static_cast<unsigned char>(b));
         });
}

}  // namespace

void AnswerCounter::feed(const char* data, std::size_t n) {
  std::size_t i = 0;
  while (i < n) {
    switch (phase_) {
      case Phase::UNTIL_CLOSE:  // an answer without a length ends with the connection
        return;
      case Phase::BODY: {
        const std::size_t take = std::size_t(std::min<unsigned long long>(remaining_, n - i));
        i += take;
        remaining_ -= take;
        if (remaining_ == 0) {
          phase_ = after_body_;
          if (phase_ == Phase::HEAD) answered();
        }
        break;
      }
      default: {
        const char c = data[i++];
        line_.push_back(c);
        if (c != '\n') break;
        if (phase_ == Phase::HEAD) {
          if (line_.ends_with("\r\n\r\n")) end_head();
        } else {
          end_line();
        }
        break;
      }
    }
  }
}

void AnswerCounter::end_head() {
  const std::string head = std::move(line_);
  line_.clear();
  // "HTTP/1.1 NNN reason"
  const int status = head.size() >= 12 ? std::atoi(head.c_str() + 9) : 0;
  if (status >= 100 && status < 200) return;  // interim (100 Continue): the answer is still to come
  bool chunked = false, has_length = false;
  unsigned long long length = 0;
  std::string_view rest(head);
  rest.remove_prefix(rest.find('\n') + 1);
  while (!rest.empty()) {
    const std::size_t nl = rest.find('\n');
    const std::string_view line = rest.substr(0, nl);
    rest.remove_prefix(nl + 1);
    if (starts_with_nocase(line, "content-length:")) {
      has_length = true;
      length = std::strtoull(std::string(line.substr(15)).c_str(), nullptr, 10);
    } else if (starts_with_nocase(line, "transfer-encoding:")) {
      chunked = line.find("chunked") != std::string_view::npos;
    }
  }
  const bool bodiless = (!owed_.empty() && owed_.front()) || status == 204 || status == 304;
  if (bodiless || (has_length && length == 0 && !chunked)) {
    answered();
  } else if (chunked) {
    phase_ = Phase::CHUNK_SIZE;
  } else if (has_length) {
    phase_ = Phase::BODY;
    remaining_ = length;
    after_body_ = Phase::HEAD;
  } else {
    phase_ = Phase::UNTIL_CLOSE;
  }
}

void AnswerCounter::end_line() {
  const std::string_view text = detail::trim(std::string_view(line_).substr(0, line_.size() - 1));
  switch (phase_) {
    case Phase::CHUNK_SIZE: {
      const unsigned long long size = std::strtoull(std::string(text.substr(0, text.find(';'))).c_str(), nullptr, 16);
      if (size == 0) {
        phase_ = Phase::TRAILER;
      } else {
        phase_ = Phase::BODY;
        remaining_ = size;
        after_body_ = Phase::CHUNK_END;
      }
      break;
    }
    case Phase::CHUNK_END:  // the CRLF after a chunk's data
      phase_ = Phase::CHUNK_SIZE;
      break;
    case Phase::TRAILER:
      if (text.empty()) {
        phase_ = Phase::HEAD;
        answered();
      }
      break;
    default:
      break;
  }
  line_.clear();
}

void AnswerCounter::answered() {
  if (!owed_.empty()) owed_.pop_front();
}

}  // namespace snarkpipe::service
