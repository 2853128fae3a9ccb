// snarkpipe's own circom files against the real snarkjs 0.7.6 (issue 29): for a fresh
// `snarkpipe synthetic --format circom` circuit of 2^8..2^10 rows, snarkjs reads the .r1cs,
// accepts the witness, proves with snarkpipe's .zkey a proof that verifies under snarkpipe's
// verification_key.json, and accepts snarkpipe's CPU prover's proof; tampered inputs are
// refused, so none of these checks passes vacuously. And for the same τ, α, β (a powers of
// tau made from them) with γ = δ = 1, snarkpipe's key is snarkjs's `groth16 setup` key byte
// for byte, sections 1-9 in the same order. `snarkpipe convert` of a key snarkjs contributed to
// gives bellperson-prover proofs that snarkjs accepts under that key's vk. Skips without node or snarkjs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "circom/ptau.hpp"
#include "circom/r1cs.hpp"
#include "circom/zkey_setup.hpp"
#include "circom/zkey_write.hpp"
#include "test_seed.hpp"

namespace {

namespace fs = std::filesystem;

const std::string SNARKPIPE = SNARKPIPE_BINARY;
const std::string SNARKJS = std::string(SNARKPIPE_INTEROP_DIR) + "/node_modules/.bin/snarkjs";

struct Ran {
  int rc;
  std::string output;
};

// Runs `cmd` in `dir`, stdout and stderr together.
Ran run(const fs::path& dir, const std::string& cmd) {
  const fs::path log = dir / "command.log";
  const std::string full = "cd '" + dir.string() + "' && " + cmd + " > '" + log.string() + "' 2>&1";
  const int status = std::system(full.c_str());
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, ss.str()};
}

bool have_node_and_snarkjs() { return std::system("command -v node > /dev/null 2>&1") == 0 && fs::exists(SNARKJS); }

nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

void write_json(const fs::path& p, const nlohmann::json& j) { std::ofstream(p) << j.dump(); }

struct SectionBytes {
  std::uint32_t type;
  std::vector<char> body;
};

// A binfile container's sections in file order (binfile.hpp's layout).
std::vector<SectionBytes> sections_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::vector<char> b((std::istreambuf_iterator<char>(in)), {});
  auto le = [&](std::size_t at, int n) {
    std::uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | std::uint8_t(b.at(at + i));
    return v;
  };
  std::vector<SectionBytes> out;
  std::size_t pos = 12;
  for (std::uint64_t i = 0, n = le(8, 4); i < n; ++i) {
    const auto type = std::uint32_t(le(pos, 4));
    const std::uint64_t size = le(pos + 4, 8);
    out.push_back(
        {type, std::vector<char>(b.begin() + std::ptrdiff_t(pos + 12), b.begin() + std::ptrdiff_t(pos + 12 + size))});
    pos += 12 + size;
  }
  return out;
}

class SyntheticZkeySnarkjs : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_node_and_snarkjs()) GTEST_SKIP() << "node or snarkjs missing (npm ci in tests/interop)";
    const std::uint64_t seed = test_seed("SyntheticZkeySnarkjs");
    dir = fs::temp_directory_path() / ("snarkpipe-synthetic-zkey-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    log_rows = 8 + unsigned(seed % 3);
    wires_expected = 0;
    const Ran gen = run(dir, "'" + SNARKPIPE + "' synthetic --format circom --constraints 2^" +
                                 std::to_string(log_rows) + " --public " + std::to_string(2 + seed / 3 % 4) +
                                 " --seed " + std::to_string(seed) + " --key-backend cpu --json --out c");
    ASSERT_EQ(gen.rc, 0) << gen.output;
    const auto j = nlohmann::json::parse(gen.output.substr(gen.output.find('{')));
    wires_expected = j["shape"]["wires"].get<std::uint64_t>();
    constraints_expected = j["shape"]["circom_constraints"].get<std::uint64_t>();
    ASSERT_EQ(j["shape"]["domain_size"].get<std::uint64_t>(), std::uint64_t(1) << log_rows);
    c = dir / "c";
  }
  void TearDown() override {
    if (!dir.empty()) fs::remove_all(dir);
  }
  Ran snarkjs(const std::string& args) { return run(c, "'" + SNARKJS + "' " + args); }

  fs::path dir, c;
  unsigned log_rows = 0;
  std::uint64_t wires_expected = 0, constraints_expected = 0;
};

TEST_F(SyntheticZkeySnarkjs, SnarkjsReadsTheCircuitAndAcceptsOnlyTheRightWitness) {
  const Ran info = snarkjs("r1cs info circuit.r1cs");
  ASSERT_EQ(info.rc, 0) << info.output;
  EXPECT_NE(info.output.find("# of Wires: " + std::to_string(wires_expected)), std::string::npos) << info.output;
  EXPECT_NE(info.output.find("# of Constraints: " + std::to_string(constraints_expected)), std::string::npos)
      << info.output;
  EXPECT_NE(info.output.find("bls12-381"), std::string::npos) << info.output;

  const Ran check = snarkjs("wtns check circuit.r1cs witness.wtns");
  EXPECT_EQ(check.rc, 0) << check.output;
  EXPECT_NE(check.output.find("WITNESS IS CORRECT"), std::string::npos) << check.output;

  // The last value (an internal signal) + 1: snarkjs must find the constraint it breaks.
  std::vector<char> bytes;
  {
    std::ifstream in(c / "witness.wtns", std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_GT(bytes.size(), 32u);
  bytes[bytes.size() - 32] ^= 1;  // the lowest byte of the last little-endian value
  std::ofstream(c / "bad.wtns", std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
  const Ran bad = snarkjs("wtns check circuit.r1cs bad.wtns");
  EXPECT_EQ(bad.output.find("WITNESS IS CORRECT"), std::string::npos) << bad.output;
}

TEST_F(SyntheticZkeySnarkjs, SnarkjsProvesWithOurKeyAndVerifiesWithOurVk) {
  const Ran prove = snarkjs("groth16 prove circuit.zkey witness.wtns sj_proof.json sj_public.json");
  ASSERT_EQ(prove.rc, 0) << prove.output;
  const Ran verify = snarkjs("groth16 verify verification_key.json sj_public.json sj_proof.json");
  EXPECT_EQ(verify.rc, 0) << verify.output;
  EXPECT_NE(verify.output.find("OK!"), std::string::npos) << verify.output;

  nlohmann::json pub = read_json(c / "sj_public.json");
  ASSERT_FALSE(pub.empty());
  pub[0] = pub[0].get<std::string>() == "0" ? "1" : "0";
  write_json(c / "bad_public.json", pub);
  EXPECT_NE(snarkjs("groth16 verify verification_key.json bad_public.json sj_proof.json").rc, 0);

  // And snarkjs's own export of our key's verifying key is ours.
  ASSERT_EQ(snarkjs("zkey export verificationkey circuit.zkey sj_vk.json").rc, 0);
  const nlohmann::json ours = read_json(c / "verification_key.json"), theirs = read_json(c / "sj_vk.json");
  for (const auto& [k, v] : ours.items()) EXPECT_EQ(theirs[k], v) << k;
}

TEST_F(SyntheticZkeySnarkjs, SnarkjsAcceptsOurCpuProversProof) {
  const Ran prove = run(c, "'" + SNARKPIPE +
                               "' prove --zkey circuit.zkey --wtns witness.wtns --backend cpu --proof sp_proof.json "
                               "--public sp_public.json");
  ASSERT_EQ(prove.rc, 0) << prove.output;
  const Ran verify = snarkjs("groth16 verify verification_key.json sp_public.json sp_proof.json");
  EXPECT_EQ(verify.rc, 0) << verify.output;
  EXPECT_NE(verify.output.find("OK!"), std::string::npos) << verify.output;
  // A proof with A and C swapped is refused.
  nlohmann::json proof = read_json(c / "sp_proof.json");
  std::swap(proof["pi_a"], proof["pi_c"]);
  write_json(c / "bad_proof.json", proof);
  EXPECT_NE(snarkjs("groth16 verify verification_key.json sp_public.json bad_proof.json").rc, 0);
}

// snarkpipe convert on a key snarkjs itself contributed to (a new δ, its L and H rescaled by
// snarkjs): the bellperson prover's proof under the converted key is accepted by snarkjs under
// snarkjs's own export of the verifying key, and by snarkpipe's verifier under the converted .vk.
TEST_F(SyntheticZkeySnarkjs, ConvertedKeysBellpersonProofVerifiesUnderTheOriginalVkJson) {
  const Ran contribute =
      snarkjs("zkey contribute circuit.zkey contributed.zkey --name=convert -e=\"convert test entropy\"");
  ASSERT_EQ(contribute.rc, 0) << contribute.output;
  ASSERT_EQ(snarkjs("zkey export verificationkey contributed.zkey contributed_vk.json").rc, 0);
  const Ran convert =
      run(c, "'" + SNARKPIPE +
                 "' convert --zkey contributed.zkey --circom-r1cs circuit.r1cs --params c.params --vk c.vk "
                 "--r1cs c.snkr1cs --vk-json contributed_vk.json --wtns witness.wtns");
  ASSERT_EQ(convert.rc, 0) << convert.output;
  const Ran prove =
      run(c, "'" + SNARKPIPE +
                 "' prove --params c.params --r1cs c.snkr1cs --wtns witness.wtns --backend cpu --format snarkjs "
                 "--proof cv_proof.json --public cv_public.json");
  ASSERT_EQ(prove.rc, 0) << prove.output;
  const Ran verify = snarkjs("groth16 verify contributed_vk.json cv_public.json cv_proof.json");
  EXPECT_EQ(verify.rc, 0) << verify.output;
  EXPECT_NE(verify.output.find("OK!"), std::string::npos) << verify.output;
  // The key before snarkjs's contribution has another δ: the proof is not its.
  EXPECT_NE(snarkjs("groth16 verify verification_key.json cv_public.json cv_proof.json").rc, 0);

  const Ran binary = run(c, "'" + SNARKPIPE +
                                "' prove --params c.params --r1cs c.snkr1cs --wtns witness.wtns --backend cpu "
                                "--proof cv_proof.bin --public cv_public2.json");
  ASSERT_EQ(binary.rc, 0) << binary.output;
  const Ran ours = run(c, "'" + SNARKPIPE + "' verify --vk c.vk --public cv_public2.json --proof cv_proof.bin");
  EXPECT_EQ(ours.rc, 0) << ours.output;

  // A circuit that is not the zkey's is refused, naming both files.
  const Ran other = run(dir, "'" + SNARKPIPE + "' synthetic --format circom --constraints 2^" +
                                 std::to_string(log_rows) + " --public 2 --seed 7 --key-backend cpu --out other");
  ASSERT_EQ(other.rc, 0) << other.output;
  const Ran refused =
      run(c, "'" + SNARKPIPE +
                 "' convert --zkey contributed.zkey --circom-r1cs ../other/circuit.r1cs --params x.params "
                 "--r1cs x.snkr1cs");
  EXPECT_NE(refused.rc, 0);
  EXPECT_NE(refused.output.find("contributed.zkey"), std::string::npos) << refused.output;
  EXPECT_NE(refused.output.find("other/circuit.r1cs"), std::string::npos) << refused.output;
}

TEST_F(SyntheticZkeySnarkjs, OurKeyIsSnarkjsSetupsKeyForTheSameToxicWaste) {
  using namespace snarkpipe;
  ff::SeededRng rng(test_seed("SyntheticZkeySnarkjs.OurKeyIsSnarkjsSetupsKeyForTheSameToxicWaste"));
  const circom::PtauSecrets secrets = circom::PtauSecrets::from_seed(rng.next_u64());
  // One level above the circuit's, so that snarkjs's H comes from a complete Lagrange level
  // (its top level lacks a power of τ: ptau.hpp).
  circom::write_insecure_ptau((c / "p.ptau").string(), log_rows + 1, secrets);
  const Ran setup = snarkjs("groth16 setup circuit.r1cs p.ptau sj.zkey");
  ASSERT_EQ(setup.rc, 0) << setup.output;
  // snarkjs's fresh key has γ = δ = 1 until a contribution.
  const groth16::ToxicWaste waste{secrets.tau, secrets.alpha, secrets.beta, ff::Fr::one(), ff::Fr::one()};
  circom::write_zkey((c / "ours.zkey").string(),
                     circom::zkey_from_toxic_waste(circom::read_circom_r1cs((c / "circuit.r1cs").string()), waste));
  const std::vector<SectionBytes> theirs = sections_of(c / "sj.zkey"), ours = sections_of(c / "ours.zkey");
  ASSERT_EQ(theirs.size(), ours.size());
  for (std::size_t i = 0; i < ours.size(); ++i) {
    EXPECT_EQ(ours[i].type, theirs[i].type) << "section " << i << " of the file";
    if (ours[i].type == 10) continue;  // the circuit hash and contributions: ours are left empty
    EXPECT_TRUE(ours[i].body == theirs[i].body)
        << "section type " << ours[i].type << " differs (" << ours[i].body.size() << " bytes against snarkjs's "
        << theirs[i].body.size() << ")";
  }
}

}  // namespace
