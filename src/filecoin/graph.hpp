// The SDR graph's parents, computed for one node at a time (nothing of the graph is stored),
// as rust-fil-proofs builds them:
//
// DRG (storage-proofs-core/src/drgraph.rs, BucketGraph, degree 6): nodes 0 and 1 have six
// parents 0. For node v ≥ 2 a ChaCha8Rng is seeded with drg_seed (28 bytes) ‖ v as u32 LE; with
// m' = 5, the metagraph node w = 5v and B = ceil(log2 w) buckets, each of the 5 random parents
// draws a bucket b = (next_u64 mod B) + 1, the distance bounds hi = min(w, 2^b),
// lo = max(2, hi/2), a distance d = lo + (next_u64 mod (hi − lo + 1)), and maps the metagraph
// parent (w − d)/5 (v − 1 if that is v itself). The predecessor v − 1 is parent 0 from API 1.1.0
// on (the random ones are parents 1..5), parent 5 in API 1.0.0 (the random ones 0..4).
// drg_seed = the first 28 bytes of SHA-256("Filecoin_DRSample" ‖ porep_id).
//
// Expander (storage-proofs-porep/src/stacked/vanilla/graph.rs, degree 8): parent i of v is
// feistel_permute(8·nodes, 8v + i) / 8, with the Feistel keys the four u64 LE words of
// SHA-256("Filecoin_Feistel" ‖ porep_id). API 1.0.0 divides the permuted index truncated to
// u32 (which matters from 32 GiB on).
#pragma once

#include <array>
#include <cstdint>

#include "filecoin/feistel.hpp"
#include "filecoin/sector.hpp"

namespace snarkpipe::filecoin {

inline constexpr unsigned DRG_DEGREE = 6;
inline constexpr unsigned EXPANSION_DEGREE = 8;

using DrgSeed = std::array<std::uint8_t, 28>;

DrgSeed derive_drg_seed(const PorepId& porep_id);
FeistelKeys derive_feistel_keys(const PorepId& porep_id);

class StackedGraph {
 public:
  // Throws std::invalid_argument for nodes outside [2, 2^32).
  StackedGraph(std::uint64_t nodes, const PorepId& porep_id, ApiVersion api_version);

  std::uint64_t nodes() const { return nodes_; }
  std::array<std::uint32_t, DRG_DEGREE> drg_parents(std::uint32_t node) const;
  std::array<std::uint32_t, EXPANSION_DEGREE> expander_parents(std::uint32_t node) const;

 private:
  std::uint64_t nodes_;
  ApiVersion api_version_;
  DrgSeed drg_seed_;
  FeistelKeys feistel_keys_;
  FeistelMasks masks_;
};

}  // namespace snarkpipe::filecoin
