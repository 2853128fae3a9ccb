// snarkjs keys made by snarkpipe (issue 29): write_zkey's file reads back field for field,
// a single-party key from zkey_from_toxic_waste proves and verifies with circom::ZkeyProver,
// the synthetic circom circuit's files read back and its witness satisfies it, and the
// errors a user meets name the file and the field. Fresh seeds (test_seed.hpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "circom/prover.hpp"
#include "circom/r1cs_build.hpp"
#include "circom/synthetic_circuit.hpp"
#include "circom/wtns.hpp"
#include "circom/zkey_setup.hpp"
#include "circom/zkey_witness.hpp"
#include "circom/zkey_write.hpp"
#include "circuit/spmv.hpp"
#include "ff/random.hpp"
#include "groth16/verifier.hpp"
#include "msm/fixed_base.hpp"
#include "test_seed.hpp"

using namespace snarkpipe;
using namespace snarkpipe::circom;
using ff::Fr;

namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("snarkpipe-zkey-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

Fr nonzero(ff::SeededRng& rng) {
  for (;;)
    if (const Fr x = Fr::random(rng); !x.is_zero()) return x;
}

groth16::ToxicWaste waste_from(ff::SeededRng& rng) {
  return {nonzero(rng), nonzero(rng), nonzero(rng), nonzero(rng), nonzero(rng)};
}

// A small circuit of 20..300 rows with 1..3 outputs, 0..4 public and 1..3 private inputs.
CircomSyntheticShape random_shape(ff::SeededRng& rng) {
  CircomSyntheticShape s;
  s.public_outputs = 1 + std::uint32_t(rng.next_u64() % 3);
  s.public_inputs = std::uint32_t(rng.next_u64() % 5);
  s.private_inputs = 1 + std::uint32_t(rng.next_u64() % 3);
  s.rows = 20 + rng.next_u64() % 281;
  s.seed = rng.next_u64();
  return s;
}

std::vector<Fr> publics_of(const std::vector<Fr>& witness, std::uint32_t num_public) {
  return {witness.begin() + 1, witness.begin() + 1 + num_public};
}

TEST(ZkeyWrite, RoundTripsEveryField) {
  ff::SeededRng rng(test_seed("ZkeyWrite.RoundTripsEveryField"));
  for (int round = 0; round < 3; ++round) {
    const CircomSyntheticCircuit sc = make_circom_synthetic(random_shape(rng));
    const Zkey z = zkey_from_toxic_waste(sc.circuit, waste_from(rng));
    const std::string path = temp_path("roundtrip.zkey");
    write_zkey(path, z);
    ZkeyReadOptions opts;
    opts.check_subgroup = true;  // every point written must be a valid group element
    const Zkey back = read_zkey(path, opts);
    std::filesystem::remove(path);

    EXPECT_EQ(back.num_vars, z.num_vars);
    EXPECT_EQ(back.num_public, z.num_public);
    EXPECT_EQ(back.domain_size, z.domain_size);
    EXPECT_EQ(back.vk.alpha_g1, z.vk.alpha_g1);
    EXPECT_EQ(back.vk.beta_g1, z.vk.beta_g1);
    EXPECT_EQ(back.vk.beta_g2, z.vk.beta_g2);
    EXPECT_EQ(back.vk.gamma_g2, z.vk.gamma_g2);
    EXPECT_EQ(back.vk.delta_g1, z.vk.delta_g1);
    EXPECT_EQ(back.vk.delta_g2, z.vk.delta_g2);
    EXPECT_EQ(back.vk.ic, z.vk.ic);
    ASSERT_EQ(back.coefficients.size(), z.coefficients.size());
    for (std::size_t i = 0; i < z.coefficients.size(); ++i) {
      const auto &x = back.coefficients[i], &y = z.coefficients[i];
      ASSERT_TRUE(x.matrix == y.matrix && x.constraint == y.constraint && x.signal == y.signal && x.value == y.value)
          << "coefficient " << i;
    }
    EXPECT_EQ(back.a, z.a);
    EXPECT_EQ(back.b1, z.b1);
    EXPECT_EQ(back.b2, z.b2);
    EXPECT_EQ(back.c, z.c);
    EXPECT_EQ(back.h, z.h);
    // The circuit's outputs are in no A row but their input rows, and most signals are in no
    // B row: the file must carry identity points, not only generic ones.
    std::size_t identities = 0;
    for (const auto& p : z.b1) identities += p.is_identity();
    EXPECT_GT(identities, 0u);
  }
}

TEST(ZkeyWrite, RefusesAKeyWhoseSectionsDisagreeWithItsCounts) {
  ff::SeededRng rng(test_seed("ZkeyWrite.RefusesAKeyWhoseSectionsDisagreeWithItsCounts"));
  const CircomSyntheticCircuit sc = make_circom_synthetic(random_shape(rng));
  Zkey z = zkey_from_toxic_waste(sc.circuit, waste_from(rng));
  z.h.pop_back();
  EXPECT_THROW(write_zkey(temp_path("bad.zkey"), z), std::invalid_argument);
  std::filesystem::remove(temp_path("bad.zkey"));
}

TEST(ZkeySetup, ProofsVerifyUnderTheKeysVkAndAWrongPublicInputFails) {
  ff::SeededRng rng(test_seed("ZkeySetup.ProofsVerifyUnderTheKeysVkAndAWrongPublicInputFails"));
  for (int round = 0; round < 3; ++round) {
    const CircomSyntheticShape shape = random_shape(rng);
    const CircomSyntheticCircuit sc = make_circom_synthetic(shape);
    const std::string path = temp_path("prove.zkey");
    write_zkey(path, zkey_from_toxic_waste(sc.circuit, waste_from(rng)));
    const ZkeyProver prover(read_zkey(path));
    std::filesystem::remove(path);
    const auto pvk = groth16::PreparedVerifyingKey::from(prover.vk());
    const groth16::ProverRandomness rs{Fr::random(rng), Fr::random(rng)};
    const groth16::Proof proof = prover.prove(sc.witness, rs);
    std::vector<Fr> xs = publics_of(sc.witness, prover.num_public());
    ASSERT_EQ(xs.size(), shape.public_outputs + shape.public_inputs);
    EXPECT_TRUE(groth16::verify(pvk, proof, xs)) << "rows " << shape.rows;
    const std::size_t i = rng.next_u64() % xs.size();
    xs[i] += Fr::one();
    EXPECT_FALSE(groth16::verify(pvk, proof, xs)) << "public input " << i << " + 1 accepted";
  }
}

// The hook a GPU's multiplier comes through (cli/backend_choice.hpp): every query's points
// come from it, and the key is the one the CPU's own tables give.
TEST(ZkeySetup, ASuppliedMultiplierMakesEveryQueryAndTheSameKey) {
  ff::SeededRng rng(test_seed("ZkeySetup.ASuppliedMultiplierMakesEveryQueryAndTheSameKey"));
  const CircomSyntheticCircuit sc = make_circom_synthetic(random_shape(rng));
  const groth16::ToxicWaste waste = waste_from(rng);
  const msm::FixedBaseTable<ec::G1Curve> g1(ec::G1Affine::generator(), 7);
  const msm::FixedBaseTable<ec::G2Curve> g2(ec::G2Affine::generator(), 5);
  std::size_t g1_points = 0, g2_points = 0;
  groth16::SetupMultipliers hook;
  hook.g1 = [&](std::span<const Fr> k) {
    g1_points += k.size();
    return msm::batch_mul(g1, k);
  };
  hook.g2 = [&](std::span<const Fr> k) {
    g2_points += k.size();
    return msm::batch_mul(g2, k);
  };
  const Zkey hooked = zkey_from_toxic_waste(sc.circuit, waste, hook), own = zkey_from_toxic_waste(sc.circuit, waste);
  auto non_identity = [](const auto& pts) {
    std::size_t n = 0;
    for (const auto& p : pts) n += !p.is_identity();
    return n;
  };
  EXPECT_EQ(g1_points,
            non_identity(own.a) + non_identity(own.b1) + non_identity(own.c) + own.vk.ic.size() + own.h.size());
  EXPECT_EQ(g2_points, non_identity(own.b2));
  EXPECT_EQ(hooked.a, own.a);
  EXPECT_EQ(hooked.b1, own.b1);
  EXPECT_EQ(hooked.b2, own.b2);
  EXPECT_EQ(hooked.c, own.c);
  EXPECT_EQ(hooked.h, own.h);
  EXPECT_EQ(hooked.vk.ic, own.vk.ic);
  EXPECT_EQ(hooked.vk.delta_g2, own.vk.delta_g2);
}

TEST(ZkeySetup, AWitnessThatDoesNotSatisfyTheCircuitGivesNoProof) {
  ff::SeededRng rng(test_seed("ZkeySetup.AWitnessThatDoesNotSatisfyTheCircuitGivesNoProof"));
  const CircomSyntheticShape shape = random_shape(rng);
  CircomSyntheticCircuit sc = make_circom_synthetic(shape);
  const ZkeyProver prover(zkey_from_toxic_waste(sc.circuit, waste_from(rng)));
  // Any internal signal changed breaks the constraint that defines it.
  const std::size_t first_internal = 1 + shape.public_outputs + shape.public_inputs + shape.private_inputs;
  sc.witness[first_internal + rng.next_u64() % (sc.witness.size() - first_internal)] += Fr::one();
  EXPECT_THROW(prover.prove_checked(sc.witness, groth16::ProverRandomness::random()), groth16::ProverError);
}

TEST(SyntheticCircom, FilesReadBackAndTheWitnessSatisfiesTheCircuit) {
  ff::SeededRng rng(test_seed("SyntheticCircom.FilesReadBackAndTheWitnessSatisfiesTheCircuit"));
  const CircomSyntheticShape shape = random_shape(rng);
  const CircomSyntheticCircuit sc = make_circom_synthetic(shape);
  const std::string r1cs_path = temp_path("c.r1cs"), wtns_path = temp_path("w.wtns");
  write_circom_r1cs(r1cs_path, sc.circuit);
  write_wtns(wtns_path, sc.witness);
  const CircomR1cs back = read_circom_r1cs(r1cs_path);
  const std::vector<Fr> w = read_wtns(wtns_path);
  std::filesystem::remove(r1cs_path);
  std::filesystem::remove(wtns_path);

  EXPECT_EQ(back.num_wires, sc.circuit.num_wires);
  EXPECT_EQ(back.num_public_outputs, shape.public_outputs);
  EXPECT_EQ(back.num_public_inputs, shape.public_inputs);
  EXPECT_EQ(back.num_private_inputs, shape.private_inputs);
  EXPECT_EQ(back.num_constraints, shape.circom_constraints());
  EXPECT_EQ(back.r1cs.num_constraints, shape.rows);
  EXPECT_TRUE(back.r1cs == sc.circuit.r1cs);
  EXPECT_EQ(w, sc.witness);
  const groth16::Witness split = split_witness(w, back.num_public());
  EXPECT_TRUE(circuit::is_satisfied(back.r1cs, split.inputs, split.aux).ok());
  // Satisfaction is not vacuous: a changed public output breaks its binding constraint.
  groth16::Witness bad = split;
  bad.inputs[1] += Fr::one();
  EXPECT_FALSE(circuit::is_satisfied(back.r1cs, bad.inputs, bad.aux).ok());
}

TEST(SyntheticCircom, TheSeedMakesTheCircuit) {
  ff::SeededRng rng(test_seed("SyntheticCircom.TheSeedMakesTheCircuit"));
  CircomSyntheticShape shape = random_shape(rng);
  const CircomSyntheticCircuit a = make_circom_synthetic(shape), again = make_circom_synthetic(shape);
  EXPECT_TRUE(a.circuit.r1cs == again.circuit.r1cs);
  EXPECT_EQ(a.witness, again.witness);
  shape.seed += 1;
  const CircomSyntheticCircuit other = make_circom_synthetic(shape);
  EXPECT_FALSE(a.circuit.r1cs == other.circuit.r1cs);
  EXPECT_NE(a.witness, other.witness);
}

TEST(ZkeyErrors, ATruncatedKeyNamesTheFileAndTheSection) {
  ff::SeededRng rng(test_seed("ZkeyErrors.ATruncatedKeyNamesTheFileAndTheSection"));
  const CircomSyntheticCircuit sc = make_circom_synthetic(random_shape(rng));
  const std::string path = temp_path("full.zkey"), cut = temp_path("cut.zkey");
  write_zkey(path, zkey_from_toxic_waste(sc.circuit, waste_from(rng)));
  const auto size = std::filesystem::file_size(path);
  for (int round = 0; round < 8; ++round) {
    std::filesystem::copy_file(path, cut, std::filesystem::copy_options::overwrite_existing);
    const std::uint64_t keep = 12 + rng.next_u64() % (size - 12);
    std::filesystem::resize_file(cut, keep);
    try {
      (void)read_zkey(cut);
      ADD_FAILURE() << "a key cut to " << keep << " of " << size << " bytes was read";
    } catch (const FormatError& e) {
      EXPECT_EQ(e.path(), cut);
      const std::string what = e.what();
      EXPECT_NE(what.find(cut), std::string::npos) << what;
      EXPECT_NE(what.find("section"), std::string::npos) << what;
      EXPECT_FALSE(e.section().empty()) << what;
    }
  }
  std::filesystem::remove(path);
  std::filesystem::remove(cut);
}

TEST(ZkeyErrors, AWitnessOfAnotherSizeNamesBothFilesAndFields) {
  ff::SeededRng rng(test_seed("ZkeyErrors.AWitnessOfAnotherSizeNamesBothFilesAndFields"));
  CircomSyntheticShape shape = random_shape(rng);
  const CircomSyntheticCircuit sc = make_circom_synthetic(shape);
  shape.rows += 1 + rng.next_u64() % 10;  // one more chain signal per row
  const CircomSyntheticCircuit other = make_circom_synthetic(shape);
  const std::string zkey_path = temp_path("k.zkey"), wtns_path = temp_path("other.wtns");
  write_zkey(zkey_path, zkey_from_toxic_waste(sc.circuit, waste_from(rng)));
  write_wtns(wtns_path, other.witness);
  const Zkey z = read_zkey(zkey_path);
  EXPECT_EQ(read_wtns_for_zkey(wtns_path, zkey_path, std::uint32_t(other.witness.size())), other.witness);
  try {
    (void)read_wtns_for_zkey(wtns_path, zkey_path, z.num_vars);
    ADD_FAILURE() << "a witness of " << other.witness.size() << " values taken for a key of " << z.num_vars;
  } catch (const FormatError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.path(), wtns_path);
    EXPECT_NE(what.find(wtns_path), std::string::npos) << what;
    EXPECT_NE(what.find(zkey_path), std::string::npos) << what;
    EXPECT_NE(what.find("nWitness = " + std::to_string(other.witness.size())), std::string::npos) << what;
    EXPECT_NE(what.find("nVars = " + std::to_string(z.num_vars)), std::string::npos) << what;
  }
  // The prover refuses it too.
  EXPECT_THROW(ZkeyProver(z).prove(other.witness, groth16::ProverRandomness::random()), groth16::ProverError);
  std::filesystem::remove(zkey_path);
  std::filesystem::remove(wtns_path);
}

}  // namespace
