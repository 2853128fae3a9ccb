// The public inputs of one SDR PoRep partition proof, in the circuit's order
// (storage-proofs-porep/src/stacked/circuit/proof.rs StackedCompound::generate_public_inputs):
//
//   replica_id, comm_d, comm_r, then for each of the partition's challenges c:
//     c                         TreeD (comm_d) inclusion: the path index
//     6 DRG parents of c        TreeC (comm_c) inclusions of the base parents' columns
//     8 expander parents of c   TreeC inclusions of the expander parents' columns
//     c                         the challenge itself (the labelling gadget's node index)
//     c                         TreeR (comm_r_last) inclusion of the replica node
//     c                         TreeC inclusion of the challenged node's column
//
// Each inclusion contributes one Fr, the leaf index (storage-proofs-core/src/gadgets/por.rs
// PoRCompound::generate_public_inputs packs the path's is_right bits as the index itself; the
// tree root is private). 3 + 18·challenges inputs, the constant ONE not included: 39 for a
// 2 KiB sector, 327 per partition of a 32 GiB one.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "ff/fields.hpp"
#include "filecoin/graph.hpp"
#include "filecoin/sector.hpp"

namespace snarkpipe::filecoin {

using ff::Fr;

// What parameterises the proof: the sector size, the porep_id and API version that seed the
// graph, and whether the challenges are synthetic.
struct PorepConfig {
  std::uint64_t sector_size = 0;
  PorepId porep_id{};
  ApiVersion api_version = ApiVersion::V1_1_0;
  bool synthetic = false;

  // A registered type's configuration; throws SealInputError("registered proof") for the
  // non-interactive types, whose proofs are SnarkPack aggregates, not per-partition Groth16.
  static PorepConfig from(const RegisteredSealProof& p);
  SealShape shape() const { return seal_shape(sector_size); }
};

// What a seal verifier is told about a sector (filecoin-proofs' verify_seal arguments).
struct SealInputs {
  PorepConfig config;
  Bytes32 comm_r{};
  Bytes32 comm_d{};
  Bytes32 prover_id{};
  std::uint64_t sector_id = 0;
  Bytes32 ticket{};
  Bytes32 seed{};
};

// Bad input, naming the field it came from ("comm_r", "proof", "vk", …).
class SealInputError : public std::invalid_argument {
 public:
  SealInputError(std::string field, const std::string& why)
      : std::invalid_argument(field + ": " + why), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

// A commitment as Filecoin's Fr representation: 32 bytes little-endian, < r, and (as
// verify_seal demands) not all zero. Throws SealInputError naming `field`.
Fr commitment_to_fr(const Bytes32& bytes, const std::string& field);

inline std::size_t public_input_count(const SealShape& s) { return 3 + 18 * std::size_t(s.challenges_per_partition); }

class SealPublicInputs {
 public:
  // Validates the commitments and the sector size; throws SealInputError.
  explicit SealPublicInputs(const SealInputs& in);

  const SealShape& shape() const { return shape_; }
  const Bytes32& replica_id() const { return replica_id_; }
  const StackedGraph& graph() const { return graph_; }
  std::vector<std::uint32_t> challenges(unsigned partition) const;
  // The partition's public inputs, ONE excluded.
  std::vector<Fr> partition(unsigned partition) const;

 private:
  SealInputs in_;
  SealShape shape_;
  Bytes32 replica_id_;
  Fr comm_d_, comm_r_;
  StackedGraph graph_;
};

}  // namespace snarkpipe::filecoin
