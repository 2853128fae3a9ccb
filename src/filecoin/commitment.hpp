// The text forms of a seal's 32-byte values, as the Filecoin tools print them:
//   - hex: 64 digits, optionally 0x-prefixed (rust-fil-proofs' and Curio's logs, JSON tools);
//   - a CID (Lotus, `lotus-miner sectors status`): multibase 'b' (base32, lower case, no
//     padding) of CIDv1 ‖ codec ‖ multihash, where comm_d is fil-commitment-unsealed (0xf101)
//     with sha2-256-trunc254-padded (0x1012) and comm_r is fil-commitment-sealed (0xf102) with
//     poseidon-bls12_381-a2-fc1 (0xb401); the digest is the commitment's bytes;
//   - a prover id from a miner's actor id (f01234 / t01234 / 1234): the ID address payload,
//     the id as an unsigned LEB128 varint, zero-padded to 32 bytes (filecoin-ffi toProverID).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "filecoin/sector.hpp"

namespace snarkpipe::filecoin {

enum class CommitmentKind { Unsealed, Sealed };  // comm_d, comm_r

// Each throws SealInputError naming `field` and saying what was wrong.
Bytes32 parse_bytes32_hex(std::string_view text, const std::string& field);
Bytes32 parse_commitment(std::string_view text, CommitmentKind kind, const std::string& field);
Bytes32 prover_id_from_actor(std::string_view actor, const std::string& field);

std::string to_hex(std::span<const std::uint8_t> bytes);
std::string commitment_cid(const Bytes32& commitment, CommitmentKind kind);

}  // namespace snarkpipe::filecoin
