#include "service/request_framer.hpp"

namespace snarkpipe::service {

namespace {

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

HeadFraming frame_head(const std::string& head) {
  std::string_view rest(head);
  std::size_t line_no = 0;
  bool has_length = false, chunked = false, has_coding = false;
  unsigned long long length = 0;
  std::string_view method;
  while (!rest.empty()) {
    const std::size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
    // httplib skips a header line not ended by CRLF and reads on: the two readers would
    // disagree on where the head ends.
    if (nl == std::string_view::npos || line.empty() || line.back() != '\r')
      return detail::refuse(400, "a request line or header line does not end in CRLF");
    line.remove_suffix(1);
    if (line_no++ == 0) {
      if (line.empty()) return detail::refuse(400, "the request line is empty");
      method = line.substr(0, line.find(' '));
      continue;
    }
    if (line.empty()) break;  // the end of the head
    if (line.front() == ' ' || line.front() == '\t') return detail::refuse(400, "a header line is folded (obsolete)");
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) return detail::refuse(400, "a header line has no name");
    const std::string_view name = line.substr(0, colon), value = detail::trim(line.substr(colon + 1));
    if (name.back() == ' ' || name.back() == '\t') return detail::refuse(400, "a header name ends in white space");
    if (iequals(name, "Content-Length")) {
      if (value.empty() || value.size() > 19 ||
          !std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return detail::refuse(400, "Content-Length is not a number");
      unsigned long long v = 0;
      for (char c : value) v = v * 10 + unsigned(c - '0');
      if (has_length && v != length) return detail::refuse(400, "two different Content-Length headers");
      has_length = true;
      length = v;
    } else if (iequals(name, "Transfer-Encoding")) {
      if (has_coding || !iequals(value, "chunked"))
        return detail::refuse(400, "the only transfer coding taken is one \"chunked\"");
      has_coding = chunked = true;
    }
  }
  if (chunked && has_length) return detail::refuse(400, "a request has both Content-Length and Transfer-Encoding");
  // httplib reads a body only for these methods; another method's body would be read as the
  // next request.
  if ((chunked || length > 0) && method != "POST" && method != "PUT" && method != "PATCH" && method != "DELETE" &&
      method != "PRI")
    return detail::refuse(400, "a " + std::string(method.substr(0, 16)) + " request carries no body");
  HeadFraming f;
  f.chunked = chunked;
  f.length = length;
  return f;
}

}  // namespace snarkpipe::service
