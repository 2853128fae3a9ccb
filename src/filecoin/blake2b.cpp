#include "filecoin/blake2b.hpp"

#include <bit>
#include <cstring>
#include <stdexcept>

namespace snarkpipe::filecoin {
namespace {

constexpr std::array<std::uint64_t, 8> IV = {0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b,
                                             0xa54ff53a5f1d36f1, 0x510e527fade682d1, 0x9b05688c2b3e6c1f,
                                             0x1f83d9abfb41bd6b, 0x5be0cd19137e2179};

constexpr std::uint8_t SIGMA[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4}, {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13}, {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11}, {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5}, {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3}};

std::uint64_t load_le64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

Blake2b::Blake2b(std::size_t digest_bytes, std::span<const std::uint8_t> key) : h_(IV), digest_bytes_(digest_bytes) {
  if (digest_bytes == 0 || digest_bytes > MAX_DIGEST_BYTES)
    throw std::invalid_argument("BLAKE2b digest length must be 1..64 bytes");
  if (key.size() > MAX_KEY_BYTES) throw std::invalid_argument("BLAKE2b key must be at most 64 bytes");
  // Parameter block (RFC 7693 §2.5): digest length, key length, fanout 1, depth 1.
  h_[0] ^= 0x01010000ull ^ (std::uint64_t(key.size()) << 8) ^ digest_bytes;
  if (!key.empty()) {
    std::memcpy(buf_.data(), key.data(), key.size());
    buffered_ = BLOCK_BYTES;  // the zero-padded key is the first block
  }
}

void Blake2b::compress(const std::uint8_t* block, bool last) {
  std::uint64_t m[16];
  for (int i = 0; i < 16; ++i) m[i] = load_le64(block + 8 * i);
  std::uint64_t v[16];
  for (int i = 0; i < 8; ++i) {
    v[i] = h_[i];
    v[i + 8] = IV[i];
  }
  v[12] ^= t_lo_;
  v[13] ^= t_hi_;
  if (last) v[14] = ~v[14];
  auto g = [&v](int a, int b, int c, int d, std::uint64_t x, std::uint64_t y) {
    v[a] = v[a] + v[b] + x;
    v[d] = std::rotr(v[d] ^ v[a], 32);
    v[c] = v[c] + v[d];
    v[b] = std::rotr(v[b] ^ v[c], 24);
    v[a] = v[a] + v[b] + y;
    v[d] = std::rotr(v[d] ^ v[a], 16);
    v[c] = v[c] + v[d];
    v[b] = std::rotr(v[b] ^ v[c], 63);
  };
#pragma GCC unroll 12
  for (const auto& s : SIGMA) {
    g(0, 4, 8, 12, m[s[0]], m[s[1]]);
    g(1, 5, 9, 13, m[s[2]], m[s[3]]);
    g(2, 6, 10, 14, m[s[4]], m[s[5]]);
    g(3, 7, 11, 15, m[s[6]], m[s[7]]);
    g(0, 5, 10, 15, m[s[8]], m[s[9]]);
    g(1, 6, 11, 12, m[s[10]], m[s[11]]);
    g(2, 7, 8, 13, m[s[12]], m[s[13]]);
    g(3, 4, 9, 14, m[s[14]], m[s[15]]);
  }
  for (int i = 0; i < 8; ++i) h_[i] ^= v[i] ^ v[i + 8];
}

Blake2b& Blake2b::update(std::span<const std::uint8_t> data) {
  std::size_t i = 0;
  while (i < data.size()) {
    // A full buffer is compressed only once more input arrives: the last block is special.
    if (buffered_ == BLOCK_BYTES) {
      t_lo_ += BLOCK_BYTES;
      if (t_lo_ < BLOCK_BYTES) ++t_hi_;
      compress(buf_.data(), false);
      buffered_ = 0;
    }
    const std::size_t n = std::min(BLOCK_BYTES - buffered_, data.size() - i);
    std::memcpy(buf_.data() + buffered_, data.data() + i, n);
    buffered_ += n;
    i += n;
  }
  return *this;
}

void Blake2b::finalize(std::span<std::uint8_t> out) {
  if (out.size() != digest_bytes_) throw std::invalid_argument("BLAKE2b output span does not match the digest length");
  t_lo_ += buffered_;
  if (t_lo_ < buffered_) ++t_hi_;
  std::memset(buf_.data() + buffered_, 0, BLOCK_BYTES - buffered_);
  compress(buf_.data(), true);
  for (std::size_t i = 0; i < digest_bytes_; ++i) out[i] = std::uint8_t(h_[i / 8] >> (8 * (i % 8)));
}

std::array<std::uint8_t, 64> blake2b_512(std::span<const std::uint8_t> message) {
  std::array<std::uint8_t, 64> out;
  Blake2b(64).update(message).finalize(out);
  return out;
}

}  // namespace snarkpipe::filecoin
