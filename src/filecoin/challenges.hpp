// The nodes a PoRep proof opens (storage-proofs-porep/src/stacked/vanilla/challenges.rs).
//
// Interactive: partition k's challenge i is number j = challenges_per_partition·k + i overall,
//   c_j = (SHA-256(replica_id ‖ seed ‖ j as u32 little-endian) read as a little-endian integer
//          mod (nodes − 1)) + 1,
// so node 0 is never challenged. The same for every API version.
//
// Synthetic (ApiFeature::SyntheticPoRep): min(nodes, 2^18) synthetic challenges come from a
// ChaCha20 keystream keyed by BLAKE2b-256 keyed with "filecoin.io|PoRep|1|Synthetic|1|Generation"
// over replica_id ‖ comm_r (nonce "synth-porep\0"): challenge s is keystream bytes 32s..32s+32 read
// like the hash above. Partition k's challenges are synthetic challenges whose indexes are u32
// little-endian words of a second ChaCha20 keystream (key: BLAKE2b-256 keyed with
// "…|Selection" over replica_id ‖ seed), words from 4·challenges_per_partition·k on, each
// mod the number of synthetic challenges.
#pragma once

#include <cstdint>
#include <vector>

#include "filecoin/sector.hpp"

namespace snarkpipe::filecoin {

std::vector<std::uint32_t> interactive_challenges(std::uint64_t nodes, const Bytes32& replica_id, const Bytes32& seed,
                                                  unsigned challenges_per_partition, unsigned partition);

std::vector<std::uint32_t> synthetic_challenges(std::uint64_t nodes, const Bytes32& replica_id, const Bytes32& comm_r,
                                                const Bytes32& seed, unsigned challenges_per_partition,
                                                unsigned partition);

// The pieces of the synthetic derivation, exposed for rust-fil-proofs' own known answers.
std::uint64_t default_synthetic_challenge_count(std::uint64_t nodes);  // min(nodes, 2^18)
std::uint32_t synthetic_challenge(std::uint64_t nodes, const Bytes32& replica_id, const Bytes32& comm_r,
                                  std::uint64_t index);
std::vector<std::uint64_t> synthetic_challenge_indexes(const Bytes32& replica_id, const Bytes32& seed,
                                                       std::uint64_t synthetic_count, unsigned count,
                                                       std::uint64_t first);

}  // namespace snarkpipe::filecoin
