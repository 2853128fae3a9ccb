// The keyed Feistel permutation that places SDR's expander edges
// (storage-proofs-core/src/crypto/feistel.rs). An index in [0, n) is split into two halves of
// `half_bits` bits each, the smallest even width that holds n (at least 2 + 2 bits); three
// rounds (L, R) ← (R, L ⊕ F(R, key_r)) with the first three of the four keys, where
//   F(R, K) = the first 8 bytes, big-endian, of BLAKE2b-512(R as u64 BE ‖ K as u64 BE) & right_mask.
// Outputs ≥ n are encrypted again until they land in [0, n) (cycle walking), which makes it a
// permutation of [0, n).
#pragma once

#include <array>
#include <cstdint>

namespace snarkpipe::filecoin {

struct FeistelMasks {
  std::uint64_t left_mask;
  std::uint64_t right_mask;
  unsigned half_bits;
};

using FeistelKeys = std::array<std::uint64_t, 4>;

FeistelMasks feistel_masks(std::uint64_t num_elements);
std::uint64_t feistel_permute(std::uint64_t num_elements, std::uint64_t index, const FeistelKeys& keys,
                              const FeistelMasks& masks);

}  // namespace snarkpipe::filecoin
