// The circom and snarkjs readers against crafted hostile input (issue 27): header counts that
// the file cannot pay for, JSON nested without bound, values too large to echo, and
// verifying keys with points at infinity. Every case is a typed error naming the field.
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

#include "circom/r1cs.hpp"
#include "circom/snarkjs_json.hpp"

using namespace snarkpipe;
using namespace snarkpipe::circom;
using nlohmann::json;

namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("snarkpipe-test-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

void write_bytes(const std::string& path, const std::vector<std::uint8_t>& b) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

void put32(std::vector<std::uint8_t>& b, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(std::uint8_t(v >> (8 * i)));
}
void put64(std::vector<std::uint8_t>& b, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) b.push_back(std::uint8_t(v >> (8 * i)));
}

// A circom .r1cs (r1cs.hpp's layout) with small coefficients.
struct CraftedR1cs {
  struct Term {
    std::uint32_t wire;
    std::uint64_t coeff;
  };
  using Lc = std::vector<Term>;
  std::uint32_t wires = 0, pub_out = 0, pub_in = 0, prv_in = 0;
  std::uint64_t labels = 0;
  std::vector<std::array<Lc, 3>> constraints;
  std::optional<std::vector<std::uint64_t>> map;  // section 3, when present

  std::vector<std::uint8_t> bytes() const {
    std::vector<std::uint8_t> header;
    put32(header, 32);
    for (const std::uint64_t limb : ff::Fr::MODULUS) put64(header, limb);
    put32(header, wires);
    put32(header, pub_out);
    put32(header, pub_in);
    put32(header, prv_in);
    put64(header, labels);
    put32(header, std::uint32_t(constraints.size()));
    std::vector<std::uint8_t> cons;
    for (const auto& abc : constraints)
      for (const Lc& lc : abc) {
        put32(cons, std::uint32_t(lc.size()));
        for (const Term& t : lc) {
          put32(cons, t.wire);
          put64(cons, t.coeff);
          for (int i = 0; i < 3; ++i) put64(cons, 0);
        }
      }
    std::vector<std::uint8_t> out = {'r', '1', 'c', 's'};
    put32(out, 1);
    put32(out, map ? 3 : 2);
    auto section = [&](std::uint32_t type, const std::vector<std::uint8_t>& body) {
      put32(out, type);
      put64(out, body.size());
      out.insert(out.end(), body.begin(), body.end());
    };
    section(1, header);
    section(2, cons);
    if (map) {
      std::vector<std::uint8_t> m;
      for (const std::uint64_t l : *map) put64(m, l);
      section(3, m);
    }
    return out;
  }
};

// The file of issue 27: 16.5 KB whose header claims 2^25 wires, nearly all public outputs.
CraftedR1cs claims_many_wires(std::uint32_t wires) {
  CraftedR1cs f;
  f.wires = wires;
  f.pub_out = wires - 4;
  f.pub_in = 1;
  f.prv_in = 1;
  f.labels = wires;
  for (std::uint32_t k = 0; k < 150; ++k) f.constraints.push_back({{{{k + 1, 1}}, {{k + 2, 1}}, {{k + 3, 1}}}});
  return f;
}

constexpr std::uint64_t NWIRES_OFFSET = 12 + 12 + 4 + 32;  // file header, section header, n8, prime

}  // namespace

TEST(CircomR1cs, HeaderCountsTheFileCannotPayForAreRefusedBeforeAnythingIsBuilt) {
  const std::string path = temp_path("many-wires.r1cs");
  for (const std::uint32_t wires : {std::uint32_t(1) << 25, std::uint32_t(1) << 26, std::uint32_t(0xffffffff)}) {
    const CraftedR1cs f = claims_many_wires(wires);
    const std::vector<std::uint8_t> bytes = f.bytes();
    ASSERT_LT(bytes.size(), 20000u);
    write_bytes(path, bytes);
    const auto t0 = std::chrono::steady_clock::now();
    try {
      read_circom_r1cs(path);
      ADD_FAILURE() << "nWires = " << wires << " accepted from a " << bytes.size() << "-byte file";
    } catch (const FormatError& e) {
      EXPECT_EQ(e.section(), "1 (header)") << e.what();
      EXPECT_EQ(e.offset(), NWIRES_OFFSET) << e.what();
      EXPECT_NE(e.problem().find("nWires = " + std::to_string(wires)), std::string::npos) << e.what();
      EXPECT_NE(e.problem().find("without a wire-to-label map"), std::string::npos) << e.what();
    }
    // It took 30 s and 2.95 GB before (std::bad_alloc at 2^26): now nothing is built.
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);

    // A map that does not hold nWires entries: refused before the constraints are read.
    CraftedR1cs mapped = f;
    mapped.map = std::vector<std::uint64_t>(16, 0);
    write_bytes(path, mapped.bytes());
    try {
      read_circom_r1cs(path);
      ADD_FAILURE() << "a 16-entry map accepted for nWires = " << wires;
    } catch (const FormatError& e) {
      EXPECT_EQ(e.section(), "3 (wire-to-label map)") << e.what();
      EXPECT_NE(e.problem().find("nWires = " + std::to_string(wires)), std::string::npos) << e.what();
    }
  }
  std::filesystem::remove(path);
}

TEST(CircomR1cs, SmallCircuitsStillRead) {
  // Wires: ONE, out, in, prv, t; constraints in·prv = t and t·1 = out.
  CraftedR1cs f;
  f.wires = 5;
  f.pub_out = 1;
  f.pub_in = 1;
  f.prv_in = 1;
  f.labels = 7;
  f.constraints.push_back({{{{2, 1}}, {{3, 1}}, {{4, 1}}}});
  f.constraints.push_back({{{{4, 1}}, {{0, 1}}, {{1, 1}}}});
  const std::string path = temp_path("small.r1cs");
  for (const bool with_map : {false, true}) {
    CraftedR1cs g = f;
    if (with_map) g.map = std::vector<std::uint64_t>{0, 1, 2, 3, 6};
    write_bytes(path, g.bytes());
    const CircomR1cs r = read_circom_r1cs(path);
    EXPECT_EQ(r.num_wires, 5u);
    EXPECT_EQ(r.r1cs.num_inputs, 3u);  // ONE, out, in
    EXPECT_EQ(r.r1cs.num_aux, 2u);
    EXPECT_EQ(r.r1cs.num_constraints, 2u + 3u);
    EXPECT_EQ(r.wire_to_label.size(), with_map ? 5u : 0u);
  }
  std::filesystem::remove(path);
}

TEST(SnarkjsJson, NestingIsBoundedBeforeParsing) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  try {
    parse_json_text(deep, "deep.json");
    ADD_FAILURE() << "100000 levels accepted";
  } catch (const JsonFormatError& e) {
    EXPECT_NE(std::string(e.what()).find("deep.json: arrays and objects nest deeper than 64 levels"), std::string::npos)
        << e.what();
  }
  std::string objects;
  for (int i = 0; i < 100000; ++i) objects += "{\"a\":";
  objects += "1" + std::string(100000, '}');
  EXPECT_THROW(parse_json_text(objects, "objects.json"), JsonFormatError);
  // 64 levels are fine, 65 are not.
  EXPECT_NO_THROW(parse_json_text(std::string(64, '[') + std::string(64, ']'), "64.json"));
  EXPECT_THROW(parse_json_text(std::string(65, '[') + std::string(65, ']'), "65.json"), JsonFormatError);
  // Brackets inside strings (escaped quotes included) are text, not nesting.
  const std::string in_string = "[\"\\\"" + std::string(1000, '[') + std::string(1000, '{') + "\"]";
  EXPECT_EQ(parse_json_text(in_string, "s.json")[0].get<std::string>().size(), 2001u);
  // Text that is not JSON still says so.
  EXPECT_THROW(parse_json_text("[1,", "cut.json"), JsonFormatError);

  // From a file, as `snarkpipe verify` reads public.json, vk.json and proof.json.
  const std::string path = temp_path("deep.json");
  std::ofstream(path) << deep << "\n";
  try {
    read_json_file(path);
    ADD_FAILURE() << "deep file accepted";
  } catch (const JsonFormatError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": arrays and objects nest deeper"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
}

TEST(SnarkjsJson, ErrorsDescribeValuesWithoutEchoingThem) {
  EXPECT_EQ(describe_json(json::array({1, 2, 3})), "an array of 3 values");
  EXPECT_EQ(describe_json(json::array({json::array()})), "an array of 1 value");
  EXPECT_EQ(describe_json(json{{"a", 1}}), "an object of 1 member");
  EXPECT_EQ(describe_json(json(12)), "12");
  EXPECT_EQ(describe_json(json(nullptr)), "null");
  EXPECT_EQ(describe_json(json("12x")), "\"12x\"");
  EXPECT_EQ(describe_json(json(std::string(1000, '7'))), "\"" + std::string(40, '7') + "\" (cut; 1000 bytes)");
  EXPECT_NO_THROW(describe_json(json(std::string("\xff\xfe not UTF-8"))));

  // A value nested as deep as the parser allows, where a number belongs: described in a line.
  const json nested = parse_json_text("[" + std::string(60, '[') + std::string(60, ']') + "]", "public.json");
  try {
    public_from_json(nested, "public.json");
    ADD_FAILURE() << "a nested array accepted as a public input";
  } catch (const JsonFormatError& e) {
    EXPECT_EQ(std::string(e.what()), "public.json: [0]: an array of 1 value is not a decimal integer below r");
  }
  json proof =
      proof_to_json(groth16::Proof{ec::G1Curve::generator(), ec::G2Curve::generator(), ec::G1Curve::generator()});
  proof["pi_a"][0] = nested;
  try {
    proof_from_json(proof, "proof.json");
    ADD_FAILURE() << "a nested coordinate accepted";
  } catch (const JsonFormatError& e) {
    EXPECT_EQ(std::string(e.what()), "proof.json: pi_a[0]: expected a decimal string, got an array of 1 value");
  }
  proof = proof_to_json(groth16::Proof{ec::G1Curve::generator(), ec::G2Curve::generator(), ec::G1Curve::generator()});
  proof["protocol"] = std::string(100000, 'p');
  try {
    proof_from_json(proof, "proof.json");
    ADD_FAILURE() << "protocol accepted";
  } catch (const JsonFormatError& e) {
    EXPECT_LT(std::string(e.what()).size(), 200u) << e.what();
    EXPECT_NE(std::string(e.what()).find("(cut; 100000 bytes) is not \"groth16\""), std::string::npos) << e.what();
  }
}

TEST(SnarkjsJson, VerifyingKeyPointsAtInfinityAreRefused) {
  groth16::VerifyingKey vk;
  vk.alpha_g1 = ec::G1Curve::generator();
  vk.beta_g2 = vk.gamma_g2 = vk.delta_g2 = ec::G2Curve::generator();
  vk.ic = {ec::G1Curve::generator(), ec::G1Curve::generator()};
  const json good = vk_to_json(vk);
  const groth16::VerifyingKey back = vk_from_json(good);
  EXPECT_EQ(back.alpha_g1, vk.alpha_g1);
  EXPECT_EQ(back.delta_g2, vk.delta_g2);
  const json g1_infinity = json::array({"0", "1", "0"});
  const json g2_infinity = json::array({json::array({"0", "0"}), json::array({"1", "0"}), json::array({"0", "0"})});
  for (const char* field : {"vk_alpha_1", "vk_beta_2", "vk_gamma_2", "vk_delta_2"}) {
    json bad = good;
    bad[field] = std::string(field) == "vk_alpha_1" ? g1_infinity : g2_infinity;
    try {
      vk_from_json(bad, "vk.json");
      ADD_FAILURE() << field << " at infinity accepted";
    } catch (const JsonFormatError& e) {
      EXPECT_EQ(std::string(e.what()), "vk.json: " + std::string(field) + ": the point at infinity");
    }
  }
}
