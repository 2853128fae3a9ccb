// SHA-256 through OpenSSL: token hashes (access.hpp) and the identity of an uploaded witness
// (a reused idempotency key must name the same bytes).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace snarkpipe::service {

std::string sha256_hex(std::string_view data);  // lower-case hex

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(const void* data, std::size_t size);
  std::string hex();  // once, at the end

 private:
  struct Context;
  std::unique_ptr<Context> ctx_;
};

}  // namespace snarkpipe::service
