// Coefficient codes (circuit/coefficient_codes.hpp): every value decodes to itself, ±2^k get
// their short codes whatever their sign, others keep their order, and the count agrees.
#include <gtest/gtest.h>

#include <vector>

#include "circuit/coefficient_codes.hpp"
#include "ff/random.hpp"
#include "test_seed.hpp"

namespace {

using namespace snarkpipe;
using circuit::COEFF_NEGATIVE;
using circuit::COEFF_POWERS;
using ff::Fr;

TEST(CoefficientCodes, PowersOfTwoGetShortCodes) {
  const circuit::PowerOfTwoCoefficients p;
  for (std::uint32_t k = 0; k < COEFF_POWERS; ++k) {
    const Fr x = Fr::from_u64(std::uint64_t(1) << k);
    ASSERT_EQ(p.code(x), k);
    ASSERT_EQ(p.code(-x), k | COEFF_NEGATIVE);
  }
  // Near misses: 0, 3, 2^64 (one past the table), 2^k ± 1 for k ≥ 2, and r − 2^k − 1.
  EXPECT_FALSE(p.code(Fr::zero()));
  EXPECT_FALSE(p.code(Fr::from_u64(3)));
  const Fr two64 = Fr::from_u64(std::uint64_t(1) << 63) + Fr::from_u64(std::uint64_t(1) << 63);
  EXPECT_FALSE(p.code(two64));
  for (std::uint32_t k = 2; k < COEFF_POWERS; ++k) {
    const Fr x = Fr::from_u64(std::uint64_t(1) << k);
    EXPECT_FALSE(p.code(x + Fr::one())) << k;
    EXPECT_FALSE(p.code(x - Fr::one())) << k;
    EXPECT_FALSE(p.code(-x - Fr::one())) << k;
  }
}

TEST(CoefficientCodes, EncodeDecodeRoundTrip) {
  ff::SeededRng rng(test_seed("coefficient_codes"));
  // A PoRep-like mix (±1, ±2^k, some random values), long enough for several parallel chunks,
  // with a run of others that crosses a chunk boundary.
  std::vector<Fr> v(300000);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::uint64_t r = rng.next_u64();
    const Fr pow = Fr::from_u64(std::uint64_t(1) << (r % 64));
    switch (r >> 61) {
      case 0:
        v[i] = Fr::random(rng);
        break;
      case 1:
        v[i] = -pow;
        break;
      case 2:
        v[i] = Fr::from_u64(r >> 8);
        break;  // a small non-power (sometimes a power)
      default:
        v[i] = (r >> 60) & 1 ? Fr::one() : -Fr::one();
        break;
    }
  }
  for (std::size_t i = 65500; i < 65600; ++i) v[i] = Fr::random(rng);
  const circuit::CoefficientCodes c = circuit::encode_coefficients(v);
  ASSERT_EQ(c.codes.size(), v.size());
  EXPECT_EQ(c.others.size(), circuit::count_other_coefficients(v));
  std::size_t next_other = 0;
  const circuit::PowerOfTwoCoefficients p;
  for (std::size_t i = 0; i < v.size(); ++i) {
    ASSERT_EQ(circuit::decode_coefficient(c.codes[i], c.others), v[i]) << i;
    if (p.code(v[i])) {
      ASSERT_LT(c.codes[i] & ~COEFF_NEGATIVE, COEFF_POWERS) << i;
    } else {
      ASSERT_EQ(c.codes[i], COEFF_POWERS + next_other) << i;  // in order of appearance
      ++next_other;
    }
  }
  EXPECT_EQ(next_other, c.others.size());
  EXPECT_GT(c.others.size(), 30000u);
  EXPECT_TRUE(circuit::encode_coefficients(std::vector<Fr>{}).codes.empty());
}

}  // namespace
