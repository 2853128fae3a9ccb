#include "gadgets/circuits.hpp"

#include <stdexcept>
#include <string>

#include "ff/random.hpp"

namespace snarkpipe::gadgets {

namespace {

void fill_random(ff::SeededRng& rng, std::span<std::uint8_t> out) {
  for (std::size_t i = 0; i < out.size(); i += 8) {
    const std::uint64_t word = rng.next_u64();
    for (std::size_t k = 0; k < 8 && i + k < out.size(); ++k) out[i + k] = std::uint8_t(word >> (8 * k));
  }
}

std::optional<std::vector<std::uint8_t>> bytes_of(const Sha256Digest& d) {
  return std::vector<std::uint8_t>(d.begin(), d.end());
}

}  // namespace

Sha256PreimageCircuit::Sha256PreimageCircuit(std::size_t num_blocks, std::optional<std::vector<std::uint8_t>> preimage)
    : num_blocks_(num_blocks), preimage_(std::move(preimage)) {
  if (num_blocks_ == 0) throw std::invalid_argument("Sha256PreimageCircuit: num_blocks must be at least 1");
  if (preimage_ && preimage_->size() != preimage_len(num_blocks_)) {
    throw std::invalid_argument("Sha256PreimageCircuit: preimage of " + std::to_string(preimage_->size()) + " bytes, " +
                                std::to_string(preimage_len(num_blocks_)) + " expected");
  }
}

std::vector<std::uint8_t> Sha256PreimageCircuit::random_preimage(std::size_t num_blocks, std::uint64_t seed) {
  if (num_blocks == 0) throw std::invalid_argument("Sha256PreimageCircuit: num_blocks must be at least 1");
  ff::SeededRng rng(seed);
  std::vector<std::uint8_t> bytes(preimage_len(num_blocks));
  fill_random(rng, bytes);
  return bytes;
}

std::vector<Fr> Sha256PreimageCircuit::public_inputs(std::span<const std::uint8_t> preimage) {
  const std::array<Fr, 2> d = sha256_digest_public_inputs(native::sha256(preimage));
  return {d[0], d[1]};
}

void Sha256PreimageCircuit::synthesize(ConstraintSystem& cs) const {
  const std::vector<Boolean> message = alloc_bits_be(cs, "preimage", preimage_len(num_blocks_), preimage_);
  const std::vector<Boolean> digest = sha256(cs, "sha256", message);
  sha256_digest_into_inputs(cs, "digest", digest);
}

MerkleSha256Circuit::MerkleSha256Circuit(std::size_t depth, std::optional<MerkleWitness> witness)
    : depth_(depth), witness_(std::move(witness)) {
  if (depth_ == 0 || depth_ > MAX_DEPTH) {
    throw std::invalid_argument("MerkleSha256Circuit: depth " + std::to_string(depth_) + " not in 1.." +
                                std::to_string(MAX_DEPTH));
  }
  if (witness_) {
    if (witness_->path.siblings.size() != depth_) {
      throw std::invalid_argument("MerkleSha256Circuit: path of " + std::to_string(witness_->path.siblings.size()) +
                                  " siblings for depth " + std::to_string(depth_));
    }
    if (depth_ < 64 && (witness_->path.index >> depth_) != 0) {
      throw std::invalid_argument("MerkleSha256Circuit: leaf index " + std::to_string(witness_->path.index) +
                                  " beyond a tree of depth " + std::to_string(depth_));
    }
  }
}

MerkleWitness MerkleSha256Circuit::random_witness(std::size_t depth, std::uint64_t seed) {
  if (depth == 0 || depth > MAX_DEPTH) throw std::invalid_argument("MerkleSha256Circuit: depth out of range");
  ff::SeededRng rng(seed);
  MerkleWitness w;
  fill_random(rng, w.leaf);
  w.path.index = depth == 64 ? rng.next_u64() : rng.next_u64() & ((std::uint64_t(1) << depth) - 1);
  w.path.siblings.resize(depth);
  for (Sha256Digest& s : w.path.siblings) fill_random(rng, s);
  return w;
}

std::vector<Fr> MerkleSha256Circuit::public_inputs(const MerkleWitness& witness) {
  return merkle_public_inputs(merkle_root_from_path(witness.leaf, witness.path), witness.path.index);
}

void MerkleSha256Circuit::synthesize(ConstraintSystem& cs) const {
  const std::vector<Boolean> leaf = alloc_bits_be(cs, "leaf", 32, witness_ ? bytes_of(witness_->leaf) : std::nullopt);
  std::vector<std::vector<Boolean>> siblings;
  siblings.reserve(depth_);
  for (std::size_t j = 0; j < depth_; ++j) {
    siblings.push_back(alloc_bits_be(cs, "sibling " + std::to_string(j), 32,
                                     witness_ ? bytes_of(witness_->path.siblings[j]) : std::nullopt));
  }
  std::vector<Boolean> index_bits;
  index_bits.reserve(depth_);
  {
    Namespace ns(cs, "index");
    for (std::size_t j = 0; j < depth_; ++j) {
      std::optional<bool> bit;
      if (witness_) bit = ((witness_->path.index >> j) & 1) != 0;
      index_bits.push_back(AllocatedBit::alloc(cs, "bit " + std::to_string(j), bit));
    }
  }
  merkle_inclusion(cs, "merkle", leaf, siblings, index_bits);
}

}  // namespace snarkpipe::gadgets
