// The circom/snarkjs readers on real files (made by run.sh: circom2 + snarkjs, fixture
// "circom_files") and on corrupted copies of them: every defect must give a FormatError that
// names the right section and byte offset, another curve's prime an UnsupportedCurveError.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <unistd.h>

#include "circom/prover.hpp"
#include "circom/r1cs.hpp"
#include "circom/snarkjs_json.hpp"
#include "circom/wtns.hpp"
#include "circom/zkey.hpp"
#include "circuit/spmv.hpp"
#include "groth16/verifier.hpp"

using namespace snarkpipe;
using namespace snarkpipe::circom;

namespace {

const std::string WORK = SNARKPIPE_CIRCOM_WORK;

using Bytes = std::vector<std::uint8_t>;

Bytes load(const std::string& path) { return read_whole_file(path); }

struct Sec {
  std::uint64_t header;  // offset of the section's type field
  std::uint64_t body;
  std::uint64_t size;
};

std::uint64_t le(const Bytes& b, std::uint64_t at, int n) {
  std::uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | b[at + i];
  return v;
}
void put_le(Bytes& b, std::uint64_t at, std::uint64_t v, int n) {
  for (int i = 0; i < n; ++i) b[at + i] = std::uint8_t(v >> (8 * i));
}

std::map<std::uint32_t, Sec> sections(const Bytes& b) {
  std::map<std::uint32_t, Sec> out;
  std::uint64_t pos = 12;
  for (std::uint64_t i = 0, n = le(b, 8, 4); i < n; ++i) {
    const auto type = std::uint32_t(le(b, pos, 4));
    const std::uint64_t size = le(b, pos + 4, 8);
    out[type] = {pos, pos + 12, size};
    pos += 12 + size;
  }
  return out;
}

std::string write_tmp(const Bytes& b, const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("snarkpipe-circom-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
  return path;
}

// Runs `read` on `bytes` and checks the error's type, section and offset.
template <class Error = FormatError>
void expect_error(const std::function<void(const std::string&)>& read, const Bytes& bytes, const std::string& section,
                  std::uint64_t offset, const std::string& words = "") {
  const std::string path = write_tmp(bytes, "bad");
  try {
    read(path);
    ADD_FAILURE() << "no error for a file that should fail in section " << section << " at " << offset;
  } catch (const Error& e) {
    EXPECT_EQ(e.section(), section) << e.what();
    EXPECT_EQ(e.offset(), offset) << e.what();
    EXPECT_NE(std::string(e.what()).find("byte offset " + std::to_string(offset)), std::string::npos) << e.what();
    if (!words.empty()) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong error type: " << e.what();
  }
}

// BN254's scalar field (circom's default prime), little-endian.
Bytes bn128_r() {
  const ff::Limbs<4> r = ff::parse_hex<4>("30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001");
  Bytes b(32);
  for (int i = 0; i < 32; ++i) b[i] = std::uint8_t(r[i / 8] >> (8 * (i % 8)));
  return b;
}

auto read_r1cs_fn = [](const std::string& p) { read_circom_r1cs(p); };
auto read_wtns_fn = [](const std::string& p) { read_wtns(p); };
auto read_zkey_fn = [](const std::string& p) { read_zkey(p, {true}); };

}  // namespace

TEST(CircomFiles, SnarkjsRootOfUnity) {
  // ffjavascript's Fr.w[32] for bls12381 (5^((r-1)/2^32)).
  EXPECT_EQ(snarkjs_root_of_unity(32).to_hex(), "0212d79e5b416b6f0fd56dc8d168d6c0c4024ff270b3e0941b788f500b912f1f");
  EXPECT_EQ(ff::FR_ROOT_OF_UNITY.pow(std::uint64_t(snarkjs_root_exponent())), snarkjs_root_of_unity(32));
  EXPECT_EQ(snarkjs_root_exponent() % 2, 1u);
}

TEST(CircomFiles, ReadsAndProvesTheMerkleCircuit) {
  const std::string d = WORK + "/merkle/";
  const CircomR1cs cr = read_circom_r1cs(d + "main.r1cs");
  EXPECT_EQ(cr.num_public(), 1u);  // the root
  EXPECT_EQ(cr.wire_to_label.size(), cr.num_wires);
  EXPECT_EQ(cr.r1cs.num_inputs, 2u);
  EXPECT_EQ(cr.r1cs.num_constraints, std::uint64_t(cr.num_constraints) + 2);
  const std::vector<ff::Fr> w = read_wtns(d + "w.wtns");
  ASSERT_EQ(w.size(), cr.num_wires);
  const groth16::Witness sw = split_witness(w, cr.num_public());
  EXPECT_TRUE(circuit::is_satisfied(cr.r1cs, sw.inputs, sw.aux).ok());
  auto bad = sw;
  bad.aux[3] += ff::Fr::one();
  EXPECT_FALSE(circuit::is_satisfied(cr.r1cs, bad.inputs, bad.aux).ok());

  Zkey z = read_zkey(d + "k.zkey", {true});
  EXPECT_EQ(z.num_vars, cr.num_wires);
  EXPECT_EQ(z.num_public, cr.num_public());
  EXPECT_GE(z.domain_size, cr.r1cs.num_constraints);
  EXPECT_EQ(read_zkey_vk(d + "k.zkey"), z.vk);
  const ZkeyProver prover(std::move(z));
  const auto rs = groth16::ProverRandomness::random();
  const groth16::Proof proof = prover.prove_checked(w, rs);
  const std::vector<ff::Fr> x(w.begin() + 1, w.begin() + 2);
  EXPECT_TRUE(groth16::verify(groth16::PreparedVerifyingKey::from(prover.vk()), proof, x));
  // A witness that does not satisfy the circuit never yields a proof.
  std::vector<ff::Fr> wrong = w;
  wrong.back() += ff::Fr::one();
  EXPECT_THROW(prover.prove_checked(wrong, rs), groth16::ProverError);
  EXPECT_THROW(prover.prove_checked(std::span(w).first(w.size() - 1), rs), groth16::ProverError);
}

TEST(CircomFiles, MalformedR1cs) {
  const Bytes good = load(WORK + "/mulchain/main.r1cs");
  const auto s = sections(good);
  const Sec hdr = s.at(1), cons = s.at(2);
  // Truncated inside the constraints: the section's size field is where the claim fails.
  {
    Bytes b(good.begin(), good.begin() + std::ptrdiff_t(cons.body + cons.size / 2));
    expect_error(read_r1cs_fn, b, "2 (constraints)", cons.header + 4, "truncated");
  }
  // Another curve's prime (circom's default, bn128).
  {
    Bytes b = good;
    const Bytes p = bn128_r();
    std::memcpy(b.data() + hdr.body + 4, p.data(), 32);
    expect_error<UnsupportedCurveError>(read_r1cs_fn, b, "1 (header)", hdr.body + 4, "curve not supported");
  }
  // The first term's wire past nWires.
  {
    Bytes b = good;
    put_le(b, cons.body + 4, 0xfffffff0u, 4);
    expect_error(read_r1cs_fn, b, "2 (constraints)", cons.body + 4, "nWires");
  }
  // A term count past the end of the section.
  {
    Bytes b = good;
    put_le(b, cons.body, 0x10000000u, 4);
    expect_error(read_r1cs_fn, b, "2 (constraints)", cons.body, "past the end");
  }
  // A coefficient >= r.
  {
    Bytes b = good;
    std::memset(b.data() + cons.body + 8, 0xff, 32);
    expect_error(read_r1cs_fn, b, "2 (constraints)", cons.body + 8, "prime");
  }
  // nConstraints larger than the section holds.
  {
    Bytes b = good;
    const std::uint64_t at = hdr.body + 4 + 32 + 4 * 4 + 8;
    put_le(b, at, 0x7fffffffu, 4);
    expect_error(read_r1cs_fn, b, "2 (constraints)", cons.body, "nConstraints");
  }
  // Not an r1cs at all.
  {
    Bytes b = good;
    b[0] = 'x';
    expect_error(read_r1cs_fn, b, "file header", 0, "magic");
  }
}

TEST(CircomFiles, MalformedWtns) {
  const Bytes good = load(WORK + "/mulchain/w.wtns");
  const auto s = sections(good);
  const Sec hdr = s.at(1), wit = s.at(2);
  {
    Bytes b(good.begin(), good.end() - 5);
    expect_error(read_wtns_fn, b, "2 (witness)", wit.header + 4, "truncated");
  }
  {
    Bytes b = good;
    const Bytes p = bn128_r();
    std::memcpy(b.data() + hdr.body + 4, p.data(), 32);
    expect_error<UnsupportedCurveError>(read_wtns_fn, b, "1 (header)", hdr.body + 4, "bn128");
  }
  {
    Bytes b = good;
    std::memset(b.data() + wit.body + 2 * 32, 0xff, 32);
    expect_error(read_wtns_fn, b, "2 (witness)", wit.body + 64, "value 2");
  }
  {
    Bytes b = good;
    put_le(b, hdr.body + 36, le(b, hdr.body + 36, 4) + 1, 4);
    expect_error(read_wtns_fn, b, "2 (witness)", wit.body, "nWitness");
  }
}

TEST(CircomFiles, MalformedZkey) {
  const Bytes good = load(WORK + "/mulchain/k.zkey");
  const auto s = sections(good);
  const Sec g = s.at(2), coef = s.at(4), a = s.at(5), c = s.at(8), h = s.at(9);
  EXPECT_NO_THROW(read_zkey_fn(write_tmp(good, "good.zkey")));
  // Truncated: the last section (in file order) claims more bytes than remain.
  {
    Sec last{};
    for (const auto& [t, x] : s)
      if (x.header > last.header) last = x;
    Bytes b(good.begin(), good.begin() + std::ptrdiff_t(last.body + last.size / 2));
    std::uint32_t last_type = 0;
    for (const auto& [t, x] : s)
      if (x.header == last.header) last_type = t;
    const std::map<std::uint32_t, std::string> names = {{9, "9 (H)"}, {10, "10 (contributions)"}, {8, "8 (C)"}};
    expect_error(read_zkey_fn, b, names.at(last_type), last.header + 4, "truncated");
  }
  // Another curve: r of bn128, or a q of another size.
  {
    Bytes b = good;
    const Bytes p = bn128_r();
    std::memcpy(b.data() + g.body + 4 + 48 + 4, p.data(), 32);
    expect_error<UnsupportedCurveError>(read_zkey_fn, b, "2 (Groth16 header)", g.body + 4 + 48 + 4,
                                        "curve not supported");
  }
  {
    Bytes b = good;
    b[g.body + 4] ^= 1;
    expect_error<UnsupportedCurveError>(read_zkey_fn, b, "2 (Groth16 header)", g.body + 4, "BLS12-381");
  }
  // nVars one larger than the sections hold.
  {
    Bytes b = good;
    const std::uint64_t at = g.body + 4 + 48 + 4 + 32;
    put_le(b, at, le(b, at, 4) + 1, 4);
    expect_error(read_zkey_fn, b, "5 (A)", a.body, "points");
  }
  // A point off the curve (y changed, still < p), a coordinate >= p, a point outside G1.
  {
    std::uint64_t k = 0;  // a non-identity A point
    while (std::all_of(good.begin() + std::ptrdiff_t(a.body + k * 96),
                       good.begin() + std::ptrdiff_t(a.body + k * 96 + 96), [](std::uint8_t x) { return x == 0; }))
      ++k;
    Bytes b = good;
    b[a.body + k * 96 + 48] ^= 1;
    expect_error(read_zkey_fn, b, "5 (A)", a.body + k * 96, "not on the curve");
  }
  {
    Bytes b = good;
    std::memset(b.data() + h.body + 2 * 96, 0xff, 48);
    expect_error(read_zkey_fn, b, "9 (H)", h.body + 2 * 96, "not below p");
  }
  {
    // An affine point of E(Fp) outside the order-r subgroup.
    ec::G1Affine p;
    for (std::uint64_t x = 1;; ++x) {
      const auto q = ec::point_with_x<ec::G1Curve>(ff::Fp::from_u64(x));
      if (q && !ec::is_in_subgroup(*q)) {
        p = *q;
        break;
      }
    }
    Bytes b = good;
    for (std::size_t i = 0; i < 48; ++i) {
      b[c.body + i] = std::uint8_t(p.x.montgomery()[i / 8] >> (8 * (i % 8)));
      b[c.body + 48 + i] = std::uint8_t(p.y.montgomery()[i / 8] >> (8 * (i % 8)));
    }
    expect_error(read_zkey_fn, b, "8 (C)", c.body, "subgroup");
    EXPECT_NO_THROW(read_zkey(write_tmp(b, "nosub.zkey"), {false}));  // the check is optional for bulk points
  }
  // A coefficient naming a signal past nVars; a PLONK key.
  {
    Bytes b = good;
    put_le(b, coef.body + 4 + 8, 0xffffff00u, 4);
    expect_error(read_zkey_fn, b, "4 (coefficients)", coef.body + 4 + 8, "nVars");
  }
  {
    Bytes b = good;
    put_le(b, s.at(1).body, 2, 4);
    expect_error(read_zkey_fn, b, "1 (header)", s.at(1).body, "PLONK");
  }
  std::filesystem::remove_all(std::filesystem::path(write_tmp(good, "x")).parent_path());
}

TEST(CircomFiles, SnarkjsJson) {
  const std::string d = WORK + "/manypublic/";
  // snarkjs's vk.json is the .zkey's key; ours writes it back field for field (run.sh checks
  // the file), and reading that gives the same key.
  const groth16::VerifyingKey from_zkey = read_zkey_vk(d + "k.zkey");
  const groth16::VerifyingKey from_json = vk_from_json(read_json_file(d + "vk.json"));
  EXPECT_EQ(from_json.alpha_g1, from_zkey.alpha_g1);
  EXPECT_EQ(from_json.beta_g2, from_zkey.beta_g2);
  EXPECT_EQ(from_json.gamma_g2, from_zkey.gamma_g2);
  EXPECT_EQ(from_json.delta_g2, from_zkey.delta_g2);
  EXPECT_EQ(from_json.ic, from_zkey.ic);
  EXPECT_EQ(vk_to_json(from_zkey), read_json_file(d + "vk.json"));  // e(α, β) included
  EXPECT_EQ(vk_to_json(from_zkey)["nPublic"], 80);

  const nlohmann::json pj = read_json_file(d + "sj_proof.json");
  const groth16::Proof proof = proof_from_json(pj);
  EXPECT_EQ(proof_from_json(proof_to_json(proof)), proof);
  const std::vector<ff::Fr> x = public_from_json(read_json_file(d + "sj_public.json"));
  EXPECT_EQ(x.size(), 80u);
  EXPECT_TRUE(groth16::verify(groth16::PreparedVerifyingKey::from(from_json), proof, x));

  auto expect_json_error = [&](nlohmann::json j, const std::string& words) {
    try {
      proof_from_json(j);
      ADD_FAILURE() << "accepted " << j.dump();
    } catch (const JsonFormatError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  nlohmann::json bad = pj;
  bad["pi_a"][1] = "1";
  expect_json_error(bad, "pi_a: the point is not on the curve");
  bad = pj;
  const std::string p_decimal =
      "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559787";
  bad["pi_b"][0][1] = p_decimal;
  expect_json_error(bad, "pi_b[0][1]");
  bad = pj;
  bad["curve"] = "bn128";
  expect_json_error(bad, "curve not supported");
  bad = pj;
  bad["pi_c"] = nlohmann::json::array({"0", "1", "0"});
  expect_json_error(bad, "pi_c: the point at infinity");
  EXPECT_THROW(public_from_json(nlohmann::json::array({"12", "x"})), JsonFormatError);

  ff::Fp p_minus_1;
  ASSERT_TRUE(fp_from_decimal((-ff::Fp::one()).to_decimal(), p_minus_1));
  EXPECT_EQ(p_minus_1, -ff::Fp::one());
  EXPECT_FALSE(fp_from_decimal(p_decimal, p_minus_1));
}
