#include "groth16/packed_witness.hpp"

#include <tbb/parallel_for.h>

#include <bit>
#include <stdexcept>
#include <string>

namespace snarkpipe::groth16 {

namespace {
constexpr std::size_t WORDS_PER_BLOCK = 1024;  // 65,536 values per parallel block
}

PackedWitnessWriter::PackedWitnessWriter(PackedWitness& out, std::span<const Fr> inputs, std::uint64_t num_aux,
                                         std::optional<std::uint64_t> reserve_values)
    : out_(out) {
  const std::size_t words = (num_aux + 63) / 64;
  out_.inputs.assign(inputs.begin(), inputs.end());
  out_.num_aux = num_aux;
  out_.general.assign(words, 0);
  out_.ones.assign(words, 0);
  out_.rank.assign(words, 0);
  out_.values.clear();
  const std::uint64_t room = reserve_values.value_or(num_aux / 8);
  if (out_.values.capacity() < room) out_.values.reserve(room);
  tail_.reserve(64);
}

// `count` values from word first_word on (whole words but perhaps the last), in parallel.
void PackedWitnessWriter::pack_words(const Fr* values, std::size_t first_word, std::size_t words, std::size_t count) {
  const std::size_t blocks = (words + WORDS_PER_BLOCK - 1) / WORDS_PER_BLOCK;
  const Fr one = Fr::one();
  tbb::parallel_for(std::size_t(0), blocks, [&](std::size_t b) {
    for (std::size_t w = b * WORDS_PER_BLOCK; w < std::min(words, (b + 1) * WORDS_PER_BLOCK); ++w) {
      std::uint64_t g = 0, o = 0;
      for (std::size_t i = 0; i < 64 && w * 64 + i < count; ++i) {
        const Fr& x = values[w * 64 + i];
        if (x == one) o |= std::uint64_t(1) << i;
        else if (!x.is_zero()) g |= std::uint64_t(1) << i;
      }
      out_.general[first_word + w] = g;
      out_.ones[first_word + w] = o;
    }
  });
  for (std::size_t w = 0; w < words; ++w) {
    if (general_ > UINT32_MAX) throw std::invalid_argument("pack_witness: 2^32 or more general values");
    out_.rank[first_word + w] = std::uint32_t(general_);
    general_ += std::popcount(out_.general[first_word + w]);
  }
  if (general_ > UINT32_MAX) throw std::invalid_argument("pack_witness: 2^32 or more general values");
  out_.values.resize(general_);
  tbb::parallel_for(std::size_t(0), blocks, [&](std::size_t b) {
    for (std::size_t w = b * WORDS_PER_BLOCK; w < std::min(words, (b + 1) * WORDS_PER_BLOCK); ++w) {
      std::size_t at = out_.rank[first_word + w];
      for (std::uint64_t g = out_.general[first_word + w]; g; g &= g - 1)
        out_.values[at++] = values[w * 64 + std::countr_zero(g)];
    }
  });
}

void PackedWitnessWriter::append(std::span<const Fr> values) {
  if (written_ + tail_.size() + values.size() > out_.num_aux)
    throw std::invalid_argument("packed witness: more than the " + std::to_string(out_.num_aux) +
                                " aux values expected");
  std::size_t used = 0;
  if (!tail_.empty()) {  // complete the pending word first
    used = std::min<std::size_t>(64 - tail_.size(), values.size());
    tail_.insert(tail_.end(), values.begin(), values.begin() + std::ptrdiff_t(used));
    if (tail_.size() < 64) return;
    pack_words(tail_.data(), written_ / 64, 1, 64);
    written_ += 64;
    tail_.clear();
  }
  const std::size_t whole = (values.size() - used) / 64;
  if (whole) {
    pack_words(values.data() + used, written_ / 64, whole, whole * 64);
    written_ += whole * 64;
    used += whole * 64;
  }
  tail_.assign(values.begin() + std::ptrdiff_t(used), values.end());
}

void PackedWitnessWriter::finish() {
  if (written_ + tail_.size() != out_.num_aux)
    throw std::invalid_argument("packed witness: " + std::to_string(written_ + tail_.size()) + " aux values came, " +
                                std::to_string(out_.num_aux) + " were expected");
  if (!tail_.empty()) {
    pack_words(tail_.data(), written_ / 64, 1, tail_.size());
    written_ += tail_.size();
    tail_.clear();
  }
}

// The whole witness as one piece: the writer's parallel packing, its values sized exactly.
void pack_witness(std::span<const Fr> inputs, std::span<const Fr> aux, PackedWitness& out) {
  PackedWitnessWriter writer(out, inputs, aux.size(), 0);
  writer.append(aux);
  writer.finish();
}

void unpack_aux_into(const PackedWitness& p, std::span<Fr> aux) {
  if (aux.size() != p.num_aux)
    throw std::invalid_argument("unpack_aux_into: room for " + std::to_string(aux.size()) +
                                " aux values, the witness has " + std::to_string(p.num_aux));
  const std::size_t words = p.general.size();
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, words, WORDS_PER_BLOCK), [&](const auto& r) {
    for (std::size_t w_ = r.begin(); w_ < r.end(); ++w_) {
      std::size_t at = p.rank[w_];
      for (std::size_t i = 0; i < 64 && w_ * 64 + i < p.num_aux; ++i) {
        Fr& x = aux[w_ * 64 + i];
        if ((p.general[w_] >> i) & 1) x = p.values[at++];
        else x = ((p.ones[w_] >> i) & 1) ? Fr::one() : Fr::zero();
      }
    }
  });
}

Witness unpack_witness(const PackedWitness& p) {
  Witness w;
  w.inputs = p.inputs;
  w.aux.resize(p.num_aux);
  unpack_aux_into(p, w.aux);
  return w;
}

}  // namespace snarkpipe::groth16
