// `porep-like`: a circuit with the structure and cost profile of one partition of Filecoin's
// SDR proof of replication (stacked DRG, 32 GiB), for benchmarking synthesis and proving.
// It is a stand-in, not Filecoin's circuit: the labelling format, the parent selection and
// the public-input layout differ, so its proofs are not Filecoin proofs. Its Poseidon hashes
// and 8-ary inclusion paths are Filecoin's (neptune's constants and circuit, rust-fil-proofs'
// insertion; poseidon.hpp, poseidon_merkle.hpp).
//
// Sectors have 2^log2_nodes nodes. Per challenge (a node index):
// - the data tree (binary SHA-256, depth log2_nodes, merkle.hpp): the data leaf's inclusion
//   under comm_d; the leaf is fr32-shaped (its two top bits, bits 6 and 7 of byte 31, are 0);
// - labelling: for each of `layers` layers, label = SHA-256(replica_id ‖ parent labels), with
//   `parents` parent labels of 32 bytes (allocated, except that from layer 1 on the first
//   parent is the previous layer's label);
// - the column hash: Poseidon of arity `layers` over the labels as field elements (a label's
//   32 bytes read little-endian with the top two bits dropped, Filecoin's fr32 truncation);
// - the column tree (8-ary Poseidon, depth log2_nodes/3, poseidon_merkle.hpp): the column
//   hash's inclusion under comm_c;
// - the encoding check: replica leaf = data leaf + key (as field elements), the key being
//   the last layer's label;
// - the replica tree (8-ary Poseidon, same depth): the replica leaf's inclusion under
//   comm_r_last.
// Once per partition: comm_r = Poseidon-2(comm_c, comm_r_last), comm_c and comm_r_last private.
// The index bits address the leaf in all three trees (bits 3l..3l+2 at 8-ary level l).
//
// Public inputs, in order (after ONE): comm_d as two 128-bit halves (sha256.hpp's
// sha256_digest_public_inputs), comm_r, then each challenge's node index.
//
// Sizes (constraints, measured by tests and `snarkpipe bench synth`): about 45,700 per data
// tree level, 8 compressions (about 210,000) per layer with 14 parents, 527 per 8-ary level
// (22 for the insertion, 505 for the hash), 598 for an 11-layer column hash, 311 for comm_r.
// The full preset (11 layers, 2^30 nodes, 14 parents) costs 3,704,339 per challenge; its 35
// challenges make 129,652,472 with the input rows, against 130,278,869 for a PoRep partition
// (both fill a 2^27 domain).
//
// Witness generation has two paths that must agree value for value: the generic one
// (synthesize() on a WitnessConstraintSystem, closure by closure) and the fast one
// (porep_like_fast_witness: the hashes replayed natively, written straight into the aux
// vector, challenges in parallel).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gadgets/merkle.hpp"
#include "gadgets/poseidon_merkle.hpp"

namespace snarkpipe::gadgets {

struct PorepLikeParams {
  std::size_t challenges = 35;
  std::size_t layers = 11;
  std::size_t log2_nodes = 30;
  std::size_t parents = 14;

  // "full" (the defaults), "ci" (2 challenges, 4 layers, 2^12 nodes: 2,795,824 constraints),
  // "tiny" (2 challenges, 2 layers, 2^3 nodes, 2 parents: 484,024, for tests);
  // std::invalid_argument for another name.
  static PorepLikeParams preset(std::string_view name);
  // challenges >= 1 and <= 2^log2_nodes; layers in 1..POSEIDON_MAX_ARITY; log2_nodes a
  // positive multiple of 3 up to 63; parents >= 1 (else std::invalid_argument).
  void validate() const;
  std::size_t tree_depth() const { return log2_nodes / 3; }
  std::string describe() const;
};

struct PorepLikeChallenge {
  std::uint64_t index = 0;
  Sha256Digest data_leaf{};
  MerklePath data_path;
  // Per layer the allocated parent labels: `parents` in layer 0, parents − 1 after.
  std::vector<std::vector<Sha256Digest>> parent_labels;
  PoseidonPath column_path;
  PoseidonPath replica_path;
};

struct PorepLikeWitness {
  Sha256Digest replica_id{};
  Fr comm_c, comm_r_last;
  std::vector<PorepLikeChallenge> challenges;

  // A consistent random instance: distinct random challenges, random data, parents and
  // replica id; the three trees are sparse (nodes off the challenged paths are random), so
  // this is cheap at any sector size.
  static PorepLikeWitness random(const PorepLikeParams& params, std::uint64_t seed);
};

// The public inputs (excluding ONE) a verifier supplies, computed natively.
std::vector<Fr> porep_like_public_inputs(const PorepLikeParams& params, const PorepLikeWitness& witness);

// Filecoin's fr32 truncation of 32 bytes: little-endian, the top two bits cleared.
Fr fr32_of(const Sha256Digest& bytes);

class PorepLikeCircuit final : public circuit::Circuit {
 public:
  // The witness, when given, must match the parameters (else std::invalid_argument).
  PorepLikeCircuit(PorepLikeParams params, std::optional<PorepLikeWitness> witness);

  const PorepLikeParams& params() const { return params_; }
  void synthesize(ConstraintSystem& cs) const override;

 private:
  PorepLikeParams params_;
  std::optional<PorepLikeWitness> witness_;
};

// The fast witness path: inputs (ONE included) and aux exactly as synthesize() on a
// WitnessConstraintSystem produces them. Challenges are generated in parallel (oneTBB).
struct PorepLikeLayout {
  std::size_t num_inputs = 0;  // including ONE
  std::size_t challenges = 0;
  std::size_t head_aux = 0;       // aux values before the first challenge
  std::size_t challenge_aux = 0;  // aux values per challenge (the same for every challenge)
  std::size_t num_aux() const { return head_aux + challenge_aux * challenges; }
};
// Counted once per parameter set (by replaying one challenge) and kept.
PorepLikeLayout porep_like_layout(const PorepLikeParams& params);
// inputs.size() == layout.num_inputs and aux.size() == layout.num_aux() (else
// std::invalid_argument).
void porep_like_fast_witness(const PorepLikeParams& params, const PorepLikeWitness& witness, std::span<Fr> inputs,
                             std::span<Fr> aux);

}  // namespace snarkpipe::gadgets
