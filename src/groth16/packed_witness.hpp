// A witness with its 0/1 aux values as bits. About 90 % of a PoRep partition's 130M aux
// values are 0 or 1, so the packed form is ~0.45 GB where the full one is 4.2 GB: what the
// engine holds per partition in flight, and what crosses the bus to a GPU (which unpacks it).
#pragma once

#include <cstdint>
#include <memory_resource>
#include <optional>
#include <span>
#include <vector>

#include "groth16/prover.hpp"

namespace snarkpipe::groth16 {

struct PackedWitness {
  PackedWitness() = default;
  // The bitmaps and values in `memory`: a backend's (ProverBackend::witness_memory), such as
  // the CUDA backend's page-locked host memory, which the device copies from directly.
  explicit PackedWitness(std::pmr::memory_resource* memory)
      : general(memory), ones(memory), rank(memory), values(memory) {}

  std::vector<Fr> inputs;  // ONE first, as in Witness
  std::uint64_t num_aux = 0;
  std::pmr::vector<std::uint64_t> general;  // bit j of word j/64: aux j is neither 0 nor 1
  std::pmr::vector<std::uint64_t> ones;     // bit j: aux j is 1 (never set where general is)
  std::pmr::vector<std::uint32_t> rank;     // rank[w]: general values in the words before w
  std::pmr::vector<Fr> values;              // the general aux values, in aux order

  std::uint64_t capacity_bytes() const {
    return inputs.capacity() * sizeof(Fr) + (general.capacity() + ones.capacity()) * 8 + rank.capacity() * 4 +
           values.capacity() * sizeof(Fr);
  }
};

// Packs (multi-threaded; reuses out's capacity). Throws std::invalid_argument when the aux
// vector has 2^32 or more general values.
void pack_witness(std::span<const Fr> inputs, std::span<const Fr> aux, PackedWitness& out);
// Packs a witness arriving in pieces, in aux order (a generator's chunks, an upload's
// stream), so the full vector never exists: what a partition holds while it is synthesized is
// its packed form and one piece. Pieces may have any length; the aligned part of each packs
// in parallel. finish() checks that num_aux values came.
class PackedWitnessWriter {
 public:
  // Starts `out` over (its capacity kept) for these inputs and num_aux aux values, with room
  // for `reserve_values` general values up front (default: an eighth of num_aux, as a PoRep
  // partition has ~10 %; regrowing page-locked memory piece by piece costs more).
  PackedWitnessWriter(PackedWitness& out, std::span<const Fr> inputs, std::uint64_t num_aux,
                      std::optional<std::uint64_t> reserve_values = std::nullopt);
  void append(std::span<const Fr> values);
  void finish();  // std::invalid_argument when the count is not num_aux

 private:
  void pack_words(const Fr* values, std::size_t first_word, std::size_t words, std::size_t count);
  PackedWitness& out_;
  std::uint64_t written_ = 0;  // aux values packed so far
  std::uint64_t general_ = 0;  // general values so far
  std::vector<Fr> tail_;       // values after the last whole word (fewer than 64)
};

// The full witness back.
Witness unpack_witness(const PackedWitness& packed);
// Its aux values into `aux` (num_aux long: std::invalid_argument otherwise), in parallel:
// memory the caller keeps across proofs (page-locked, say) spares the allocation and faults.
void unpack_aux_into(const PackedWitness& packed, std::span<Fr> aux);

}  // namespace snarkpipe::groth16
