// Known answers from an independent implementation: @noble/curves (tests/interop, pinned by
// package-lock.json) produces vectors from a fresh seed at test time, and snarkpipe must agree
// byte for byte: field products, point encodings, decodings, pairings, and the rejection of
// invalid encodings (with the same reason).
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "ec/encoding.hpp"
#include "ff/random.hpp"
#include "pairing/pairing.hpp"
#include "test_seed.hpp"

namespace ec = snarkpipe::ec;
namespace ff = snarkpipe::ff;
using ec::G1Affine;
using ec::G1Jacobian;
using ec::G2Affine;
using ec::G2Jacobian;
using ff::Fp;
using ff::Fp2;
using ff::Fr;
using nlohmann::json;

namespace {

std::vector<std::uint8_t> unhex(const std::string& s) {
  std::vector<std::uint8_t> out(s.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = std::uint8_t(std::stoul(s.substr(2 * i, 2), nullptr, 16));
  return out;
}
template <std::size_t N>
std::string hex(const std::array<std::uint8_t, N>& b) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (auto x : b) {
    s.push_back(d[x >> 4]);
    s.push_back(d[x & 15]);
  }
  return s;
}
Fp fp(const json& j) { return Fp::from_hex(j.get<std::string>()); }
Fr fr(const json& j) { return Fr::from_hex(j.get<std::string>()); }
Fp2 fp2(const json& j) { return {fp(j[0]), fp(j[1])}; }

json run_noble(std::uint64_t seed) {
  char seed_hex[17];
  std::snprintf(seed_hex, sizeof(seed_hex), "%016llx", static_cast<unsigned long long>(seed));
  const std::string cmd = std::string("node ") + SNARKPIPE_INTEROP_DIR + "/noble_vectors.mjs " + seed_hex + " 8";
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

ec::DecodeError expected_error(const std::string& kind) {
  if (kind == "bad_flags") return ec::DecodeError::Flags;
  if (kind == "x_not_canonical") return ec::DecodeError::CoordinateRange;
  if (kind == "not_on_curve") return ec::DecodeError::NotOnCurve;
  if (kind == "not_in_subgroup") return ec::DecodeError::NotInSubgroup;
  if (kind == "bad_length") return ec::DecodeError::Length;
  throw std::runtime_error("unknown invalid-encoding kind " + kind);
}

class NobleInterop : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { vectors = new json(run_noble(test_seed("NobleInterop"))); }
  static void TearDownTestSuite() { delete vectors; }
  static json* vectors;
};
json* NobleInterop::vectors = nullptr;

}  // namespace

TEST_F(NobleInterop, FieldArithmetic) {
  const json& v = *vectors;
  ASSERT_FALSE(v["fp_mul"].empty());
  for (const auto& t : v["fp_mul"]) EXPECT_EQ((fp(t["a"]) * fp(t["b"])).to_hex(), t["ab"]);
  for (const auto& t : v["fr_mul"]) EXPECT_EQ((fr(t["a"]) * fr(t["b"])).to_hex(), t["ab"]);
  for (const auto& t : v["fp_inv"]) EXPECT_EQ(fp(t["a"]).inverse().to_hex(), t["inv"]);
  for (const auto& t : v["fp_sqrt"]) {
    const auto r = fp(t["square"]).sqrt();
    ASSERT_TRUE(r.has_value());
    EXPECT_TRUE(*r == fp(t["a"]) || *r == -fp(t["a"]));
  }
  for (const auto& t : v["fp2_mul"]) EXPECT_EQ(fp2(t["a"]) * fp2(t["b"]), fp2(t["ab"]));
}

TEST_F(NobleInterop, G1EncodingsAndDecodings) {
  for (const auto& t : (*vectors)["g1"]) {
    const G1Affine p = (G1Jacobian::generator() * fr(t["k"])).to_affine();
    EXPECT_EQ(hex(ec::g1_to_compressed(p)), t["compressed"]) << "k=" << t["k"];
    EXPECT_EQ(hex(ec::g1_to_uncompressed(p)), t["uncompressed"]) << "k=" << t["k"];
    if (!t["x"].is_null()) {
      EXPECT_EQ(p.x, fp(t["x"]));
      EXPECT_EQ(p.y, fp(t["y"]));
    }
    EXPECT_EQ(ec::g1_from_bytes(unhex(t["compressed"])).value(), p);
    EXPECT_EQ(ec::g1_from_bytes(unhex(t["uncompressed"])).value(), p);
  }
  for (const auto& t : (*vectors)["g1_add"]) {
    const G1Jacobian a = G1Jacobian::generator() * fr(t["k1"]);
    const G1Jacobian b = G1Jacobian::generator() * fr(t["k2"]);
    EXPECT_EQ(hex(ec::g1_to_uncompressed((a + b).to_affine())), t["sum_uncompressed"]);
  }
}

TEST_F(NobleInterop, G2EncodingsAndDecodings) {
  for (const auto& t : (*vectors)["g2"]) {
    const G2Affine p = (G2Jacobian::generator() * fr(t["k"])).to_affine();
    EXPECT_EQ(hex(ec::g2_to_compressed(p)), t["compressed"]) << "k=" << t["k"];
    EXPECT_EQ(hex(ec::g2_to_uncompressed(p)), t["uncompressed"]) << "k=" << t["k"];
    if (!t["x"].is_null()) {
      EXPECT_EQ(p.x, fp2(t["x"]));
      EXPECT_EQ(p.y, fp2(t["y"]));
    }
    EXPECT_EQ(ec::g2_from_bytes(unhex(t["compressed"])).value(), p);
    EXPECT_EQ(ec::g2_from_bytes(unhex(t["uncompressed"])).value(), p);
  }
}

TEST_F(NobleInterop, Pairings) {
  const json& v = *vectors;
  auto coeffs_hex = [](const ff::Fp12& f) {
    std::vector<std::string> out;
    for (const Fp& c : f.coefficients()) out.push_back(c.to_hex());
    return out;
  };
  const auto gens = snarkpipe::pairing::pairing(G1Affine::generator(), G2Affine::generator());
  EXPECT_EQ(coeffs_hex(gens), v["pairing_generators"].get<std::vector<std::string>>());
  ASSERT_FALSE(v["pairing"].empty());
  for (const auto& t : v["pairing"]) {
    const G1Affine p = (G1Jacobian::generator() * fr(t["a"])).to_affine();
    const G2Affine q = (G2Jacobian::generator() * fr(t["b"])).to_affine();
    EXPECT_EQ(coeffs_hex(snarkpipe::pairing::pairing(p, q)), t["gt"].get<std::vector<std::string>>());
  }
}

TEST_F(NobleInterop, InvalidEncodingsRejectedByBoth) {
  int count = 0;
  for (const char* group : {"invalid_g1", "invalid_g2"}) {
    for (const auto& t : (*vectors)[group]) {
      ++count;
      const auto bytes = unhex(t["bytes"]);
      EXPECT_TRUE(t["noble_rejects"].get<bool>()) << group << " " << t["kind"] << " accepted by noble";
      const bool is_g1 = std::string(group) == "invalid_g1";
      const bool ok = is_g1 ? ec::g1_from_bytes(bytes).ok() : ec::g2_from_bytes(bytes).ok();
      ASSERT_FALSE(ok) << group << " " << t["kind"] << " accepted: " << t["bytes"];
      const auto err = is_g1 ? ec::g1_from_bytes(bytes).error() : ec::g2_from_bytes(bytes).error();
      EXPECT_EQ(err, expected_error(t["kind"]))
          << group << " " << t["kind"] << " (" << t["form"] << ") got: " << ec::describe(err)
          << "; noble: " << t["noble_error"] << "; bytes " << t["bytes"];
    }
  }
  EXPECT_GE(count, 20);
}
