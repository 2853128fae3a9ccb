// Σ P_i over many affine points with batched affine additions: points go round-robin into
// `lanes` affine accumulators, a full round of additions shares one inversion, and the
// lanes fold together in XYZZ at the end. About 6 multiplications per point once the count
// is well above the lane count, against 10 for a chain of mixed XYZZ additions.
#pragma once

#include <span>
#include <vector>

#include "ec/xyzz.hpp"
#include "msm/batch_affine.hpp"

namespace snarkpipe::msm::detail {

template <class C>
class AffineSum {
 public:
  using F = typename C::F;
  using AffinePoint = ec::Affine<C>;

  explicit AffineSum(std::size_t lanes) : lanes_(lanes) {
    slots_.reserve(lanes_);
    batch_.reserve(lanes_);
    scratch_.resize(lanes_);
  }

  // `p` must stay in place until finish(): batches keep a pointer to it.
  void add(const AffinePoint& p) {
    if (p.is_identity()) return;
    if (slots_.size() < lanes_) {
      slots_.push_back(p);
      return;
    }
    // Each round visits every lane once, so a lane is never twice in one batch.
    const std::uint32_t lane = next_;
    if (slots_[lane].is_identity()) {
      slots_[lane] = p;
    } else {
      batch_.push_back({&p, lane, false});
    }
    if (++next_ == lanes_) flush();
  }

  ec::XYZZ<C> finish() {
    flush();
    ec::XYZZ<C> acc = ec::XYZZ<C>::identity();
    for (const AffinePoint& s : slots_) acc = acc.add_affine(s);
    slots_.clear();
    return acc;
  }

 private:
  void flush() {
    batch_add_affine<C>(slots_.data(), std::span<const AffineAddition<C>>(batch_), scratch_.data());
    batch_.clear();
    next_ = 0;
  }

  std::size_t lanes_;
  std::uint32_t next_ = 0;
  std::vector<AffinePoint> slots_;
  std::vector<AffineAddition<C>> batch_;
  std::vector<F> scratch_;
};

}  // namespace snarkpipe::msm::detail
