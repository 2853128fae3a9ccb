// Many independent affine additions sharing one field inversion (Montgomery's trick).
//
// An affine addition is λ = (y2 - y1)/(x2 - x1), x3 = λ² - x1 - x2, y3 = λ(x1 - x3) - y1:
// with the inversion shared across a batch it costs about 6 multiplications (3 for the
// shared inversion, λ, λ², λ·(x1 - x3)), against 10 for a mixed XYZZ addition. That is why
// Pippenger's buckets and the fixed-base tables accumulate in affine form.
#pragma once

#include <cstdint>
#include <span>

#include "ec/affine.hpp"

namespace snarkpipe::msm::detail {

// One pending addition: slots[slot] += (negate ? -*p : *p). The point is referenced, not
// copied: batches stream through memory and a copy would double the traffic.
template <class C>
struct AffineAddition {
  const ec::Affine<C>* p;
  std::uint32_t slot;
  bool negate;
};

// Both operands of an addition, both coordinates (a G1 point spans two cache lines).
template <class C>
inline void prefetch(const ec::Affine<C>* slots, const AffineAddition<C>& e) {
  __builtin_prefetch(&slots[e.slot].x);
  __builtin_prefetch(&slots[e.slot].y);
  __builtin_prefetch(&e.p->x);
  __builtin_prefetch(&e.p->y);
}

// slots[e.slot] += ±*e.p for every entry. Every slot appears at most once and both operands
// are finite points (callers route identities elsewhere). A sum at infinity leaves the slot
// as (0, 0), the identity's encoding. `scratch` holds at least entries.size() elements.
template <class C>
void batch_add_affine(ec::Affine<C>* slots, std::span<const AffineAddition<C>> entries, typename C::F* scratch) {
  using F = typename C::F;
  const std::size_t n = entries.size();
  if (n == 0) return;
  // Same x: Q = P doubles (denominator 2y; y = 0 would be a 2-torsion point with 2P = O),
  // Q = -P cancels (no denominator). Returns zero for a cancellation.
  auto same_x_denominator = [](const ec::Affine<C>& a, const AffineAddition<C>& e) {
    const F py = e.negate ? -e.p->y : e.p->y;
    return py == a.y ? a.y.dbl() : F::zero();
  };
  // Pass 1: prefix products of the denominators.
  F acc = F::one();
  constexpr std::size_t AHEAD = 8;  // prefetch distance: buckets and bases are scattered
  for (std::size_t k = 0; k < n; ++k) {
    if (k + AHEAD < n) prefetch(slots, entries[k + AHEAD]);
    const ec::Affine<C>& a = slots[entries[k].slot];
    F den = entries[k].p->x - a.x;
    if (den.is_zero()) den = same_x_denominator(a, entries[k]);
    scratch[k] = acc;
    if (!den.is_zero()) acc *= den;
  }
  F inv = acc.inverse();
  // Pass 2, backwards: peel one denominator's inverse off at a time and finish its sum.
  for (std::size_t k = n; k-- > 0;) {
    if (k >= AHEAD) prefetch(slots, entries[k - AHEAD]);
    const AffineAddition<C>& e = entries[k];
    ec::Affine<C>& a = slots[e.slot];
    const ec::Affine<C>& p = *e.p;
    F den = p.x - a.x;
    F num;
    if (!den.is_zero()) {
      num = e.negate ? -(p.y + a.y) : p.y - a.y;
    } else {
      den = same_x_denominator(a, e);
      if (den.is_zero()) {
        a = ec::Affine<C>::identity();
        continue;
      }
      const F x2 = a.x.square();
      num = x2.dbl() + x2;
    }
    const F inv_k = inv * scratch[k];
    inv *= den;
    const F lambda = num * inv_k;
    const F x3 = lambda.square() - a.x - p.x;
    // Through the constructor, which stores reduced coordinates (ec/affine.hpp): these
    // slots are also outputs (msm::batch_mul's key points go to the GPU as raw limbs).
    a = ec::Affine<C>(x3, lambda * (a.x - x3) - a.y);
  }
}

}  // namespace snarkpipe::msm::detail
