// The GPU zkey prover (cuda/zkey_prover.hpp) against the CPU one (circom/prover.hpp): for fixed
// r, s the same proof bytes, on keys of several sizes with fresh random contents: random rows
// (signals in A and B, and some in neither), bases of which some are the identity (signals
// absent from a matrix), and witnesses mostly 0/1 as circom's are. The proof of such a key
// does not verify (its points are no ceremony's); equality with the CPU prover, whose proofs
// snarkjs verifies (tests/interop/circom), is the property.
#include <gtest/gtest.h>

#include <random>
#include <tuple>
#include <type_traits>

#include "circom/prover.hpp"
#include "cuda/zkey_prover.hpp"
#include "gpu_skip.hpp"
#include "test_seed.hpp"

namespace snarkpipe::cuda {
namespace {

using ff::Fr;

// Uniform words for Fr::random and the distributions alike.
struct Rng : std::mt19937_64 {
  using std::mt19937_64::mt19937_64;
  std::uint64_t next_u64() { return (*this)(); }
};

template <class Aff>
std::vector<Aff> random_points(std::size_t n, Rng& rng, double identity_share) {
  using J = ec::Jacobian<std::conditional_t<std::is_same_v<Aff, ec::G1Affine>, ec::G1Curve, ec::G2Curve>>;
  const J step = J::generator() * Fr::random(rng);
  J p = J::generator() * Fr::random(rng);
  std::vector<Aff> out(n);
  std::bernoulli_distribution identity(identity_share);
  for (auto& a : out) {
    p = p + step;
    a = identity(rng) ? Aff{} : p.to_affine();
  }
  return out;
}

circom::Zkey random_zkey(std::uint32_t log_m, std::uint32_t vars, std::uint32_t pub, Rng& rng) {
  circom::Zkey z;
  z.num_vars = vars;
  z.num_public = pub;
  z.domain_size = 1u << log_m;
  z.vk.alpha_g1 = random_points<ec::G1Affine>(1, rng, 0)[0];
  z.vk.beta_g1 = random_points<ec::G1Affine>(1, rng, 0)[0];
  z.vk.delta_g1 = random_points<ec::G1Affine>(1, rng, 0)[0];
  z.vk.beta_g2 = random_points<ec::G2Affine>(1, rng, 0)[0];
  z.vk.gamma_g2 = random_points<ec::G2Affine>(1, rng, 0)[0];
  z.vk.delta_g2 = random_points<ec::G2Affine>(1, rng, 0)[0];
  z.vk.ic = random_points<ec::G1Affine>(pub + 1, rng, 0);
  const std::uint32_t rows = z.domain_size - z.domain_size / 8;  // the last rows empty, as padding is
  std::uniform_int_distribution<std::uint32_t> signal(0, vars - 1), per_row(0, 4);
  for (std::uint32_t mat = 0; mat < 2; ++mat)
    for (std::uint32_t k = 0; k < rows; ++k)
      for (std::uint32_t j = per_row(rng); j > 0; --j) z.coefficients.push_back({mat, k, signal(rng), Fr::random(rng)});
  z.a = random_points<ec::G1Affine>(vars, rng, 0.2);
  z.b1 = random_points<ec::G1Affine>(vars, rng, 0.5);
  z.b2 = random_points<ec::G2Affine>(vars, rng, 0.5);
  z.c = random_points<ec::G1Affine>(vars - pub - 1, rng, 0.1);
  z.h = random_points<ec::G1Affine>(z.domain_size, rng, 0);
  return z;
}

TEST(CudaZkey, GivesTheCpuProverBytes) {
  SNARKPIPE_REQUIRE_GPU();
  Rng rng(::test_seed("CudaZkey.Bytes"));
  for (const auto& [log_m, vars, pub] :
       {std::tuple{6u, 40u, 3u}, std::tuple{12u, 3000u, 1u}, std::tuple{16u, 70001u, 17u}}) {
    SCOPED_TRACE("2^" + std::to_string(log_m) + " rows, " + std::to_string(vars) + " signals");
    const circom::ZkeyProver cpu(random_zkey(log_m, vars, pub, rng));
    GpuZkeyProver gpu(cpu);
    std::vector<Fr> w(vars);
    std::discrete_distribution<int> kind({45, 45, 10});  // 0, 1, or any value
    for (auto& x : w) {
      const int k = kind(rng);
      x = k == 0 ? Fr::zero() : k == 1 ? Fr::one() : Fr::random(rng);
    }
    w[0] = Fr::one();
    for (int run = 0; run < 2; ++run) {  // the key stays resident
      const groth16::ProverRandomness rs{Fr::random(rng), Fr::random(rng)};
      circom::ZkeyProverTimings t;
      EXPECT_EQ(gpu.prove(w, rs, &t).to_bytes(), cpu.prove(w, rs).to_bytes());
      EXPECT_GT(t.total_ms, 0);
    }
    EXPECT_GT(gpu.device_bytes(), 0u);
    // A witness for another key is refused before any work, with the counts.
    std::vector<Fr> short_w(w.begin(), w.end() - 1);
    try {
      gpu.prove(short_w, groth16::ProverRandomness::random());
      ADD_FAILURE() << "a short witness was accepted";
    } catch (const groth16::ProverError& e) {
      EXPECT_NE(std::string(e.what()).find(std::to_string(vars)), std::string::npos) << e.what();
    }
    // And an unsatisfying one never comes back from prove_checked.
    EXPECT_THROW(gpu.prove_checked(w, groth16::ProverRandomness::random()), groth16::ProverError);
  }
}

}  // namespace
}  // namespace snarkpipe::cuda
