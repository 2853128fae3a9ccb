// Window proof-of-spacetime (fallback PoSt) public inputs and verification, as rust-fil-proofs
// computes them (storage-proofs-post/src/fallback/compound.rs generate_public_inputs,
// vanilla.rs generate_leaf_challenge_inner, utils.rs get_challenge_index; filecoin-proofs
// src/api/window_post.rs verify_window_post).
//
// The sectors, in ascending sector-id order, are cut into partitions of sector_count
// (2 for 2 KiB, 8 MiB and 512 MiB; 2,349 for 32 GiB; 2,300 for 64 GiB); a partition's inputs
// are, per sector: comm_r, then for n in 0..10 the challenged leaf
//   LE-u64(SHA-256(randomness ‖ sector_id u64 LE ‖ j u64 LE)[0..8]) mod nodes,
// with j = n from API 1.2.0 on, j = sector_index·10 + n before (sector_index counting across
// partitions). A partition with fewer sectors repeats its last sector's inputs.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "filecoin/public_inputs.hpp"
#include "groth16/keys.hpp"

namespace snarkpipe::filecoin {

inline constexpr unsigned WINDOW_POST_CHALLENGE_COUNT = 10;

struct RegisteredPostProof {
  std::uint64_t id;       // the chain's RegisteredPoStProof number
  std::string_view name;  // filecoin-proofs-api's spelling
  std::uint64_t sector_size;
  ApiVersion api_version;
};

const RegisteredPostProof* find_registered_window_post_proof(std::string_view id_or_name);

// Sectors per partition; throws SealInputError("sector size") for other sizes.
unsigned window_post_sector_count(std::uint64_t sector_size);

struct PostSector {
  std::uint64_t sector_id;
  Bytes32 comm_r;
};

struct WindowPostInputs {
  std::uint64_t sector_size = 0;
  ApiVersion api_version = ApiVersion::V1_2_0;
  Bytes32 randomness{};
  std::vector<PostSector> sectors;  // any order; verified in ascending sector id
};

// Every partition's inputs, ONE excluded. Throws SealInputError for no sectors, a repeated
// sector id, randomness or a comm_r that is not a field element (or zero).
std::vector<std::vector<Fr>> window_post_public_inputs(const WindowPostInputs& in);

struct PostCheck {
  bool valid = false;
  std::string reason;
  unsigned partitions = 0;
  std::size_t inputs_per_partition = 0;
};

// The partitions' proofs concatenated, 192 bytes each, batch-verified.
PostCheck verify_window_post(const WindowPostInputs& in, std::span<const std::uint8_t> proof,
                             const groth16::PreparedVerifyingKey& pvk);

}  // namespace snarkpipe::filecoin
