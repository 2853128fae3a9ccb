#include "gadgets/sha256_native.hpp"

#include <bit>
#include <cstring>

namespace snarkpipe::gadgets::native {

void sha256_compress(std::array<std::uint32_t, 8>& state, std::span<const std::uint8_t, 64> block) {
  std::uint32_t w[64];
  for (int i = 0; i < 16; ++i) {
    w[i] = std::uint32_t(block[4 * i]) << 24 | std::uint32_t(block[4 * i + 1]) << 16 |
           std::uint32_t(block[4 * i + 2]) << 8 | std::uint32_t(block[4 * i + 3]);
  }
  for (int i = 16; i < 64; ++i) {
    const std::uint32_t s0 = std::rotr(w[i - 15], 7) ^ std::rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    const std::uint32_t s1 = std::rotr(w[i - 2], 17) ^ std::rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  std::uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
  std::uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
  for (int i = 0; i < 64; ++i) {
    const std::uint32_t s1 = std::rotr(e, 6) ^ std::rotr(e, 11) ^ std::rotr(e, 25);
    const std::uint32_t ch = (e & f) ^ (~e & g);
    const std::uint32_t t1 = h + s1 + ch + SHA256_K[i] + w[i];
    const std::uint32_t s0 = std::rotr(a, 2) ^ std::rotr(a, 13) ^ std::rotr(a, 22);
    const std::uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
    const std::uint32_t t2 = s0 + maj;
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
  state[4] += e;
  state[5] += f;
  state[6] += g;
  state[7] += h;
}

Sha256Digest sha256(std::span<const std::uint8_t> message) {
  std::array<std::uint32_t, 8> state = SHA256_IV;
  std::size_t full = message.size() / 64;
  for (std::size_t i = 0; i < full; ++i) sha256_compress(state, message.subspan(64 * i).first<64>());

  // The tail, the 0x80 marker, zeros, and the bit length (big-endian) in one or two blocks.
  std::uint8_t tail[128] = {};
  const std::size_t rest = message.size() - 64 * full;
  if (rest != 0) std::memcpy(tail, message.data() + 64 * full, rest);
  tail[rest] = 0x80;
  const std::size_t tail_len = rest + 1 + 8 <= 64 ? 64 : 128;
  const std::uint64_t bit_len = std::uint64_t(message.size()) * 8;
  for (int i = 0; i < 8; ++i) tail[tail_len - 1 - i] = std::uint8_t(bit_len >> (8 * i));
  for (std::size_t off = 0; off < tail_len; off += 64) {
    sha256_compress(state, std::span<const std::uint8_t, 64>(tail + off, 64));
  }

  Sha256Digest out;
  for (int i = 0; i < 8; ++i) {
    out[4 * i] = std::uint8_t(state[i] >> 24);
    out[4 * i + 1] = std::uint8_t(state[i] >> 16);
    out[4 * i + 2] = std::uint8_t(state[i] >> 8);
    out[4 * i + 3] = std::uint8_t(state[i]);
  }
  return out;
}

}  // namespace snarkpipe::gadgets::native
