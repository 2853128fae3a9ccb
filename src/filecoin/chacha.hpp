// The ChaCha stream cipher's block function (D. J. Bernstein; RFC 8439 §2.3) and the two
// keystreams Filecoin draws from it:
//   - ChaCha8Rng: rand_chacha's generator (8 rounds, the seed as key, a 64-bit block counter
//     from 0 in words 12–13, stream 0 in words 14–15), which samples the SDR DRG parents;
//   - ChaCha20 with RFC 8439's layout (32-bit counter, 96-bit nonce), as the RustCrypto
//     `chacha20` crate keys it for the synthetic PoRep challenges.
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace snarkpipe::filecoin {

using ChaChaState = std::array<std::uint32_t, 16>;

// Words 0–3 the constants "expand 32-byte k", 4–11 the key (little-endian), 12–15 as given.
ChaChaState chacha_initial_state(std::span<const std::uint8_t, 32> key, std::uint32_t w12, std::uint32_t w13,
                                 std::uint32_t w14, std::uint32_t w15);
// The keystream block of a state after `rounds` rounds (8, 12 or 20): working state + input.
ChaChaState chacha_block(const ChaChaState& in, int rounds);

// rand_chacha::ChaCha8Rng::from_seed(seed); next_u32 / next_u64 as rand_core's BlockRng
// hands out the words (a u64 is two consecutive words, the first one low).
class ChaCha8Rng {
 public:
  explicit ChaCha8Rng(std::span<const std::uint8_t, 32> seed);
  std::uint32_t next_u32();
  std::uint64_t next_u64();

 private:
  ChaChaState input_;
  ChaChaState block_{};
  std::uint64_t counter_ = 0;
  int index_ = 16;  // the next word of block_ to hand out; 16 = refill
};

// ChaCha20 (RFC 8439 layout, counter from 0) keystream bytes starting at byte `offset`.
void chacha20_keystream(std::span<const std::uint8_t, 32> key, std::span<const std::uint8_t, 12> nonce,
                        std::uint64_t offset, std::span<std::uint8_t> out);

}  // namespace snarkpipe::filecoin
