// Which variables an MSM's bases cover (REFERENCE.md §3-§4). bellperson's proving key keeps
// a point only for the variables whose density bit is set (the A/B queries leave the
// identities out), while the assignment covers every variable: the k-th set bit's scalar
// pairs with bases[k].
//
// DensityView borrows the words of a bitmap in the layout circuit::DensityBitmap and the
// `.r1cs` files use: bit i in word i/64 at position i%64, bits past size() clear. It is a
// view so that this layer need not know the circuit layer's type; anything with `words()`
// and `size()` in that layout converts implicitly.
#pragma once

#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

namespace snarkpipe::msm {

struct DensityView {
  std::span<const std::uint64_t> words;
  std::size_t size = 0;

  DensityView() = default;
  // Throws std::invalid_argument when the word count does not match `bits`.
  DensityView(std::span<const std::uint64_t> w, std::size_t bits) : words(w), size(bits) {
    if (words.size() != (bits + 63) / 64) throw std::invalid_argument("DensityView: word count does not match size");
    if (bits % 64 != 0 && (words.back() >> (bits % 64)) != 0) {
      throw std::invalid_argument("DensityView: a bit past size is set");
    }
  }
  template <class D>
  requires requires(const D& d) {
    { d.words() } -> std::convertible_to<std::span<const std::uint64_t>>;
    { d.size() } -> std::convertible_to<std::size_t>;
  }
  DensityView(const D& d)  // NOLINT: implicit by design (circuit::DensityBitmap)
      : DensityView(std::span<const std::uint64_t>(d.words()), std::size_t(d.size())) {}

  bool test(std::size_t i) const { return (words[i / 64] >> (i % 64)) & 1; }
  // Number of set bits (bits past size are clear by the layout's rule).
  std::size_t count() const {
    std::size_t n = 0;
    for (std::uint64_t x : words) n += std::size_t(std::popcount(x));
    return n;
  }
};

// Packs a std::vector<bool> into the word layout above.
inline std::vector<std::uint64_t> pack_density(const std::vector<bool>& bits) {
  std::vector<std::uint64_t> w((bits.size() + 63) / 64, 0);
  for (std::size_t i = 0; i < bits.size(); ++i) {
    if (bits[i]) w[i / 64] |= std::uint64_t(1) << (i % 64);
  }
  return w;
}

}  // namespace snarkpipe::msm
