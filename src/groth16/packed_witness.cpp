#include "groth16/packed_witness.hpp"

#include <tbb/parallel_for.h>

#include <bit>
#include <stdexcept>
#include <string>

namespace snarkpipe::groth16 {

namespace {
constexpr std::size_t WORDS_PER_BLOCK = 1024;  // 65,536 values per parallel block
}

void pack_witness(std::span<const Fr> inputs, std::span<const Fr> aux, PackedWitness& out) {
  const std::size_t n = aux.size(), words = (n + 63) / 64;
  const std::size_t blocks = (words + WORDS_PER_BLOCK - 1) / WORDS_PER_BLOCK;
  out.inputs.assign(inputs.begin(), inputs.end());
  out.num_aux = n;
  out.general.assign(words, 0);
  out.ones.assign(words, 0);
  out.rank.assign(words, 0);
  const Fr one = Fr::one();
  // Pass 1: the bits, and each word's count of general values.
  tbb::parallel_for(std::size_t(0), blocks, [&](std::size_t b) {
    for (std::size_t w = b * WORDS_PER_BLOCK; w < std::min(words, (b + 1) * WORDS_PER_BLOCK); ++w) {
      std::uint64_t g = 0, o = 0;
      for (std::size_t i = 0; i < 64 && w * 64 + i < n; ++i) {
        const Fr& x = aux[w * 64 + i];
        if (x == one)
          o |= std::uint64_t(1) << i;
        else if (!x.is_zero())
          g |= std::uint64_t(1) << i;
      }
      out.general[w] = g;
      out.ones[w] = o;
    }
  });
  // Ranks: a sequential prefix over words (cheap: one popcount per 64 values).
  std::uint64_t total = 0;
  for (std::size_t w = 0; w < words; ++w) {
    if (total > UINT32_MAX) throw std::invalid_argument("pack_witness: 2^32 or more general values");
    out.rank[w] = std::uint32_t(total);
    total += std::popcount(out.general[w]);
  }
  if (total > UINT32_MAX) throw std::invalid_argument("pack_witness: 2^32 or more general values");
  out.values.resize(total);
  // Pass 2: the general values, each block from its first word's rank.
  tbb::parallel_for(std::size_t(0), blocks, [&](std::size_t b) {
    for (std::size_t w = b * WORDS_PER_BLOCK; w < std::min(words, (b + 1) * WORDS_PER_BLOCK); ++w) {
      std::size_t at = out.rank[w];
      for (std::uint64_t g = out.general[w]; g; g &= g - 1) out.values[at++] = aux[w * 64 + std::countr_zero(g)];
    }
  });
}

void unpack_aux_into(const PackedWitness& p, std::span<Fr> aux) {
  if (aux.size() != p.num_aux)
    throw std::invalid_argument("unpack_aux_into: room for " + std::to_string(aux.size()) + " aux values, the witness has " +
                                std::to_string(p.num_aux));
  const std::size_t words = p.general.size();
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, words, WORDS_PER_BLOCK), [&](const auto& r) {
    for (std::size_t w_ = r.begin(); w_ < r.end(); ++w_) {
      std::size_t at = p.rank[w_];
      for (std::size_t i = 0; i < 64 && w_ * 64 + i < p.num_aux; ++i) {
        Fr& x = aux[w_ * 64 + i];
        if ((p.general[w_] >> i) & 1)
          x = p.values[at++];
        else
          x = ((p.ones[w_] >> i) & 1) ? Fr::one() : Fr::zero();
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
