#include "filecoin/chacha.hpp"

#include <bit>
#include <stdexcept>

namespace snarkpipe::filecoin {
namespace {

std::uint32_t load_le32(const std::uint8_t* p) {
  return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[3]) << 24;
}

void quarter_round(ChaChaState& x, int a, int b, int c, int d) {
  x[a] += x[b];
  x[d] = std::rotl(x[d] ^ x[a], 16);
  x[c] += x[d];
  x[b] = std::rotl(x[b] ^ x[c], 12);
  x[a] += x[b];
  x[d] = std::rotl(x[d] ^ x[a], 8);
  x[c] += x[d];
  x[b] = std::rotl(x[b] ^ x[c], 7);
}

}  // namespace

ChaChaState chacha_initial_state(std::span<const std::uint8_t, 32> key, std::uint32_t w12, std::uint32_t w13,
                                 std::uint32_t w14, std::uint32_t w15) {
  ChaChaState s{0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};
  for (int i = 0; i < 8; ++i) s[4 + i] = load_le32(key.data() + 4 * i);
  s[12] = w12;
  s[13] = w13;
  s[14] = w14;
  s[15] = w15;
  return s;
}

ChaChaState chacha_block(const ChaChaState& in, int rounds) {
  if (rounds <= 0 || rounds % 2 != 0) throw std::invalid_argument("ChaCha needs a positive, even number of rounds");
  ChaChaState x = in;
  for (int r = 0; r < rounds; r += 2) {
    quarter_round(x, 0, 4, 8, 12);
    quarter_round(x, 1, 5, 9, 13);
    quarter_round(x, 2, 6, 10, 14);
    quarter_round(x, 3, 7, 11, 15);
    quarter_round(x, 0, 5, 10, 15);
    quarter_round(x, 1, 6, 11, 12);
    quarter_round(x, 2, 7, 8, 13);
    quarter_round(x, 3, 4, 9, 14);
  }
  for (int i = 0; i < 16; ++i) x[i] += in[i];
  return x;
}

ChaCha8Rng::ChaCha8Rng(std::span<const std::uint8_t, 32> seed) : input_(chacha_initial_state(seed, 0, 0, 0, 0)) {}

std::uint32_t ChaCha8Rng::next_u32() {
  if (index_ == 16) {
    input_[12] = std::uint32_t(counter_);
    input_[13] = std::uint32_t(counter_ >> 32);
    block_ = chacha_block(input_, 8);
    ++counter_;
    index_ = 0;
  }
  return block_[index_++];
}

std::uint64_t ChaCha8Rng::next_u64() {
  const std::uint64_t lo = next_u32();
  return lo | std::uint64_t(next_u32()) << 32;
}

void chacha20_keystream(std::span<const std::uint8_t, 32> key, std::span<const std::uint8_t, 12> nonce,
                        std::uint64_t offset, std::span<std::uint8_t> out) {
  if ((offset + out.size() + 63) / 64 > (std::uint64_t(1) << 32))
    throw std::invalid_argument("ChaCha20 keystream position past its 32-bit block counter");
  ChaChaState input =
      chacha_initial_state(key, 0, load_le32(nonce.data()), load_le32(nonce.data() + 4), load_le32(nonce.data() + 8));
  std::size_t written = 0;
  while (written < out.size()) {
    const std::uint64_t pos = offset + written;
    input[12] = std::uint32_t(pos / 64);
    const ChaChaState block = chacha_block(input, 20);
    for (std::size_t i = pos % 64; i < 64 && written < out.size(); ++i)
      out[written++] = std::uint8_t(block[i / 4] >> (8 * (i % 4)));
  }
}

}  // namespace snarkpipe::filecoin
