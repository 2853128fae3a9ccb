// The FP64 arithmetic of fp64_mont.cuh on the CPU against ff::Fp and ec::XYZZ (the same
// Montgomery form, R = 2^384): single products of random and edge values and 1000-product
// chains, for both product forms, and chains of 200 XYZZ mixed additions of random points.
// Rounding toward zero is the host's FE_TOWARDZERO mode, so this checks the arithmetic
// (exactness, the bit-pattern biases, the lazy bounds), not the GPU's instructions.
//   g++ -O2 -std=c++20 -frounding-math -I src -I bench/cuda -o fp64_check \
//       bench/cuda/fp64_mont_host_check.cpp build/src/ec/libsnarkpipe_ec.a build/src/ff/libsnarkpipe_ff.a
//   ./fp64_check       (prints the mismatch counts; exit 0 when there are none)
#include <cstdio>
#include <vector>

#include "ec/curves.hpp"
#include "ec/xyzz.hpp"
#include "ff/fields.hpp"
#include "ff/random.hpp"
#include "fp64_mont.cuh"

using snarkpipe::ff::Fp;

int main() {
  uint32_t p32[12];
  const auto& pm = Fp::MODULUS;
  for (int i = 0; i < 6; ++i) p32[2 * i] = uint32_t(pm[i]), p32[2 * i + 1] = uint32_t(pm[i] >> 32);
  fp64::Constants k;
  fp64::init_constants(k, p32);

  auto to_f = [](const Fp& x) { return fp64::from_u64x6(x.montgomery().data()); };
  auto to_fp = [](const fp64::f64x8& a) {
    uint64_t w[6];
    fp64::to_u64x6(a, w);
    // The products are below 2p: subtract p unless that borrows.
    Fp::Repr r, d;
    unsigned __int128 borrow = 0;
    for (int i = 0; i < 6; ++i) {
      const unsigned __int128 t = (unsigned __int128)w[i] - Fp::MODULUS[i] - borrow;
      d[i] = uint64_t(t);
      borrow = (t >> 64) & 1;
      r[i] = w[i];
    }
    return Fp::from_montgomery(borrow ? r : d);
  };
  snarkpipe::ff::SeededRng rng(20261130);
  std::vector<Fp> xs = {Fp::zero(), Fp::one(), -Fp::one(), -Fp::one() - Fp::one(), Fp::from_u64(2).inverse()};
  for (int i = 0; i < 2000; ++i) xs.push_back(Fp::random(rng));
  int bad5 = 0, badb = 0, checked = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const Fp& x = xs[i];
    const Fp& y = xs[(i * 7 + 3) % xs.size()];
    const Fp want = x * y;
    bad5 += !(to_fp(fp64::mont_mul_5op(to_f(x), to_f(y), k)) == want);
    badb += !(to_fp(fp64::mont_mul_bits(to_f(x), to_f(y), k)) == want);
    ++checked;
  }
  // Chains: the lazy (< 2p) outputs fed back as inputs.
  for (int c = 0; c < 4; ++c) {
    const Fp y = xs[5 + c];
    Fp want = xs[10 + c];
    fp64::f64x8 a5 = to_f(want), ab = a5;
    const fp64::f64x8 fy = to_f(y);
    for (int i = 0; i < 1000; ++i) {
      want = want * y;
      a5 = fp64::mont_mul_5op(a5, fy, k);
      ab = fp64::mont_mul_bits(ab, fy, k);
    }
    bad5 += !(to_fp(a5) == want);
    badb += !(to_fp(ab) == want);
    ++checked;
  }
  // XYZZ mixed additions: chains of 200 random points from a random start, coordinate by
  // coordinate against the CPU's (the same formulas), after every addition.
  int bad_madd = 0, madds = 0;
  using G1 = snarkpipe::ec::G1Curve;
  for (int c = 0; c < 8; ++c) {
    auto point = [&] { return (snarkpipe::ec::Jacobian<G1>::generator() * snarkpipe::ff::Fr::random(rng)).to_affine(); };
    snarkpipe::ec::XYZZ<G1> want = snarkpipe::ec::XYZZ<G1>::from_affine(point());
    fp64::xyzz64 got{to_f(want.X), to_f(want.Y), to_f(want.ZZ), to_f(want.ZZZ)};
    for (int i = 0; i < 200; ++i) {
      const auto q = point();
      want = want.add_affine(q);
      got = fp64::madd(got, to_f(q.x), to_f(q.y), k);
      ++madds;
      bad_madd += !(to_fp(got.X) == want.X && to_fp(got.Y) == want.Y && to_fp(got.ZZ) == want.ZZ &&
                    to_fp(got.ZZZ) == want.ZZZ);
    }
  }
  std::printf("{\"checked\": %d, \"mismatches_5op\": %d, \"mismatches_bits\": %d, \"madds\": %d, "
              "\"mismatches_madd\": %d}\n",
              checked, bad5, badb, madds, bad_madd);
  return bad5 == 0 && badb == 0 && bad_madd == 0 ? 0 : 1;
}
