// BLAKE2b (RFC 7693): 64-bit words, 12 rounds, digests of 1..64 bytes, optional key of up to
// 64 bytes. Filecoin uses it unkeyed with a 64-byte digest in the Feistel permutation that
// picks the SDR expander parents, and keyed with a 32-byte digest to seed the synthetic
// PoRep challenges' ChaCha20.
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace snarkpipe::filecoin {

class Blake2b {
 public:
  static constexpr std::size_t BLOCK_BYTES = 128;
  static constexpr std::size_t MAX_DIGEST_BYTES = 64;
  static constexpr std::size_t MAX_KEY_BYTES = 64;

  // Throws std::invalid_argument for a digest length outside 1..64 or a key over 64 bytes.
  explicit Blake2b(std::size_t digest_bytes = MAX_DIGEST_BYTES, std::span<const std::uint8_t> key = {});

  Blake2b& update(std::span<const std::uint8_t> data);
  // Writes the digest (out.size() must be the digest length); the object is spent afterwards.
  void finalize(std::span<std::uint8_t> out);

 private:
  void compress(const std::uint8_t* block, bool last);

  std::array<std::uint64_t, 8> h_;
  std::array<std::uint8_t, BLOCK_BYTES> buf_{};
  std::size_t buffered_ = 0;
  std::uint64_t t_lo_ = 0, t_hi_ = 0;  // bytes compressed so far (a 128-bit counter)
  std::size_t digest_bytes_;
};

// The 64-byte digest of a message, as blake2b_simd::blake2b computes it.
std::array<std::uint8_t, 64> blake2b_512(std::span<const std::uint8_t> message);

}  // namespace snarkpipe::filecoin
