// The engine's parts on their own: the scheduling order, the memory budget, the buffer
// pool, the circuit store's LRU eviction, the timeline's bars and the metrics.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <thread>

#include "engine/buffer_pool.hpp"
#include "engine/circuit_store.hpp"
#include "engine/memory_budget.hpp"
#include "engine/pipeline_metrics.hpp"
#include "engine/scheduler.hpp"
#include "engine/timeline.hpp"
#include "engine_fixture.hpp"

using namespace snarkpipe;
using namespace snarkpipe::engine;

TEST(Scheduler, PriorityThenAgeThenPartition) {
  std::mt19937_64 rng(test_seed("Scheduler.Order"));
  PartitionQueue<int> q;
  std::vector<PartitionKey> keys;
  for (JobId job = 1; job <= 40; ++job) {
    const auto prio = Priority(rng() % 4);
    const std::uint32_t parts = 1 + rng() % 5;
    for (std::uint32_t k = 0; k < parts; ++k) keys.push_back({prio, job, k});
  }
  std::shuffle(keys.begin(), keys.end(), rng);
  for (std::size_t i = 0; i < keys.size(); ++i) q.push(keys[i], int(i));
  std::vector<PartitionKey> popped;
  while (!q.empty()) popped.push_back(q.pop().first);
  ASSERT_EQ(popped.size(), keys.size());
  for (std::size_t i = 1; i < popped.size(); ++i) {
    const auto &a = popped[i - 1], &b = popped[i];
    ASSERT_TRUE(a.priority > b.priority || (a.priority == b.priority && a.job < b.job) ||
                (a.priority == b.priority && a.job == b.job && a.partition < b.partition))
        << "position " << i;
  }
}

TEST(Scheduler, NoKeyCollisionsAndRemoval) {
  PartitionQueue<int> q;
  q.push({Priority::LOW, 1, 0}, 1);
  q.push({Priority::LOW, 1, 1}, 2);
  q.push({Priority::CRITICAL, 2, 0}, 3);
  EXPECT_THROW(q.push({Priority::LOW, 1, 1}, 9), std::logic_error);  // never overwrite a slot
  EXPECT_EQ(q.front().job, 2u);
  const auto removed = q.remove_job(1);
  EXPECT_EQ(removed, (std::vector<int>{1, 2}));
  EXPECT_EQ(q.size(), 1u);
  EXPECT_EQ(q.pop().second, 3);
}

TEST(MemoryBudget, NeverExceedsItsLimitUnderContention) {
  MemoryBudget b("test", 1000);
  std::vector<std::thread> threads;
  std::atomic<bool> over{false};
  const std::uint64_t seed = test_seed("MemoryBudget.Contention");
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      // Each thread holds several reservations at once and releases them in random order.
      std::mt19937_64 rng(seed + t);
      std::vector<std::uint64_t> held;
      for (int i = 0; i < 20000; ++i) {
        if (held.empty() || rng() % 2) {
          const std::uint64_t n = 1 + rng() % 300;
          if (b.try_reserve(n)) held.push_back(n);
          if (b.used() > b.limit()) over = true;
        } else {
          const std::size_t k = rng() % held.size();
          b.release(held[k]);
          held[k] = held.back();
          held.pop_back();
        }
      }
      for (auto n : held) b.release(n);
    });
  for (auto& t : threads) t.join();
  EXPECT_FALSE(over);
  EXPECT_LE(b.peak(), 1000u);
  EXPECT_GT(b.peak(), 700u);  // the budget was under pressure
  EXPECT_EQ(b.used(), 0u);
  EXPECT_THROW(b.release(1), std::logic_error);
  EXPECT_FALSE(b.try_reserve(1001));
  EXPECT_TRUE(b.try_reserve(1000));
  EXPECT_FALSE(b.reserve(1, std::chrono::milliseconds(10)));  // times out: nothing released
}

TEST(WitnessBufferPool, ReusesChargesAndTrims) {
  MemoryBudget b("host", 10 * 32 * 100);
  WitnessBufferPool pool(b);
  auto x = pool.try_acquire(2, 98);  // 100 values
  ASSERT_TRUE(x);
  EXPECT_EQ(b.used(), 100u * 32);
  x->witness.aux.assign(98, ff::Fr::one());
  const auto* storage = x->witness.aux.data();
  pool.give_back(std::move(x));
  EXPECT_EQ(b.used(), 100u * 32);  // idle buffers stay charged
  auto y = pool.try_acquire(2, 50);
  ASSERT_TRUE(y);
  EXPECT_EQ(y->witness.aux.data(), storage);  // the same memory, reused
  EXPECT_TRUE(y->witness.aux.empty());
  EXPECT_EQ(pool.created(), 1u);
  EXPECT_EQ(pool.reused(), 1u);
  // Too big for what is left: refused, nothing charged.
  EXPECT_FALSE(pool.try_acquire(0, 950));
  EXPECT_EQ(b.used(), 100u * 32);
  auto z = pool.try_acquire(0, 10);
  ASSERT_TRUE(z);
  EXPECT_EQ(pool.created(), 2u);
  pool.give_back(std::move(y));
  pool.give_back(std::move(z));
  // Trimming frees idle buffers until the bytes are available, but keeps the one that fits
  // the partition asking for the room.
  auto freed = pool.trim(10 * 32 * 100, 2, 90);
  ASSERT_EQ(freed.size(), 1u);
  EXPECT_EQ(freed[0]->charged, 10u * 32);
  EXPECT_EQ(b.used(), 100u * 32);
  EXPECT_EQ(pool.idle(), 1u);
  freed = pool.trim(10 * 32 * 100, 0, 0);  // nothing kept for a partition that needs nothing
  EXPECT_EQ(freed.size(), 0u);             // (the smallest fitting buffer is kept)
  freed = pool.trim(10 * 32 * 100, 0, 1000);
  EXPECT_EQ(freed.size(), 1u);
  EXPECT_EQ(b.used(), 0u);
}

// A witness source that grew its buffer past what the budget could take (recharge refused):
// the buffer does not go back to the pool holding memory the budget does not count (soak).
TEST(WitnessBufferPool, AGrownBufferTheBudgetRefusedIsFreed) {
  const std::uint64_t seed = test_seed("WitnessBufferPool.Grown");
  const std::size_t n = 10 + seed % 50;
  MemoryBudget b("host", 4 * n * 32);
  WitnessBufferPool pool(b);
  auto x = pool.try_acquire(1, n - 1);
  ASSERT_TRUE(x);
  EXPECT_EQ(pool.in_use(), 1u);
  x->witness.aux.reserve(8 * n);  // past the budget
  EXPECT_FALSE(pool.recharge(*x));
  EXPECT_EQ(b.used(), n * 32);
  pool.give_back(std::move(x));
  EXPECT_EQ(pool.in_use(), 0u);
  EXPECT_EQ(pool.idle(), 0u);
  EXPECT_EQ(pool.idle_bytes(), 0u);
  EXPECT_EQ(b.used(), 0u);
  // One that grew within the budget is recharged and kept, charged for what it holds.
  auto y = pool.try_acquire(1, n - 1);
  ASSERT_TRUE(y);
  y->witness.aux.reserve(2 * n);
  ASSERT_TRUE(pool.recharge(*y));
  const std::uint64_t held = (y->witness.inputs.capacity() + y->witness.aux.capacity()) * 32;
  pool.give_back(std::move(y));
  EXPECT_EQ(pool.idle(), 1u);
  EXPECT_EQ(pool.idle_bytes(), held);
  EXPECT_EQ(b.used(), held);
}

TEST(CircuitStore, LoadsOncePinsAndEvictsLeastRecentlyUsed) {
  const std::uint64_t seed = test_seed("CircuitStore.Lru");
  std::vector<snarkpipe::testing::TinyCircuit> circuits;
  for (int i = 0; i < 3; ++i) circuits.emplace_back(seed + i, 60 + 20 * i);
  std::uint64_t biggest = 0, total = 0;
  for (auto& c : circuits) {
    biggest = std::max(biggest, c.keys->host_bytes());
    total += c.keys->host_bytes();
  }
  // Room for any two circuits, never three.
  MemoryBudget b("host", total - 1);
  CircuitStore store(b);
  int loads[3] = {};
  for (int i = 0; i < 3; ++i)
    store.add("c" + std::to_string(i), [&, i] {
      ++loads[i];
      return circuits[i].keys;
    });
  EXPECT_THROW(store.add("c0", [] { return std::shared_ptr<const CircuitKeys>(); }), EngineError);
  EXPECT_THROW(store.pin("nope", 0), EngineError);

  auto p0 = store.pin("c0", 0);
  store.unpin("c0");
  auto p1 = store.pin("c1", 0);
  store.unpin("c1");
  store.pin("c0", 0);  // c0 is now the most recently used
  store.unpin("c0");
  auto p2 = store.pin("c2", 0);  // evicts c1, the least recently used
  ASSERT_EQ(p2.evicted.size(), 1u);
  EXPECT_EQ(p2.evicted[0], circuits[1].keys);
  EXPECT_EQ(store.resident(), (std::vector<std::string>{"c0", "c2"}));
  // A pinned circuit is never evicted: c1 comes back in place of the idle c0, not c2.
  auto again = store.pin("c1", 0);
  ASSERT_EQ(again.evicted.size(), 1u);
  EXPECT_EQ(again.evicted[0], circuits[0].keys);
  EXPECT_EQ(store.resident(), (std::vector<std::string>{"c2", "c1"}));
  EXPECT_EQ(loads[0], 1);
  EXPECT_EQ(loads[1], 2);
  EXPECT_EQ(b.used(), store.resident_bytes());
  EXPECT_LE(b.peak(), b.limit());
  // More headroom than the budget can ever give: refused with the numbers.
  try {
    store.pin("c0", b.limit());
    FAIL() << "expected EngineError";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("memory budget too small"), std::string::npos) << e.what();
  }
  store.unpin("c1");
  store.unpin("c2");
}

TEST(Timeline, BarsPairStagesAndMetricsFollow) {
  TimelineSnapshot tl;
  tl.devices = {"0:x"};
  auto ev = [&](JobId j, std::uint32_t p, Stage s, double t, int d = -1) { tl.events.push_back({j, p, s, t, d}); };
  ev(1, 0, Stage::SYNTH_START, 0.0);
  ev(1, 0, Stage::SYNTH_END, 1.0);
  ev(1, 0, Stage::GPU_QUEUE, 1.0);
  ev(1, 0, Stage::GPU_START, 1.5, 0);
  ev(1, 0, Stage::GPU_END, 3.0, 0);
  ev(1, 0, Stage::FINISH_START, 3.0, 0);
  ev(1, 0, Stage::FINISH_END, 3.2, 0);
  ev(1, 1, Stage::GPU_START, 4.0, 0);  // after an idle gap of 1 s
  ev(1, 1, Stage::GPU_END, 5.0, 0);
  tl.jobs.push_back({1, Priority::NORMAL, 2, 0.0, 6.0, JobState::DONE, ""});
  tl.jobs.push_back({2, Priority::NORMAL, 1, 1.0, 3.0, JobState::DONE, ""});
  const auto bars = tl.bars();
  ASSERT_EQ(bars.size(), 5u);
  EXPECT_EQ(bars[0].kind, BarKind::SYNTH);
  EXPECT_EQ(bars[1].kind, BarKind::QUEUE);
  EXPECT_DOUBLE_EQ(bars[1].end - bars[1].start, 0.5);
  const DeviceUse u = device_use(tl, 0);
  EXPECT_NEAR(u.busy_pct, 100.0 * 2.5 / 3.5, 1e-9);
  EXPECT_EQ(u.gaps.count, 1u);
  EXPECT_NEAR(u.gaps.largest, 1.0, 1e-12);
  const Throughput t = throughput(tl);
  EXPECT_EQ(t.jobs_done, 2u);
  EXPECT_NEAR(t.s_per_proof, 3.0, 1e-12);  // steady state: from the first end to the last
  EXPECT_DOUBLE_EQ(percentile({3, 1, 2, 4}, 50), 2);
  EXPECT_DOUBLE_EQ(percentile({3, 1, 2, 4}, 99), 4);
  const auto totals = tl.totals();
  EXPECT_NEAR(totals[0].gpu, 2.5, 1e-12);
  EXPECT_NEAR(totals[0].latency, 6.0, 1e-12);
}
