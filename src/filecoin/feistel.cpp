#include "filecoin/feistel.hpp"

#include "filecoin/blake2b.hpp"

namespace snarkpipe::filecoin {
namespace {

constexpr int ROUNDS = 3;

std::uint64_t round_function(std::uint64_t right, std::uint64_t key, std::uint64_t right_mask) {
  std::array<std::uint8_t, 16> data;
  for (int i = 0; i < 8; ++i) {
    data[i] = std::uint8_t(right >> (56 - 8 * i));
    data[8 + i] = std::uint8_t(key >> (56 - 8 * i));
  }
  const auto hash = blake2b_512(data);
  std::uint64_t r = 0;
  for (int i = 0; i < 8; ++i) r = (r << 8) | hash[i];
  return r & right_mask;
}

std::uint64_t encode(std::uint64_t index, const FeistelKeys& keys, const FeistelMasks& m) {
  std::uint64_t left = (index & m.left_mask) >> m.half_bits;
  std::uint64_t right = index & m.right_mask;
  for (int r = 0; r < ROUNDS; ++r) {
    const std::uint64_t next_right = left ^ round_function(right, keys[r], m.right_mask);
    left = right;
    right = next_right;
  }
  return (left << m.half_bits) | right;
}

}  // namespace

FeistelMasks feistel_masks(std::uint64_t num_elements) {
  std::uint64_t next_pow4 = 4;
  unsigned log4 = 1;
  while (next_pow4 < num_elements) {
    next_pow4 *= 4;
    ++log4;
  }
  const std::uint64_t right_mask = (std::uint64_t(1) << log4) - 1;
  return {right_mask << log4, right_mask, log4};
}

std::uint64_t feistel_permute(std::uint64_t num_elements, std::uint64_t index, const FeistelKeys& keys,
                              const FeistelMasks& masks) {
  std::uint64_t u = encode(index, keys, masks);
  while (u >= num_elements) u = encode(u, keys, masks);
  return u;
}

}  // namespace snarkpipe::filecoin
