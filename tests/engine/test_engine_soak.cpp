// The engine's soak (engine/soak.hpp) as a test program: a smaller run than ctest engine_soak's
// 100 proofs through the CLI, a fresh seed each time (printed), every check of the soak asserted
// on its own. Without the CLI, so `make test-sanitize` runs it under TSan: the engine's workers,
// the soak's canceller and its scripted backends race there if anywhere.
#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>

#include "engine/soak.hpp"
#include "test_seed.hpp"

namespace snarkpipe::engine {
namespace {

// Small enough for TSan on 2 cores (tests/sanitize/run.sh), large enough that most faults are
// drawn in most runs and a dead device is called many times after it died.
// SNARKPIPE_SOAK_PROOFS=N soaks longer.
constexpr std::size_t kProofs = 40;

SoakOptions options(const std::string& name) {
  SoakOptions o;
  const char* proofs = std::getenv("SNARKPIPE_SOAK_PROOFS");
  o.proofs = proofs ? std::strtoull(proofs, nullptr, 10) : kProofs;
  o.seed = test_seed(name);
  if (o.seed == 0) o.seed = 1;  // 0 would ask the soak for a seed of its own
  o.log = [t0 = std::chrono::steady_clock::now()](const std::string& line) {
    static std::mutex mu;  // the engine's workers log too
    std::lock_guard lock(mu);
    const std::chrono::duration<double> t = std::chrono::steady_clock::now() - t0;
    std::printf("soak: [%.1f s] %s\n", t.count(), line.c_str());
  };
  return o;
}

// Every check the soak makes, asserted one by one (the soak's problems name what failed).
void expect_nothing_lost_or_wrong(const SoakReport& r, const SoakOptions& o) {
  for (const auto& p : r.problems) ADD_FAILURE() << "soak: " << p;
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.seed, o.seed);
  EXPECT_GT(r.jobs, 0u);
  EXPECT_EQ(r.done + r.failed + r.cancelled, r.jobs) << "a job ended in no final state";
  EXPECT_GT(r.done, 0u);
  EXPECT_EQ(r.invalid_proofs, 0u);
  EXPECT_EQ(r.lost_jobs, 0u);
  EXPECT_EQ(r.duplicated_jobs, 0u);
  EXPECT_EQ(r.wrong_cause, 0u);
  std::size_t caused = 0;
  for (const auto& [cause, n] : r.failure_causes) caused += n;
  EXPECT_EQ(caused, r.failed) << "a failed job without its injected cause";
  EXPECT_EQ(r.failure_causes.count("no device"), 0u) << "a job failed for want of a device";
  // Every returned proof was proved (and verified) by the engine and verified again here.
  EXPECT_GE(r.proofs_verified_again, r.done);
  EXPECT_LE(r.proofs_verified_again, r.engine.partitions_proved);
  EXPECT_GE(r.engine.verification_failures, r.corrupted_proofs_of_done_jobs);
  EXPECT_EQ(r.oversized_refused_with_cause, r.injected.oversized_requests);
  EXPECT_LE(r.injected.cancellations_honoured, r.injected.cancellations_planned);
  // Memory: the budget held, every buffer back, nothing charged but residents and idle buffers.
  EXPECT_LE(r.engine.host_peak, r.engine.host_budget);
  EXPECT_EQ(r.engine.buffers_in_use, 0u);
  EXPECT_EQ(r.engine.host_used, r.engine.resident_bytes + r.engine.buffers_idle_bytes + r.engine.packed_idle_bytes);
  if (r.rss_checked) {
    EXPECT_LE(r.rss_max, r.rss_limit);
  }
  // No thread left behind (the engine's, the soak's, oneTBB's).
  EXPECT_EQ(r.threads_at_end, r.threads_at_start);
  // The devices that died were called after it and taken out of service for it.
  ASSERT_GE(r.engine.devices.size(), o.devices);
  EXPECT_GT(r.injected.dead_device_calls, 0u);
  for (const int d : r.injected.dead_devices) {
    const DeviceStatus& s = r.engine.devices[std::size_t(d)];
    EXPECT_FALSE(s.in_service) << "device " << d << " died and is still in service";
    EXPECT_NE(s.out_of_service_reason.find("injected"), std::string::npos) << s.out_of_service_reason;
  }
  EXPECT_EQ(r.cpu_fallback_started, r.cpu_fallback_logged);
  for (const auto& [cause, n] : r.failure_causes) std::printf("soak: failed for %s: %zu\n", cause.c_str(), n);
}

// The soak as `snarkpipe bench soak` runs it: the last of three devices dies, the others
// carry the run.
TEST(EngineSoak, FaultsLoseNothingAndProveNothingWrong) {
  const SoakOptions o = options("EngineSoak.FaultsLoseNothingAndProveNothingWrong");
  const SoakReport r = run_soak(o);
  expect_nothing_lost_or_wrong(r, o);
  ASSERT_EQ(r.injected.dead_devices.size(), 1u);
  EXPECT_EQ(r.injected.dead_devices[0], int(o.devices) - 1);
  EXPECT_TRUE(r.engine.devices[0].in_service || r.engine.devices[1].in_service) << "a live device went out";
  EXPECT_FALSE(r.cpu_fallback_started) << "devices were left, yet the engine fell back to the CPU";
  std::printf("soak: %zu jobs: %zu done, %zu failed, %zu cancelled; %zu start() calls, %.1f s\n", r.jobs, r.done,
              r.failed, r.cancelled, r.injected.start_calls, r.seconds);
}

// Every device dies, one after another: the engine takes each out of service and, after the
// last, proves on its CPU fallback (gpu.cpu_fallback); every job still ends with verified
// proofs or the cause it was given (a partition failed on dead devices more often than it is
// retried is one), none for want of a device.
TEST(EngineSoak, EveryDeviceDiesAndTheCpuFallbackFinishesTheJobs) {
  SoakOptions o = options("EngineSoak.EveryDeviceDiesAndTheCpuFallbackFinishesTheJobs");
  o.all_devices_die = true;
  const SoakReport r = run_soak(o);
  expect_nothing_lost_or_wrong(r, o);
  EXPECT_EQ(r.injected.dead_devices.size(), o.devices);
  ASSERT_TRUE(r.cpu_fallback_started);
  EXPECT_TRUE(r.cpu_fallback_logged);
  ASSERT_EQ(r.engine.devices.size(), o.devices + 1) << "the CPU fallback is one more device, after the others";
  const DeviceStatus& cpu = r.engine.devices.back();
  EXPECT_TRUE(cpu.in_service);
  EXPECT_GT(cpu.partitions_proved, 0u);
  EXPECT_EQ(r.cpu_fallback_partitions, cpu.partitions_proved);
  for (std::size_t d = 0; d < o.devices; ++d) EXPECT_FALSE(r.engine.devices[d].in_service) << "device " << d;
  std::printf("soak: %zu jobs: %zu done, %zu failed, %zu cancelled; %zu partitions on the CPU fallback, %.1f s\n",
              r.jobs, r.done, r.failed, r.cancelled, cpu.partitions_proved, r.seconds);
}

TEST(EngineSoak, NeedsTwoDevices) {
  SoakOptions o;
  o.devices = 1;
  EXPECT_THROW(run_soak(o), std::invalid_argument);
}

}  // namespace
}  // namespace snarkpipe::engine
