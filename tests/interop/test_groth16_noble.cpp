// An independent verifier for snarkpipe's Groth16 proofs: tests/interop/verify_groth16.mjs
// (@noble/curves' pairing) reads the bellperson .vk, the 192-byte proof and public.json
// that snarkpipe wrote, and must accept exactly the valid proofs.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "../groth16/random_circuit.hpp"
#include "groth16/params_file.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "test_seed.hpp"

using namespace snarkpipe;
using namespace snarkpipe::groth16;

namespace {

struct Files {
  std::filesystem::path dir;
  std::string vk, proof, pub;
};

Files make_dir() {
  Files f;
  f.dir = std::filesystem::temp_directory_path() / ("snarkpipe-noble-" + std::to_string(::getpid()));
  std::filesystem::create_directories(f.dir);
  f.vk = (f.dir / "circuit.vk").string();
  f.proof = (f.dir / "proof.bin").string();
  f.pub = (f.dir / "public.json").string();
  return f;
}

void write_proof(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

void write_public(const std::string& path, const std::vector<Fr>& xs) {
  std::ofstream out(path);
  out << "[";
  for (std::size_t i = 0; i < xs.size(); ++i) out << (i ? "," : "") << '"' << xs[i].to_decimal() << '"';
  out << "]";
}

int noble_verify(const Files& f) {
  const std::string cmd = std::string("node ") + SNARKPIPE_INTEROP_DIR + "/verify_groth16.mjs " + f.vk + " " + f.proof +
                          " " + f.pub + " > " + (f.dir / "noble.out").string() + " 2>&1";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

}  // namespace

TEST(NobleGroth16, AcceptsValidAndRejectsTamperedProofs) {
  const std::uint64_t seed = test_seed("NobleGroth16");
  const snarkpipe::testing::RandomCircuit circuit(300, 4, seed);
  const circuit::R1cs r1cs = circuit.record();
  const Witness w = circuit.witness();
  const ProvingKey pk = setup(r1cs);
  const Proof proof = prove_checked(pk, r1cs, w, ProverRandomness::random());
  const std::vector<Fr> x(w.inputs.begin() + 1, w.inputs.end());

  const Files f = make_dir();
  write_vk(f.vk, pk.vk);
  const auto bytes = proof.to_bytes();
  write_proof(f.proof, {bytes.begin(), bytes.end()});
  write_public(f.pub, x);
  ASSERT_EQ(noble_verify(f), 0) << "noble rejected a valid proof (see " << f.dir << "/noble.out)";

  // A changed public input.
  auto bad = x;
  bad[0] += Fr::one();
  write_public(f.pub, bad);
  EXPECT_EQ(noble_verify(f), 1);
  write_public(f.pub, x);

  // Another valid proof (fresh r, s) of the same statement, and a proof from another key.
  const Proof again = prove(pk, r1cs, w, ProverRandomness::random());
  const auto again_bytes = again.to_bytes();
  write_proof(f.proof, {again_bytes.begin(), again_bytes.end()});
  EXPECT_EQ(noble_verify(f), 0);
  const Proof foreign = prove(setup(r1cs), r1cs, w, ProverRandomness::random());
  const auto foreign_bytes = foreign.to_bytes();
  write_proof(f.proof, {foreign_bytes.begin(), foreign_bytes.end()});
  EXPECT_EQ(noble_verify(f), 1);

  // Mixed-up points: A and C swapped.
  Proof swapped = proof;
  std::swap(swapped.a, swapped.c);
  const auto swapped_bytes = swapped.to_bytes();
  write_proof(f.proof, {swapped_bytes.begin(), swapped_bytes.end()});
  EXPECT_EQ(noble_verify(f), 1);
  std::filesystem::remove_all(f.dir);
}
