#include "ff/random.hpp"

#include <sys/random.h>

#include <cerrno>
#include <system_error>

namespace snarkpipe::ff {

void SystemRng::fill(void* out, std::size_t len) {
  auto* p = static_cast<unsigned char*>(out);
  while (len > 0) {
    const ssize_t n = getrandom(p, len, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::system_error(errno, std::generic_category(), "getrandom");
    }
    p += n;
    len -= std::size_t(n);
  }
}

std::uint64_t SystemRng::next_u64() {
  if (pos_ == buf_.size()) {
    fill(buf_.data(), sizeof(buf_));
    pos_ = 0;
  }
  return buf_[pos_++];
}

namespace {
std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

SeededRng::SeededRng(std::uint64_t seed) {
  for (auto& w : s_) w = splitmix64(seed);
}

std::uint64_t SeededRng::next_u64() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

std::uint64_t fresh_seed() {
  std::uint64_t s;
  SystemRng::fill(&s, sizeof(s));
  return s;
}

}  // namespace snarkpipe::ff
