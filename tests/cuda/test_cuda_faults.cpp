// CUDA errors inside the CUDA backend, injected on a real device through the test-only hook
// (cuda/fault_injection.hpp), as the engine meets them (issue 27): one failed call costs the
// partition a retry on the same device; failures in a row take the device out of service, and
// the engine finishes the job on the CPU (gpu.cpu_fallback). Every proof returned verifies.
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <thread>

#include "cuda/fault_injection.hpp"
#include "engine/engine.hpp"
#include "engine/engine_fixture.hpp"
#include "gpu_skip.hpp"
#include "groth16/verifier.hpp"

using namespace snarkpipe;
using namespace snarkpipe::engine;
namespace faults = snarkpipe::cuda::fault_injection;

namespace {

struct FaultedEngine {
  snarkpipe::testing::TinyCircuit circuit;
  std::vector<ff::Fr> publics;
  std::mutex mu;
  std::vector<std::string> log;
  std::unique_ptr<Engine> engine;

  explicit FaultedEngine(std::uint64_t seed) : circuit(seed, 3000, 2) {
    groth16::Witness w;
    synthesize_into(*circuit.circuit, w);
    publics.assign(w.inputs.begin() + 1, w.inputs.end());
    EngineConfig c = EngineConfig::defaults(MachineFacts::detect());
    c.synthesis_workers = 1;
    c.workers_per_device = 1;
    c.finalizer_workers = 1;
    c.devices = {0};
    c.device_failure_limit = 2;
    c.max_retries = 10;
    engine = std::make_unique<Engine>(c, make_backend_provider("cuda"), [this](const std::string& line) {
      std::lock_guard lock(mu);
      log.push_back(line);
    });
    engine->circuits().add("tiny", [k = circuit.keys] { return k; });
  }
  ~FaultedEngine() { faults::disarm(); }
  // Each partition's witness is made 100 ms late, so faults armed right after submit() are
  // armed before the device starts on it.
  ProofRequest request(std::size_t partitions) const {
    auto source = circuit.source();
    return {"tiny",
            [source](std::size_t k, groth16::Witness& w) {
              std::this_thread::sleep_for(std::chrono::milliseconds(100));
              source(k, w);
            },
            partitions,
            Priority::NORMAL,
            "",
            {}};
  }
  void expect_proved(const JobResult& r, std::size_t partitions) const {
    ASSERT_EQ(r.state, JobState::DONE) << r.error;
    ASSERT_EQ(r.proofs.size(), partitions);
    for (const auto& p : r.proofs) EXPECT_TRUE(groth16::verify(circuit.keys->pvk, p, publics));
  }
  bool logged(const std::string& needle) {
    std::lock_guard lock(mu);
    return std::any_of(log.begin(), log.end(),
                       [&](const std::string& l) { return l.find(needle) != std::string::npos; });
  }
};

TEST(CudaFaults, OneFailedCallIsRetriedOnTheSameDevice) {
  SNARKPIPE_REQUIRE_GPU();
  FaultedEngine f(test_seed("CudaFaults.Once"));
  f.expect_proved(f.engine->wait(f.engine->submit(f.request(1))), 1);  // the key is resident
  const JobId id = f.engine->submit(f.request(2));
  faults::fail_checked_calls(5, 1);  // a call a few steps into the first start()
  f.expect_proved(f.engine->wait(id), 2);
  EXPECT_EQ(faults::failures_reported.load(), 1);
  const EngineStats s = f.engine->stats();
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_TRUE(s.devices[0].in_service);
  EXPECT_EQ(s.devices[0].failures, 1u);
  EXPECT_EQ(s.devices[0].partitions_proved, 3u);
  EXPECT_EQ(s.partitions_retried, 1u);
  EXPECT_TRUE(f.logged("cudaErrorLaunchFailure") || f.logged("unspecified launch failure"));
}

TEST(CudaFaults, AFailingDeviceIsRetiredAndTheJobFinishesOnTheCpu) {
  SNARKPIPE_REQUIRE_GPU();
  FaultedEngine f(test_seed("CudaFaults.Retire"));
  f.expect_proved(f.engine->wait(f.engine->submit(f.request(1))), 1);
  const JobId id = f.engine->submit(f.request(3));
  faults::fail_checked_calls(0, 1L << 40);  // every checked call from now on
  f.expect_proved(f.engine->wait(id), 3);
  EXPECT_GE(faults::failures_reported.load(), 2);
  // Later jobs are taken, and proved on the CPU.
  f.expect_proved(f.engine->wait(f.engine->submit(f.request(1))), 1);
  faults::disarm();
  const EngineStats s = f.engine->stats();
  ASSERT_EQ(s.devices.size(), 2u);
  EXPECT_FALSE(s.devices[0].in_service);
  EXPECT_NE(s.devices[0].out_of_service_reason.find("2 consecutive failures"), std::string::npos)
      << s.devices[0].out_of_service_reason;
  EXPECT_EQ(s.devices[1].name, "cpu (fallback)");
  EXPECT_EQ(s.devices[1].partitions_proved, 4u);
  EXPECT_TRUE(f.logged("proving on the CPU from now on"));
}

}  // namespace
