// The replica id that ties a sealed sector to its prover, sector number, ticket, data and
// proof type (storage-proofs-porep/src/stacked/vanilla/params.rs generate_replica_id):
//
//   replica_id = SHA-256(prover_id ‖ sector_id as u64 big-endian ‖ ticket ‖ comm_d ‖ porep_id)
//
// with the top two bits of the last byte cleared (fr32::bytes_into_fr_repr_safe), so that the
// 32 bytes, read little-endian, are an element of Fr below 2^254.
#pragma once

#include <cstdint>

#include "filecoin/sector.hpp"

namespace snarkpipe::filecoin {

Bytes32 replica_id(const Bytes32& prover_id, std::uint64_t sector_id, const Bytes32& ticket, const Bytes32& comm_d,
                   const PorepId& porep_id);

// fr32::bytes_into_fr_repr_safe: clears the two high bits of byte 31.
inline Bytes32 truncate_to_fr(Bytes32 b) {
  b[31] &= 0x3f;
  return b;
}

}  // namespace snarkpipe::filecoin
