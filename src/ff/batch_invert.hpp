// Montgomery's trick: invert many field elements with one inversion and 3(n-1)
// multiplications. Works for any field type (Fp, Fr, Fp2, ...); zeros stay zero.
#pragma once

#include <span>
#include <vector>

namespace snarkpipe::ff {

template <class F>
void batch_invert(std::span<F> xs) {
  std::vector<F> prefix(xs.size());
  F acc = F::one();
  for (std::size_t i = 0; i < xs.size(); ++i) {
    prefix[i] = acc;
    if (!xs[i].is_zero()) acc *= xs[i];
  }
  F inv = acc.inverse();
  for (std::size_t i = xs.size(); i-- > 0;) {
    if (xs[i].is_zero()) continue;
    const F x = xs[i];
    xs[i] = inv * prefix[i];
    inv *= x;
  }
}

}  // namespace snarkpipe::ff
