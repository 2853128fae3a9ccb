#include "service/access.hpp"

#include <openssl/crypto.h>

#include <cctype>

#include "service/sha256.hpp"

namespace snarkpipe::service {

const AccessToken* find_token(const std::vector<AccessToken>& tokens, std::string_view secret) {
  const std::string hash = sha256_hex(secret);
  const AccessToken* found = nullptr;
  for (const auto& t : tokens)  // every token compared, so the time says nothing of which matched
    if (t.sha256.size() == hash.size() && CRYPTO_memcmp(t.sha256.data(), hash.data(), hash.size()) == 0) found = &t;
  return found;
}

std::optional<std::string_view> bearer_secret(std::string_view v) {
  constexpr std::string_view scheme = "bearer ";
  if (v.size() <= scheme.size()) return std::nullopt;
  for (std::size_t i = 0; i < scheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(v[i])) != scheme[i]) return std::nullopt;
  v.remove_prefix(scheme.size());
  while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\r')) v.remove_suffix(1);
  if (v.empty()) return std::nullopt;
  return v;
}

}  // namespace snarkpipe::service
