// The CUDA backend against the CPU backend: for the same key, witness, r and s, the same
// proof bytes; the proofs verify; a witness that does not satisfy the circuit gives a proof
// that does not verify (so the check above is real); keys and circuits stay resident.
#include <gtest/gtest.h>

#include <filesystem>

#include "../groth16/random_circuit.hpp"
#include "circuit/spmv.hpp"
#include "cuda/fixed_base.hpp"
#include "cuda/memory_plan.hpp"
#include "cuda/prover.hpp"
#include "tier_cases.hpp"
#include "msm/fixed_base.hpp"
#include "gpu_skip.hpp"
#include "groth16/params_file.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "test_seed.hpp"

namespace snarkpipe {
namespace {

using groth16::ProverRandomness;

std::vector<ff::Fr> publics_of(const groth16::Witness& w) { return {w.inputs.begin() + 1, w.inputs.end()}; }

TEST(CudaProver, SameProofAsTheCpuBackend) {
  SNARKPIPE_REQUIRE_GPU();
  cuda::CudaBackend gpu;
  groth16::CpuBackend cpu;
  const std::uint64_t seed = ::test_seed("CudaProver");
  // Sizes whose domains are powers of two and not (the SpMV pads with zeros), several inputs.
  for (const auto& [constraints, inputs] : std::vector<std::pair<std::size_t, std::size_t>>{
           {3, 1}, {100, 3}, {1000, 7}, {1 << 12, 2}, {(1 << 14) + 5, 11}}) {
    SCOPED_TRACE("constraints " + std::to_string(constraints));
    const testing::RandomCircuit circuit(constraints, inputs, seed + constraints);
    const circuit::R1cs r1cs = circuit.record();
    const groth16::Witness w = circuit.witness();
    const groth16::ProvingKey pk = groth16::setup(r1cs);
    const auto pvk = groth16::PreparedVerifyingKey::from(pk.vk);
    for (int run = 0; run < 2; ++run) {  // the second run uses the resident key and circuit
      const ProverRandomness rs = ProverRandomness::random();
      const groth16::Proof want = cpu.finish(pk.vk, cpu.start(pk, r1cs, w), rs);
      const groth16::Proof got = gpu.finish(pk.vk, gpu.start(pk, r1cs, w), rs);
      EXPECT_EQ(got.to_bytes(), want.to_bytes());
      groth16::PackedWitness packed;  // the 0/1 values as bits, unpacked on the device
      groth16::pack_witness(w.inputs, w.aux, packed);
      EXPECT_EQ(gpu.finish(pk.vk, gpu.start_packed(pk, r1cs, packed), rs).to_bytes(), want.to_bytes());
      // The same in the backend's page-locked memory (copied to the device without staging).
      groth16::PackedWitness pinned(gpu.witness_memory());
      groth16::pack_witness(w.inputs, w.aux, pinned);
      EXPECT_NE(gpu.witness_memory(), std::pmr::get_default_resource());
      EXPECT_EQ(gpu.finish(pk.vk, gpu.start_packed(pk, r1cs, pinned), rs).to_bytes(), want.to_bytes());
      EXPECT_TRUE(groth16::verify(pvk, got, publics_of(w)));
    }
    gpu.release_key(pk);
    gpu.release_circuit(r1cs);
  }
}

// An evaluated assignment (a, b, c from the caller, as through the Filecoin ABI): the same
// proof as the CPU backend's from the recorded circuit, with the key in GPU and in host memory.
TEST(CudaProver, EvaluatedAssignmentGivesTheCpuProof) {
  SNARKPIPE_REQUIRE_GPU();
  groth16::CpuBackend cpu;
  const std::uint64_t seed = ::test_seed("CudaProver.Evaluated");
  for (const auto residency : {cuda::SrsResidency::vram, cuda::SrsResidency::host}) {
    cuda::CudaBackendOptions opt;
    opt.residency = residency;
    opt.host_piece_points = 1 << 12;  // several pieces in host residency
    cuda::CudaBackend gpu(opt);
    for (const auto& [constraints, inputs] : std::vector<std::pair<std::size_t, std::size_t>>{
             {3, 1}, {1000, 7}, {(1 << 14) + 5, 11}, {(1 << 16) - 20, 3}}) {
      SCOPED_TRACE("constraints " + std::to_string(constraints) +
                   (residency == cuda::SrsResidency::host ? " host" : " vram"));
      const testing::RandomCircuit circuit(constraints, inputs, seed + constraints);
      const circuit::R1cs r1cs = circuit.record();
      const groth16::Witness w = circuit.witness();
      const circuit::Evaluations abc = circuit::evaluate(r1cs, w.inputs, w.aux);
      const groth16::ProvingKey pk = groth16::setup(r1cs);
      const groth16::EvaluatedAssignment ea{
          abc.a, abc.b, abc.c, w.inputs, w.aux, r1cs.a_aux_density, r1cs.b_input_density, r1cs.b_aux_density};
      for (int run = 0; run < 2; ++run) {
        const ProverRandomness rs = ProverRandomness::random();
        const groth16::Proof want = cpu.finish(pk.vk, cpu.start(pk, r1cs, w), rs);
        EXPECT_EQ(gpu.finish(pk.vk, gpu.start_evaluated(pk, ea), rs).to_bytes(), want.to_bytes());
        EXPECT_EQ(cpu.finish(pk.vk, cpu.start_evaluated(pk, ea), rs).to_bytes(), want.to_bytes());
      }
      gpu.release_key(pk);
    }
  }
}

// Tier 4 (bounded H: one vector on the device, one staged in host memory, compact NTT
// twiddles) from an evaluated assignment, as the Filecoin ABI brings it on a small card: the
// CPU backend's proof at sizes of one to three NTT stage groups, twice per backend.
TEST(CudaProver, BoundedHFromAnEvaluatedAssignmentGivesTheCpuProof) {
  SNARKPIPE_REQUIRE_GPU();
  groth16::CpuBackend cpu;
  const std::uint64_t seed = ::test_seed("CudaProver.BoundedH");
  for (const auto& [constraints, inputs] :
       std::vector<std::pair<std::size_t, std::size_t>>{{3, 1}, {1000, 7}, {(1 << 15) - 20, 3}}) {
    SCOPED_TRACE("constraints " + std::to_string(constraints));
    const testing::RandomCircuit circuit(constraints, inputs, seed + constraints);
    const circuit::R1cs r1cs = circuit.record();
    const groth16::Witness w = circuit.witness();
    const circuit::Evaluations abc = circuit::evaluate(r1cs, w.inputs, w.aux);
    const groth16::ProvingKey pk = groth16::setup(r1cs);
    const groth16::EvaluatedAssignment ea{
        abc.a, abc.b, abc.c, w.inputs, w.aux, r1cs.a_aux_density, r1cs.b_input_density, r1cs.b_aux_density};
    cuda::CudaBackendOptions opt;
    opt.host_piece_points = 1 << 10;
    opt.device_budget =
        cuda::plan_for_tier(cuda::ProofShape::of(pk, ea), cuda::MemoryTier::bounded_h, opt.host_piece_points)
            .device_bytes;
    cuda::CudaBackend gpu(opt);
    for (int run = 0; run < 2; ++run) {
      const ProverRandomness rs = ProverRandomness::random();
      EXPECT_EQ(gpu.finish(pk.vk, gpu.start_evaluated(pk, ea), rs).to_bytes(),
                cpu.finish(pk.vk, cpu.start(pk, r1cs, w), rs).to_bytes());
      EXPECT_EQ(gpu.memory_tier(), 4) << gpu.memory_plan();
    }
  }
}

// The memory plan's tiers on the device: every tier and variant (the L, A, B MSMs beside the
// H MSM or after it, tier 4's a/b/c from the host) gives the CPU backend's proof bytes, and a
// budget below every tier refuses before any work.
TEST(CudaProver, MemoryTiersGiveTheCpuProofAndRefuseCleanly) {
  SNARKPIPE_REQUIRE_GPU();
  groth16::CpuBackend cpu;
  const testing::RandomCircuit circuit((1 << 15) + 3, 4, ::test_seed("CudaProver.Tiers"));
  const circuit::R1cs r1cs = circuit.record();
  const groth16::Witness w = circuit.witness();
  const groth16::ProvingKey pk = groth16::setup(r1cs);
  const std::size_t piece = 1 << 12;
  // The budgets of every tier's variants (tier_cases.hpp; test_memory_plan checks that they
  // cover every path): the backend follows the planner's choice and gives the CPU's bytes.
  for (const cuda::testing::TierCase& c : cuda::testing::tier_cases(cuda::ProofShape::of(pk, r1cs), piece)) {
    const cuda::MemoryPlan& want = c.plan;
    const std::string& words = c.words;
    SCOPED_TRACE(words);
    cuda::CudaBackendOptions opt;
    opt.residency = c.residency;
    opt.host_piece_points = piece;
    opt.device_budget = c.budget;
    opt.concurrent_msms = c.concurrent;
    opt.only_tier = c.tier;
    opt.circuit_piece_rows = 1000;  // a streamed circuit in many pieces
    cuda::CudaBackend gpu(opt);
    for (int run = 0; run < 2; ++run) {
      const ProverRandomness rs = ProverRandomness::random();
      EXPECT_EQ(gpu.finish(pk.vk, gpu.start(pk, r1cs, w), rs).to_bytes(),
                cpu.finish(pk.vk, cpu.start(pk, r1cs, w), rs).to_bytes());
      EXPECT_EQ(gpu.memory_tier(), int(want.tier)) << gpu.memory_plan();
      EXPECT_EQ(gpu.memory_plan().substr(0, gpu.memory_plan().find(':')), words) << gpu.memory_plan();
      EXPECT_EQ(gpu.last_phases().concurrent,
                want.tier == cuda::MemoryTier::resident ? c.concurrent : want.tail_piece_points > 0);
    }
    // The packed witness (the engine's) takes the same path.
    groth16::PackedWitness packed;
    groth16::pack_witness(w.inputs, w.aux, packed);
    const ProverRandomness rs = ProverRandomness::random();
    EXPECT_EQ(gpu.finish(pk.vk, gpu.start_packed(pk, r1cs, packed), rs).to_bytes(),
              cpu.finish(pk.vk, cpu.start(pk, r1cs, w), rs).to_bytes());
  }
  cuda::CudaBackendOptions tiny;
  tiny.device_budget = 1 << 20;
  cuda::CudaBackend gpu(tiny);
  try {
    gpu.start(pk, r1cs, w);
    ADD_FAILURE() << "a 1 MiB budget cannot hold a proof";
  } catch (const groth16::ProverError& e) {
    EXPECT_NE(std::string(e.what()).find("memory.device_budget"), std::string::npos) << e.what();
  }
}

// The L, A and B MSMs on a second stream beside the H chain (the default) or after it on one
// stream: the same proof as the CPU backend either way, and the phases say which ran.
TEST(CudaProver, SerialAndConcurrentMsmsGiveTheCpuProof) {
  SNARKPIPE_REQUIRE_GPU();
  groth16::CpuBackend cpu;
  const testing::RandomCircuit circuit((1 << 15) + 9, 4, ::test_seed("CudaProver.Streams"));
  const circuit::R1cs r1cs = circuit.record();
  const groth16::Witness w = circuit.witness();
  const groth16::ProvingKey pk = groth16::setup(r1cs);
  for (const bool concurrent : {true, false}) {
    SCOPED_TRACE(concurrent ? "concurrent" : "serial");
    cuda::CudaBackendOptions opt;
    opt.concurrent_msms = concurrent;
    cuda::CudaBackend gpu(opt);
    for (int run = 0; run < 3; ++run) {  // pools reused across proofs
      const ProverRandomness rs = ProverRandomness::random();
      EXPECT_EQ(gpu.finish(pk.vk, gpu.start(pk, r1cs, w), rs).to_bytes(),
                cpu.finish(pk.vk, cpu.start(pk, r1cs, w), rs).to_bytes());
      const cuda::CudaProverPhases& p = gpu.last_phases();
      EXPECT_EQ(p.concurrent, concurrent);
      EXPECT_GT(p.device_total, 0.0f);
      EXPECT_GE(p.device_total + 0.01f, p.upload + p.abc + p.ntt + p.h_msm);
    }
  }
}

// The key left in host memory and streamed in pieces (small pieces here, so every MSM runs
// over several, the 0/1 split included): still the CPU backend's proof.
TEST(CudaProver, HostResidentKeyStreamsInPieces) {
  SNARKPIPE_REQUIRE_GPU();
  cuda::CudaBackendOptions opt;
  opt.residency = cuda::SrsResidency::host;
  opt.host_piece_points = 1000;
  cuda::CudaBackend gpu(opt);
  groth16::CpuBackend cpu;
  const testing::RandomCircuit circuit((1 << 13) + 3, 6, ::test_seed("CudaProver.Host"));
  const circuit::R1cs r1cs = circuit.record();
  const groth16::Witness w = circuit.witness();
  const groth16::ProvingKey pk = groth16::setup(r1cs);
  for (int run = 0; run < 2; ++run) {
    const ProverRandomness rs = ProverRandomness::random();
    EXPECT_EQ(gpu.finish(pk.vk, gpu.start(pk, r1cs, w), rs).to_bytes(),
              cpu.finish(pk.vk, cpu.start(pk, r1cs, w), rs).to_bytes());
    EXPECT_EQ(gpu.residency_used(), cuda::SrsResidency::host);
  }
  gpu.release_key(pk);
  cuda::CudaBackend automatic;  // a small key fits: automatic keeps it on the device
  const ProverRandomness rs = ProverRandomness::random();
  EXPECT_EQ(automatic.finish(pk.vk, automatic.start(pk, r1cs, w), rs).to_bytes(),
            cpu.finish(pk.vk, cpu.start(pk, r1cs, w), rs).to_bytes());
  EXPECT_EQ(automatic.residency_used(), cuda::SrsResidency::vram);
}

// A key whose queries stay in their .params file: read straight to the device (vram) or once
// into the backend's page-locked memory (host, streamed in pieces), the CPU's proof bytes.
TEST(CudaProver, KeyReadFromItsFileGivesTheCpuProof) {
  SNARKPIPE_REQUIRE_GPU();
  groth16::CpuBackend cpu;
  const testing::RandomCircuit circuit((1 << 12) + 5, 4, ::test_seed("CudaProver.Deferred"));
  const circuit::R1cs r1cs = circuit.record();
  const groth16::Witness w = circuit.witness();
  const groth16::ProvingKey pk = groth16::setup(r1cs);
  const std::string path = ::testing::TempDir() + "/cuda-deferred.params";
  groth16::write_params(path, pk);
  const groth16::ProvingKey deferred = groth16::open_params_deferred(path);
  for (const auto residency : {cuda::SrsResidency::vram, cuda::SrsResidency::host}) {
    cuda::CudaBackendOptions opt;
    opt.residency = residency;
    opt.host_piece_points = 700;
    cuda::CudaBackend gpu(opt);
    for (int run = 0; run < 2; ++run) {
      const ProverRandomness rs = ProverRandomness::random();
      EXPECT_EQ(gpu.finish(deferred.vk, gpu.start(deferred, r1cs, w), rs).to_bytes(),
                cpu.finish(pk.vk, cpu.start(pk, r1cs, w), rs).to_bytes());
      EXPECT_EQ(gpu.residency_used(), residency);
    }
  }
  std::filesystem::remove(path);
}

TEST(CudaProver, CorruptedWitnessGivesAProofThatFails) {
  SNARKPIPE_REQUIRE_GPU();
  cuda::CudaBackend gpu;
  const testing::RandomCircuit circuit(5000, 4, ::test_seed("CudaProver"));
  const circuit::R1cs r1cs = circuit.record();
  groth16::Witness w = circuit.witness();
  const groth16::ProvingKey pk = groth16::setup(r1cs);
  const auto pvk = groth16::PreparedVerifyingKey::from(pk.vk);
  const ProverRandomness rs = ProverRandomness::random();
  EXPECT_TRUE(groth16::verify(pvk, gpu.finish(pk.vk, gpu.start(pk, r1cs, w), rs), publics_of(w)));
  // Corrupt an aux value some constraint pins: a bit b = 0 made 1 still satisfies
  // b·(1 − b) = 0, and when no later constraint reads it the witness stays valid (a seed that
  // did this made the test fail once, 2026-11-30).
  bool broken = false;
  for (std::size_t j = w.aux.size() / 2; j < w.aux.size() && !broken; ++j) {
    w.aux[j] += ff::Fr::one();
    broken = !circuit::is_satisfied(r1cs, w.inputs, w.aux);
    if (!broken) w.aux[j] -= ff::Fr::one();
  }
  ASSERT_TRUE(broken) << "no aux value in the second half of the circuit is pinned by a constraint";
  EXPECT_FALSE(groth16::verify(pvk, gpu.finish(pk.vk, gpu.start(pk, r1cs, w), rs), publics_of(w)));
}

TEST(CudaProver, MismatchedKeyIsRefused) {
  SNARKPIPE_REQUIRE_GPU();
  cuda::CudaBackend gpu;
  const testing::RandomCircuit small(200, 2, 1), big(300, 2, 2);
  const circuit::R1cs r1cs = big.record();
  const groth16::ProvingKey pk = groth16::setup(small.record());
  EXPECT_THROW(gpu.start(pk, r1cs, big.witness()), groth16::ProverError);
}

template <class C>
void check_fixed_base(std::uint64_t seed) {
  ff::SeededRng rng(seed);
  const ec::Affine<C> g = ec::Jacobian<C>::generator().to_affine();
  cuda::GpuFixedBase<C> gpu(g);
  const msm::FixedBaseTable<C> cpu(g, 8);
  std::vector<ff::Fr> k(100003);
  for (auto& x : k) x = ff::Fr::random(rng);
  k[0] = ff::Fr::zero();
  k[1] = ff::Fr::one();
  k[2] = -ff::Fr::one();
  k[3] = k[4];  // a repeat
  EXPECT_EQ(gpu.batch_mul(k), msm::batch_mul(cpu, std::span<const ff::Fr>(k)));
}

TEST(CudaFixedBase, EqualsTheCpuTables) {
  SNARKPIPE_REQUIRE_GPU();
  check_fixed_base<ec::G1Curve>(::test_seed("CudaFixedBase.G1"));
  check_fixed_base<ec::G2Curve>(::test_seed("CudaFixedBase.G2"));
}

TEST(CudaFixedBase, SetupOnTheGpuGivesTheCpuKey) {
  SNARKPIPE_REQUIRE_GPU();
  const testing::RandomCircuit circuit(3000, 5, ::test_seed("CudaFixedBase.Setup"));
  const circuit::R1cs r1cs = circuit.record();
  const groth16::ToxicWaste tw = groth16::ToxicWaste::random();
  cuda::GpuFixedBaseG1 g1(ec::G1Affine::generator());
  cuda::GpuFixedBaseG2 g2(ec::G2Affine::generator());
  groth16::SetupMultipliers gpu;
  gpu.g1 = [&](std::span<const ff::Fr> k) { return g1.batch_mul(k); };
  gpu.g2 = [&](std::span<const ff::Fr> k) { return g2.batch_mul(k); };
  EXPECT_EQ(groth16::generate_parameters(r1cs, tw, {}, gpu), groth16::generate_parameters(r1cs, tw));
}

}  // namespace
}  // namespace snarkpipe
