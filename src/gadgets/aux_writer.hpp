// The sink of the fast witness path: gadgets' native mirrors write the values their circuit
// counterparts allocate, in allocation order, straight into (a slice of) the aux vector. With
// no buffer it only counts, which is how a circuit learns the size of a slice before the
// slices are filled in parallel.
#pragma once

#include <cstddef>

#include "ff/fields.hpp"

namespace snarkpipe::gadgets {

class AuxWriter {
 public:
  AuxWriter() = default;  // counting only
  explicit AuxWriter(ff::Fr* out) : out_(out) {}

  void push(const ff::Fr& v) {
    if (out_) out_[pos_] = v;
    ++pos_;
  }
  void push_bit(bool b) {
    static constexpr ff::Fr ONE = ff::Fr::one();
    if (out_) out_[pos_] = b ? ONE : ff::Fr::zero();
    ++pos_;
  }
  std::size_t size() const { return pos_; }

 private:
  ff::Fr* out_ = nullptr;
  std::size_t pos_ = 0;
};

}  // namespace snarkpipe::gadgets
