#include "filecoin/public_inputs.hpp"

#include <algorithm>

#include "filecoin/challenges.hpp"
#include "filecoin/replica_id.hpp"

namespace snarkpipe::filecoin {
namespace {

SealShape checked_shape(const PorepConfig& c) {
  try {
    return c.shape();
  } catch (const UnknownSectorSize& e) {
    throw SealInputError("sector size", e.what());
  }
}

}  // namespace

PorepConfig PorepConfig::from(const RegisteredSealProof& p) {
  if (p.feature == ApiFeature::NonInteractivePoRep)
    throw SealInputError("registered proof", std::string(p.name) +
                                                 " is non-interactive PoRep: its proofs are SnarkPack aggregates of "
                                                 "many partitions, which verify-seal does not check");
  return {p.sector_size, p.porep_id(), p.api_version, p.feature == ApiFeature::SyntheticPoRep};
}

Fr commitment_to_fr(const Bytes32& bytes, const std::string& field) {
  if (std::all_of(bytes.begin(), bytes.end(), [](std::uint8_t b) { return b == 0; }))
    throw SealInputError(field, "is all zero (verify_seal rejects an all-zero commitment)");
  const auto fr = Fr::from_bytes_le(bytes);
  if (!fr)
    throw SealInputError(field,
                         "is not a field element: 32 bytes little-endian must be below the BLS12-381 scalar "
                         "modulus r (0x73eda753…00000001)");
  return *fr;
}

SealPublicInputs::SealPublicInputs(const SealInputs& in)
    : in_(in),
      shape_(checked_shape(in.config)),
      replica_id_(filecoin::replica_id(in.prover_id, in.sector_id, in.ticket, in.comm_d, in.config.porep_id)),
      comm_d_(commitment_to_fr(in.comm_d, "comm_d")),
      comm_r_(commitment_to_fr(in.comm_r, "comm_r")),
      graph_(shape_.nodes, in.config.porep_id, in.config.api_version) {}

std::vector<std::uint32_t> SealPublicInputs::challenges(unsigned k) const {
  if (in_.config.synthetic)
    return synthetic_challenges(shape_.nodes, replica_id_, in_.comm_r, in_.seed, shape_.challenges_per_partition, k);
  return interactive_challenges(shape_.nodes, replica_id_, in_.seed, shape_.challenges_per_partition, k);
}

std::vector<Fr> SealPublicInputs::partition(unsigned k) const {
  std::vector<Fr> out;
  out.reserve(public_input_count(shape_));
  out.push_back(*Fr::from_bytes_le(replica_id_));  // < 2^254 < r
  out.push_back(comm_d_);
  out.push_back(comm_r_);
  for (std::uint32_t c : challenges(k)) {
    const Fr challenge = Fr::from_u64(c);
    out.push_back(challenge);
    for (std::uint32_t p : graph_.drg_parents(c)) out.push_back(Fr::from_u64(p));
    for (std::uint32_t p : graph_.expander_parents(c)) out.push_back(Fr::from_u64(p));
    out.push_back(challenge);
    out.push_back(challenge);
    out.push_back(challenge);
  }
  return out;
}

}  // namespace snarkpipe::filecoin
