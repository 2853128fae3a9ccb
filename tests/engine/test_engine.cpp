// The engine end to end on tiny circuits: every proof verified, priorities and FIFO order,
// cancellation, failure injection (witness errors, device errors, wrong proofs), the memory
// budgets under backpressure, idempotency keys, the device lock, and the timeline.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <regex>
#include <thread>

#include "engine/cpu_fallback.hpp"
#include "engine/engine.hpp"
#include "engine/waterfall.hpp"
#include "engine_fixture.hpp"
#include "groth16/params_file.hpp"
#include "groth16/verifier.hpp"

using namespace snarkpipe;
using namespace snarkpipe::engine;
using snarkpipe::testing::Fault;

namespace {

constexpr std::uint64_t MiB = 1 << 20;

EngineConfig small_config(std::size_t synthesis_workers = 2, std::size_t workers_per_device = 2) {
  EngineConfig c = EngineConfig::defaults(MachineFacts{2, 4096 * MiB});
  c.synthesis_workers = synthesis_workers;
  c.workers_per_device = workers_per_device;
  c.finalizer_workers = 1;
  c.host_budget = 512 * MiB;
  return c;
}

class Harness {
 public:
  explicit Harness(const char* name) : circuit(test_seed(name)) {
    groth16::Witness w;
    synthesize_into(*circuit.circuit, w);
    publics.assign(w.inputs.begin() + 1, w.inputs.end());
  }
  void start(EngineConfig config, std::shared_ptr<BackendProvider> provider) {
    engine = std::make_unique<Engine>(std::move(config), std::move(provider), [this](const std::string& line) {
      std::lock_guard lock(log_mu);
      log.push_back(line);
    });
    engine->circuits().add("tiny", [k = circuit.keys] { return k; });
  }
  void start_cpu(EngineConfig config) { start(std::move(config), std::make_shared<CpuBackendProvider>()); }
  void start_scripted(EngineConfig config, int devices = 1, MemoryNeeds device_needs = {}, std::uint64_t memory = 0,
                      bool host_working = true, bool packed = false) {
    start(std::move(config), std::make_shared<snarkpipe::testing::ScriptedProvider>(devices, memory, device_needs,
                                                                                    script, host_working, packed));
  }
  ProofRequest request(std::size_t partitions, Priority p = Priority::NORMAL, std::string key = "") const {
    return {"tiny", circuit.source(), partitions, p, std::move(key), {}};
  }
  // The result is DONE with `partitions` proofs, each of which verifies on its own.
  void expect_proved(const JobResult& r, std::size_t partitions) const {
    ASSERT_EQ(r.state, JobState::DONE) << r.error;
    ASSERT_EQ(r.proofs.size(), partitions);
    EXPECT_EQ(r.bytes().size(), partitions * groth16::Proof::BYTES);
    for (const auto& p : r.proofs) EXPECT_TRUE(groth16::verify(circuit.keys->pvk, p, publics));
  }
  bool logged(const std::string& needle) {
    std::lock_guard lock(log_mu);
    return std::any_of(log.begin(), log.end(),
                       [&](const std::string& l) { return l.find(needle) != std::string::npos; });
  }
  // Waits until every pooled buffer is back (running partitions of cancelled jobs settle).
  void until_quiet() {
    for (int i = 0; i < 2000; ++i) {
      const EngineStats s = engine->stats();
      if (s.buffers_idle == s.buffers_created &&
          s.host_used == engine->circuits().resident_bytes() + idle_buffer_bytes(s) + s.packed_idle_bytes)
        return;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    FAIL() << "the engine did not settle";
  }
  std::uint64_t idle_buffer_bytes(const EngineStats& s) const {
    const auto& r = circuit.keys->r1cs;
    return s.buffers_idle * WitnessBufferPool::bytes_for(r.num_inputs, r.num_aux);
  }

  snarkpipe::testing::TinyCircuit circuit;
  std::vector<ff::Fr> publics;
  std::shared_ptr<snarkpipe::testing::BackendScript> script = std::make_shared<snarkpipe::testing::BackendScript>();
  std::mutex log_mu;
  std::vector<std::string> log;
  std::unique_ptr<Engine> engine;
};

// The partitions' SYNTH_START events in time order, as (job, partition).
std::vector<std::pair<JobId, std::uint32_t>> synthesis_order(const TimelineSnapshot& tl) {
  std::vector<std::pair<JobId, std::uint32_t>> order;
  for (const auto& e : tl.events)
    if (e.stage == Stage::SYNTH_START) order.emplace_back(e.job, e.partition);
  return order;
}

}  // namespace

// A request whose witness comes packed as it is made: on a backend that takes packed
// witnesses, with the check off, no full witness buffer is ever made; with the check on, or on
// a backend that takes full witnesses, it is unpacked into one. Every proof verifies either way,
// and a packed witness of the wrong size fails its job with the counts named.
TEST(Engine, PackedWitnessSourcesProveWithOrWithoutAFullBuffer) {
  for (const bool packed_backend : {false, true})
    for (const bool check : {false, true}) {
      Harness h("Engine.PackedSource");
      EngineConfig c = small_config(2, 1);
      c.check_witness = check;
      h.start_scripted(c, 1, {}, 0, true, packed_backend);
      const auto circuit = h.circuit.circuit;
      ProofRequest r = h.request(3);
      r.witness = nullptr;
      r.packed_witness = [circuit](std::size_t, groth16::PackedWitness& out) {
        groth16::Witness w;
        synthesize_into(*circuit, w);
        groth16::PackedWitnessWriter writer(out, w.inputs, w.aux.size());
        const std::size_t half = w.aux.size() / 2 + 1;  // two pieces, the first not word-aligned
        writer.append(std::span<const ff::Fr>(w.aux).first(half));
        writer.append(std::span<const ff::Fr>(w.aux).subspan(half));
        writer.finish();
      };
      h.expect_proved(h.engine->wait(h.engine->submit(r)), 3);
      const EngineStats s = h.engine->stats();
      if (packed_backend && !check) EXPECT_EQ(s.buffers_created, 0u) << "a full witness buffer was made";
      else EXPECT_GE(s.buffers_created, 1u);

      ProofRequest bad = h.request(1);
      bad.witness = nullptr;
      bad.packed_witness = [circuit](std::size_t, groth16::PackedWitness& out) {
        groth16::Witness w;
        synthesize_into(*circuit, w);
        w.aux.pop_back();
        groth16::pack_witness(w.inputs, w.aux, out);
      };
      const JobResult failed = h.engine->wait(h.engine->submit(bad));
      EXPECT_EQ(failed.state, JobState::FAILED);
      EXPECT_NE(failed.error.find("aux values"), std::string::npos) << failed.error;
      h.until_quiet();
    }
}

TEST(Engine, ProvesJobsAndTheTimelineShowsEveryStage) {
  Harness h("Engine.Proves");
  h.start_cpu(small_config());
  std::vector<JobId> ids;
  for (auto p : {Priority::LOW, Priority::NORMAL, Priority::HIGH}) ids.push_back(h.engine->submit(h.request(3, p)));
  for (JobId id : ids) h.expect_proved(h.engine->wait(id), 3);

  const TimelineSnapshot tl = h.engine->timeline();
  // Exactly one bar per partition and stage, and the stages in time order.
  std::map<std::pair<JobId, std::uint32_t>, std::map<BarKind, Bar>> by_partition;
  for (const Bar& b : tl.bars()) {
    auto& kinds = by_partition[{b.job, b.partition}];
    EXPECT_TRUE(kinds.emplace(b.kind, b).second) << "two " << bar_name(b.kind) << " bars for job " << b.job;
    EXPECT_LE(b.start, b.end);
  }
  ASSERT_EQ(by_partition.size(), 9u);
  for (const auto& [part, kinds] : by_partition) {
    ASSERT_EQ(kinds.size(), 4u);
    EXPECT_LE(kinds.at(BarKind::SYNTH).end, kinds.at(BarKind::QUEUE).start);
    EXPECT_LE(kinds.at(BarKind::QUEUE).end, kinds.at(BarKind::GPU).start);
    EXPECT_LE(kinds.at(BarKind::GPU).end, kinds.at(BarKind::FINISH).start);
    EXPECT_EQ(kinds.at(BarKind::GPU).device, 0);
  }
  const auto totals = tl.totals();
  ASSERT_EQ(totals.size(), 3u);
  for (const auto& t : totals) {
    EXPECT_EQ(t.state, JobState::DONE);
    EXPECT_GT(t.gpu, 0);
    EXPECT_GE(t.latency, t.gpu / 3);  // three partitions' device time, serialized by the lock
  }
  // The waterfall: one rect per bar, in time order, with the job and partition on each.
  const std::string html = waterfall_html(tl, "test");
  const std::regex rect(
      R"re(<rect class="bar (\w+)" data-job="(\d+)" data-partition="(\d+)" data-start="([0-9.]+)")re");
  std::map<std::string, int> count;
  double last = -1;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), rect); it != std::sregex_iterator(); ++it) {
    ++count[(*it)[1]];
    const double start = std::stod((*it)[4]);
    EXPECT_GE(start, last);
    last = start;
  }
  for (const char* kind : {"synth", "queue", "gpu", "finish"}) EXPECT_EQ(count[kind], 9) << kind;
  // Buffers were reused, not allocated per partition.
  const EngineStats s = h.engine->stats();
  EXPECT_LT(s.buffers_created, 9u);
  EXPECT_GT(s.buffers_reused, 0u);
  EXPECT_EQ(s.partitions_proved, 9u);
}

TEST(Engine, PriorityOrderAndFifoWithinAPriority) {
  Harness h("Engine.Priorities");
  h.start_cpu(small_config(1));
  // Job 1's first partition holds the only synthesis worker while the others queue.
  snarkpipe::testing::Gate gate;
  ProofRequest first = h.request(2);
  first.witness = [&, src = h.circuit.source()](std::size_t k, groth16::Witness& w) {
    if (k == 0) gate.wait();
    src(k, w);
  };
  const JobId j1 = h.engine->submit(std::move(first));
  gate.until_waiting();
  const JobId low = h.engine->submit(h.request(2, Priority::LOW));
  const JobId normal = h.engine->submit(h.request(2, Priority::NORMAL));
  const JobId critical = h.engine->submit(h.request(2, Priority::CRITICAL));
  const JobId normal2 = h.engine->submit(h.request(1, Priority::NORMAL));
  const JobId high = h.engine->submit(h.request(1, Priority::HIGH));
  gate.open();
  for (JobId id : {j1, low, normal, critical, normal2, high}) ASSERT_EQ(h.engine->wait(id).state, JobState::DONE);
  const std::vector<std::pair<JobId, std::uint32_t>> expected = {
      {j1, 0},                                                 // was running: never preempted
      {critical, 0}, {critical, 1},                            // then by priority
      {high, 0},     {j1, 1},       {normal, 0}, {normal, 1},  // NORMAL: older jobs first, partitions in order
      {normal2, 0},  {low, 0},      {low, 1}};
  EXPECT_EQ(synthesis_order(h.engine->timeline()), expected);
}

TEST(Engine, CancelledQueuedJobDisappears) {
  Harness h("Engine.CancelQueued");
  h.start_cpu(small_config(1));
  snarkpipe::testing::Gate gate;
  ProofRequest first = h.request(1);
  first.witness = [&, src = h.circuit.source()](std::size_t k, groth16::Witness& w) {
    gate.wait();
    src(k, w);
  };
  const JobId j1 = h.engine->submit(std::move(first));
  gate.until_waiting();
  const JobId queued = h.engine->submit(h.request(3));
  EXPECT_TRUE(h.engine->cancel(queued));
  EXPECT_FALSE(h.engine->cancel(queued));  // once
  const JobResult r = h.engine->wait(queued);
  EXPECT_EQ(r.state, JobState::CANCELLED);
  EXPECT_TRUE(r.proofs.empty());
  gate.open();
  h.expect_proved(h.engine->wait(j1), 1);
  h.until_quiet();
  for (const auto& e : h.engine->timeline().events) EXPECT_NE(e.job, queued) << stage_name(e.stage);
}

TEST(Engine, CancelledRunningJobStopsBeforeItsNextPartition) {
  Harness h("Engine.CancelRunning");
  h.start_cpu(small_config(1));
  snarkpipe::testing::Gate gate;
  ProofRequest req = h.request(4);
  req.witness = [&, src = h.circuit.source()](std::size_t k, groth16::Witness& w) {
    if (k == 1) gate.wait();
    src(k, w);
  };
  const JobId id = h.engine->submit(std::move(req));
  gate.until_waiting();  // partition 0 is through synthesis, partition 1 in it
  EXPECT_EQ(h.engine->state(id), JobState::RUNNING);
  EXPECT_TRUE(h.engine->cancel(id));
  gate.open();
  EXPECT_EQ(h.engine->wait(id).state, JobState::CANCELLED);
  h.until_quiet();  // every buffer back in the pool, only residents and idle buffers charged
  const TimelineSnapshot tl = h.engine->timeline();
  for (const auto& e : tl.events) {
    EXPECT_LT(e.partition, 2u) << "partition " << e.partition << " started after the cancellation";
    if (e.partition == 1) {
      EXPECT_TRUE(e.stage == Stage::SYNTH_START || e.stage == Stage::SYNTH_END) << stage_name(e.stage);
    }
  }
  // The engine goes on with the next job.
  h.expect_proved(h.engine->wait(h.engine->submit(h.request(1))), 1);
}

// Progress as the engine finishes each partition: with partition 2's witness held back, the
// two before it are counted proved, and no more; once it goes on, all of them.
TEST(Engine, PartitionsProvedCountsEachAsItIsProved) {
  Harness h("Engine.PartitionsProved");
  h.start_cpu(small_config(1));
  snarkpipe::testing::Gate gate;
  ProofRequest req = h.request(4);
  req.witness = [&, src = h.circuit.source()](std::size_t k, groth16::Witness& w) {
    if (k == 2) gate.wait();
    src(k, w);
  };
  const JobId id = h.engine->submit(std::move(req));
  EXPECT_LE(h.engine->partitions_proved(id), 2u);
  gate.until_waiting();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (h.engine->partitions_proved(id) < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_EQ(h.engine->partitions_proved(id), 2u);
  EXPECT_EQ(h.engine->state(id), JobState::RUNNING);
  gate.open();
  h.expect_proved(h.engine->wait(id), 4);
  EXPECT_EQ(h.engine->partitions_proved(id), 4u);
  EXPECT_THROW(h.engine->partitions_proved(id + 1000), EngineError);
}

TEST(Engine, WitnessErrorsFailOnlyTheirJobOnceWithTheCause) {
  Harness h("Engine.WitnessErrors");
  h.start_cpu(small_config(2));
  ProofRequest throwing = h.request(3);
  throwing.witness = [src = h.circuit.source()](std::size_t k, groth16::Witness& w) {
    if (k > 0) throw std::runtime_error("boom " + std::to_string(k));
    src(k, w);
  };
  ProofRequest unsatisfied = h.request(2);
  unsatisfied.witness = [src = h.circuit.source()](std::size_t k, groth16::Witness& w) {
    src(k, w);
    w.aux.back() += ff::Fr::from_u64(2);  // no longer a bit, nor the product it was
  };
  ProofRequest short_witness = h.request(1);
  short_witness.witness = [src = h.circuit.source()](std::size_t k, groth16::Witness& w) {
    src(k, w);
    w.aux.pop_back();
  };
  const JobId bad = h.engine->submit(std::move(throwing));
  const JobId good = h.engine->submit(h.request(2));
  const JobId unsat = h.engine->submit(std::move(unsatisfied));
  const JobId shortw = h.engine->submit(std::move(short_witness));
  const JobResult r = h.engine->wait(bad);
  EXPECT_EQ(r.state, JobState::FAILED);
  EXPECT_TRUE(std::regex_search(r.error, std::regex("^partition [12]: witness generation failed: boom [12]$")))
      << r.error;
  const JobResult u = h.engine->wait(unsat);
  EXPECT_EQ(u.state, JobState::FAILED);
  EXPECT_NE(u.error.find("does not satisfy constraint"), std::string::npos) << u.error;
  const JobResult s = h.engine->wait(shortw);
  EXPECT_EQ(s.state, JobState::FAILED);
  EXPECT_NE(s.error.find("aux values"), std::string::npos) << s.error;
  h.expect_proved(h.engine->wait(good), 2);
  h.until_quiet();
  // The failure is recorded once, with the cause the result gives.
  for (const auto& j : h.engine->timeline().jobs)
    if (j.job == bad) {
      EXPECT_EQ(j.error, r.error);
    }
}

TEST(Engine, DeviceErrorsAreRetried) {
  Harness h("Engine.Retries");
  h.script->fault = [](int, int call) { return call < 2 ? Fault::THROW : Fault::NONE; };
  h.start_scripted(small_config());
  h.expect_proved(h.engine->wait(h.engine->submit(h.request(2))), 2);
  const EngineStats s = h.engine->stats();
  EXPECT_EQ(s.partitions_retried, 2u);
  EXPECT_EQ(s.devices[0].failures, 2u);
  EXPECT_TRUE(s.devices[0].in_service);  // 2 < 3 consecutive failures
  EXPECT_TRUE(h.logged("injected device fault"));
}

TEST(Engine, FailingDeviceIsTakenOutOfServiceWhileTheOthersGoOn) {
  Harness h("Engine.OutOfService");
  h.script->fault = [](int device, int) { return device == 0 ? Fault::THROW : Fault::NONE; };
  EngineConfig c = small_config();
  c.device_failure_limit = 2;
  c.max_retries = 5;
  h.start_scripted(c, 2);
  std::vector<JobId> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(h.engine->submit(h.request(2)));
  for (JobId id : ids) h.expect_proved(h.engine->wait(id), 2);
  const EngineStats s = h.engine->stats();
  EXPECT_FALSE(s.devices[0].in_service);
  EXPECT_NE(s.devices[0].out_of_service_reason.find("2 consecutive failures"), std::string::npos);
  EXPECT_TRUE(s.devices[1].in_service);
  EXPECT_EQ(s.devices[1].partitions_proved, 8u);
  EXPECT_TRUE(h.logged("device 0 (fake0) taken out of service"));
}

TEST(Engine, NoDeviceLeftFailsTheJobsAndRefusesNewOnes) {
  Harness h("Engine.NoDevice");
  h.script->fault = [](int, int) { return Fault::THROW; };
  EngineConfig c = small_config();
  c.device_failure_limit = 2;
  c.max_retries = 10;
  c.cpu_fallback = false;
  h.start_scripted(c, 2);
  const JobResult r = h.engine->wait(h.engine->submit(h.request(2)));
  EXPECT_EQ(r.state, JobState::FAILED);
  EXPECT_NE(r.error.find("no device in service"), std::string::npos) << r.error;
  EXPECT_THROW(h.engine->submit(h.request(1)), EngineError);
}

// gpu.cpu_fallback (the default): once the last device is out of service the engine goes on
// on the CPU. The job that retired the devices, and every later one, ends with verified
// proofs, and the devices' memory is not charged for the CPU's partitions.
TEST(Engine, NoDeviceLeftFallsBackToTheCpu) {
  Harness h("Engine.CpuFallback");
  h.script->fault = [](int, int) { return Fault::THROW; };
  EngineConfig c = small_config();
  c.device_failure_limit = 2;
  c.max_retries = 10;
  h.start_scripted(c, 2, MemoryNeeds{0, 64 * MiB, 128 * MiB}, 2048 * MiB);
  const JobId first = h.engine->submit(h.request(3, Priority::HIGH));
  h.expect_proved(h.engine->wait(first), 3);
  h.expect_proved(h.engine->wait(h.engine->submit(h.request(2))), 2);
  const EngineStats s = h.engine->stats();
  ASSERT_EQ(s.devices.size(), 3u);
  EXPECT_FALSE(s.devices[0].in_service);
  EXPECT_FALSE(s.devices[1].in_service);
  EXPECT_EQ(s.devices[2].name, "cpu (fallback)");
  EXPECT_TRUE(s.devices[2].in_service);
  EXPECT_EQ(s.devices[2].partitions_proved, 5u);
  EXPECT_EQ(s.devices[0].partitions_proved + s.devices[1].partitions_proved, 0u);
  EXPECT_TRUE(h.logged("proving on the CPU from now on"));
  EXPECT_FALSE(h.logged("failing every unfinished job"));
  h.until_quiet();
}

// Once the engine proves on the CPU fallback, packed witnesses are made in the heap, not in
// the backend's (page-locked, device-bound) memory: a dead GPU is not asked for more.
TEST(Engine, TheCpuFallbackMakesPackedWitnessesInTheHeap) {
  struct Counting final : std::pmr::memory_resource {
    std::atomic<std::size_t> allocations{0};
    void* do_allocate(std::size_t b, std::size_t a) override {
      ++allocations;
      return std::pmr::get_default_resource()->allocate(b, a);
    }
    void do_deallocate(void* p, std::size_t b, std::size_t a) override {
      std::pmr::get_default_resource()->deallocate(p, b, a);
    }
    bool do_is_equal(const std::pmr::memory_resource& o) const noexcept override { return this == &o; }
  } device_memory;
  Harness h("Engine.CpuFallbackHeap");
  h.script->fault = [](int, int) { return Fault::THROW; };
  EngineConfig c = small_config(2, 1);
  c.device_failure_limit = 1;
  c.max_retries = 10;
  c.check_witness = false;
  auto provider = std::make_shared<snarkpipe::testing::ScriptedProvider>(1, 0, MemoryNeeds{}, h.script, true, true);
  provider->set_witness_memory(&device_memory);
  h.start(c, provider);
  h.expect_proved(h.engine->wait(h.engine->submit(h.request(1))), 1);
  ASSERT_TRUE(h.logged("proving on the CPU from now on"));
  const std::size_t before = device_memory.allocations;
  EXPECT_GE(before, 1u);  // the first partition was packed for the device
  std::vector<JobId> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(h.engine->submit(h.request(3)));
  for (JobId id : ids) h.expect_proved(h.engine->wait(id), 3);
  EXPECT_EQ(device_memory.allocations, before) << "packed witnesses made in the device's memory on the CPU fallback";
  h.until_quiet();
}

// A key whose queries stayed in its .params file (what GPU hosts load) is read whole for the
// CPU fallback: its parts equal the CPU prover's on the key read into memory.
TEST(Engine, TheCpuFallbackReadsADeferredKeyWhole) {
  Harness h("Engine.CpuFallbackDeferred");
  const std::string path =
      (std::filesystem::temp_directory_path() / ("snarkpipe-fallback-" + std::to_string(::getpid()) + ".params"))
          .string();
  groth16::write_params(path, h.circuit.keys->pk);
  const groth16::ProvingKey deferred = groth16::open_params_deferred(path);
  ASSERT_FALSE(deferred.queries_on_host());
  groth16::Witness w;
  synthesize_into(*h.circuit.circuit, w);
  CpuFallbackBackend fallback;
  const groth16::ProofParts got = fallback.start(deferred, h.circuit.keys->r1cs, w);
  const groth16::ProofParts again = fallback.start(deferred, h.circuit.keys->r1cs, w);  // the cached copy
  const groth16::ProofParts want = groth16::CpuBackend().start(h.circuit.keys->pk, h.circuit.keys->r1cs, w);
  for (const auto* p : {&got, &again}) {
    EXPECT_EQ(p->h.to_affine(), want.h.to_affine());
    EXPECT_EQ(p->l.to_affine(), want.l.to_affine());
    EXPECT_EQ(p->a.to_affine(), want.a.to_affine());
    EXPECT_EQ(p->b_g1.to_affine(), want.b_g1.to_affine());
    EXPECT_EQ(p->b_g2.to_affine(), want.b_g2.to_affine());
  }
  fallback.release_key(deferred);
  std::filesystem::remove(path);
}

TEST(Engine, ProverErrorIsThePartitionsNotTheDevices) {
  Harness h("Engine.ProverError");
  h.script->fault = [](int, int call) { return call == 0 ? Fault::BAD_INPUT : Fault::NONE; };
  h.start_scripted(small_config(1, 1));
  const JobResult r = h.engine->wait(h.engine->submit(h.request(1)));
  EXPECT_EQ(r.state, JobState::FAILED);
  EXPECT_EQ(r.error, "partition 0: injected bad input");
  h.expect_proved(h.engine->wait(h.engine->submit(h.request(1))), 1);
  EXPECT_EQ(h.engine->stats().partitions_retried, 0u);
}

TEST(Engine, AProofThatDoesNotVerifyIsNeverReturned) {
  Harness h("Engine.WrongParts");
  // Once wrong: the partition is proved again.
  h.script->fault = [](int, int call) { return call == 0 ? Fault::WRONG_PARTS : Fault::NONE; };
  h.start_scripted(small_config());
  h.expect_proved(h.engine->wait(h.engine->submit(h.request(2))), 2);
  EXPECT_EQ(h.engine->stats().verification_failures, 1u);

  // Always wrong: an error, never a result.
  Harness always("Engine.WrongPartsAlways");
  always.script->fault = [](int, int) { return Fault::WRONG_PARTS; };
  EngineConfig c = small_config();
  c.max_retries = 1;
  c.device_failure_limit = 100;
  always.start_scripted(c);
  const JobResult r = always.engine->wait(always.engine->submit(always.request(1)));
  EXPECT_EQ(r.state, JobState::FAILED);
  EXPECT_TRUE(r.proofs.empty());
  EXPECT_NE(r.error.find("the proof does not verify"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("after 2 attempts"), std::string::npos) << r.error;
}

// With synthesis.check_witness off (as the README's GPU benchmarks run), an unsatisfying
// witness gives a proof that does not verify. That is the witness's fault: its job fails
// with the unsatisfied constraint, and the only device stays in service however many such
// jobs come (issue 27: three in a row used to retire it, and every later job failed).
TEST(Engine, AnUnsatisfyingWitnessIsNotTheDevicesFault) {
  Harness h("Engine.UncheckedWitness");
  EngineConfig c = small_config(1, 1);
  c.check_witness = false;
  c.device_failure_limit = 2;
  h.start_scripted(c);
  for (int i = 0; i < 4; ++i) {
    ProofRequest bad = h.request(1);
    bad.witness = [src = h.circuit.source()](std::size_t k, groth16::Witness& w) {
      src(k, w);
      w.aux.back() += ff::Fr::from_u64(2);  // no longer a bit, nor the product it was
    };
    const JobResult r = h.engine->wait(h.engine->submit(std::move(bad)));
    EXPECT_EQ(r.state, JobState::FAILED);
    EXPECT_TRUE(r.proofs.empty());
    EXPECT_TRUE(
        std::regex_search(r.error, std::regex("^partition 0: the witness does not satisfy constraint [0-9]+ \\(found "
                                              "after its proof failed verification on device 0; not the "
                                              "device's fault\\)$")))
        << r.error;
  }
  h.expect_proved(h.engine->wait(h.engine->submit(h.request(2))), 2);
  const EngineStats s = h.engine->stats();
  EXPECT_TRUE(s.devices[0].in_service) << s.devices[0].out_of_service_reason;
  EXPECT_EQ(s.devices[0].failures, 0u);
  EXPECT_EQ(s.verification_failures, 4u);
  EXPECT_FALSE(h.logged("taken out of service"));
  h.until_quiet();
}

// Without the witness check a device whose proofs do not verify for a satisfying witness is
// still blamed (once the retry has checked the witness) and taken out of service.
TEST(Engine, WithoutTheWitnessCheckABadDeviceIsStillTakenOutOfService) {
  Harness h("Engine.UncheckedBadDevice");
  h.script->fault = [](int, int) { return Fault::WRONG_PARTS; };
  EngineConfig c = small_config(1, 1);
  c.check_witness = false;
  c.device_failure_limit = 2;
  c.max_retries = 5;
  c.cpu_fallback = false;
  h.start_scripted(c);
  const JobResult r = h.engine->wait(h.engine->submit(h.request(1)));
  EXPECT_EQ(r.state, JobState::FAILED);
  EXPECT_NE(r.error.find("no device in service"), std::string::npos) << r.error;
  const EngineStats s = h.engine->stats();
  EXPECT_FALSE(s.devices[0].in_service);
  EXPECT_NE(s.devices[0].out_of_service_reason.find("2 consecutive failures"), std::string::npos)
      << s.devices[0].out_of_service_reason;
  EXPECT_NE(s.devices[0].out_of_service_reason.find("the proof does not verify"), std::string::npos)
      << s.devices[0].out_of_service_reason;
  EXPECT_EQ(s.devices[0].failures, 2u);

  // Once wrong on a good device: proved on the retry, the device blamed once.
  Harness once("Engine.UncheckedOnce");
  once.script->fault = [](int, int call) { return call == 0 ? Fault::WRONG_PARTS : Fault::NONE; };
  once.start_scripted(c);
  once.expect_proved(once.engine->wait(once.engine->submit(once.request(2))), 2);
  EXPECT_EQ(once.engine->stats().devices[0].failures, 1u);
  EXPECT_TRUE(once.engine->stats().devices[0].in_service);
}

TEST(Engine, MemoryBudgetsAreNeverExceeded) {
  Harness h("Engine.Budget");
  const auto& keys = *h.circuit.keys;
  const std::uint64_t per_partition = WitnessBufferPool::bytes_for(keys.r1cs.num_inputs, keys.r1cs.num_aux) +
                                      CpuBackendProvider().needs(keys).host_per_partition;
  EngineConfig c = small_config(3, 4);
  // Room for the resident keys and two partitions in flight, not three.
  c.host_budget = keys.host_bytes() + 2 * per_partition + per_partition / 2;
  // Device memory: the resident keys and two partitions at once.
  const MemoryNeeds device{0, 1000, 5000};
  c.device_budget = 5000 + 2 * 1000 + 500;
  h.start_scripted(c, 1, device, 1 << 20);
  std::vector<JobId> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(h.engine->submit(h.request(3)));
  for (JobId id : ids) h.expect_proved(h.engine->wait(id), 3);

  const EngineStats s = h.engine->stats();
  EXPECT_LE(s.host_peak, s.host_budget);
  EXPECT_LE(s.devices[0].memory_peak, s.devices[0].memory_budget);
  EXPECT_GE(s.devices[0].memory_peak, 5000u + 1000u);
  // Backpressure: never more than two partitions between admission and the end of start().
  std::vector<std::pair<double, int>> edges;
  for (const auto& e : h.engine->timeline().events) {
    if (e.stage == Stage::SYNTH_START) edges.emplace_back(e.t, +1);
    if (e.stage == Stage::GPU_END) edges.emplace_back(e.t, -1);
  }
  std::sort(edges.begin(), edges.end(),
            [](auto& a, auto& b) { return a.first < b.first || (a.first == b.first && a.second < b.second); });
  int in_flight = 0, most = 0;
  for (const auto& [t, d] : edges) most = std::max(most, in_flight += d);
  EXPECT_LE(most, 2);
  EXPECT_EQ(s.buffers_created, 2u);

  // A budget that cannot hold one partition refuses the job with the numbers.
  Harness tight("Engine.BudgetTooSmall");
  EngineConfig t = small_config();
  t.host_budget = keys.host_bytes() + per_partition / 2;
  tight.start_cpu(t);
  try {
    tight.engine->submit(tight.request(1));
    FAIL() << "expected EngineError";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("memory budget too small"), std::string::npos) << e.what();
  }
}

TEST(Engine, IdempotencyKeysNameOneJob) {
  Harness h("Engine.Idempotency");
  h.start_cpu(small_config());
  const JobId a = h.engine->submit(h.request(1, Priority::NORMAL, "sector-7"));
  const JobId again = h.engine->submit(h.request(1, Priority::NORMAL, "sector-7"));
  const JobId b = h.engine->submit(h.request(1, Priority::NORMAL, "sector-8"));
  const JobId unkeyed1 = h.engine->submit(h.request(1));
  const JobId unkeyed2 = h.engine->submit(h.request(1));
  EXPECT_EQ(a, again);
  EXPECT_NE(a, b);
  EXPECT_NE(unkeyed1, unkeyed2);
  EXPECT_THROW(h.engine->submit(h.request(2, Priority::NORMAL, "sector-7")), EngineError);  // a different request
  for (JobId id : {a, b, unkeyed1, unkeyed2}) h.expect_proved(h.engine->wait(id), 1);
  EXPECT_EQ(h.engine->timeline().jobs.size(), 4u);
  // Once forgotten, the key names a new job.
  EXPECT_TRUE(h.engine->forget(a));
  EXPECT_THROW(h.engine->wait(a), EngineError);
  const JobId c = h.engine->submit(h.request(1, Priority::NORMAL, "sector-7"));
  EXPECT_GT(c, unkeyed2);
  h.expect_proved(h.engine->wait(c), 1);
  EXPECT_THROW(h.engine->submit({"unknown", h.circuit.source(), 1, Priority::NORMAL, "", {}}), EngineError);
}

TEST(Engine, OneStartAtATimePerDevicePartitionsSpreadAcrossDevices) {
  Harness h("Engine.DeviceLock");
  h.start_scripted(small_config(2, 3), 2);
  std::vector<JobId> ids;
  for (int i = 0; i < 3; ++i) ids.push_back(h.engine->submit(h.request(4)));
  for (JobId id : ids) h.expect_proved(h.engine->wait(id), 4);
  EXPECT_EQ(h.script->max_inside[0].load(), 1);
  EXPECT_EQ(h.script->max_inside[1].load(), 1);
  EXPECT_EQ(h.script->calls[0] + h.script->calls[1], 12);
  EXPECT_GT(h.script->calls[0].load(), 0);
  EXPECT_GT(h.script->calls[1].load(), 0);
}

// (packed: as with the CUDA backend, the partitions wait as packed witnesses, which the engine
// keeps for reuse once the device is done; loading the big circuit must free those too.)
void evict_idle_circuits(bool packed) {
  Harness h(packed ? "Engine.EvictionPacked" : "Engine.Eviction");
  const snarkpipe::testing::TinyCircuit small(h.circuit.seed + 1, 120);
  const auto& big = *h.circuit.keys;
  ASSERT_LT(small.keys->host_bytes(), big.host_bytes());
  EngineConfig c = small_config(3, 2);
  // As on a GPU, only witnesses take host memory per partition. The big circuit fits with
  // one partition in flight; the small one with several, whose idle buffers must then be
  // freed (as well as the small circuit evicted) to load the big one.
  c.host_budget = big.host_bytes() + WitnessBufferPool::bytes_for(big.r1cs.num_inputs, big.r1cs.num_aux);
  const MemoryNeeds device{0, 100, 7000};
  h.start_scripted(c, 1, device, 1 << 20, false, packed);
  h.engine->circuits().add("small", [k = small.keys] { return k; });

  const JobResult first = h.engine->wait(h.engine->submit({"small", small.source(), 4, Priority::NORMAL, "", {}}));
  ASSERT_EQ(first.state, JobState::DONE) << first.error;
  EXPECT_EQ(h.engine->circuits().resident(), std::vector<std::string>{"small"});
  EXPECT_GE(h.engine->stats().buffers_idle, packed ? 1u : 2u);
  if (packed) {
    EXPECT_GE(h.engine->stats().packed_idle, 1u);
  }
  // (Loading the big circuit inside submit() waited forever when nothing freed the kept packed
  // witnesses: ctest's timeout is then what fails this test.)
  h.expect_proved(h.engine->wait(h.engine->submit(h.request(2))), 2);
  EXPECT_EQ(h.engine->circuits().resident(), std::vector<std::string>{"tiny"});
  // The device copy of the evicted keys is released: its memory, and each worker's backend.
  for (int i = 0; i < 500 && h.script->releases < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_EQ(h.script->releases.load(), 2);
  const EngineStats s = h.engine->stats();
  EXPECT_LE(s.host_peak, s.host_budget);
  EXPECT_LE(s.devices[0].memory_peak, 7000u + 2 * 100u);  // one circuit resident at a time
  EXPECT_GE(s.devices[0].memory_peak, 7000u + 100u);
}

TEST(Engine, IdleCircuitsAreEvictedFromHostAndDeviceMemory) { evict_idle_circuits(false); }
TEST(Engine, IdleCircuitsAreEvictedWithPackedWitnessesKept) { evict_idle_circuits(true); }

// With several workers on one device, partitions reach the device in the order they left the
// ready queue: a worker that releases the device lock cannot take it straight back while
// another worker's partition waits (a plain mutex let that happen for seconds on the H200).
TEST(Engine, PartitionsReachTheDeviceInQueueOrder) {
  Harness h("Engine.QueueOrder");
  snarkpipe::testing::Gate gate;
  h.script->fault = [&](int, int call) {
    if (call == 0) gate.wait();  // hold the device until every partition is synthesized
    return snarkpipe::testing::Fault::NONE;
  };
  EngineConfig config = small_config(2, 3);
  config.lookahead = 16;  // every partition may be synthesized while the device is held
  h.start_scripted(config);
  std::vector<JobId> ids;
  for (int i = 0; i < 3; ++i) ids.push_back(h.engine->submit(h.request(5)));
  gate.until_waiting();
  for (;;) {
    std::size_t synthesized = 0;
    for (const auto& e : h.engine->timeline().events) synthesized += e.stage == Stage::SYNTH_END;
    if (synthesized == 15) break;  // (the test times out if the engine cannot get there)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  gate.open();
  for (JobId id : ids) h.expect_proved(h.engine->wait(id), 5);
  std::vector<std::pair<JobId, std::uint32_t>> started;
  for (const auto& e : h.engine->timeline().events)
    if (e.stage == Stage::GPU_START) started.emplace_back(e.job, e.partition);
  ASSERT_EQ(started.size(), 15u);
  // Each of the 3 workers may have taken a partition before all were synthesized (then the
  // queue held only some); every later one left a full queue, in order, and must start so.
  std::vector<std::pair<JobId, std::uint32_t>> rest(started.begin() + 3, started.end());
  EXPECT_TRUE(std::is_sorted(rest.begin(), rest.end())) << "a partition was overtaken by a younger job's";
}

// A backend that takes packed witnesses (as the CUDA one does): partitions wait as packed
// witnesses, the full buffers go back to the pool at once, and the proofs are the same.
TEST(Engine, PackedWitnessesProveTheSame) {
  Harness h("Engine.Packed");
  h.start_scripted(small_config(2, 2), 2, {}, 0, true, true);
  std::vector<JobId> ids;
  for (int i = 0; i < 3; ++i) ids.push_back(h.engine->submit(h.request(4)));
  for (JobId id : ids) h.expect_proved(h.engine->wait(id), 4);
  h.until_quiet();
  const EngineStats s = h.engine->stats();
  EXPECT_EQ(s.partitions_proved, 12u);
  EXPECT_LE(s.buffers_created, 2u + 1u);  // about one full buffer per synthesis worker, not per partition
  // The packed witnesses are kept and reused too (page-locked memory for a GPU is slow to
  // get): fewer made than partitions, all kept once idle, and charged to the host budget.
  EXPECT_GE(s.packed_created, 1u);
  EXPECT_LT(s.packed_created, 12u);
  EXPECT_EQ(s.packed_idle, s.packed_created);
  EXPECT_GT(s.packed_idle_bytes, 0u);
}
