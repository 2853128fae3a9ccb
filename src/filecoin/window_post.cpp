#include "filecoin/window_post.hpp"

#include <algorithm>
#include <cctype>
#include <string>

#include "filecoin/sector.hpp"
#include "gadgets/sha256_native.hpp"
#include "groth16/proof.hpp"
#include "groth16/verifier.hpp"

namespace snarkpipe::filecoin {
namespace {

constexpr std::uint64_t KiB = 1ull << 10, MiB = 1ull << 20, GiB = 1ull << 30;
using enum ApiVersion;

constexpr RegisteredPostProof PROOFS[] = {
    {5, "StackedDrgWindow2KiBV1", 2 * KiB, V1_0_0},      {6, "StackedDrgWindow8MiBV1", 8 * MiB, V1_0_0},
    {7, "StackedDrgWindow512MiBV1", 512 * MiB, V1_0_0},  {8, "StackedDrgWindow32GiBV1", 32 * GiB, V1_0_0},
    {9, "StackedDrgWindow64GiBV1", 64 * GiB, V1_0_0},    {10, "StackedDrgWindow2KiBV1_2", 2 * KiB, V1_2_0},
    {11, "StackedDrgWindow8MiBV1_2", 8 * MiB, V1_2_0},   {12, "StackedDrgWindow512MiBV1_2", 512 * MiB, V1_2_0},
    {13, "StackedDrgWindow32GiBV1_2", 32 * GiB, V1_2_0}, {14, "StackedDrgWindow64GiBV1_2", 64 * GiB, V1_2_0},
};

std::uint64_t leaf_challenge(const Bytes32& randomness, std::uint64_t sector_id, std::uint64_t j, std::uint64_t nodes) {
  std::array<std::uint8_t, 48> msg;
  std::copy(randomness.begin(), randomness.end(), msg.begin());
  for (int b = 0; b < 8; ++b) {
    msg[32 + b] = std::uint8_t(sector_id >> (8 * b));
    msg[40 + b] = std::uint8_t(j >> (8 * b));
  }
  const auto h = gadgets::native::sha256(msg);
  std::uint64_t v = 0;
  for (int b = 7; b >= 0; --b) v = (v << 8) | h[b];
  return v % nodes;
}

bool iequal(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

const RegisteredPostProof* find_registered_window_post_proof(std::string_view s) {
  for (const auto& p : PROOFS)
    if (iequal(p.name, s) || std::to_string(p.id) == s) return &p;
  return nullptr;
}

unsigned window_post_sector_count(std::uint64_t sector_size) {
  switch (sector_size) {
    case 2 * KiB:
    case 8 * MiB:
    case 512 * MiB:
      return 2;
    case 32 * GiB:
      return 2349;
    case 64 * GiB:
      return 2300;
    default:
      throw SealInputError("sector size", "no WindowPoSt for " + std::to_string(sector_size) +
                                              " bytes (2KiB, 8MiB, 512MiB, 32GiB, 64GiB)");
  }
}

std::vector<std::vector<Fr>> window_post_public_inputs(const WindowPostInputs& in) {
  const unsigned per_partition = window_post_sector_count(in.sector_size);
  const std::uint64_t nodes = in.sector_size / 32;
  if (in.sectors.empty()) throw SealInputError("sectors", "none given");
  const auto randomness = Fr::from_bytes_le(in.randomness);
  if (!randomness)
    throw SealInputError("randomness", "is not a field element (Lotus clears its top two bits: byte 31 & 0x3f)");
  std::vector<PostSector> sectors = in.sectors;
  std::sort(sectors.begin(), sectors.end(),
            [](const PostSector& a, const PostSector& b) { return a.sector_id < b.sector_id; });
  for (std::size_t i = 1; i < sectors.size(); ++i)
    if (sectors[i].sector_id == sectors[i - 1].sector_id)
      throw SealInputError("sectors", "sector " + std::to_string(sectors[i].sector_id) + " is given twice");

  const std::size_t partitions = (sectors.size() + per_partition - 1) / per_partition;
  const std::size_t per_sector = 1 + WINDOW_POST_CHALLENGE_COUNT;
  std::vector<std::vector<Fr>> out(partitions);
  for (std::size_t k = 0; k < partitions; ++k) {
    std::vector<Fr>& v = out[k];
    v.reserve(per_sector * per_partition);
    const std::size_t end = std::min(sectors.size(), (k + 1) * per_partition);
    for (std::size_t s = k * per_partition; s < end; ++s) {
      v.push_back(commitment_to_fr(sectors[s].comm_r, "comm_r of sector " + std::to_string(sectors[s].sector_id)));
      for (unsigned n = 0; n < WINDOW_POST_CHALLENGE_COUNT; ++n) {
        const std::uint64_t j = in.api_version == V1_2_0 ? n : s * WINDOW_POST_CHALLENGE_COUNT + n;
        v.push_back(Fr::from_u64(leaf_challenge(in.randomness, sectors[s].sector_id, j, nodes)));
      }
    }
    while (v.size() < per_sector * per_partition) v.insert(v.end(), v.end() - per_sector, v.end());
  }
  return out;
}

PostCheck verify_window_post(const WindowPostInputs& in, std::span<const std::uint8_t> proof,
                             const groth16::PreparedVerifyingKey& pvk) {
  PostCheck check;
  const std::vector<std::vector<Fr>> publics = window_post_public_inputs(in);
  check.partitions = unsigned(publics.size());
  check.inputs_per_partition = publics[0].size();
  if (pvk.ic.size() != check.inputs_per_partition + 1)
    throw SealInputError("vk", "the key has " + std::to_string(pvk.ic.size()) + " IC points; a " +
                                   format_sector_size(in.sector_size) + " WindowPoSt partition has " +
                                   std::to_string(check.inputs_per_partition) + " public inputs, so it needs " +
                                   std::to_string(check.inputs_per_partition + 1));
  if (proof.size() != publics.size() * groth16::Proof::BYTES)
    throw SealInputError("proof", std::to_string(proof.size()) + " bytes; " + std::to_string(in.sectors.size()) +
                                      " sector(s) make " + std::to_string(publics.size()) +
                                      " partition(s) of 192 bytes");
  std::vector<groth16::Proof> proofs;
  for (std::size_t k = 0; k < publics.size(); ++k) {
    try {
      proofs.push_back(groth16::Proof::from_bytes(proof.subspan(k * groth16::Proof::BYTES, groth16::Proof::BYTES)));
    } catch (const groth16::ProofFormatError& e) {
      check.reason = "partition " + std::to_string(k) + "'s proof: " + e.what();
      return check;
    }
  }
  std::vector<groth16::ProofWithInputs> items;
  for (std::size_t k = 0; k < publics.size(); ++k) items.push_back({&proofs[k], publics[k]});
  check.valid = groth16::verify_batch(pvk, items);
  if (!check.valid) check.reason = "the proof does not verify against these sectors, this randomness and this key";
  return check;
}

}  // namespace snarkpipe::filecoin
