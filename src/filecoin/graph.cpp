#include "filecoin/graph.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string_view>

#include "filecoin/chacha.hpp"
#include "gadgets/sha256_native.hpp"

namespace snarkpipe::filecoin {
namespace {

Bytes32 domain_seed(std::string_view tag, const PorepId& porep_id) {
  std::array<std::uint8_t, 64> msg{};
  std::copy(tag.begin(), tag.end(), msg.begin());
  std::copy(porep_id.begin(), porep_id.end(), msg.begin() + tag.size());
  return gadgets::native::sha256(std::span<const std::uint8_t>(msg.data(), tag.size() + 32));
}

}  // namespace

DrgSeed derive_drg_seed(const PorepId& porep_id) {
  const Bytes32 raw = domain_seed("Filecoin_DRSample", porep_id);
  DrgSeed seed;
  std::copy_n(raw.begin(), seed.size(), seed.begin());
  return seed;
}

FeistelKeys derive_feistel_keys(const PorepId& porep_id) {
  const Bytes32 raw = domain_seed("Filecoin_Feistel", porep_id);
  FeistelKeys keys{};
  for (int k = 0; k < 4; ++k)
    for (int b = 7; b >= 0; --b) keys[k] = (keys[k] << 8) | raw[8 * k + b];
  return keys;
}

StackedGraph::StackedGraph(std::uint64_t nodes, const PorepId& porep_id, ApiVersion api_version)
    : nodes_(nodes),
      api_version_(api_version),
      drg_seed_(derive_drg_seed(porep_id)),
      feistel_keys_(derive_feistel_keys(porep_id)),
      masks_(feistel_masks(EXPANSION_DEGREE * nodes)) {
  if (nodes < 2 || nodes >= (std::uint64_t(1) << 32)) throw std::invalid_argument("an SDR graph has 2..2^32-1 nodes");
}

std::array<std::uint32_t, DRG_DEGREE> StackedGraph::drg_parents(std::uint32_t node) const {
  std::array<std::uint32_t, DRG_DEGREE> parents{};
  if (node < 2) return parents;
  std::array<std::uint8_t, 32> seed;
  std::copy(drg_seed_.begin(), drg_seed_.end(), seed.begin());
  for (int b = 0; b < 4; ++b) seed[28 + b] = std::uint8_t(node >> (8 * b));
  ChaCha8Rng rng(seed);

  constexpr std::uint64_t m_prime = DRG_DEGREE - 1;
  const std::uint64_t metagraph_node = std::uint64_t(node) * m_prime;
  // ceil(log2(w)) for w ≥ 10, exactly as the f64 log2().ceil() of an integer below 2^53.
  const std::uint64_t n_buckets = std::bit_width(metagraph_node - 1);
  const bool predecessor_first = api_version_ != ApiVersion::V1_0_0;
  const std::size_t first_random = predecessor_first ? 1 : 0;
  for (std::size_t p = first_random; p < first_random + m_prime; ++p) {
    const std::uint64_t bucket = rng.next_u64() % n_buckets + 1;
    const std::uint64_t largest = std::min(metagraph_node, std::uint64_t(1) << bucket);
    const std::uint64_t smallest = std::max<std::uint64_t>(2, largest >> 1);
    const std::uint64_t distance = smallest + rng.next_u64() % (largest - smallest + 1);
    const std::uint32_t mapped = std::uint32_t((metagraph_node - distance) / m_prime);
    parents[p] = mapped == node ? node - 1 : mapped;
  }
  parents[predecessor_first ? 0 : m_prime] = node - 1;
  return parents;
}

std::array<std::uint32_t, EXPANSION_DEGREE> StackedGraph::expander_parents(std::uint32_t node) const {
  std::array<std::uint32_t, EXPANSION_DEGREE> parents;
  const std::uint64_t domain = EXPANSION_DEGREE * nodes_;
  for (unsigned i = 0; i < EXPANSION_DEGREE; ++i) {
    const std::uint64_t t = feistel_permute(domain, std::uint64_t(node) * EXPANSION_DEGREE + i, feistel_keys_, masks_);
    parents[i] =
        api_version_ == ApiVersion::V1_0_0 ? std::uint32_t(t) / EXPANSION_DEGREE : std::uint32_t(t / EXPANSION_DEGREE);
  }
  return parents;
}

}  // namespace snarkpipe::filecoin
