// Field laws on fresh random inputs, plus known answers (REFERENCE.md §1).
#include <gtest/gtest.h>

#include "ff/batch_invert.hpp"
#include "ff/fp12.hpp"
#include "ff/inverse_vartime.hpp"
#include "ff/random.hpp"
#include "test_seed.hpp"

using namespace snarkpipe::ff;

namespace {

template <class F>
void check_field_laws(SeededRng& rng, int iters) {
  for (int i = 0; i < iters; ++i) {
    const F a = F::random(rng), b = F::random(rng), c = F::random(rng);
    EXPECT_EQ(a + b, b + a);
    EXPECT_EQ((a + b) + c, a + (b + c));
    EXPECT_EQ(a * b, b * a);
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a * (b + c), a * b + a * c);
    EXPECT_EQ(a + F::zero(), a);
    EXPECT_EQ(a * F::one(), a);
    EXPECT_EQ(a - a, F::zero());
    EXPECT_EQ(a + (-a), F::zero());
    EXPECT_EQ((a - b) + b, a);
    EXPECT_EQ(a.dbl(), a + a);
    EXPECT_EQ(a.square(), a * a);
    if (!a.is_zero()) {
      EXPECT_EQ(a * a.inverse(), F::one());
    }
  }
}

// The Fp values whose every pair the Fp2 tests combine into edge elements: 0, 1, 2, −1, −2,
// 1/2, −1/2, the largest words below R (unreduced) and the smallest nonzero Montgomery word.
std::vector<Fp> fp2_edge_components() {
  const Fp one = Fp::one(), pm1 = -one, half = Fp::from_u64(2).inverse();
  return {Fp::zero(),
          one,
          one + one,
          pm1,
          pm1 - one,
          half,
          -half,
          Fp::from_montgomery({~0ULL, ~0ULL, ~0ULL, ~0ULL, ~0ULL, 0}),
          Fp::from_montgomery({1, 0, 0, 0, 0, 0})};
}

}  // namespace

TEST(Fp, FieldLaws) {
  SeededRng rng(test_seed("Fp.FieldLaws"));
  check_field_laws<Fp>(rng, 200);
}
TEST(Fr, FieldLaws) {
  SeededRng rng(test_seed("Fr.FieldLaws"));
  check_field_laws<Fr>(rng, 200);
}
TEST(Fp2, FieldLaws) {
  SeededRng rng(test_seed("Fp2.FieldLaws"));
  check_field_laws<Fp2>(rng, 100);
}
TEST(Fp6, FieldLaws) {
  SeededRng rng(test_seed("Fp6.FieldLaws"));
  check_field_laws<Fp6>(rng, 50);
}
TEST(Fp12, FieldLaws) {
  SeededRng rng(test_seed("Fp12.FieldLaws"));
  check_field_laws<Fp12>(rng, 30);
}

TEST(Fp, PortableAndSelectedMultiplicationAgree) {
  SeededRng rng(test_seed("Fp.PortableAgree"));
  const Fp pm1 = -Fp::one();
  std::vector<Fp> edge = {Fp::zero(), Fp::one(), pm1, pm1 - Fp::one(),
                          Fp::from_montgomery({~0ULL, ~0ULL, ~0ULL, ~0ULL, ~0ULL, 0})};
  for (const Fp& a : edge)
    for (const Fp& b : edge) EXPECT_EQ(a * b, Fp::mul_portable(a, b));
  for (int i = 0; i < 20000; ++i) {
    const Fp a = Fp::random(rng), b = Fp::random(rng);
    ASSERT_EQ(a * b, Fp::mul_portable(a, b));
    ASSERT_EQ(a.square(), Fp::mul_portable(a, a));
  }
}

TEST(Fr, PortableAndSelectedMultiplicationAgree) {
  SeededRng rng(test_seed("Fr.PortableAgree"));
  for (int i = 0; i < 20000; ++i) {
    const Fr a = Fr::random(rng), b = Fr::random(rng);
    ASSERT_EQ(a * b, Fr::mul_portable(a, b));
    ASSERT_EQ(a.square(), Fr::mul_portable(a, a));
  }
}

// The squaring that Fp::square() selects (the inline symmetric MULX squaring in an optimized
// x86-64 build, else the portable loop) against the portable multiplication a·a, against the
// inline multiplication and against the called assembly squaring: edge values (0, 1, p-1,
// p-2, 2, (p-1)/2, (p+1)/2, the Montgomery words with all-ones limbs, every power of two
// below p and its negative) and 20 000 fresh random values, also in a dependent chain
// (the output of one squaring is the next input, as in an exponentiation).
TEST(Fp, SquareAgainstMultiplication) {
  SeededRng rng(test_seed("Fp.SquareAgainstMul"));
  const Fp one = Fp::one(), pm1 = -one, half = Fp::from_u64(2).inverse();
  std::vector<Fp> edge = {
      Fp::zero(),
      one,
      pm1,
      pm1 - one,
      one + one,
      half,
      half + one,
      -half,
      Fp::from_montgomery({~0ULL, ~0ULL, ~0ULL, ~0ULL, ~0ULL, 0}),
      Fp::from_montgomery({~0ULL, 0, ~0ULL, 0, ~0ULL, 0}),
      Fp::from_montgomery({1, 0, 0, 0, 0, 0}),
      Fp::from_montgomery({0, 0, 0, 0, 0, 1}),
      Fp::from_montgomery(Limbs<6>{FpParams::modulus[0] - 1, FpParams::modulus[1], FpParams::modulus[2],
                                   FpParams::modulus[3], FpParams::modulus[4], FpParams::modulus[5]})};
  for (int k = 0; k < 381; ++k) {
    Limbs<6> w{};
    w[k / 64] = u64(1) << (k % 64);
    if (auto x = Fp::from_repr(w)) {
      edge.push_back(*x);
      edge.push_back(-*x);
      edge.push_back(Fp::from_montgomery(w));
    }
  }
  auto check = [](const Fp& a) {
    const Fp s = a.square();
    if (s != Fp::mul_portable(a, a)) return false;
    if (s != a * a) return false;
#if defined(SNARKPIPE_HAVE_ASM)
    Limbs<6> c;
    snarkpipe_mont_sqr_fp(c.data(), a.montgomery().data());
    if (s.montgomery() != c) return false;
#endif
    return true;
  };
  for (const Fp& a : edge) EXPECT_TRUE(check(a)) << a.to_hex();
  for (int i = 0; i < 20000; ++i) {
    const Fp a = Fp::random(rng);
    ASSERT_TRUE(check(a)) << a.to_hex();
  }
  Fp x = Fp::random(rng), y = x;
  for (int i = 0; i < 5000; ++i) {
    x = x.square();
    y = Fp::mul_portable(y, y);
    ASSERT_EQ(x, y) << i;
  }
  // The squaring used by the tower: the Fp2 norm c0^2 + c1^2 against products.
  for (int i = 0; i < 1000; ++i) {
    const Fp2 a = Fp2::random(rng);
    ASSERT_EQ(a.norm(), a.c0 * a.c0 + a.c1 * a.c1);
  }
}

// The Fp2 product (Fp2::operator*: in an optimized x86-64 build the two sums of products
// mont_mul2n_fp / mont_mul2x_fp, else Karatsuba over Fp) against the schoolbook formula
// over the portable Fp multiplication, and, where the build has them, against the lazy
// Karatsuba product and Karatsuba over the inline Fp product. Edge components (0, 1, 2,
// p-1, p-2, (p±1)/2, all-ones Montgomery words; b1 = 0 makes the kernel use p - b1 = p)
// in every combination, then 20 000 fresh random pairs and a dependent chain.
TEST(Fp2, ProductAgainstReferences) {
  SeededRng rng(test_seed("Fp2.ProductAgainstReferences"));
  auto reference = [](const Fp2& a, const Fp2& b) {
    const Fp t00 = Fp::mul_portable(a.c0, b.c0), t11 = Fp::mul_portable(a.c1, b.c1);
    const Fp t01 = Fp::mul_portable(a.c0, b.c1), t10 = Fp::mul_portable(a.c1, b.c0);
    return Fp2{t00 - t11, t01 + t10};
  };
  auto check = [&](const Fp2& a, const Fp2& b) {
    const Fp2 r = a * b;
    if (r != reference(a, b)) return false;
    const Fp v0 = a.c0 * b.c0, v1 = a.c1 * b.c1;
    if (r != Fp2{v0 - v1, (a.c0 + a.c1) * (b.c0 + b.c1) - v0 - v1}) return false;
#if defined(SNARKPIPE_INLINE_MUL)
    if (r != Fp2::mul_lazy(a, b)) return false;
    if (r != Fp2::mul_sum_of_products(a, b)) return false;
#endif
    return true;
  };
  const std::vector<Fp> e = fp2_edge_components();
  std::vector<Fp2> edge;
  for (const Fp& x : e)
    for (const Fp& y : e) edge.push_back({x, y});
  for (const Fp2& a : edge)
    for (const Fp2& b : edge)
      ASSERT_TRUE(check(a, b)) << a.c0.to_hex() << " " << a.c1.to_hex() << " * " << b.c0.to_hex() << " "
                               << b.c1.to_hex();
  for (int i = 0; i < 20000; ++i) {
    const Fp2 a = Fp2::random(rng), b = Fp2::random(rng);
    ASSERT_TRUE(check(a, b)) << i;
    ASSERT_TRUE(check(a, a)) << i;
  }
  Fp2 x = Fp2::random(rng), y = x;
  const Fp2 c = Fp2::random(rng);
  for (int i = 0; i < 5000; ++i) {
    x = x * c;
    y = reference(y, c);
    ASSERT_EQ(x, y) << i;
  }
}

#if defined(SNARKPIPE_INLINE_MUL)
// The inline Montgomery multiplication with operands in [0, 2p) (as Fp2::square passes
// them: plain sums, not reduced): the result must be the reduced product, the same as for
// the reduced operands. Operands x + p for x in {0, 1, p-1, p-2, ...} (the largest, 2p - 1
// and 2p - 2) against every other edge operand, then 20 000 random pairs with each side
// lifted by p or not.
TEST(Fp, InlineMultiplicationTakesOperandsBelowTwoP) {
  SeededRng rng(test_seed("Fp.MulBelowTwoP"));
  const Limbs<6>& P = FpParams::modulus;
  auto lift = [&](const Fp& x) {
    Limbs<6> r;
    add_to(r, x.montgomery(), P);
    return r;
  };
  auto check = [&](const Fp& a, const Fp& b, bool la, bool lb) {
    const Limbs<6> ra = la ? lift(a) : a.montgomery(), rb = lb ? lift(b) : b.montgomery();
    Limbs<6> out;
    x86::mont_mul_fp(out, ra, rb);
    // Fp is redundant: the product is left in [0, 2p), congruent to the reduced product.
    return compare(out, Fp::BOUND) < 0 && Fp::from_montgomery(out) == Fp::mul_portable(a, b);
  };
  const Fp one = Fp::one(), pm1 = -one;
  const std::vector<Fp> edge = {Fp::zero(),
                                one,
                                pm1,
                                pm1 - one,
                                one + one,
                                Fp::from_u64(2).inverse(),
                                Fp::from_montgomery({~0ULL, ~0ULL, ~0ULL, ~0ULL, ~0ULL, 0}),
                                Fp::from_montgomery({1, 0, 0, 0, 0, 0})};
  for (const Fp& a : edge)
    for (const Fp& b : edge)
      for (int l = 0; l < 4; ++l) EXPECT_TRUE(check(a, b, l & 1, l & 2)) << a.to_hex() << " " << b.to_hex() << " " << l;
  for (int i = 0; i < 20000; ++i) {
    const Fp a = Fp::random(rng), b = Fp::random(rng);
    const u64 l = rng.next_u64();
    ASSERT_TRUE(check(a, b, l & 1, l & 2)) << i;
  }
}
#endif

// Fp2 squaring (in an optimized x86-64 build with unreduced operands, see
// Fp2::square_unreduced_operands) against the product a·a and the schoolbook formula over
// the portable Fp multiplication: edge components in every combination, 20 000 random
// values, and a dependent chain of squarings.
TEST(Fp2, SquareAgainstProduct) {
  SeededRng rng(test_seed("Fp2.SquareAgainstProduct"));
  auto reference = [](const Fp2& a) {
    return Fp2{Fp::mul_portable(a.c0, a.c0) - Fp::mul_portable(a.c1, a.c1), Fp::mul_portable(a.c0, a.c1).dbl()};
  };
  const std::vector<Fp> e = fp2_edge_components();
  for (const Fp& x : e)
    for (const Fp& y : e) {
      const Fp2 a{x, y};
      ASSERT_EQ(a.square(), reference(a)) << x.to_hex() << " " << y.to_hex();
      ASSERT_EQ(a.square(), a * a);
    }
  for (int i = 0; i < 20000; ++i) {
    const Fp2 a = Fp2::random(rng);
    ASSERT_EQ(a.square(), reference(a)) << i;
    ASSERT_EQ(a.square(), a * a) << i;
  }
  Fp2 x = Fp2::random(rng), y = x;
  for (int i = 0; i < 5000; ++i) {
    x = x.square();
    y = reference(y);
    ASSERT_EQ(x, y) << i;
  }
}

#if defined(SNARKPIPE_INLINE_MUL)
// Fp2::mul_words with unreduced halves (each < 2p: x or x + p for reduced x, as Fp's stored
// form allows) against the schoolbook formula over the portable Fp
// multiplication on the reduced values: edge components (0 -> p, p-1 -> 2p-1, ...) with
// every lifting pattern, then 20 000 random pairs with random liftings.
TEST(Fp2, ProductOfUnreducedWords) {
  SeededRng rng(test_seed("Fp2.ProductOfUnreducedWords"));
  const Limbs<6>& P = FpParams::modulus;
  auto words = [&](const Fp2& a, unsigned lift) {
    std::array<u64, 12> w{};
    for (int h = 0; h < 2; ++h) {
      Limbs<6> v = (h ? a.c1 : a.c0).montgomery();
      if (lift >> h & 1) add_to(v, v, P);
      for (int k = 0; k < 6; ++k) w[6 * h + k] = v[k];
    }
    return w;
  };
  auto check = [&](const Fp2& a, const Fp2& b, unsigned la, unsigned lb) {
    const auto x = words(a, la), y = words(b, lb);
    const Fp2 r = Fp2::mul_words(x.data(), y.data());
    const Fp t00 = Fp::mul_portable(a.c0, b.c0), t11 = Fp::mul_portable(a.c1, b.c1);
    const Fp t01 = Fp::mul_portable(a.c0, b.c1), t10 = Fp::mul_portable(a.c1, b.c0);
    // The result stays in Fp's stored form: both halves below 2p (no final subtraction).
    const bool bounded =
        compare(r.c0.montgomery_redundant(), Fp::BOUND) < 0 && compare(r.c1.montgomery_redundant(), Fp::BOUND) < 0;
    return bounded && r == Fp2{t00 - t11, t01 + t10};
  };
  const Fp one = Fp::one(), pm1 = -one;
  const std::vector<Fp> e = {Fp::zero(),
                             one,
                             pm1,
                             pm1 - one,
                             Fp::from_u64(2).inverse(),
                             Fp::from_montgomery({~0ULL, ~0ULL, ~0ULL, ~0ULL, ~0ULL, 0})};
  for (const Fp& a0 : e)
    for (const Fp& a1 : e)
      for (const Fp& b0 : e)
        for (const Fp& b1 : e)
          for (unsigned l = 0; l < 16; ++l) ASSERT_TRUE(check({a0, a1}, {b0, b1}, l & 3, l >> 2)) << l;
  for (int i = 0; i < 20000; ++i) {
    const Fp2 a = Fp2::random(rng), b = Fp2::random(rng);
    const u64 l = rng.next_u64();
    ASSERT_TRUE(check(a, b, l & 3, (l >> 2) & 3)) << i;
  }
}
#endif

// The Fp6 product against the Karatsuba formula written out here and against the schoolbook
// product: coefficients from edge values and 20 000 random pairs.
TEST(Fp6, ProductAgainstReferences) {
  SeededRng rng(test_seed("Fp6.ProductAgainstReferences"));
  auto karatsuba = [](const Fp6& x, const Fp6& y) {
    const Fp2 t0 = x.c0 * y.c0, t1 = x.c1 * y.c1, t2 = x.c2 * y.c2;
    return Fp6{t0 + ((x.c1 + x.c2) * (y.c1 + y.c2) - t1 - t2).mul_by_nonresidue(),
               (x.c0 + x.c1) * (y.c0 + y.c1) - t0 - t1 + t2.mul_by_nonresidue(),
               (x.c0 + x.c2) * (y.c0 + y.c2) - t0 - t2 + t1};
  };
  auto schoolbook = [](const Fp6& x, const Fp6& y) {
    return Fp6{x.c0 * y.c0 + (x.c1 * y.c2 + x.c2 * y.c1).mul_by_nonresidue(),
               x.c0 * y.c1 + x.c1 * y.c0 + (x.c2 * y.c2).mul_by_nonresidue(), x.c0 * y.c2 + x.c1 * y.c1 + x.c2 * y.c0};
  };
  const Fp one = Fp::one(), pm1 = -one;
  const std::vector<Fp> e = {Fp::zero(), one, pm1, pm1 - one};
  for (int i = 0; i < 22000; ++i) {
    Fp6 x = Fp6::random(rng), y = Fp6::random(rng);
    if (i < 2000) {  // every Fp slot from {0, 1, p-1, p-2}
      Fp* c[12] = {&x.c0.c0, &x.c0.c1, &x.c1.c0, &x.c1.c1, &x.c2.c0, &x.c2.c1,
                   &y.c0.c0, &y.c0.c1, &y.c1.c0, &y.c1.c1, &y.c2.c0, &y.c2.c1};
      for (Fp* s : c) *s = e[rng.next_u64() % e.size()];
    }
    const Fp6 r = x * y;
    ASSERT_EQ(r, karatsuba(x, y)) << i;
    ASSERT_EQ(r, schoolbook(x, y)) << i;
  }
}

TEST(Fp, BytesRoundTripAndRange) {
  SeededRng rng(test_seed("Fp.Bytes"));
  for (int i = 0; i < 100; ++i) {
    const Fp a = Fp::random(rng);
    std::uint8_t be[48], le[48];
    a.to_bytes_be(be);
    a.to_bytes_le(le);
    for (int j = 0; j < 48; ++j) EXPECT_EQ(be[j], le[47 - j]);
    EXPECT_EQ(Fp::from_bytes_be(be), a);
    EXPECT_EQ(Fp::from_bytes_le(le), a);
  }
  // p itself is out of range; p - 1 is the largest element.
  std::uint8_t p_be[48];
  for (int i = 0; i < 48; ++i) p_be[47 - i] = std::uint8_t(FpParams::modulus[i / 8] >> (8 * (i % 8)));
  EXPECT_FALSE(Fp::from_bytes_be(p_be).has_value());
  p_be[47] -= 1;
  EXPECT_EQ(Fp::from_bytes_be(p_be), -Fp::one());
  EXPECT_FALSE(Fp::from_bytes_be(std::span<const std::uint8_t>(p_be, 47)).has_value());
}

TEST(Fr, BytesRoundTripAndRange) {
  SeededRng rng(test_seed("Fr.Bytes"));
  for (int i = 0; i < 100; ++i) {
    const Fr a = Fr::random(rng);
    std::uint8_t be[32], le[32];
    a.to_bytes_be(be);
    a.to_bytes_le(le);
    EXPECT_EQ(Fr::from_bytes_be(be), a);
    EXPECT_EQ(Fr::from_bytes_le(le), a);
  }
  std::uint8_t all_ones[32];
  std::fill(std::begin(all_ones), std::end(all_ones), 0xff);
  EXPECT_FALSE(Fr::from_bytes_le(all_ones).has_value());
}

TEST(Fp, SqrtAndLegendre) {
  SeededRng rng(test_seed("Fp.Sqrt"));
  int non_squares = 0;
  for (int i = 0; i < 100; ++i) {
    const Fp a = Fp::random(rng);
    const Fp s = a.square();
    EXPECT_EQ(s.legendre(), a.is_zero() ? 0 : 1);
    auto r = s.sqrt();
    ASSERT_TRUE(r.has_value());
    EXPECT_TRUE(*r == a || *r == -a);
    const Fp b = Fp::random(rng);
    if (b.legendre() == -1) {
      ++non_squares;
      EXPECT_FALSE(b.sqrt().has_value());
    } else {
      EXPECT_EQ(b.sqrt()->square(), b);
    }
  }
  EXPECT_GT(non_squares, 20);  // about half of the elements are non-squares
  // p ≡ 3 (mod 4) so -1 is not a square.
  EXPECT_EQ((-Fp::one()).legendre(), -1);
}

TEST(Fr, SqrtTonelliShanks) {
  SeededRng rng(test_seed("Fr.Sqrt"));
  for (int i = 0; i < 50; ++i) {
    const Fr a = Fr::random(rng);
    auto r = a.square().sqrt();
    ASSERT_TRUE(r.has_value());
    EXPECT_TRUE(*r == a || *r == -a);
  }
  // 7 is the multiplicative generator, hence a non-residue.
  EXPECT_EQ(Fr::from_u64(7).legendre(), -1);
  EXPECT_FALSE(Fr::from_u64(7).sqrt().has_value());
}

TEST(Fr, RootOfUnityKnownAnswer) {
  // ω = 7^((r-1)/2^32) has order exactly 2^32.
  Limbs<4> e = FrParams::modulus;
  e[0] -= 1;
  for (int i = 0; i < 32; ++i) e = shr1(e);
  EXPECT_EQ(Fr::from_u64(FR_MULTIPLICATIVE_GENERATOR).pow(e), FR_ROOT_OF_UNITY);
  Fr w = FR_ROOT_OF_UNITY;
  for (int i = 0; i < 31; ++i) w = w.square();
  EXPECT_EQ(w, -Fr::one());
  EXPECT_EQ(w.square(), Fr::one());
}

TEST(Fp2, SqrtAndFrobenius) {
  SeededRng rng(test_seed("Fp2.Sqrt"));
  for (int i = 0; i < 50; ++i) {
    const Fp2 a = Fp2::random(rng);
    auto r = a.square().sqrt();
    ASSERT_TRUE(r.has_value());
    EXPECT_TRUE(*r == a || *r == -a);
    const Fp2 b = Fp2::random(rng);
    if (b.legendre() == -1) {
      EXPECT_FALSE(b.sqrt().has_value());
    }
    // Frobenius is the p-th power.
    EXPECT_EQ(a.frobenius_map(1), a.pow(FpParams::modulus));
  }
}

TEST(Fp6, FrobeniusIsPthPower) {
  SeededRng rng(test_seed("Fp6.Frobenius"));
  const Fp6 a = Fp6::random(rng);
  Fp6 x = a;
  for (unsigned k = 1; k <= 6; ++k) {
    // x = a^(p^k) by repeated p-th powers (square-and-multiply in Fp6).
    Fp6 r = Fp6::one();
    for (std::size_t i = bit_length(FpParams::modulus); i-- > 0;) {
      r = r.square();
      if (test_bit(FpParams::modulus, i)) r *= x;
    }
    x = r;
    EXPECT_EQ(a.frobenius_map(k), x) << "k=" << k;
  }
  EXPECT_EQ(x, a);  // a^(p^6) = a in Fp6
}

TEST(Fp12, FrobeniusIsPthPower) {
  SeededRng rng(test_seed("Fp12.Frobenius"));
  const Fp12 a = Fp12::random(rng);
  Fp12 x = a;
  for (unsigned k = 1; k <= 3; ++k) {
    x = x.pow(FpParams::modulus);
    EXPECT_EQ(a.frobenius_map(k), x) << "k=" << k;
  }
  EXPECT_EQ(a.frobenius_map(6), a.conjugate());
}

TEST(Fp12, SparseLineMultiplication) {
  SeededRng rng(test_seed("Fp12.Sparse"));
  for (int i = 0; i < 20; ++i) {
    const Fp12 f = Fp12::random(rng);
    const Fp2 l0 = Fp2::random(rng), l1 = Fp2::random(rng), l4 = Fp2::random(rng);
    Fp12 line;
    line.c0.c0 = l0;
    line.c0.c1 = l1;
    line.c1.c1 = l4;
    EXPECT_EQ(f.mul_by_014(l0, l1, l4), f * line);
  }
}

TEST(Fp12, CyclotomicSquare) {
  SeededRng rng(test_seed("Fp12.Cyclotomic"));
  for (int i = 0; i < 20; ++i) {
    // Map into the cyclotomic subgroup: f^((p^6-1)(p^2+1)).
    const Fp12 f = Fp12::random(rng);
    Fp12 g = f.conjugate() * f.inverse();
    g = g.frobenius_map(2) * g;
    EXPECT_EQ(g.cyclotomic_square(), g.square());
    EXPECT_EQ(g * g.conjugate(), Fp12::one());
  }
}

TEST(FieldBatch, BatchInversion) {
  SeededRng rng(test_seed("Field.BatchInvert"));
  std::vector<Fp> xs(37);
  for (auto& x : xs) x = Fp::random(rng);
  xs[5] = Fp::zero();
  auto ys = xs;
  batch_invert<Fp>(ys);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    if (xs[i].is_zero()) EXPECT_TRUE(ys[i].is_zero());
    else EXPECT_EQ(xs[i] * ys[i], Fp::one());
  }
}

TEST(Fr, DecimalRoundTrip) {
  SeededRng rng(test_seed("Fr.Decimal"));
  EXPECT_EQ(Fr::zero().to_decimal(), "0");
  EXPECT_EQ(Fr::from_u64(1234567890123456789ULL).to_decimal(), "1234567890123456789");
  EXPECT_EQ(Fr::from_u64(10000000000000000000ULL).to_decimal(), "10000000000000000000");
  // r - 1, from REFERENCE.md's hex.
  EXPECT_EQ((-Fr::one()).to_decimal(), "52435875175126190479447740508185965837690552500527637822603658699938581184512");
  EXPECT_FALSE(
      Fr::from_decimal("52435875175126190479447740508185965837690552500527637822603658699938581184513").has_value());
  EXPECT_FALSE(Fr::from_decimal("12a").has_value());
  for (int i = 0; i < 100; ++i) {
    const Fr a = Fr::random(rng);
    EXPECT_EQ(Fr::from_decimal(a.to_decimal()), a);
  }
}

namespace {
// Reference modular addition/subtraction on raw limbs (the constexpr loops of bigint.hpp).
template <class F>
void check_add_sub_against_reference(const F& a, const F& b) {
  using R = typename F::Repr;
  R s{}, d{};
  const u64 carry = add_to(s, a.montgomery(), b.montgomery());
  if (carry || compare(s, F::MODULUS) >= 0) sub_to(s, s, F::MODULUS);
  if (sub_to(d, a.montgomery(), b.montgomery())) add_to(d, d, F::MODULUS);
  ASSERT_EQ((a + b).montgomery(), s);
  ASSERT_EQ((a - b).montgomery(), d);
}
template <class F>
void check_add_sub(SeededRng& rng) {
  const F pm1 = -F::one();
  const std::vector<F> edge = {F::zero(), F::one(), pm1, pm1 - F::one(), F::from_montgomery(F::MODULUS).zero() - pm1};
  for (const F& a : edge)
    for (const F& b : edge) check_add_sub_against_reference(a, b);
  for (int i = 0; i < 20000; ++i) check_add_sub_against_reference(F::random(rng), F::random(rng));
}
}  // namespace

TEST(Fp, AdditionAgainstReference) {
  SeededRng rng(test_seed("Fp.AddRef"));
  check_add_sub<Fp>(rng);
}
TEST(Fr, AdditionAgainstReference) {
  SeededRng rng(test_seed("Fr.AddRef"));
  check_add_sub<Fr>(rng);
}

TEST(Fp, NegationAndDoublingAgainstReference) {
  SeededRng rng(test_seed("Fp.NegRef"));
  const Fp pm1 = -Fp::one();
  std::vector<Fp> xs = {Fp::zero(), Fp::one(), pm1, pm1 - Fp::one()};
  for (int i = 0; i < 20000; ++i) xs.push_back(Fp::random(rng));
  for (const Fp& a : xs) {
    Fp::Repr n{};
    if (!is_zero(a.montgomery())) sub_to(n, Fp::MODULUS, a.montgomery());
    ASSERT_EQ((-a).montgomery(), n);
    ASSERT_EQ(a.dbl(), a + a);
    ASSERT_EQ(-(-a), a);
  }
}

// The Fp2 product (lazy reduction where the build has it) against the schoolbook formula
// with the portable multiplication, on edge values (0, 1, p-1, p-2) and random elements.
TEST(Fp2, ProductAgainstSchoolbook) {
  SeededRng rng(test_seed("Fp2.ProductRef"));
  auto reference = [](const Fp2& a, const Fp2& b) {
    return Fp2{Fp::mul_portable(a.c0, b.c0) - Fp::mul_portable(a.c1, b.c1),
               Fp::mul_portable(a.c0, b.c1) + Fp::mul_portable(a.c1, b.c0)};
  };
  const Fp pm1 = -Fp::one();
  const std::vector<Fp> edge = {Fp::zero(), Fp::one(), pm1, pm1 - Fp::one()};
  std::vector<Fp2> xs;
  for (const Fp& x : edge)
    for (const Fp& y : edge) xs.push_back({x, y});
  for (const Fp2& a : xs)
    for (const Fp2& b : xs) {
      ASSERT_EQ(a * b, reference(a, b));
      ASSERT_EQ(a.square(), reference(a, a));
    }
  for (int i = 0; i < 20000; ++i) {
    const Fp2 a = Fp2::random(rng), b = Fp2::random(rng);
    ASSERT_EQ(a * b, reference(a, b));
    ASSERT_EQ(a.square(), reference(a, a));
  }
}

TEST(Fp, PowAgainstPortableSquareAndMultiply) {
  SeededRng rng(test_seed("Fp.PowRef"));
  for (int i = 0; i < 50; ++i) {
    const Fp a = Fp::random(rng);
    const Limbs<2> e = {rng.next_u64(), rng.next_u64()};
    Fp r = Fp::one();
    for (std::size_t k = 128; k-- > 0;) {
      r = Fp::mul_portable(r, r);
      if (test_bit(e, k)) r = Fp::mul_portable(r, a);
    }
    ASSERT_EQ(a.pow(e), r);
  }
}

// The Granger–Scott formula evaluated with plain (reduced) Fp2 arithmetic: what
// cyclotomic_square() computes for any input, in or out of the cyclotomic subgroup, so the
// lazy-reduction version can be held against it on arbitrary and extreme coefficients.
namespace {
Fp12 granger_scott_reference(const Fp12& f) {
  auto fp4_square = [](const Fp2& x, const Fp2& y, Fp2& rx, Fp2& ry) {
    const Fp2 x2 = x.square(), y2 = y.square();
    rx = x2 + y2.mul_by_nonresidue();
    ry = (x + y).square() - x2 - y2;
  };
  Fp2 ax, ay, bx, by, cx, cy;
  fp4_square(f.c0.c0, f.c1.c1, ax, ay);
  fp4_square(f.c1.c0, f.c0.c2, bx, by);
  fp4_square(f.c0.c1, f.c1.c2, cx, cy);
  auto three = [](const Fp2& x) { return x.dbl() + x; };
  Fp12 r;
  r.c0.c0 = three(ax) - f.c0.c0.dbl();
  r.c1.c1 = three(ay) + f.c1.c1.dbl();
  r.c1.c0 = three(cy.mul_by_nonresidue()) + f.c1.c0.dbl();
  r.c0.c2 = three(cx) - f.c0.c2.dbl();
  r.c0.c1 = three(bx) - f.c0.c1.dbl();
  r.c1.c2 = three(by) + f.c1.c2.dbl();
  return r;
}
}  // namespace

TEST(Fp12, CyclotomicSquareFormulaOnArbitraryInputs) {
  SeededRng rng(test_seed("Fp12.CyclotomicFormula"));
  const Fp pm1 = -Fp::one();
  const std::vector<Fp> edge = {Fp::zero(), Fp::one(), pm1, pm1 - Fp::one()};
  for (int i = 0; i < 3000; ++i) {
    Fp12 f = Fp12::random(rng);
    if (i < 1000) {  // extreme coefficients: every Fp slot drawn from {0, 1, p-1, p-2}
      Fp* c[12] = {&f.c0.c0.c0, &f.c0.c0.c1, &f.c0.c1.c0, &f.c0.c1.c1, &f.c0.c2.c0, &f.c0.c2.c1,
                   &f.c1.c0.c0, &f.c1.c0.c1, &f.c1.c1.c0, &f.c1.c1.c1, &f.c1.c2.c0, &f.c1.c2.c1};
      for (Fp* x : c) *x = edge[rng.next_u64() % edge.size()];
    }
    ASSERT_EQ(f.cyclotomic_square(), granger_scott_reference(f));
  }
}

TEST(Fp, InverseVartimeAgainstFermat) {
  SeededRng rng(test_seed("Fp.InverseVartime"));
  const Fp pm1 = -Fp::one();
  std::vector<Fp> xs = {Fp::zero(),
                        Fp::one(),
                        pm1,
                        pm1 - Fp::one(),
                        Fp::from_u64(2),
                        Fp::from_u64(3),
                        Fp::one().half(),
                        Fp::from_montgomery(from_u64<6>(1)),
                        Fp::from_montgomery(from_u64<6>(2)),
                        -Fp::from_montgomery(from_u64<6>(1))};
  // Montgomery words with long runs of zero or one bits (the divsteps skip zeros).
  for (int k = 0; k < 381; k += 7) {
    Limbs<6> w{};
    w[k / 64] = u64(1) << (k % 64);
    xs.push_back(Fp::from_montgomery(w));
    xs.push_back(-Fp::from_montgomery(w));
  }
  for (int i = 0; i < 20000; ++i) xs.push_back(Fp::random(rng));
  for (const Fp& x : xs) {
    const Fp y = fp_inverse_vartime(x);
    ASSERT_EQ(y, x.inverse()) << x.to_hex();
    if (!x.is_zero()) {
      ASSERT_EQ(x * y, Fp::one());
    }
  }
}

namespace {
Fp12 random_cyclotomic(SeededRng& rng) {
  const Fp12 f = Fp12::random(rng);
  Fp12 g = f.conjugate() * f.inverse();
  return g.frobenius_map(2) * g;
}
}  // namespace

TEST(Fp12, InverseVartimeAgainstInverse) {
  SeededRng rng(test_seed("Fp12.InverseVartime"));
  for (int i = 0; i < 50; ++i) {
    const Fp12 f = Fp12::random(rng);
    ASSERT_EQ(f.inverse<true>(), f.inverse());
    const Fp2 a = Fp2::random(rng);
    ASSERT_EQ(a.inverse<true>(), a.inverse());
  }
  EXPECT_EQ(Fp12::one().inverse<true>(), Fp12::one());
}

TEST(Fp12, CompressedSquareAgainstGrangerScott) {
  SeededRng rng(test_seed("Fp12.Compressed"));
  for (int i = 0; i < 30; ++i) {
    const Fp12 g = random_cyclotomic(rng);
    // Decompression of an uncompressed value gives it back.
    const Fp12::Compressed c0 = g.compress();
    Fp12 back;
    ASSERT_TRUE(Fp12::decompress_batch(&c0, &back, 1));
    ASSERT_EQ(back, g);
    // A chain of compressed squarings, decompressed in one batch at several points.
    Fp12::Compressed c = c0;
    Fp12 x = g;
    std::vector<Fp12::Compressed> saved;
    std::vector<Fp12> expected;
    for (int k = 1; k <= 40; ++k) {
      c = Fp12::compressed_square(c);
      x = x.cyclotomic_square();
      const Fp12::Compressed xc = x.compress();
      ASSERT_TRUE(c == xc) << "k=" << k;
      if (k % 7 == 0 || k == 40) {
        saved.push_back(c);
        expected.push_back(x);
      }
    }
    std::vector<Fp12> out(saved.size());
    ASSERT_TRUE(Fp12::decompress_batch(saved.data(), out.data(), saved.size()));
    for (std::size_t j = 0; j < saved.size(); ++j) ASSERT_EQ(out[j], expected[j]) << "j=" << j;
  }
  // The identity compresses to zeros: g2 = 0, reported (callers fall back).
  const Fp12::Compressed one = Fp12::one().compress();
  Fp12 out;
  EXPECT_FALSE(Fp12::decompress_batch(&one, &out, 1));
}

// Decompression with the denominators inverted in Fp (Montgomery's trick over the norms),
// against the uncompressed values, for every batch size the exponentiation could use.
TEST(Fp12, DecompressBatchEverySize) {
  SeededRng rng(test_seed("Fp12.DecompressSizes"));
  for (std::size_t n = 1; n <= 16; ++n) {
    std::vector<Fp12> xs(n);
    std::vector<Fp12::Compressed> cs(n);
    for (std::size_t i = 0; i < n; ++i) {
      xs[i] = random_cyclotomic(rng);
      for (int k = 0; k < int(i % 3); ++k) xs[i] = xs[i].cyclotomic_square();
      cs[i] = xs[i].compress();
    }
    std::vector<Fp12> out(n);
    ASSERT_TRUE(Fp12::decompress_batch(cs.data(), out.data(), n));
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], xs[i]) << "n=" << n << " i=" << i;
  }
}

#if defined(SNARKPIPE_INLINE_MUL)
// a + p - b in one pass (the lazy Fp2 squaring's operand) against limb-by-limb arithmetic.
TEST(Fp, AddPSubPlainAgainstReference) {
  SeededRng rng(test_seed("Fp.AddPSubPlain"));
  const Fp pm1 = -Fp::one();
  std::vector<Fp> xs = {Fp::zero(), Fp::one(), pm1, pm1 - Fp::one()};
  std::vector<std::pair<Fp, Fp>> pairs;
  for (const Fp& a : xs)
    for (const Fp& b : xs) pairs.emplace_back(a, b);
  for (int i = 0; i < 20000; ++i) pairs.emplace_back(Fp::random(rng), Fp::random(rng));
  const Limbs<6>& p = FpParams::modulus;
  for (const auto& [a, b] : pairs) {
    Limbs<6> r;
    x86::add_p_sub_plain_6(r, a.montgomery(), b.montgomery(), p);
    // reference: (a + p) as 7 words, minus b.
    u64 t[7];
    unsigned __int128 c = 0;
    for (int k = 0; k < 6; ++k) {
      c += (unsigned __int128)a.montgomery()[k] + p[k];
      t[k] = u64(c);
      c >>= 64;
    }
    t[6] = u64(c);
    unsigned __int128 borrow = 0;
    for (int k = 0; k < 6; ++k) {
      const unsigned __int128 d = (unsigned __int128)t[k] - b.montgomery()[k] - borrow;
      t[k] = u64(d);
      borrow = (d >> 64) ? 1 : 0;
    }
    t[6] -= u64(borrow);
    ASSERT_EQ(t[6], 0u);
    for (int k = 0; k < 6; ++k) ASSERT_EQ(r[k], t[k]);
  }
}
#endif

// Fp keeps its limbs in [0, 2p) (mont_field.hpp, the redundant form): an element and its
// lifted form (limbs + p) must be the same element to every observer and every operation,
// and every result must stay below 2p. Operands: edge values (0, 1, 2, p-1, p-2, 1/2, 1/2 + 1,
// all-ones Montgomery words) and 20 000 random ones, each side stored reduced or lifted.
namespace {
Fp lifted(const Fp& x) {
  Fp::Repr r;
  add_to(r, x.montgomery(), Fp::MODULUS);
  return Fp::from_montgomery(r);
}
bool stored_below_bound(const Fp& x) { return compare(x.montgomery_redundant(), Fp::BOUND) < 0; }
}  // namespace

TEST(Fp, RedundantFormIsInvisible) {
  static_assert(Fp::REDUNDANT && !Fr::REDUNDANT);
  SeededRng rng(test_seed("Fp.Redundant"));
  const Fp one = Fp::one(), pm1 = -one, half = Fp::from_u64(2).inverse();
  std::vector<Fp> xs = {Fp::zero(), one,  one + one,  pm1,
                        pm1 - one,  half, half + one, Fp::from_montgomery({~0ULL, ~0ULL, ~0ULL, ~0ULL, ~0ULL, 0})};
  for (int i = 0; i < 20000; ++i) xs.push_back(Fp::random(rng));
  for (Fp& x : xs) {
    x = x.reduce();
    ASSERT_TRUE(x.is_reduced());
  }
  EXPECT_TRUE(Fp::random(rng).is_reduced()) << "samples start reduced";
  auto bytes = [](const Fp& x) {
    std::array<std::uint8_t, 48> b;
    x.to_bytes_be(b.data());
    return b;
  };
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const Fp a = xs[i], b = xs[(i * 7 + 3) % xs.size()];
    const Fp la = lifted(a), lb = lifted(b);
    ASSERT_FALSE(la.is_reduced());
    // observers
    ASSERT_EQ(la, a);
    ASSERT_EQ(la.montgomery(), a.montgomery());
    ASSERT_EQ(la.reduce().montgomery_redundant(), a.montgomery());
    ASSERT_EQ(la.is_zero(), a.is_zero());
    ASSERT_EQ(la.is_one(), a.is_one());
    ASSERT_EQ(la.to_repr(), a.to_repr());
    ASSERT_EQ(bytes(la), bytes(a));
    ASSERT_EQ(la.is_lexicographically_largest(), a.is_lexicographically_largest());
    ASSERT_EQ(la == lb, a == b);
    // operations, every combination of reduced and lifted operands
    for (int l = 0; l < 4; ++l) {
      const Fp x = (l & 1) ? la : a, y = (l & 2) ? lb : b;
      const Fp results[] = {x + y, x - y, -x, x.dbl(), x.half(), x * y, x.square()};
      const Fp expect[] = {a + b, a - b, -a, a + a, a.half(), Fp::mul_portable(a, b), Fp::mul_portable(a, a)};
      for (std::size_t k = 0; k < std::size(results); ++k) {
        ASSERT_TRUE(stored_below_bound(results[k])) << i << " " << l << " op " << k;
        ASSERT_EQ(results[k], expect[k]) << i << " " << l << " op " << k;
      }
      ASSERT_EQ(x.half().dbl(), x);
    }
    if (i < 200) {  // the slow ones
      ASSERT_EQ(la.inverse(), a.inverse());
      ASSERT_EQ(la.legendre(), a.legendre());
      ASSERT_EQ(la.sqrt().has_value(), a.sqrt().has_value());
      if (auto r = la.sqrt()) {
        ASSERT_EQ(r->square(), a);
      }
      ASSERT_EQ(fp_inverse_vartime(la), a.inverse());
    }
  }
  // p itself is a stored form of zero, and 2p - 1 one of p - 1.
  const Fp p_form = Fp::from_montgomery(Fp::MODULUS);
  EXPECT_TRUE(p_form.is_zero());
  EXPECT_EQ(p_form, Fp::zero());
  EXPECT_EQ(p_form.montgomery(), Fp::Repr{});
  EXPECT_EQ(p_form + one, one);
  EXPECT_EQ(-p_form, Fp::zero());
  EXPECT_EQ(p_form * pm1, Fp::zero());
}

// Long chains of products, squares, sums and differences stay below 2p at every step and end
// on the value the portable (always reduced) arithmetic computes.
TEST(Fp, RedundantChainsAgainstPortable) {
  SeededRng rng(test_seed("Fp.RedundantChain"));
  for (int run = 0; run < 4; ++run) {
    const Fp a = Fp::random(rng), b = Fp::random(rng);
    Fp x = Fp::random(rng), ref = x;
    for (int i = 0; i < 20000; ++i) {
      switch ((i * 2654435761u >> 7) % 4) {
        case 0:
          x = x * a;
          ref = Fp::mul_portable(ref, a);
          break;
        case 1:
          x = x.square();
          ref = Fp::mul_portable(ref, ref);
          break;
        case 2:
          x = x + b;
          ref = ref + b;
          break;
        default:
          x = x - a * b;
          ref = ref - Fp::mul_portable(a, b);
          break;
      }
      ASSERT_TRUE(stored_below_bound(x)) << run << " " << i;
    }
    EXPECT_EQ(x, ref);
    EXPECT_EQ(x.montgomery(), ref.montgomery());
  }
}

// The towers on Fp's redundant form: Fp2, Fp6 and Fp12 values whose Fp components are stored
// lifted (limbs + p, still < 2p) at random must give the same products, squares and
// cyclotomic squarings (Granger–Scott and compressed, with decompression) as the same values
// stored reduced, and every Fp of every result must stay below 2p.
namespace {
template <class F>
F lift_some(F x, SeededRng& rng) {
  static_assert(sizeof(F) % sizeof(Fp) == 0);
  Fp* c = reinterpret_cast<Fp*>(&x);
  for (std::size_t k = 0; k < sizeof(F) / sizeof(Fp); ++k) {
    c[k] = c[k].reduce();
    if (rng.next_u64() & 1) c[k] = lifted(c[k]);
  }
  return x;
}
template <class F>
bool all_below_bound(const F& x) {
  const Fp* c = reinterpret_cast<const Fp*>(&x);
  for (std::size_t k = 0; k < sizeof(F) / sizeof(Fp); ++k)
    if (!stored_below_bound(c[k])) return false;
  return true;
}
}  // namespace

TEST(Fp12, TowersOnLiftedComponents) {
  SeededRng rng(test_seed("Fp12.Lifted"));
  for (int i = 0; i < 3000; ++i) {
    const Fp2 a = Fp2::random(rng), b = Fp2::random(rng);
    const Fp2 la = lift_some(a, rng), lb = lift_some(b, rng);
    ASSERT_EQ(la * lb, a * b);
    ASSERT_EQ(la.square(), a.square());
    const Fp t = Fp::mul_portable(a.c0, a.c1);
    ASSERT_EQ(la.square(), Fp2(Fp::mul_portable(a.c0, a.c0) - Fp::mul_portable(a.c1, a.c1), t + t));
    ASSERT_TRUE(all_below_bound(la * lb) && all_below_bound(la.square()));
  }
  for (int i = 0; i < 300; ++i) {
    const Fp6 a = Fp6::random(rng), b = Fp6::random(rng);
    const Fp6 la = lift_some(a, rng), lb = lift_some(b, rng);
    ASSERT_EQ(la * lb, a * b);
    ASSERT_EQ(la.square(), a * a);
    ASSERT_TRUE(all_below_bound(la * lb) && all_below_bound(la.square()));
  }
  for (int i = 0; i < 40; ++i) {
    const Fp12 a = Fp12::random(rng), b = Fp12::random(rng);
    const Fp12 la = lift_some(a, rng), lb = lift_some(b, rng);
    ASSERT_EQ(la * lb, a * b);
    ASSERT_EQ(la.square(), a * a);
    const Fp12 g = random_cyclotomic(rng), lg = lift_some(g, rng);
    const Fp12 want = g * g;
    ASSERT_EQ(lg.cyclotomic_square(), want);
    ASSERT_TRUE(all_below_bound(lg.cyclotomic_square()));
    Fp12::Compressed c = lg.compress();
    Fp12 x = g;
    for (int k = 0; k < 5; ++k) {
      c = Fp12::compressed_square(c);
      x = x * x;
      ASSERT_TRUE(all_below_bound(c));
    }
    Fp12 back;
    ASSERT_TRUE(Fp12::decompress_batch(&c, &back, 1));
    ASSERT_EQ(back, x) << i;
  }
}

// A Compressed value built from unreduced components (its constructor reduces them) squares
// like one built by compress(): compressed_square's lazy Fp4 squarings need reduced inputs.
TEST(Fp12, CompressedFromUnreducedComponents) {
  SeededRng rng(test_seed("Fp12.CompressedUnreduced"));
  for (int i = 0; i < 40; ++i) {
    const Fp12 g = lift_some(random_cyclotomic(rng), rng);
    const Fp12::Compressed built(g.c1.c0, g.c0.c2, g.c0.c1, g.c1.c2);
    for (const Fp2* c : {&built.g2, &built.g3, &built.g4, &built.g5})
      ASSERT_TRUE(c->c0.is_reduced() && c->c1.is_reduced());
    const Fp12::Compressed a = Fp12::compressed_square(built), b = Fp12::compressed_square(g.compress());
    const Fp12::Compressed want = (g * g).compress();
    ASSERT_TRUE(a == want) << i;
    ASSERT_TRUE(b == want) << i;
  }
}
