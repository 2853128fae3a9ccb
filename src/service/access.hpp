// Who may use the daemon (issue 25): bearer tokens from the configuration, kept only as their
// SHA-256 (the file holds no secret a reader could replay), each with its own limits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace snarkpipe::service {

struct AccessToken {
  std::string name;                       // in logs and job records; never the secret
  std::string sha256;                     // lower-case hex of SHA-256(the token's text)
  bool admin = false;                     // may register circuits and see every token's jobs
  std::uint64_t max_jobs_in_flight = 16;  // queued or running at once
  std::uint64_t max_upload_bytes = 0;     // one witness upload; 0: the daemon's limit
};

// The token whose hash matches `secret` (compared in constant time), or null.
const AccessToken* find_token(const std::vector<AccessToken>& tokens, std::string_view secret);

// The secret of an "Authorization: Bearer SECRET" header value; nullopt for another scheme.
std::optional<std::string_view> bearer_secret(std::string_view authorization);

}  // namespace snarkpipe::service
