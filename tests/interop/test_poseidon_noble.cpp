// Poseidon against an independent implementation: @noble/curves' grainGenConstants and
// poseidon (tests/interop/poseidon_vectors.mjs) generate the round constants and MDS matrix
// for our arities and round numbers, permute random states and hash random inputs drawn from
// a fresh seed; snarkpipe's parameters, permutation and hash must agree exactly.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "gadgets/poseidon.hpp"
#include "test_seed.hpp"

namespace gadgets = snarkpipe::gadgets;
using snarkpipe::ff::Fr;
using nlohmann::json;

namespace {

constexpr std::size_t ARITIES[] = {2, 4, 8, 11};

json run_noble(std::uint64_t seed) {
  std::string shapes;
  for (std::size_t a : ARITIES) {
    if (!shapes.empty()) shapes += ",";
    shapes += std::to_string(a) + ":" + std::to_string(gadgets::poseidon_params(a).partial_rounds);
  }
  char seed_hex[17];
  std::snprintf(seed_hex, sizeof(seed_hex), "%016llx", static_cast<unsigned long long>(seed));
  const std::string cmd = std::string("node ") + SNARKPIPE_INTEROP_DIR + "/poseidon_vectors.mjs " + seed_hex + " 6 " + shapes;
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
      gadgets::native::poseidon_permute(p, state);
      for (std::size_t i = 0; i < p.width; ++i) EXPECT_EQ(state[i].to_hex(), t["output"][i]);
    }
    ASSERT_FALSE(v["hashes"].empty());
    for (const json& t : v["hashes"]) {
      std::vector<Fr> inputs;
      for (const json& x : t["inputs"]) inputs.push_back(fr(x));
      EXPECT_EQ(gadgets::native::poseidon_hash(p, inputs).to_hex(), t["hash"]);
    }
  }
}
