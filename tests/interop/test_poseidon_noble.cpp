// Poseidon against an independent implementation: @noble/curves' grainGenConstants, seeded as
// neptune seeds its Grain LFSR (S-box code 1, noble's isSboxInverse bits), gives the round
// constants for our arities and round numbers; neptune's Cauchy MDS matrix is built in the
// script with noble's field; noble's poseidon permutes random states and hashes random inputs
// drawn from a fresh seed with them (tests/interop/poseidon_vectors.mjs). snarkpipe's
// constants, matrix, both permutations (neptune's optimised schedule and the textbook one) and
// hash must agree exactly, and noble's hash of [0, 1, ..., a − 1] must be neptune's known
// digest (checked against neptune's values in test_poseidon).
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "gadgets/poseidon.hpp"
#include "test_seed.hpp"

namespace gadgets = snarkpipe::gadgets;
using nlohmann::json;
using snarkpipe::ff::Fr;

namespace {

constexpr std::size_t ARITIES[] = {2, 4, 8, 11, 16, 24, 36};

json run_noble(std::uint64_t seed) {
  std::string shapes;
  for (std::size_t a : ARITIES) {
    if (!shapes.empty()) shapes += ",";
    shapes += std::to_string(a) + ":" + std::to_string(gadgets::poseidon_params(a).partial_rounds);
  }
  char seed_hex[17];
  std::snprintf(seed_hex, sizeof(seed_hex), "%016llx", static_cast<unsigned long long>(seed));
  const std::string cmd =
      std::string("node ") + SNARKPIPE_INTEROP_DIR + "/poseidon_vectors.mjs " + seed_hex + " 6 " + shapes;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  if (!pipe) throw std::runtime_error("cannot run: " + cmd);
  std::string out;
  char buf[65536];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe.get())) > 0) out.append(buf, n);
  if (out.empty())
    throw std::runtime_error("no output from `" + cmd + "` (run `make test`, which runs `npm ci` in tests/interop)");
  return json::parse(out);
}

Fr fr(const json& j) { return Fr::from_hex(j.get<std::string>()); }

class PoseidonNoble : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { vectors = new json(run_noble(test_seed("PoseidonNoble"))); }
  static void TearDownTestSuite() { delete vectors; }
  static json* vectors;
};
json* PoseidonNoble::vectors = nullptr;

}  // namespace

TEST_F(PoseidonNoble, GrainConstantsAndMdsMatch) {
  ASSERT_EQ((*vectors)["params"].size(), std::size(ARITIES));
  for (const json& v : (*vectors)["params"]) {
    const gadgets::PoseidonParams& p = gadgets::poseidon_params(v["arity"].get<std::size_t>());
    SCOPED_TRACE("arity " + std::to_string(p.arity));
    ASSERT_EQ(v["width"].get<std::size_t>(), p.width);
    ASSERT_EQ(v["round_constants"].size(), p.rounds());
    for (std::size_t r = 0; r < p.rounds(); ++r) {
      for (std::size_t i = 0; i < p.width; ++i) {
        ASSERT_EQ(p.round_constants_of(r)[i], fr(v["round_constants"][r][i])) << "round " << r << " element " << i;
      }
    }
    for (std::size_t i = 0; i < p.width; ++i) {
      for (std::size_t j = 0; j < p.width; ++j) ASSERT_EQ(p.m(i, j), fr(v["mds"][i][j])) << i << "," << j;
    }
  }
}

TEST_F(PoseidonNoble, PermutationAndHashMatch) {
  for (const json& v : (*vectors)["params"]) {
    const gadgets::PoseidonParams& p = gadgets::poseidon_params(v["arity"].get<std::size_t>());
    SCOPED_TRACE("arity " + std::to_string(p.arity));
    ASSERT_FALSE(v["permutations"].empty());
    for (const json& t : v["permutations"]) {
      std::vector<Fr> state;
      for (const json& x : t["input"]) state.push_back(fr(x));
      std::vector<Fr> reference = state;
      gadgets::native::poseidon_permute(p, state);
      gadgets::native::poseidon_permute_reference(p, reference);
      for (std::size_t i = 0; i < p.width; ++i) {
        EXPECT_EQ(state[i].to_hex(), t["output"][i]);
        EXPECT_EQ(reference[i].to_hex(), t["output"][i]);
      }
    }
    ASSERT_FALSE(v["hashes"].empty());
    for (const json& t : v["hashes"]) {
      std::vector<Fr> inputs;
      for (const json& x : t["inputs"]) inputs.push_back(fr(x));
      EXPECT_EQ(gadgets::native::poseidon_hash(p, inputs).to_hex(), t["hash"]);
    }
    std::vector<Fr> counting;
    for (std::size_t i = 0; i < p.arity; ++i) counting.push_back(Fr::from_u64(i));
    EXPECT_EQ(gadgets::native::poseidon_hash(p, counting).to_hex(), v["hash_of_counting"]);
  }
}
