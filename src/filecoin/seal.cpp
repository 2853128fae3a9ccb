#include "filecoin/seal.hpp"

#include "base/clock.hpp"

#include <chrono>

#include "groth16/proof.hpp"
#include "groth16/verifier.hpp"

namespace snarkpipe::filecoin {
namespace {

using base::ms_since;

}  // namespace

SealCheck verify_seal(const SealInputs& inputs, std::span<const std::uint8_t> proof,
                      const groth16::PreparedVerifyingKey& pvk) {
  SealCheck check;
  const auto t0 = std::chrono::steady_clock::now();
  const SealPublicInputs pub(inputs);
  const SealShape& shape = pub.shape();
  check.partitions = shape.partitions;
  check.inputs_per_partition = public_input_count(shape);

  if (pvk.ic.size() != check.inputs_per_partition + 1)
    throw SealInputError("vk", "the key has " + std::to_string(pvk.ic.size()) + " IC points; a " +
                                   format_sector_size(shape.sector_size) + " PoRep proof has " +
                                   std::to_string(check.inputs_per_partition) + " public inputs, so it needs " +
                                   std::to_string(check.inputs_per_partition + 1) +
                                   " (is this the key of that sector size?)");
  if (proof.size() != std::size_t(shape.partitions) * groth16::Proof::BYTES)
    throw SealInputError("proof", std::to_string(proof.size()) + " bytes; a " + format_sector_size(shape.sector_size) +
                                      " seal proof has " + std::to_string(shape.partitions) + " partition" +
                                      (shape.partitions == 1 ? "" : "s") + " of 192 bytes = " +
                                      std::to_string(shape.partitions * groth16::Proof::BYTES) + " bytes");

  std::vector<std::vector<Fr>> publics(shape.partitions);
  for (unsigned k = 0; k < shape.partitions; ++k) publics[k] = pub.partition(k);
  check.derive_ms = ms_since(t0);

  const auto t1 = std::chrono::steady_clock::now();
  std::vector<groth16::Proof> proofs;
  proofs.reserve(shape.partitions);
  for (unsigned k = 0; k < shape.partitions; ++k) {
    try {
      proofs.push_back(
          groth16::Proof::from_bytes(proof.subspan(std::size_t(k) * groth16::Proof::BYTES, groth16::Proof::BYTES)));
    } catch (const groth16::ProofFormatError& e) {
      check.reason = "partition " + std::to_string(k) + "'s proof: " + e.what();
      check.verify_ms = ms_since(t1);
      return check;
    }
  }
  std::vector<groth16::ProofWithInputs> items;
  for (unsigned k = 0; k < shape.partitions; ++k) items.push_back({&proofs[k], publics[k]});
  check.valid = groth16::verify_batch(pvk, items);
  if (!check.valid)
    check.reason = shape.partitions == 1
                       ? "the proof does not verify against these public inputs and this key"
                       : "the partitions' proofs do not all verify against these public inputs and this key";
  check.verify_ms = ms_since(t1);
  return check;
}

}  // namespace snarkpipe::filecoin
