// snarkpipe convert (issue 29): a snarkjs key becomes a bellperson key + recorded circuit. For a
// fresh circom circuit of 2^8..2^10 rows with several public signals and a zkey made from known
// toxic waste, the converted key equals, point for point, bellperson's key for the converted
// circuit made by groth16 setup from the same waste (so every query is right, the rebuilt h
// included); proofs under it verify under the zkey's own verifying key and not for other
// inputs; and a circuit that is not the zkey's, another curve and a truncated file are refused
// with the file and the field named. Fresh seeds (test_seed.hpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "circom/prover.hpp"
#include "circom/synthetic_circuit.hpp"
#include "circom/zkey_convert.hpp"
#include "circom/zkey_setup.hpp"
#include "circom/zkey_write.hpp"
#include "ff/random.hpp"
#include "groth16/params_file.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "test_seed.hpp"

using namespace snarkpipe;
using namespace snarkpipe::circom;
using ff::Fr;

namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("snarkpipe-convert-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

Fr nonzero(ff::SeededRng& rng) {
  for (;;)
    if (const Fr x = Fr::random(rng); !x.is_zero()) return x;
}

// 2^8..2^10 rows, not always a power of two (so some of bellperson's rows stay empty), with
// 1..2 public outputs and 2..4 public inputs.
CircomSyntheticShape shape_from(ff::SeededRng& rng) {
  CircomSyntheticShape s;
  const unsigned log_rows = 8 + unsigned(rng.next_u64() % 3);
  s.rows = (std::uint64_t(1) << log_rows) - (rng.next_u64() % 2 ? rng.next_u64() % 40 : 0);
  s.public_outputs = 1 + std::uint32_t(rng.next_u64() % 2);
  s.public_inputs = 2 + std::uint32_t(rng.next_u64() % 3);
  s.private_inputs = 1 + std::uint32_t(rng.next_u64() % 3);
  s.seed = rng.next_u64();
  return s;
}

struct Fixture {
  CircomSyntheticCircuit circuit;
  groth16::ToxicWaste waste;
  Zkey zkey;
};

Fixture make(ff::SeededRng& rng) {
  Fixture f{make_circom_synthetic(shape_from(rng)), {}, {}};
  f.waste = {nonzero(rng), nonzero(rng), nonzero(rng), nonzero(rng), nonzero(rng)};
  f.zkey = zkey_from_toxic_waste(f.circuit.circuit, f.waste);
  return f;
}

groth16::Witness split(const std::vector<Fr>& z, std::size_t num_inputs) {
  return {{z.begin(), z.begin() + std::ptrdiff_t(num_inputs)}, {z.begin() + std::ptrdiff_t(num_inputs), z.end()}};
}

TEST(ZkeyConvert, EqualsBellpersonSetupFromTheSameToxicWaste) {
  ff::SeededRng rng(test_seed("ZkeyConvert.EqualsBellpersonSetupFromTheSameToxicWaste"));
  Fixture f = make(rng);
  const std::size_t m = f.zkey.domain_size;
  const ConvertedZkey converted = convert_zkey(Zkey(f.zkey), f.circuit.circuit, {});
  ASSERT_EQ(converted.r1cs.num_constraints, m);
  ASSERT_FALSE(circuit::find_defect(converted.r1cs).has_value());

  const groth16::ProvingKey direct = groth16::generate_parameters(converted.r1cs, f.waste);
  EXPECT_EQ(converted.pk.vk, direct.vk);
  ASSERT_EQ(converted.pk.h.size(), m - 1);
  ASSERT_EQ(direct.h.size(), m - 1);
  for (std::size_t j = 0; j < m - 1; ++j) ASSERT_EQ(converted.pk.h[j], direct.h[j]) << "h[" << j << "] of " << m - 1;
  EXPECT_TRUE(converted.pk.l == direct.l);
  EXPECT_TRUE(converted.pk.a == direct.a);
  EXPECT_TRUE(converted.pk.b_g1 == direct.b_g1);
  EXPECT_TRUE(converted.pk.b_g2 == direct.b_g2);
  // The identities of the zkey's sections were left out, as bellperson leaves them out.
  EXPECT_LT(converted.pk.b_g1.size(), f.zkey.b1.size());
}

TEST(ZkeyConvert, HQueryIsTheZkeysHAsPolynomialIdentity) {
  // Σ_j c_j·h_j = Σ_i (c·t)(ζ^{2i+1})·H_i for a random polynomial c of degree < m − 1: the
  // h query commits to x^j·t(x), snarkjs's H to the odd-point Lagrange basis (zkey_convert.hpp).
  ff::SeededRng rng(test_seed("ZkeyConvert.HQueryIsTheZkeysHAsPolynomialIdentity"));
  const unsigned log_m = 4 + unsigned(rng.next_u64() % 5);
  const std::size_t m = std::size_t(1) << log_m;
  std::vector<ec::G1Affine> zkey_h(m);
  for (auto& p : zkey_h) p = (ec::G1Jacobian::generator() * nonzero(rng)).to_affine();
  const std::vector<ec::G1Affine> h = h_query_from_zkey(zkey_h);
  ASSERT_EQ(h.size(), m - 1);
  std::vector<Fr> c(m - 1);
  for (auto& x : c) x = Fr::random(rng);
  ec::G1Jacobian lhs = ec::G1Jacobian::identity(), rhs = ec::G1Jacobian::identity();
  for (std::size_t j = 0; j < m - 1; ++j) lhs += ec::G1Jacobian::from_affine(h[j]) * c[j];
  const Fr zeta = snarkjs_root_of_unity(log_m + 1), step = zeta * zeta;
  Fr x = zeta;
  for (std::size_t i = 0; i < m; ++i, x *= step) {
    Fr cx = Fr::zero();
    for (std::size_t j = m - 1; j-- > 0;) cx = cx * x + c[j];
    const Fr t = x.pow(ff::from_u64<1>(m)) - Fr::one();
    rhs += ec::G1Jacobian::from_affine(zkey_h[i]) * (cx * t);
  }
  EXPECT_EQ(lhs, rhs);
  zkey_h[rng.next_u64() % m] = ec::G1Affine::generator();
  const std::vector<ec::G1Affine> changed = h_query_from_zkey(zkey_h);
  EXPECT_NE(changed, h);
}

TEST(ZkeyConvert, ProofsVerifyUnderTheOriginalVerifyingKey) {
  ff::SeededRng rng(test_seed("ZkeyConvert.ProofsVerifyUnderTheOriginalVerifyingKey"));
  Fixture f = make(rng);
  const groth16::VerifyingKey original = f.zkey.vk;
  const ConvertedZkey converted = convert_zkey(Zkey(f.zkey), f.circuit.circuit, {});
  const groth16::Witness w = split(f.circuit.witness, converted.r1cs.num_inputs);
  const groth16::Proof proof = groth16::prove(converted.pk, converted.r1cs, w, {nonzero(rng), nonzero(rng)});

  // Through the files: the .vk written and read back, and the zkey's vk.
  const std::string vk_path = temp_path("c.vk"), params_path = temp_path("c.params");
  groth16::write_vk(vk_path, converted.pk.vk);
  groth16::write_params(params_path, converted.pk);
  const groth16::ProvingKey reread = groth16::read_params(params_path);
  EXPECT_TRUE(reread == converted.pk);
  const std::vector<Fr> publics(w.inputs.begin() + 1, w.inputs.end());
  for (const groth16::VerifyingKey& vk : {groth16::read_vk(vk_path), original}) {
    const auto pvk = groth16::PreparedVerifyingKey::from(vk);
    EXPECT_TRUE(groth16::verify(pvk, proof, publics));
    std::vector<Fr> other = publics;
    other[rng.next_u64() % other.size()] += Fr::one();
    EXPECT_FALSE(groth16::verify(pvk, proof, other));
  }
  std::filesystem::remove(vk_path);
  std::filesystem::remove(params_path);
}

TEST(ZkeyConvert, AnotherCMatrixPassesTheCheckButItsProofsFail) {
  // The zkey holds no C: a circuit with the zkey's A and B and another C converts, and only a
  // proof shows it is wrong (what `convert --wtns` does).
  ff::SeededRng rng(test_seed("ZkeyConvert.AnotherCMatrixPassesTheCheckButItsProofsFail"));
  Fixture f = make(rng);
  CircomR1cs other_c = f.circuit.circuit;
  ASSERT_GT(other_c.r1cs.c.nnz(), 0u);
  other_c.r1cs.c.val[rng.next_u64() % other_c.r1cs.c.nnz()] += Fr::one();
  const ConvertedZkey wrong = convert_zkey(Zkey(f.zkey), other_c, {});
  const ConvertedZkey right = convert_zkey(Zkey(f.zkey), f.circuit.circuit, {});
  const groth16::Witness w = split(f.circuit.witness, right.r1cs.num_inputs);
  const std::vector<Fr> publics(w.inputs.begin() + 1, w.inputs.end());
  const auto pvk = groth16::PreparedVerifyingKey::from(f.zkey.vk);
  const groth16::ProverRandomness rs{nonzero(rng), nonzero(rng)};
  EXPECT_TRUE(groth16::verify(pvk, groth16::prove(right.pk, right.r1cs, w, rs), publics));
  EXPECT_FALSE(groth16::verify(pvk, groth16::prove(wrong.pk, wrong.r1cs, w, rs), publics));
  EXPECT_THROW(groth16::prove_checked(wrong.pk, wrong.r1cs, w, rs), groth16::ProverError);
}

TEST(ZkeyConvert, RefusesAnotherCircuitNamingFileAndField) {
  ff::SeededRng rng(test_seed("ZkeyConvert.RefusesAnotherCircuitNamingFileAndField"));
  Fixture f = make(rng);
  const ZkeyConvertSources names{"k.zkey", "c.r1cs"};
  auto field_of = [&](const Zkey& z, const CircomR1cs& c) -> std::string {
    try {
      check_zkey_matches_circuit(z, c, names);
    } catch (const ZkeyConvertError& e) {
      EXPECT_EQ(e.file(), "k.zkey");
      EXPECT_NE(std::string(e.what()).find("c.r1cs"), std::string::npos) << e.what();
      return e.field();
    }
    return "(accepted)";
  };
  EXPECT_EQ(field_of(f.zkey, f.circuit.circuit), "(accepted)");

  // One coefficient of A or B changed.
  Zkey changed = f.zkey;
  ZkeyCoefficient& coef = changed.coefficients[rng.next_u64() % changed.coefficients.size()];
  coef.value += Fr::one();
  EXPECT_EQ(field_of(changed, f.circuit.circuit), coef.matrix == 0 ? "coefficients (A)" : "coefficients (B)");

  // Another circuit of the same shape (same counts, other constraints).
  CircomSyntheticShape shape;
  shape.rows = f.circuit.circuit.r1cs.num_constraints;
  shape.public_outputs = f.circuit.circuit.num_public_outputs;
  shape.public_inputs = f.circuit.circuit.num_public_inputs;
  shape.private_inputs = f.circuit.circuit.num_private_inputs;
  shape.seed = rng.next_u64();
  const CircomR1cs other = make_circom_synthetic(shape).circuit;
  ASSERT_EQ(other.r1cs.num_columns(), f.circuit.circuit.r1cs.num_columns());
  EXPECT_EQ(field_of(f.zkey, other).rfind("coefficients", 0), 0u);

  // One row more: one signal more.
  shape.rows += 1;
  EXPECT_EQ(field_of(f.zkey, make_circom_synthetic(shape).circuit), "nVars");

  // A key for a statement with one public signal more.
  Zkey more_public = f.zkey;
  more_public.num_public += 1;
  EXPECT_EQ(field_of(more_public, f.circuit.circuit), "nPublic");
}

TEST(ZkeyConvert, ReaderRefusesAnotherCurveAndATruncatedZkey) {
  ff::SeededRng rng(test_seed("ZkeyConvert.ReaderRefusesAnotherCurveAndATruncatedZkey"));
  Fixture f = make(rng);
  const std::string path = temp_path("k.zkey");
  write_zkey(path, f.zkey);
  std::vector<char> bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  EXPECT_NO_THROW(read_zkey(path));

  // Truncated anywhere past the magic: an error naming the file.
  const std::size_t cut = 16 + rng.next_u64() % (bytes.size() - 16);
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), std::streamsize(cut));
  try {
    read_zkey(path);
    ADD_FAILURE() << "a zkey cut at " << cut << " of " << bytes.size() << " bytes was read";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }

  // BN254's base field prime in place of BLS12-381's q (the Groth16 header's first field).
  std::vector<char> bn = bytes;
  // magic, version and count (12 bytes), section 1 (12 + 4), section 2's head (12): n8q, then q.
  const std::size_t at = 40;
  ASSERT_EQ(std::string(bn.begin() + at, bn.begin() + at + 4), std::string("\x30\x00\x00\x00", 4));
  for (std::size_t i = 0; i < 48; ++i) bn[at + 4 + i] = 0;
  const std::uint8_t bn254_q[32] = {0x47, 0xfd, 0x7c, 0xd8, 0x16, 0x8c, 0x20, 0x3c, 0x8d, 0xca, 0x71,
                                    0x68, 0x91, 0x6a, 0x81, 0x97, 0x5d, 0x58, 0x81, 0x81, 0xb6, 0x45,
                                    0x50, 0xb8, 0x29, 0xa0, 0x31, 0xe1, 0x72, 0x4e, 0x64, 0x30};
  for (std::size_t i = 0; i < 32; ++i) bn[at + 4 + i] = char(bn254_q[i]);
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bn.data(), std::streamsize(bn.size()));
  EXPECT_THROW(read_zkey(path), UnsupportedCurveError);
  std::filesystem::remove(path);
}

}  // namespace
