#include "filecoin/challenges.hpp"

#include <stdexcept>
#include <string_view>

#include "filecoin/blake2b.hpp"
#include "filecoin/chacha.hpp"
#include "gadgets/sha256_native.hpp"

namespace snarkpipe::filecoin {
namespace {

// bigint_to_challenge: a 256-bit little-endian integer mod (nodes − 1), plus 1.
std::uint32_t to_challenge(std::span<const std::uint8_t, 32> le, std::uint64_t nodes) {
  if (nodes < 2 || nodes > (std::uint64_t(1) << 32))
    throw std::invalid_argument("challenge range needs 2 <= nodes <= 2^32");
  const std::uint64_t m = nodes - 1;
  std::uint64_t r = 0;
  for (int i = 31; i >= 0; --i) r = ((r << 8) | le[i]) % m;
  return std::uint32_t(r + 1);
}

Bytes32 keyed_blake2b_256(std::string_view key, const Bytes32& a, const Bytes32& b) {
  Bytes32 out;
  Blake2b(32, {reinterpret_cast<const std::uint8_t*>(key.data()), key.size()}).update(a).update(b).finalize(out);
  return out;
}

constexpr std::array<std::uint8_t, 12> SYNTH_NONCE = {'s', 'y', 'n', 't', 'h', '-', 'p', 'o', 'r', 'e', 'p', 0};

}  // namespace

std::vector<std::uint32_t> interactive_challenges(std::uint64_t nodes, const Bytes32& replica_id, const Bytes32& seed,
                                                  unsigned challenges_per_partition, unsigned partition) {
  std::vector<std::uint32_t> out(challenges_per_partition);
  std::array<std::uint8_t, 68> msg;
  std::copy(replica_id.begin(), replica_id.end(), msg.begin());
  std::copy(seed.begin(), seed.end(), msg.begin() + 32);
  for (unsigned i = 0; i < challenges_per_partition; ++i) {
    const std::uint32_t j = challenges_per_partition * partition + i;
    for (int b = 0; b < 4; ++b) msg[64 + b] = std::uint8_t(j >> (8 * b));
    out[i] = to_challenge(gadgets::native::sha256(msg), nodes);
  }
  return out;
}

std::uint64_t default_synthetic_challenge_count(std::uint64_t nodes) {
  return std::min<std::uint64_t>(nodes, 1u << 18);
}

std::uint32_t synthetic_challenge(std::uint64_t nodes, const Bytes32& replica_id, const Bytes32& comm_r,
                                  std::uint64_t index) {
  const Bytes32 key = keyed_blake2b_256("filecoin.io|PoRep|1|Synthetic|1|Generation", replica_id, comm_r);
  Bytes32 rand;
  chacha20_keystream(key, SYNTH_NONCE, 32 * index, rand);
  return to_challenge(rand, nodes);
}

std::vector<std::uint64_t> synthetic_challenge_indexes(const Bytes32& replica_id, const Bytes32& seed,
                                                       std::uint64_t synthetic_count, unsigned count,
                                                       std::uint64_t first) {
  const Bytes32 key = keyed_blake2b_256("filecoin.io|PoRep|1|Synthetic|1|Selection", replica_id, seed);
  std::vector<std::uint8_t> words(4 * std::size_t(count));
  chacha20_keystream(key, SYNTH_NONCE, 4 * first, words);
  std::vector<std::uint64_t> out(count);
  for (unsigned i = 0; i < count; ++i) {
    const std::uint32_t w = std::uint32_t(words[4 * i]) | std::uint32_t(words[4 * i + 1]) << 8 |
                            std::uint32_t(words[4 * i + 2]) << 16 | std::uint32_t(words[4 * i + 3]) << 24;
    out[i] = w % synthetic_count;
  }
  return out;
}

std::vector<std::uint32_t> synthetic_challenges(std::uint64_t nodes, const Bytes32& replica_id, const Bytes32& comm_r,
                                                const Bytes32& seed, unsigned challenges_per_partition,
                                                unsigned partition) {
  const std::vector<std::uint64_t> idx =
      synthetic_challenge_indexes(replica_id, seed, default_synthetic_challenge_count(nodes), challenges_per_partition,
                                  std::uint64_t(challenges_per_partition) * partition);
  std::vector<std::uint32_t> out;
  out.reserve(idx.size());
  for (std::uint64_t s : idx) out.push_back(synthetic_challenge(nodes, replica_id, comm_r, s));
  return out;
}

}  // namespace snarkpipe::filecoin
