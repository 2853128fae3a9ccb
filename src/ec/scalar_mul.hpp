// Variable-base scalar multiplication (not constant time: the prover's secrets r, s enter
// only through MSMs and fixed-base tables, never through this routine).
#pragma once

#include <span>
#include <vector>

#include "ec/jacobian.hpp"
#include "ff/batch_invert.hpp"
#include "ff/fields.hpp"

namespace snarkpipe::ec {

// [k]P with a fixed 4-bit window: ~bits doublings and bits/4 additions.
template <class C, std::size_t M>
Jacobian<C> mul_bigint(const Jacobian<C>& p, const ff::Limbs<M>& k) {
  constexpr unsigned W = 4;
  Jacobian<C> table[1u << W];
  table[0] = Jacobian<C>::identity();
  table[1] = p;
  for (unsigned i = 2; i < (1u << W); ++i) table[i] = (i & 1) ? table[i - 1] + p : table[i / 2].dbl();
  const std::size_t bits = ff::bit_length(k);
  const std::size_t windows = (bits + W - 1) / W;
  Jacobian<C> acc = Jacobian<C>::identity();
  for (std::size_t w = windows; w-- > 0;) {
    for (unsigned d = 0; d < W; ++d) acc = acc.dbl();
    unsigned digit = 0;
    for (unsigned b = 0; b < W; ++b) digit |= unsigned(ff::test_bit(k, w * W + b)) << b;
    if (digit) acc += table[digit];
  }
  return acc;
}

// [k]P for a 64-bit k by double-and-add: cheapest for sparse constants like |z|.
template <class C>
Jacobian<C> mul_u64(const Jacobian<C>& p, std::uint64_t k) {
  Jacobian<C> acc = Jacobian<C>::identity();
  for (int i = 63; i >= 0; --i) {
    acc = acc.dbl();
    if ((k >> i) & 1) acc += p;
  }
  return acc;
}

template <class C>
Jacobian<C> operator*(const Jacobian<C>& p, const ff::Fr& k) {
  return mul_bigint(p, k.to_repr());
}
template <class C>
Jacobian<C> operator*(const ff::Fr& k, const Jacobian<C>& p) {
  return p * k;
}

// Affine forms of many points with one field inversion (Montgomery's trick).
template <class C>
std::vector<Affine<C>> batch_to_affine(std::span<const Jacobian<C>> ps) {
  using F = typename C::F;
  std::vector<F> zs(ps.size());
  for (std::size_t i = 0; i < ps.size(); ++i) zs[i] = ps[i].Z;
  ff::batch_invert<F>(zs);
  std::vector<Affine<C>> out(ps.size());
  for (std::size_t i = 0; i < ps.size(); ++i) {
    if (ps[i].is_identity()) continue;
    const F zi2 = zs[i].square();
    out[i] = {ps[i].X * zi2, ps[i].Y * zi2 * zs[i]};
  }
  return out;
}

}  // namespace snarkpipe::ec
