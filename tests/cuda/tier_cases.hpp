// The memory-tier cases the GPU test runs (test_cuda_prover: each proof byte-equal to the CPU
// backend's) and the CPU test checks cover every path (test_memory_plan): a tier, and a budget
// the size of one of its variants, each with the plan the planner chooses for it.
#pragma once

#include <string>
#include <vector>

#include "cuda/memory_plan.hpp"
#include "cuda/prover.hpp"

namespace snarkpipe::cuda::testing {

struct TierCase {
  int tier;  // CudaBackendOptions::only_tier
  SrsResidency residency;
  std::size_t budget;  // memory.device_budget (0: none)
  bool concurrent;     // CudaBackendOptions::concurrent_msms
  MemoryPlan plan;     // what the planner chooses for it
  std::string words;   // the plan's summary up to its ':' ("tier 2 of 4 (key streamed)")
};

inline std::vector<TierCase> tier_cases(const ProofShape& shape, std::size_t piece) {
  auto bytes = [&](MemoryTier t, bool host_abc = false, std::size_t tail = 0) {
    return plan_for_tier(shape, t, piece, host_abc, tail).device_bytes;
  };
  std::vector<TierCase> cases = {
      {1, SrsResidency::automatic, 0, true, {}, {}},
      {0, SrsResidency::host, 0, true, {}, {}},
      {0, SrsResidency::host, 0, false, {}, {}},
      {3, SrsResidency::host, bytes(MemoryTier::circuit_streamed, false, piece), true, {}, {}},
      {3, SrsResidency::host, bytes(MemoryTier::circuit_streamed), false, {}, {}},
      {4, SrsResidency::automatic, bytes(MemoryTier::bounded_h, false, piece), true, {}, {}},
      {4, SrsResidency::automatic, bytes(MemoryTier::bounded_h), false, {}, {}},
      {4, SrsResidency::automatic, bytes(MemoryTier::bounded_h, true), false, {}, {}}};
  for (TierCase& c : cases) {
    PlanRequest req;
    req.shape = shape;
    req.device_free = c.budget ? c.budget : std::size_t(1) << 40;
    req.budget = c.budget;
    req.choice = c.residency == SrsResidency::host ? TierChoice::key_on_host : TierChoice::any;
    req.piece_points = piece;
    req.concurrent_msms = c.concurrent;
    req.only_tier = c.tier;
    c.plan = plan_device_memory(req);
    const std::string summary = c.plan.summary();
    c.words = summary.substr(0, summary.find(':'));
  }
  return cases;
}

}  // namespace snarkpipe::cuda::testing
