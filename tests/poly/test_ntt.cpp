// Transforms against their definitions (a naive O(n^2) DFT, Horner evaluation), in every
// ordering and with several blockings, plus the algebraic laws the prover relies on.
#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <functional>
#include <utility>
#include <stdexcept>
#include <vector>

#include "ff/random.hpp"
#include "poly/butterfly.hpp"
#include "poly/ntt.hpp"
#include "test_seed.hpp"

using snarkpipe::ff::Fr;
using snarkpipe::ff::SeededRng;
using snarkpipe::ff::u64;
using namespace snarkpipe::poly;

namespace {

enum class Kind { Ntt, Intt, Coset, Icoset };
constexpr Kind KINDS[] = {Kind::Ntt, Kind::Intt, Kind::Coset, Kind::Icoset};
constexpr Order ORDERS[] = {Order::Natural, Order::BitReversed};

const char* name(Kind k) {
  switch (k) {
    case Kind::Ntt:
      return "ntt";
    case Kind::Intt:
      return "intt";
    case Kind::Coset:
      return "coset_ntt";
    case Kind::Icoset:
      return "icoset_ntt";
  }
  return "?";
}
const char* name(Order o) { return o == Order::Natural ? "natural" : "bit-reversed"; }

void run(Kind kind, std::span<Fr> v, const EvaluationDomain& d, Order in, Order out) {
  switch (kind) {
    case Kind::Ntt:
      ntt(v, d, in, out);
      break;
    case Kind::Intt:
      intt(v, d, in, out);
      break;
    case Kind::Coset:
      coset_ntt(v, d, in, out);
      break;
    case Kind::Icoset:
      icoset_ntt(v, d, in, out);
      break;
  }
}

Fr horner(const std::vector<Fr>& coeffs, const Fr& x) {
  Fr acc = Fr::zero();
  for (std::size_t i = coeffs.size(); i-- > 0;) acc = acc * x + coeffs[i];
  return acc;
}

std::vector<Fr> random_vector(SeededRng& rng, std::size_t n) {
  std::vector<Fr> v(n);
  for (Fr& x : v) x = Fr::random(rng);
  return v;
}

// Written out bit by bit, independently of the library's permutation.
std::size_t reverse_bits(std::size_t i, std::size_t bits) {
  std::size_t r = 0;
  for (std::size_t b = 0; b < bits; ++b) r |= ((i >> b) & 1) << (bits - 1 - b);
  return r;
}

std::vector<Fr> arrange(const std::vector<Fr>& natural, Order order) {
  if (order == Order::Natural) return natural;
  const std::size_t bits = std::size_t(std::countr_zero(natural.size()));
  std::vector<Fr> r(natural.size());
  for (std::size_t i = 0; i < natural.size(); ++i) r[reverse_bits(i, bits)] = natural[i];
  return r;
}

// Element j of the result, straight from the definitions in ntt.hpp.
Fr reference_at(Kind kind, const std::vector<Fr>& x, const EvaluationDomain& d, std::size_t j) {
  const u64 e = u64(j);
  switch (kind) {
    case Kind::Ntt:
      return horner(x, d.omega().pow(e));
    case Kind::Intt:
      return d.m_inv() * horner(x, d.omega_inv().pow(e));
    case Kind::Coset:
      return horner(x, d.g() * d.omega().pow(e));
    case Kind::Icoset:
      return d.g_inv().pow(e) * d.m_inv() * horner(x, d.omega_inv().pow(e));
  }
  return Fr::zero();
}

std::vector<Fr> reference(Kind kind, const std::vector<Fr>& x, const EvaluationDomain& d) {
  std::vector<Fr> r(x.size());
  for (std::size_t j = 0; j < x.size(); ++j) r[j] = reference_at(kind, x, d, j);
  return r;
}

// Sets a blocking for one scope.
class ConfigScope {
 public:
  explicit ConfigScope(NttConfig c) : saved_(ntt_config()) { set_ntt_config(c); }
  ~ConfigScope() { set_ntt_config(saved_); }

 private:
  NttConfig saved_;
};

// The default blocking, and small ones that push tiny sizes through the column-group path.
const NttConfig CONFIGS[] = {NttConfig{}, NttConfig{1, 4}, NttConfig{2, 8}, NttConfig{3, 64}};

}  // namespace

// The fused sum/difference kernel against the field's + and −, at the edges of the range
// (0, 1, r − 1, sums just below, at and above r) and at random.
TEST(Butterfly, AddSubMatchesTheField) {
  SeededRng rng(test_seed("Butterfly.AddSubMatchesTheField"));
  const Fr top = -Fr::one();  // r − 1
  std::vector<Fr> values = {Fr::zero(),      Fr::one(),  Fr::from_u64(2),        top,
                            top - Fr::one(), top.half(), top.half() + Fr::one(), Fr::from_u64(~u64(0))};
  for (int i = 0; i < 200; ++i) values.push_back(Fr::random(rng));
  for (const Fr& x : values) {
    for (const Fr& y : values) {
      Fr a = x, b = y;
      add_sub(a, b);
      ASSERT_EQ(a, x + y) << x.to_hex() << " + " << y.to_hex();
      ASSERT_EQ(b, x - y) << x.to_hex() << " - " << y.to_hex();
      const Fr w = Fr::random(rng);
      a = x, b = y;
      dif_butterfly(a, b, w);
      ASSERT_EQ(a, x + y);
      ASSERT_EQ(b, (x - y) * w);
      a = x, b = y;
      dit_butterfly(a, b, w);
      ASSERT_EQ(a, x + w * y);
      ASSERT_EQ(b, x - w * y);
    }
  }
}

TEST(Ntt, MatchesNaiveDftInEveryOrdering) {
  SeededRng rng(test_seed("Ntt.MatchesNaiveDftInEveryOrdering"));
  for (const NttConfig& config : CONFIGS) {
    ConfigScope scope(config);
    for (std::size_t k = 0; k <= 8; ++k) {
      const EvaluationDomain d(k);
      for (Kind kind : KINDS) {
        const std::vector<Fr> x = random_vector(rng, d.m());
        const std::vector<Fr> expected = reference(kind, x, d);
        for (Order in : ORDERS) {
          for (Order out : ORDERS) {
            std::vector<Fr> v = arrange(x, in);
            run(kind, v, d, in, out);
            ASSERT_EQ(v, arrange(expected, out)) << name(kind) << " 2^" << k << " " << name(in) << "->" << name(out)
                                                 << " block_log " << config.block_log;
          }
        }
      }
    }
  }
}

TEST(Ntt, CosetNttEvaluatesOnTheCoset) {
  SeededRng rng(test_seed("Ntt.CosetNttEvaluatesOnTheCoset"));
  for (std::size_t k = 0; k <= 7; ++k) {
    const EvaluationDomain d(k);
    const std::vector<Fr> f = random_vector(rng, d.m());
    std::vector<Fr> v = f;
    coset_ntt(v, d);
    Fr point = d.g();
    for (std::size_t i = 0; i < d.m(); ++i) {
      ASSERT_EQ(v[i], horner(f, point)) << k << " " << i;
      point *= d.omega();
    }
  }
}

// Large sizes take the blocked path with the default configuration (and odd numbers of
// column stages); a few outputs of each are checked by direct evaluation. The last case
// (blocks of 2 asked for, 2^17 elements) makes the blocks as small as the twiddle tables allow,
// the layout a 2^28 transform gets with the default configuration.
TEST(Ntt, LargeSizesAgreeWithEvaluation) {
  SeededRng rng(test_seed("Ntt.LargeSizesAgreeWithEvaluation"));
  const std::pair<std::size_t, NttConfig> cases[] = {
      {13, NttConfig{}}, {16, NttConfig{}}, {17, NttConfig{}}, {17, NttConfig{1, 4}}};
  for (const auto& [k, config] : cases) {
    ConfigScope scope(config);
    const EvaluationDomain d(k);
    for (Kind kind : KINDS) {
      const std::vector<Fr> x = random_vector(rng, d.m());
      std::vector<Fr> v = x;
      run(kind, v, d, Order::Natural, Order::Natural);
      for (int s = 0; s < 4; ++s) {
        const std::size_t j = s == 0 ? 0 : s == 1 ? d.m() - 1 : std::size_t(rng.next_u64() % d.m());
        ASSERT_EQ(v[j], reference_at(kind, x, d, j)) << name(kind) << " 2^" << k << " at " << j;
      }
      std::vector<Fr> w = x;
      run(kind, w, d, Order::Natural, Order::BitReversed);
      bit_reverse_permute(w);
      ASSERT_EQ(v, w) << name(kind) << " 2^" << k;
    }
  }
}

TEST(Ntt, InverseUndoesForward) {
  SeededRng rng(test_seed("Ntt.InverseUndoesForward"));
  for (std::size_t k : {0u, 1u, 2u, 7u, 12u, 13u, 14u, 16u}) {
    const EvaluationDomain d(k);
    const std::vector<Fr> x = random_vector(rng, d.m());
    for (Order mid : ORDERS) {
      std::vector<Fr> v = x;
      ntt(v, d, Order::Natural, mid);
      intt(v, d, mid, Order::Natural);
      ASSERT_EQ(v, x) << "ntt 2^" << k << " via " << name(mid);
      coset_ntt(v, d, Order::Natural, mid);
      icoset_ntt(v, d, mid, Order::Natural);
      ASSERT_EQ(v, x) << "coset_ntt 2^" << k << " via " << name(mid);
      intt(v, d, Order::Natural, mid);
      ntt(v, d, mid, Order::Natural);
      ASSERT_EQ(v, x) << "intt 2^" << k << " via " << name(mid);
    }
  }
  // And in small blockings, at a size with many column stages.
  for (const NttConfig& config : CONFIGS) {
    ConfigScope scope(config);
    const EvaluationDomain d(11);
    const std::vector<Fr> x = random_vector(rng, d.m());
    std::vector<Fr> v = x;
    coset_ntt(v, d, Order::BitReversed, Order::Natural);
    icoset_ntt(v, d, Order::Natural, Order::BitReversed);
    ASSERT_EQ(v, x) << "block_log " << config.block_log;
  }
}

TEST(Ntt, ConvolutionTheorem) {
  SeededRng rng(test_seed("Ntt.ConvolutionTheorem"));
  for (const NttConfig& config : {NttConfig{}, NttConfig{2, 8}}) {
    ConfigScope scope(config);
    for (std::size_t k = 1; k <= 10; ++k) {
      const EvaluationDomain d(k);
      const std::size_t half = d.m() / 2;
      std::vector<Fr> f = random_vector(rng, half), h = random_vector(rng, half);
      std::vector<Fr> schoolbook(d.m(), Fr::zero());
      for (std::size_t i = 0; i < half; ++i)
        for (std::size_t j = 0; j < half; ++j) schoolbook[i + j] += f[i] * h[j];
      f.resize(d.m(), Fr::zero());
      h.resize(d.m(), Fr::zero());
      // On H, with the evaluations in bit-reversed order (no permutation anywhere) ...
      std::vector<Fr> a = f, b = h;
      ntt(a, d, Order::Natural, Order::BitReversed);
      ntt(b, d, Order::Natural, Order::BitReversed);
      for (std::size_t i = 0; i < d.m(); ++i) a[i] *= b[i];
      intt(a, d, Order::BitReversed, Order::Natural);
      ASSERT_EQ(a, schoolbook) << "2^" << k;
      // ... and on the coset g·H.
      a = f;
      b = h;
      coset_ntt(a, d);
      coset_ntt(b, d);
      for (std::size_t i = 0; i < d.m(); ++i) a[i] *= b[i];
      icoset_ntt(a, d);
      ASSERT_EQ(a, schoolbook) << "coset 2^" << k;
    }
  }
}

// The prover's quotient (REFERENCE.md §4): from evaluations a, b, c on H with a·b = c there,
// h = icoset((coset(a)·coset(b) − coset(c))·(g^m − 1)^-1) satisfies A·B − C = h·t.
TEST(Ntt, QuotientByTheVanishingPolynomial) {
  SeededRng rng(test_seed("Ntt.QuotientByTheVanishingPolynomial"));
  for (std::size_t k : {1u, 4u, 10u, 14u}) {
    const EvaluationDomain d(k);
    std::vector<Fr> a = random_vector(rng, d.m()), b = random_vector(rng, d.m()), c(d.m());
    for (std::size_t i = 0; i < d.m(); ++i) c[i] = a[i] * b[i];
    std::vector<Fr> ca = a, cb = b, cc = c;  // become coefficients of A, B, C
    intt(ca, d);
    intt(cb, d);
    intt(cc, d);
    std::vector<Fr> h = ca, hb = cb, hc = cc;
    coset_ntt(h, d, Order::Natural, Order::BitReversed);
    coset_ntt(hb, d, Order::Natural, Order::BitReversed);
    coset_ntt(hc, d, Order::Natural, Order::BitReversed);
    for (std::size_t i = 0; i < d.m(); ++i) h[i] = (h[i] * hb[i] - hc[i]) * d.coset_vanishing_inv();
    icoset_ntt(h, d, Order::BitReversed, Order::Natural);
    EXPECT_TRUE(h.back().is_zero()) << "deg h <= m - 2";
    const Fr tau = Fr::random(rng);
    EXPECT_EQ(horner(ca, tau) * horner(cb, tau) - horner(cc, tau), horner(h, tau) * d.vanishing_at(tau)) << k;
  }
}

TEST(Ntt, OneThreadGivesTheSameResult) {
  SeededRng rng(test_seed("Ntt.OneThreadGivesTheSameResult"));
  const EvaluationDomain d(15);
  const std::vector<Fr> x = random_vector(rng, d.m());
  std::vector<Fr> many = x, one = x;
  coset_ntt(many, d);
  tbb::task_arena arena(1);
  arena.execute([&] { coset_ntt(one, d); });
  EXPECT_EQ(many, one);
}

TEST(Ntt, BitReversePermutation) {
  SeededRng rng(test_seed("Ntt.BitReversePermutation"));
  for (std::size_t k = 0; k <= 12; ++k) {
    const std::vector<Fr> x = random_vector(rng, std::size_t(1) << k);
    std::vector<Fr> v = x;
    bit_reverse_permute(v);
    ASSERT_EQ(v, arrange(x, Order::BitReversed)) << k;
    bit_reverse_permute(v);
    ASSERT_EQ(v, x) << k;
  }
  std::vector<Fr> bad(12);
  EXPECT_THROW(bit_reverse_permute(bad), std::invalid_argument);
}

TEST(Ntt, RejectsAMismatchedSize) {
  const EvaluationDomain d(4);
  std::vector<Fr> v(15);
  EXPECT_THROW(ntt(v, d), std::invalid_argument);
  EXPECT_THROW(intt(v, d), std::invalid_argument);
  EXPECT_THROW(coset_ntt(v, d), std::invalid_argument);
  EXPECT_THROW(icoset_ntt(v, d), std::invalid_argument);
}
