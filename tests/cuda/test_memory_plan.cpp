// The device memory plan (cuda/memory_plan.hpp) on the CPU, against simulated device sizes: a
// full PoRep partition on cards of 12 to 141 GiB gets the fewest-transfer tier that fits, or a
// refusal with the numbers; budgets and residency choices hold; the bytes and bus traffic
// follow the shape.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "cuda/memory_plan.hpp"
#include "cuda/prover.hpp"
#include "groth16/random_circuit.hpp"
#include "groth16/setup.hpp"
#include "test_seed.hpp"
#include "tier_cases.hpp"

namespace snarkpipe::cuda {
namespace {

constexpr std::size_t GiB = std::size_t(1) << 30;

PlanRequest request(const ProofShape& s, std::size_t free_gib, TierChoice choice = TierChoice::any) {
  PlanRequest r;
  r.shape = s;
  r.device_free = free_gib * GiB;
  r.choice = choice;
  r.device_name = "a simulated " + std::to_string(free_gib) + " GiB GPU";
  return r;
}

TEST(MemoryPlan, PorepShapeMatchesTheReferenceSizes) {
  const ProofShape s = ProofShape::porep_partition();
  EXPECT_EQ(s.domain(), std::size_t(1) << 27);
  EXPECT_EQ(s.constraints, 130'278'869u);
  EXPECT_EQ(s.aux, 130'169'893u);
  EXPECT_EQ(s.a_points, 328u + 129'753'292u);
  EXPECT_EQ(s.b_points, 33'112'282u);
  // REFERENCE.md §3: the .params file (uncompressed points, the bytes in memory) is ≈ 47.4 GB.
  EXPECT_NEAR(double(s.key_bytes()), 47.4e9, 0.2e9);
}

// For every simulated size the plan is the first tier, in order, that fits: every earlier
// tier (at every piece size) needs more than the device has.
TEST(MemoryPlan, ChoosesTheFewestTransferTierThatFits) {
  const ProofShape s = ProofShape::porep_partition();
  const MemoryPlan resident = plan_for_tier(s, MemoryTier::resident);
  for (std::size_t gib = 8; gib <= 160; gib += 4) {
    SCOPED_TRACE(std::to_string(gib) + " GiB");
    try {
      const MemoryPlan p = plan_device_memory(request(s, gib));
      EXPECT_LE(p.device_bytes, gib * GiB);
      if (p.tier != MemoryTier::resident) {
        EXPECT_GT(resident.device_bytes, gib * GiB);
      }
      if (p.tier == MemoryTier::circuit_streamed) {
        EXPECT_GT(plan_for_tier(s, MemoryTier::key_streamed, std::size_t(1) << 20).device_bytes, gib * GiB);
      }
      if (p.tier == MemoryTier::bounded_h) {
        EXPECT_GT(plan_for_tier(s, MemoryTier::circuit_streamed, std::size_t(1) << 20).device_bytes, gib * GiB);
      }
    } catch (const MemoryPlanError& e) {
      // Refused: not even tier 4 at its smallest pieces fits, and the message has the numbers.
      EXPECT_GT(plan_for_tier(s, MemoryTier::bounded_h, std::size_t(1) << 20).device_bytes, gib * GiB);
      const std::string m = e.what();
      EXPECT_NE(m.find(std::to_string(gib) + ".0 GiB free"), std::string::npos) << m;
      EXPECT_NE(m.find("needs"), std::string::npos) << m;
      EXPECT_NE(m.find("tier 4"), std::string::npos) << m;
    }
  }
}

TEST(MemoryPlan, TiersAtTheCardsOperatorsOwn) {
  const ProofShape s = ProofShape::porep_partition();
  // An H200 (141 GiB) keeps everything resident, as the measured 1.48 s partition does.
  EXPECT_EQ(plan_device_memory(request(s, 141)).tier, MemoryTier::resident);
  // Smaller cards stream: more bus traffic for each step down.
  const MemoryPlan p80 = plan_device_memory(request(s, 80));
  EXPECT_NE(p80.tier, MemoryTier::resident);
  const MemoryPlan p48 = plan_device_memory(request(s, 48));
  EXPECT_GE(int(p48.tier), int(p80.tier));
  EXPECT_GE(p48.bus_bytes_per_partition, p80.bus_bytes_per_partition);
  // 24 GiB: the circuit streams with the key; 16: H in bounded memory as well; 12: and the host
  // evaluates a, b, c (z does not fit beside H's vectors).
  const MemoryPlan p24 = plan_device_memory(request(s, 24)), p16 = plan_device_memory(request(s, 16)),
                   p12 = plan_device_memory(request(s, 12));
  EXPECT_EQ(p24.tier, MemoryTier::circuit_streamed);
  EXPECT_TRUE(p24.streams_circuit);
  EXPECT_EQ(p16.tier, MemoryTier::bounded_h);
  EXPECT_TRUE(p16.streams_circuit);
  EXPECT_FALSE(p16.abc_from_host);
  EXPECT_EQ(p12.tier, MemoryTier::bounded_h);
  EXPECT_TRUE(p12.abc_from_host);
  EXPECT_FALSE(p12.streams_circuit);
  for (const MemoryPlan* p : {&p24, &p16, &p12}) EXPECT_LE(p->device_bytes, p->available_bytes);
  EXPECT_NE(p16.summary().find("(bounded H, circuit streamed"), std::string::npos) << p16.summary();
  EXPECT_NE(p12.summary().find("(bounded H, a/b/c from the host"), std::string::npos) << p12.summary();
  // Below the smallest tier: refused with the numbers, before any work.
  EXPECT_THROW(plan_device_memory(request(s, 8)), MemoryPlanError);
  // The README's table quotes these ranges (key pieces of 2^20 to 2^25 points).
  auto range = [&](MemoryTier t) {
    return format_gib(plan_for_tier(s, t, std::size_t(1) << 20).device_bytes) + "–" +
           format_gib(plan_for_tier(s, t, std::size_t(1) << 25).device_bytes);
  };
  std::printf("full PoRep partition: tier 1 %s, tier 2 %s, tier 3 %s, tier 4 %s (a/b/c from the host %s–%s)\n",
              format_gib(plan_for_tier(s, MemoryTier::resident).device_bytes).c_str(),
              range(MemoryTier::key_streamed).c_str(), range(MemoryTier::circuit_streamed).c_str(),
              range(MemoryTier::bounded_h).c_str(),
              format_gib(plan_for_tier(s, MemoryTier::bounded_h, std::size_t(1) << 20, true).device_bytes).c_str(),
              format_gib(plan_for_tier(s, MemoryTier::bounded_h, std::size_t(1) << 25, true).device_bytes).c_str());
}

TEST(MemoryPlan, BudgetAndResidencyChoicesHold) {
  const ProofShape s = ProofShape::porep_partition();
  PlanRequest r = request(s, 141);
  r.budget = 60 * GiB;  // memory.device_budget below what the device has
  const MemoryPlan p = plan_device_memory(r);
  EXPECT_NE(p.tier, MemoryTier::resident);
  EXPECT_LE(p.device_bytes, 60 * GiB);
  EXPECT_EQ(p.available_bytes, 60 * GiB);
  // vram only: refused where the key cannot stay, with the way out in the message.
  try {
    plan_device_memory(request(s, 64, TierChoice::key_on_device));
    ADD_FAILURE() << "a 64 GiB card cannot hold the key and its temporaries";
  } catch (const MemoryPlanError& e) {
    EXPECT_NE(std::string(e.what()).find("--srs-residency host"), std::string::npos) << e.what();
  }
  // host: streamed even where it would fit.
  EXPECT_EQ(plan_device_memory(request(s, 141, TierChoice::key_on_host)).tier, MemoryTier::key_streamed);
  // An explicit piece size is kept.
  PlanRequest fixed = request(s, 141, TierChoice::key_on_host);
  fixed.piece_points = std::size_t(1) << 22;
  EXPECT_EQ(plan_device_memory(fixed).piece_points, std::size_t(1) << 22);
}

TEST(MemoryPlan, BusTrafficFollowsTheTier) {
  const ProofShape s = ProofShape::porep_partition();
  const std::size_t z = (s.inputs + s.aux) * 32, abc = 3 * s.constraints * 32;
  EXPECT_EQ(plan_for_tier(s, MemoryTier::resident).bus_bytes_per_partition, z);
  EXPECT_EQ(plan_for_tier(s, MemoryTier::key_streamed).bus_bytes_per_partition, z + s.key_bytes());
  // Tier 3 streams the recorded circuit (its coded matrices) instead of a, b, c.
  EXPECT_EQ(plan_for_tier(s, MemoryTier::circuit_streamed).bus_bytes_per_partition,
            z + s.key_bytes() + s.circuit_bytes);
  EXPECT_LT(s.circuit_bytes, abc);
  // Smaller pieces, fewer device bytes; the same traffic.
  EXPECT_LT(plan_for_tier(s, MemoryTier::key_streamed, 1 << 20).device_bytes,
            plan_for_tier(s, MemoryTier::key_streamed, 1 << 25).device_bytes);
  // Tier 4: the staged vector crosses back and forth twice more.
  const std::size_t m = s.domain() * 32;
  EXPECT_EQ(plan_for_tier(s, MemoryTier::bounded_h).bus_bytes_per_partition,
            z + s.key_bytes() + s.circuit_bytes + 2 * m);
  EXPECT_EQ(plan_for_tier(s, MemoryTier::bounded_h, 0, true).bus_bytes_per_partition, z + s.key_bytes() + abc + 2 * m);
  // With a/b/c from the host, z is not on the device during H: less memory.
  EXPECT_LT(plan_for_tier(s, MemoryTier::bounded_h, 1 << 20, true).device_bytes,
            plan_for_tier(s, MemoryTier::bounded_h, 1 << 20).device_bytes);
  // Its device bytes are those of its largest phase (H: one vector and the NTT's scratch), not
  // the sum of the phases, and no 2^27 vector is counted more than twice.
  const MemoryPlan b = plan_for_tier(s, MemoryTier::bounded_h, 1 << 20, true);
  EXPECT_LT(b.device_bytes, 3 * m);
  EXPECT_GT(b.device_bytes, 2 * m);
  EXPECT_NE(b.describe().find("pinned host: proving key"), std::string::npos) << b.describe();
  EXPECT_NE(b.describe().find("one vector staged for H"), std::string::npos) << b.describe();
  // The words name the tier, each place and the traffic.
  MemoryPlan p = plan_for_tier(s, MemoryTier::circuit_streamed, 1 << 22);
  p.available_bytes = 48 * GiB;
  p.device_name = "X";
  const std::string d = p.describe();
  for (const char* w :
       {"tier 3 of 4 (circuit streamed)", "of 48.0 GiB free on X", "on the GPU:", "pinned host: proving key",
        "pinned host: proving key 44.1 GiB, recorded circuit", "host to GPU per partition"})
    EXPECT_NE(d.find(w), std::string::npos) << w << " in\n" << d;
}

// An evaluated assignment (the Filecoin ABI: a, b, c from the caller) has no circuit: tiers 1,
// 2 and 4, with a, b, c on the bus in each; a 16 GiB card takes tier 4.
TEST(MemoryPlan, EvaluatedAssignmentsHaveNoCircuitTier) {
  ProofShape s = ProofShape::porep_partition();
  s.evaluated = true;
  s.circuit_bytes = 0;
  const std::size_t abc = 3 * s.constraints * 32;
  EXPECT_EQ(plan_for_tier(s, MemoryTier::resident).bus_bytes_per_partition, (s.inputs + s.aux) * 32 + abc);
  for (std::size_t gib = 8; gib <= 160; gib += 8) {
    try {
      EXPECT_NE(plan_device_memory(request(s, gib)).tier, MemoryTier::circuit_streamed);
    } catch (const MemoryPlanError&) {}
  }
  EXPECT_EQ(plan_device_memory(request(s, 16)).tier, MemoryTier::bounded_h);
}

// The shape of a real key and circuit, and the backend's byte counts, from the same plan.
TEST(MemoryPlan, ShapeOfARealKeyAndCircuit) {
  const snarkpipe::testing::RandomCircuit c(2000, 5, ::test_seed("MemoryPlan.Shape"));
  const circuit::R1cs r1cs = c.record();
  const groth16::ProvingKey pk = groth16::setup(r1cs);
  const ProofShape s = ProofShape::of(pk, r1cs);
  EXPECT_EQ(s.constraints, r1cs.num_constraints);
  EXPECT_EQ(s.inputs, r1cs.num_inputs);
  EXPECT_EQ(s.aux, r1cs.num_aux);
  EXPECT_EQ(s.h_points + 1, s.domain());
  EXPECT_EQ(s.a_points, pk.a.size());
  EXPECT_EQ(s.b_points, pk.b_g2.size());
  EXPECT_GT(s.circuit_bytes, 8 * (r1cs.a.nnz() + r1cs.b.nnz() + r1cs.c.nnz()));
  EXPECT_EQ(s.key_bytes(), (pk.h.size() + pk.l.size() + pk.a.size() + pk.b_g1.size()) * 96 + pk.b_g2.size() * 192);
}

// The GPU test's tier cases (test_cuda_prover, byte-equal to the CPU) reach every path: each
// tier, and the streamed L, A, B MSMs both beside the H MSM and after it.
TEST(MemoryPlan, TheGpuTestsCasesCoverEveryPath) {
  const snarkpipe::testing::RandomCircuit c((1 << 15) + 3, 4, ::test_seed("MemoryPlan.Cases"));
  const circuit::R1cs r1cs = c.record();
  const groth16::ProvingKey pk = groth16::setup(r1cs);
  std::set<std::string> ran;
  for (const testing::TierCase& t : testing::tier_cases(ProofShape::of(pk, r1cs), 1 << 12)) {
    ran.insert(t.words);
    if (t.budget) {
      EXPECT_LE(t.plan.device_bytes, t.budget) << t.words;
    }
    EXPECT_EQ(t.plan.tail_piece_points > 0, t.words.find("L/A/B beside the H MSM") != std::string::npos);
    if (!t.concurrent) {
      EXPECT_EQ(t.plan.tail_piece_points, 0u) << t.words;
    }
  }
  for (const char* w :
       {"tier 1 of 4 (resident)", "tier 2 of 4 (key streamed)", "tier 2 of 4 (key streamed, L/A/B beside the H MSM)",
        "tier 4 of 4 (bounded H, circuit streamed)",
        "tier 4 of 4 (bounded H, circuit streamed, L/A/B beside the H MSM)",
        "tier 4 of 4 (bounded H, a/b/c from the host)"})
    EXPECT_TRUE(ran.count(w)) << w;
  EXPECT_TRUE(ran.count("tier 3 of 4 (circuit streamed)"));
  EXPECT_TRUE(ran.count("tier 3 of 4 (circuit streamed, L/A/B beside the H MSM)"));
  for (const auto& w : ran) std::printf("  %s\n", w.c_str());
}

// One tier asked for: that tier or a refusal that names it, never another tier.
TEST(MemoryPlan, OnlyTierIsThatTierOrARefusal) {
  const ProofShape s = ProofShape::porep_partition();
  for (const int t : {1, 2, 3, 4}) {
    PlanRequest r = request(s, 141);
    r.only_tier = t;
    EXPECT_EQ(int(plan_device_memory(r).tier), t);
  }
  PlanRequest on_host = request(s, 141, TierChoice::key_on_host);
  on_host.only_tier = 1;
  EXPECT_THROW(plan_device_memory(on_host), MemoryPlanError);
  PlanRequest small = request(s, 16);
  small.only_tier = 2;  // 16 GiB cannot hold tier 2
  EXPECT_THROW(plan_device_memory(small), MemoryPlanError);
}

// Setup's GPU multiplications hold a bounded amount whatever the circuit: ~4 GiB, so every card
// an operator owns sets up on its GPU.
TEST(MemoryPlan, SetupOnTheGpuIsBounded) {
  EXPECT_GT(setup_device_bytes(), std::size_t(3) * GiB);
  EXPECT_LT(setup_device_bytes(), std::size_t(5) * GiB);
}

}  // namespace
TEST(MemoryPlan, LABMsmsBesideTheHMsmWhereMemoryAllows) {
  const ProofShape s = ProofShape::porep_partition();
  for (const int gib : {12, 16, 24, 32, 48}) {
    const MemoryPlan p = plan_device_memory(request(s, gib));
    std::printf("%d GiB: %s\n", gib, p.summary().c_str());
    EXPECT_LE(p.device_bytes, p.available_bytes);
    if (p.tail_piece_points) {
      // The second streamer's pieces are no larger than the first's, and the plan names them.
      EXPECT_LE(p.tail_piece_points, p.piece_points);
      EXPECT_NE(p.describe().find("a second streamer, 2 × " + std::to_string(p.tail_piece_points)), std::string::npos)
          << p.describe();
      // The same card without the MSMs side by side never plans more memory.
      PlanRequest serial = request(s, gib);
      serial.concurrent_msms = false;
      const MemoryPlan q = plan_device_memory(serial);
      EXPECT_EQ(q.tail_piece_points, 0u);
      EXPECT_LE(q.device_bytes, q.available_bytes);
    }
  }
  // Cards from 24 GiB up run them side by side, with pieces of at least 2^23 points (smaller
  // ones made them slower than after the H MSM, measured at 16 GiB).
  for (const int gib : {24, 32, 48})
    EXPECT_GE(plan_device_memory(request(s, gib)).tail_piece_points, std::size_t(1) << 23) << gib;
  // 16 GiB: no room for that beside tier 4's H MSM; the L, A, B MSMs follow it, with the H
  // MSM's pieces at 2^23.
  EXPECT_EQ(plan_device_memory(request(s, 16)).tail_piece_points, 0u);
  EXPECT_EQ(plan_device_memory(request(s, 16)).piece_points, std::size_t(1) << 23);
  // 12 GiB: z comes after the H MSM (a, b, c from the host), so the L, A, B MSMs follow it.
  EXPECT_EQ(plan_device_memory(request(s, 12)).tail_piece_points, 0u);
  // The resident tier has no streamers.
  EXPECT_EQ(plan_device_memory(request(s, 141)).tail_piece_points, 0u);
}

}  // namespace snarkpipe::cuda
