// A fixed-size bitmap over variables: bit i says whether variable i has a non-zero entry in
// a matrix (the prover's A/B "density", REFERENCE.md §3-§4). Bits live in 64-bit words,
// bit i in word i/64 at position i%64 (the on-disk layout of r1cs_file.hpp); bits past
// size() are always zero, so word-wise comparison and popcount are exact.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

namespace snarkpipe::circuit {

class DensityBitmap {
 public:
  DensityBitmap() = default;
  // `size` bits, all clear.
  explicit DensityBitmap(std::size_t size) : size_(size), words_(words_for(size), 0) {}

  // Adopts words in the layout above; throws std::invalid_argument when the word count does
  // not match `size` or a bit past `size` is set.
  static DensityBitmap from_words(std::size_t size, std::vector<std::uint64_t> words) {
    if (words.size() != words_for(size)) throw std::invalid_argument("DensityBitmap: word count does not match size");
    if (size % 64 != 0 && !words.empty() && (words.back() >> (size % 64)) != 0) {
      throw std::invalid_argument("DensityBitmap: bit set past size");
    }
    DensityBitmap d;
    d.size_ = size;
    d.words_ = std::move(words);
    return d;
  }

  static constexpr std::size_t words_for(std::size_t bits) { return bits / 64 + (bits % 64 != 0); }

  std::size_t size() const { return size_; }
  bool test(std::size_t i) const { return (words_[i / 64] >> (i % 64)) & 1; }
  void set(std::size_t i) { words_[i / 64] |= std::uint64_t(1) << (i % 64); }
  void reset(std::size_t i) { words_[i / 64] &= ~(std::uint64_t(1) << (i % 64)); }
  // Grows or shrinks to `size` bits; new bits are clear.
  void resize(std::size_t size) {
    words_.resize(words_for(size), 0);
    size_ = size;
    if (size % 64 != 0) words_.back() &= (std::uint64_t(1) << (size % 64)) - 1;
  }

  // Number of set bits.
  std::size_t count() const {
    std::size_t n = 0;
    for (std::uint64_t w : words_) n += static_cast<std::size_t>(std::popcount(w));
    return n;
  }
  std::span<const std::uint64_t> words() const { return words_; }

  // Calls f(i) for every set bit i, in increasing order.
  template <class F>
  void for_each_set(F&& f) const {
    for (std::size_t w = 0; w < words_.size(); ++w) {
      for (std::uint64_t bits = words_[w]; bits != 0; bits &= bits - 1) {
        f(w * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
      }
    }
  }

  // The set bits as a forward range: `for (std::size_t i : d.set_bits())`.
  class SetBitIterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = std::size_t;
    using difference_type = std::ptrdiff_t;
    using pointer = const std::size_t*;
    using reference = std::size_t;

    SetBitIterator() = default;
    std::size_t operator*() const { return word_ * 64 + static_cast<std::size_t>(std::countr_zero(bits_)); }
    SetBitIterator& operator++() {
      bits_ &= bits_ - 1;
      skip_empty();
      return *this;
    }
    SetBitIterator operator++(int) {
      SetBitIterator t = *this;
      ++*this;
      return t;
    }
    friend bool operator==(const SetBitIterator& a, const SetBitIterator& b) {
      return a.word_ == b.word_ && a.bits_ == b.bits_;
    }

   private:
    friend class DensityBitmap;
    SetBitIterator(std::span<const std::uint64_t> words, std::size_t word) : words_(words), word_(word) {
      if (word_ < words_.size()) bits_ = words_[word_];
      skip_empty();
    }
    void skip_empty() {
      while (bits_ == 0 && word_ < words_.size()) {
        ++word_;
        bits_ = word_ < words_.size() ? words_[word_] : 0;
      }
    }
    std::span<const std::uint64_t> words_;
    std::size_t word_ = 0;
    std::uint64_t bits_ = 0;
  };
  struct SetBits {
    SetBitIterator first, last;
    SetBitIterator begin() const { return first; }
    SetBitIterator end() const { return last; }
  };
  SetBits set_bits() const { return {SetBitIterator(words_, 0), SetBitIterator(words_, words_.size())}; }

  friend bool operator==(const DensityBitmap&, const DensityBitmap&) = default;

 private:
  std::size_t size_ = 0;
  std::vector<std::uint64_t> words_;
};

}  // namespace snarkpipe::circuit
