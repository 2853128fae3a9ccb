#include "service/request_framer.hpp"

namespace snarkpipe::service {

namespace {

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

bool is_tchar(char c) {  // RFC 9110 5.6.2: a token's characters
  return std::isalnum(static_cast<unsigned char>(c)) ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

// Whether a Connection header's value lists `option` (comma-separated, any case).
bool lists_option(std::string_view value, std::string_view option) {
  while (!value.empty()) {
    const std::size_t comma = value.find(',');
    if (iequals(detail::trim(value.substr(0, comma)), option)) return true;
    value.remove_prefix(comma == std::string_view::npos ? value.size() : comma + 1);
  }
  return false;
}

}  // namespace

HeadFraming frame_head(const std::string& head) {
  std::string_view rest(head);
  std::size_t line_no = 0;
  bool has_length = false, chunked = false, has_coding = false, close = false, keep_alive = false;
  unsigned long long length = 0;
  std::string_view method, version;
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
      // METHOD SP TARGET SP HTTP/1.x, nothing else: a line httplib would refuse (and close on)
      // is refused here, so that what follows it is never read as more requests.
      const std::size_t sp1 = line.find(' '), sp2 = line.rfind(' ');
      method = line.substr(0, sp1);
      const std::string_view target = sp1 < sp2 ? line.substr(sp1 + 1, sp2 - sp1 - 1) : std::string_view();
      version = sp1 < sp2 ? line.substr(sp2 + 1) : std::string_view();
      if (method.empty() || method.size() > 32 || !std::all_of(method.begin(), method.end(), is_tchar) ||
          target.empty() ||
          !std::all_of(target.begin(), target.end(),
                       [](char c) { return static_cast<unsigned char>(c) > 0x20 && c != 0x7f; }) ||
          (version != "HTTP/1.1" && version != "HTTP/1.0"))
        return detail::refuse(400, "the request line is not METHOD TARGET HTTP/1.1");
      // httplib refuses other methods and then waits on the connection for the next request.
      static constexpr std::string_view KNOWN[] = {"GET",     "HEAD",    "POST",  "PUT",   "DELETE",
                                                   "CONNECT", "OPTIONS", "TRACE", "PATCH", "PRI"};
      if (std::find(std::begin(KNOWN), std::end(KNOWN), method) == std::end(KNOWN))
        return detail::refuse(501, "the method " + std::string(method.substr(0, 16)) +
                                       " is not served (GET, POST, PUT, PATCH, DELETE are)");
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
    } else if (iequals(name, "Connection")) {
      close = close || lists_option(value, "close");
      keep_alive = keep_alive || lists_option(value, "keep-alive");
    }
  }
  if (chunked && has_length) return detail::refuse(400, "a request has both Content-Length and Transfer-Encoding");
  // httplib reads a body only for these methods; another method's body would be read as the
  // next request.
  const bool body_method =
      method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE" || method == "PRI";
  if ((chunked || length > 0) && !body_method)
    return detail::refuse(400, "a " + std::string(method.substr(0, 16)) + " request carries no body");
  HeadFraming f;
  f.chunked = chunked;
  f.length = length;
  f.unstated_empty_body = body_method && !chunked && !has_length;
  f.close = close || (version == "HTTP/1.0" && !keep_alive);
  return f;
}

}  // namespace snarkpipe::service
