// The cluster queue against a real PostgreSQL: several hosts (each its own ClusterQueue and
// connection) claiming, heartbeating, completing; leases that run out; a skewed clock; a
// database restart in the middle of a run. Inputs are fresh random ones (test_seed.hpp).
#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "cluster/cluster_queue.hpp"
#include "postgres_test.hpp"
#include "test_seed.hpp"

namespace snarkpipe::cluster {
namespace {

using namespace std::chrono_literals;

constexpr std::uint64_t kPlentyOfMemory = 1ull << 40;

class ClusterQueueTest : public testing::PostgresTest {
 protected:
  std::unique_ptr<ClusterQueue> host(const std::string& name, std::chrono::milliseconds lease = 30s) {
    QueueOptions o;
    o.conninfo = conninfo_;
    o.host = name;
    o.lease = lease;
    o.memory_budget_bytes = kPlentyOfMemory;
    o.version = "test";
    return std::make_unique<ClusterQueue>(std::move(o));
  }
};

std::vector<std::uint8_t> random_proof(ff::SeededRng& rng) {
  std::vector<std::uint8_t> proof(192);
  for (auto& b : proof) b = static_cast<std::uint8_t>(rng.next_u64());
  return proof;
}

JobSubmission job_of(std::uint32_t partitions, int priority, const std::string& key = "") {
  JobSubmission j;
  j.circuit = "synthetic:2^10";
  j.partitions = partitions;
  j.priority = priority;
  j.idempotency_key = key;
  j.request = R"({"circuit":"synthetic:2^10","partitions":)" + std::to_string(partitions) + "}";
  return j;
}

TEST_F(ClusterQueueTest, EveryPartitionIsClaimedOnceAndTheLastCompletionAssembles) {
  ff::SeededRng rng(test_seed("EveryPartitionIsClaimedOnceAndTheLastCompletionAssembles"));
  auto a = host("a");
  const auto n = static_cast<std::uint32_t>(1 + rng.next_u64() % 8);
  const SubmitResult submitted = a->submit(job_of(n, 1));
  ASSERT_TRUE(submitted.created);
  std::vector<ClaimedPartition> claims;
  while (auto c = a->claim(kPlentyOfMemory)) claims.push_back(*c);
  ASSERT_EQ(claims.size(), n);
  std::vector<std::uint8_t> expected;
  for (std::uint32_t i = 0; i < n; ++i) {
    EXPECT_EQ(claims[i].index, static_cast<int>(i));  // a job's partitions in order
    EXPECT_EQ(claims[i].job_id, submitted.job_id);
    EXPECT_EQ(claims[i].attempts, 1);
    EXPECT_GT(claims[i].lease_remaining, 29s);
    EXPECT_LE(claims[i].lease_remaining, 30s);
  }
  // Completed in a random order: the proof is still assembled in partition order, once.
  std::vector<std::vector<std::uint8_t>> proofs(n);
  for (auto& p : proofs) p = random_proof(rng);
  for (const auto& p : proofs) expected.insert(expected.end(), p.begin(), p.end());
  std::vector<std::uint32_t> order(n);
  for (std::uint32_t i = 0; i < n; ++i) order[i] = i;
  for (std::uint32_t i = n; i > 1; --i) std::swap(order[i - 1], order[rng.next_u64() % i]);
  int assembled = 0;
  for (std::uint32_t k = 0; k < n; ++k) {
    const CompleteOutcome out = a->complete(claims[order[k]], proofs[order[k]], true);
    if (k + 1 < n) {
      EXPECT_EQ(out, CompleteOutcome::accepted);
      EXPECT_EQ(a->job(submitted.job_id)->state, "queued");
    } else {
      EXPECT_EQ(out, CompleteOutcome::assembled);
    }
    assembled += out == CompleteOutcome::assembled;
  }
  EXPECT_EQ(assembled, 1);
  const JobRecord job = *a->job(submitted.job_id);
  EXPECT_EQ(job.state, "done");
  EXPECT_EQ(job.partitions_done, static_cast<int>(n));
  EXPECT_EQ(job.proof, expected);
  // A completion sent again (its answer lost) changes nothing.
  EXPECT_EQ(a->complete(claims[0], random_proof(rng), true), CompleteOutcome::accepted);
  EXPECT_EQ(a->job(submitted.job_id)->proof, expected);
}

TEST_F(ClusterQueueTest, ConcurrentClaimsFromFourHostsNeverHandOutAPartitionTwice) {
  ff::SeededRng rng(test_seed("ConcurrentClaimsFromFourHostsNeverHandOutAPartitionTwice"));
  auto submitter = host("submitter");
  std::map<std::int64_t, int> partitions_of;
  int total = 0;
  for (int j = 0; j < 30; ++j) {
    const auto n = static_cast<std::uint32_t>(1 + rng.next_u64() % 10);
    partitions_of[submitter->submit(job_of(n, static_cast<int>(rng.next_u64() % 3))).job_id] = static_cast<int>(n);
    total += static_cast<int>(n);
  }
  std::mutex mu;
  std::map<PartitionRef, std::vector<std::string>> claimed_by;
  std::map<PartitionRef, std::vector<std::uint8_t>> proof_of;
  std::atomic<int> assembled{0};
  std::vector<std::uint64_t> seeds;
  for (int h = 0; h < 4; ++h) seeds.push_back(rng.next_u64());
  std::vector<std::thread> hosts;
  for (int h = 0; h < 4; ++h)
    hosts.emplace_back([&, h] {
      const std::string name = "host-" + std::to_string(h);
      auto q = host(name);
      ff::SeededRng local(seeds[h]);
      while (auto c = q->claim(kPlentyOfMemory)) {
        const auto proof = random_proof(local);
        {
          std::lock_guard lock(mu);
          claimed_by[{c->job_id, c->index}].push_back(name);
          proof_of[{c->job_id, c->index}] = proof;
        }
        const CompleteOutcome out = q->complete(*c, proof, true);
        ASSERT_TRUE(out == CompleteOutcome::accepted || out == CompleteOutcome::assembled) << to_string(out);
        assembled += out == CompleteOutcome::assembled;
      }
    });
  for (auto& t : hosts) t.join();
  EXPECT_EQ(static_cast<int>(claimed_by.size()), total);
  for (const auto& [ref, names] : claimed_by)
    EXPECT_EQ(names.size(), 1u) << "job " << ref.job_id << " partition " << ref.index << " claimed " << names.size()
                                << " times";
  EXPECT_EQ(assembled.load(), static_cast<int>(partitions_of.size()));
  for (const auto& [id, n] : partitions_of) {
    const JobRecord job = *submitter->job(id);
    EXPECT_EQ(job.state, "done");
    std::vector<std::uint8_t> expected;
    for (int i = 0; i < n; ++i) expected.insert(expected.end(), proof_of[{id, i}].begin(), proof_of[{id, i}].end());
    EXPECT_EQ(job.proof, expected) << "job " << id;
  }
}

TEST_F(ClusterQueueTest, PrioritiesHoldAcrossHosts) {
  ff::SeededRng rng(test_seed("PrioritiesHoldAcrossHosts"));
  std::vector<std::unique_ptr<ClusterQueue>> hosts;
  for (int h = 0; h < 3; ++h) hosts.push_back(host("host-" + std::to_string(h)));
  std::map<std::int64_t, int> priority_of;
  for (int j = 0; j < 12; ++j) {
    const int priority = static_cast<int>(rng.next_u64() % 4);
    auto& submitter = hosts[rng.next_u64() % hosts.size()];
    priority_of[submitter->submit(job_of(static_cast<std::uint32_t>(1 + rng.next_u64() % 3), priority)).job_id] =
        priority;
  }
  // Hosts take turns: the order of claims is the cluster's, not one host's.
  std::vector<ClaimedPartition> claims;
  for (std::size_t turn = 0;; ++turn) {
    auto c = hosts[turn % hosts.size()]->claim(kPlentyOfMemory);
    if (!c) break;
    EXPECT_EQ(c->priority, priority_of[c->job_id]);
    claims.push_back(*c);
    if (claims.size() == 5) {
      // A job submitted late with a priority above all others is the very next claim.
      const std::int64_t urgent = hosts[2]->submit(job_of(1, 9)).job_id;
      priority_of[urgent] = 9;
      auto next = hosts[(turn + 1) % hosts.size()]->claim(kPlentyOfMemory);
      ASSERT_TRUE(next.has_value());
      EXPECT_EQ(next->job_id, urgent);
    }
  }
  for (std::size_t i = 1; i < claims.size(); ++i) {
    const auto& before = claims[i - 1];
    const auto& after = claims[i];
    EXPECT_GE(before.priority, after.priority) << "claim " << i;
    if (before.priority == after.priority) {  // then by age: older job first, partitions in order
      EXPECT_LE(before.job_id, after.job_id) << "claim " << i;
      if (before.job_id == after.job_id) {
        EXPECT_LT(before.index, after.index);
      }
    }
  }
}

TEST_F(ClusterQueueTest, AHostThatStopsHeartbeatingLosesItsLeaseAndAnotherFinishes) {
  ff::SeededRng rng(test_seed("AHostThatStopsHeartbeatingLosesItsLeaseAndAnotherFinishes"));
  const auto lease = 800ms;
  auto dying = host("dying", lease);
  auto survivor = host("survivor", lease);
  const std::int64_t id = dying->submit(job_of(1, 0)).job_id;
  const auto mine = dying->claim(kPlentyOfMemory);
  ASSERT_TRUE(mine.has_value());
  // While the holder heartbeats, its lease outlives the lease length and nobody takes it.
  for (int beat = 0; beat < 6; ++beat) {
    std::this_thread::sleep_for(lease / 4);
    ASSERT_EQ(dying->heartbeat(), (std::vector<PartitionRef>{{id, 0}}));
    EXPECT_FALSE(survivor->claim(kPlentyOfMemory).has_value()) << "a live lease was taken after beat " << beat;
  }
  // It stops; the lease runs out; the next claim takes the partition, counting the attempt.
  std::this_thread::sleep_for(lease + 200ms);
  const auto taken = survivor->claim(kPlentyOfMemory);
  ASSERT_TRUE(taken.has_value());
  EXPECT_EQ(taken->job_id, id);
  EXPECT_EQ(taken->attempts, 2);
  EXPECT_NE(taken->token, mine->token);
  // The old holder wakes up: its heartbeat renews nothing and its proof is refused.
  EXPECT_TRUE(dying->heartbeat().empty());
  const auto stale_proof = random_proof(rng);
  EXPECT_EQ(dying->complete(*mine, stale_proof, true), CompleteOutcome::not_holder);
  const auto proof = random_proof(rng);
  EXPECT_EQ(survivor->complete(*taken, proof, true), CompleteOutcome::assembled);
  EXPECT_EQ(dying->complete(*mine, stale_proof, true), CompleteOutcome::job_closed);
  EXPECT_EQ(survivor->job(id)->proof, proof);
}

TEST_F(ClusterQueueTest, TwoHostsSubmittingTheSameIdempotencyKeyGetOneJob) {
  ff::SeededRng rng(test_seed("TwoHostsSubmittingTheSameIdempotencyKeyGetOneJob"));
  const std::string key = "sector-" + std::to_string(rng.next_u64());
  const auto n = static_cast<std::uint32_t>(1 + rng.next_u64() % 6);
  constexpr int kHosts = 4;
  std::barrier start(kHosts);
  std::vector<SubmitResult> results(kHosts);
  std::vector<std::thread> hosts;
  for (int h = 0; h < kHosts; ++h)
    hosts.emplace_back([&, h] {
      auto q = host("host-" + std::to_string(h));
      start.arrive_and_wait();
      results[h] = q->submit(job_of(n, 1, key));
    });
  for (auto& t : hosts) t.join();
  int created = 0;
  for (const auto& r : results) {
    EXPECT_EQ(r.job_id, results[0].job_id);
    created += r.created;
  }
  EXPECT_EQ(created, 1);
  auto q = host("checker");
  int claimed = 0;
  while (q->claim(kPlentyOfMemory)) ++claimed;
  EXPECT_EQ(claimed, static_cast<int>(n)) << "the partitions of one job only";
  // The same key with another request is refused, from any host.
  EXPECT_THROW(q->submit(job_of(n + 1, 1, key)), IdempotencyConflict);
  JobSubmission other_priority = job_of(n, 1, key);
  other_priority.request += " ";
  EXPECT_THROW(q->submit(other_priority), IdempotencyConflict);
}

TEST_F(ClusterQueueTest, HostsReconnectAndGoOnWhenTheDatabaseRestartsMidRun) {
  ff::SeededRng rng(test_seed("HostsReconnectAndGoOnWhenTheDatabaseRestartsMidRun"));
  const auto lease = 1500ms;
  auto submitter = host("submitter", lease);
  std::vector<std::int64_t> ids;
  int total = 0;
  for (int j = 0; j < 12; ++j) {
    const auto n = static_cast<std::uint32_t>(2 + rng.next_u64() % 4);
    ids.push_back(submitter->submit(job_of(n, 0)).job_id);
    total += static_cast<int>(n);
  }
  std::atomic<int> accepted{0};
  std::atomic<bool> restarted{false};
  std::mutex mu;
  std::map<PartitionRef, int> accepted_of;
  std::vector<std::uint64_t> reconnects(2);
  std::vector<std::thread> hosts;
  for (int h = 0; h < 2; ++h)
    hosts.emplace_back([&, h] {
      auto q = host("host-" + std::to_string(h), lease);
      ff::SeededRng local(static_cast<std::uint64_t>(h) * 7919 + 1);
      const auto deadline = std::chrono::steady_clock::now() + 60s;
      // Work slowly enough that the restart falls in the middle, until every job is done.
      while (std::chrono::steady_clock::now() < deadline) {
        auto c = q->claim(kPlentyOfMemory);
        if (!c) {
          bool all_done = true;
          for (std::int64_t id : ids) all_done = all_done && q->job(id)->state == "done";
          if (all_done && restarted) break;
          std::this_thread::sleep_for(100ms);
          continue;
        }
        std::this_thread::sleep_for(30ms);
        q->heartbeat();
        const CompleteOutcome out = q->complete(*c, random_proof(local), true);
        if (out == CompleteOutcome::accepted || out == CompleteOutcome::assembled) {
          ++accepted;
          std::lock_guard lock(mu);
          ++accepted_of[{c->job_id, c->index}];
        }
      }
    });
  while (accepted < total / 3) std::this_thread::sleep_for(10ms);
  server_->restart();  // from this thread: the fixture's server lives as long as its starter
  restarted = true;
  for (auto& t : hosts) t.join();
  for (std::int64_t id : ids) EXPECT_EQ(submitter->job(id)->state, "done") << "job " << id;
  // A completion whose answer was lost in the restart is sent again and accepted again: the
  // database holds one proof per partition whatever the count of answers.
  EXPECT_EQ(static_cast<int>(accepted_of.size()), total);
  PgConnection db({conninfo_});
  EXPECT_EQ(db.execute({"done_partitions", "SELECT count(*) FROM partitions WHERE state = 'done'"}).integer(0, 0),
            total);
}

TEST_F(ClusterQueueTest, AHostWithASkewedClockDoesNotStealLiveLeases) {
  const auto lease = 1000ms;
  auto honest = host("honest", lease);
  // Hours ahead and behind: if leases were computed from the host's clock, the one ahead
  // would see every lease as expired and the one behind would hold its own for hours.
  QueueOptions ahead_options{conninfo_, "ahead", lease};
  ahead_options.local_clock = [] { return std::chrono::system_clock::now() + 3h; };
  ClusterQueue ahead(ahead_options);
  QueueOptions behind_options{conninfo_, "behind", lease};
  behind_options.local_clock = [] { return std::chrono::system_clock::now() - 3h; };
  ClusterQueue behind(behind_options);

  const std::int64_t first = honest->submit(job_of(2, 0)).job_id;
  ASSERT_TRUE(honest->claim(kPlentyOfMemory).has_value());
  ASSERT_TRUE(honest->claim(kPlentyOfMemory).has_value());
  for (int round = 0; round < 4; ++round) {
    EXPECT_FALSE(ahead.claim(kPlentyOfMemory).has_value());
    EXPECT_FALSE(behind.claim(kPlentyOfMemory).has_value());
    ahead.heartbeat();
    behind.heartbeat();
    honest->heartbeat();
    std::this_thread::sleep_for(lease / 4);
  }
  // The skew is seen (reported in status) and changes nothing else.
  const ClusterStatus s = honest->status();
  for (const HostStatus& h : s.hosts) {
    ASSERT_TRUE(h.clock_offset_ms.has_value()) << h.name;
    const std::int64_t expected = h.name == "ahead" ? 3 * 3600000 : h.name == "behind" ? -3 * 3600000 : 0;
    EXPECT_NEAR(static_cast<double>(*h.clock_offset_ms), static_cast<double>(expected), 5000.0) << h.name;
  }
  // The host behind holds a lease of the usual length, by the database's clock, and loses it
  // on time when it stops beating.
  const std::int64_t second = honest->submit(job_of(1, 5)).job_id;
  const auto held = behind.claim(kPlentyOfMemory);
  ASSERT_TRUE(held.has_value());
  EXPECT_EQ(held->job_id, second);
  EXPECT_LE(held->lease_remaining, lease);
  EXPECT_GT(held->lease_remaining, lease - 300ms);
  EXPECT_FALSE(ahead.claim(kPlentyOfMemory).has_value());
  std::this_thread::sleep_for(lease + 200ms);
  const auto taken = ahead.claim(kPlentyOfMemory);
  ASSERT_TRUE(taken.has_value());
  EXPECT_EQ(taken->job_id, second);
  EXPECT_EQ(honest->job(first)->state, "queued");
}

TEST_F(ClusterQueueTest, AHostClaimsOnlyWhatItsMemoryAdmits) {
  auto small = host("small");
  auto large = host("large");
  JobSubmission big = job_of(1, 5);
  big.partition_memory_bytes = 64ull << 30;
  JobSubmission light = job_of(1, 0);
  light.partition_memory_bytes = 1ull << 30;
  const std::int64_t big_id = small->submit(big).job_id;
  const std::int64_t light_id = small->submit(light).job_id;
  // The big job comes first by priority, but the small host passes it over for what fits.
  EXPECT_FALSE(small->claim(512ull << 20).has_value());
  const auto fits = small->claim(8ull << 30);
  ASSERT_TRUE(fits.has_value());
  EXPECT_EQ(fits->job_id, light_id);
  EXPECT_FALSE(small->claim(8ull << 30).has_value());
  const auto big_claim = large->claim(128ull << 30);
  ASSERT_TRUE(big_claim.has_value());
  EXPECT_EQ(big_claim->job_id, big_id);
}

TEST_F(ClusterQueueTest, CancelStopsClaimsAndRefusesTheHoldersProof) {
  ff::SeededRng rng(test_seed("CancelStopsClaimsAndRefusesTheHoldersProof"));
  auto a = host("a");
  const std::int64_t id = a->submit(job_of(3, 0)).job_id;
  const auto c = a->claim(kPlentyOfMemory);
  ASSERT_TRUE(c.has_value());
  EXPECT_TRUE(a->cancel(id));
  EXPECT_FALSE(a->cancel(id));
  EXPECT_FALSE(a->claim(kPlentyOfMemory).has_value());
  EXPECT_TRUE(a->heartbeat().empty()) << "a lease of a cancelled job is not renewed";
  EXPECT_EQ(a->complete(*c, random_proof(rng), true), CompleteOutcome::job_closed);
  EXPECT_EQ(a->job(id)->state, "cancelled");
  EXPECT_TRUE(a->job(id)->proof.empty());
}

TEST_F(ClusterQueueTest, AProofThatDidNotVerifyFailsTheJobAndIsNeverAssembled) {
  ff::SeededRng rng(test_seed("AProofThatDidNotVerifyFailsTheJobAndIsNeverAssembled"));
  auto a = host("a");
  const std::int64_t id = a->submit(job_of(2, 0)).job_id;
  const auto first = a->claim(kPlentyOfMemory);
  const auto second = a->claim(kPlentyOfMemory);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(a->complete(*first, random_proof(rng), false), CompleteOutcome::accepted);
  const JobRecord failed = *a->job(id);
  EXPECT_EQ(failed.state, "failed");
  EXPECT_NE(failed.error.find("partition 0"), std::string::npos) << failed.error;
  EXPECT_NE(failed.error.find("did not verify"), std::string::npos) << failed.error;
  EXPECT_EQ(a->complete(*second, random_proof(rng), true), CompleteOutcome::job_closed);
  EXPECT_TRUE(a->job(id)->proof.empty());
}

TEST_F(ClusterQueueTest, WitnessesLiveInTheRowUpToTheLimitAndOnTheSharedPathAbove) {
  ff::SeededRng rng(test_seed("WitnessesLiveInTheRowUpToTheLimitAndOnTheSharedPathAbove"));
  char pattern[] = "/tmp/snarkpipe-witness-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  const std::filesystem::path shared = pattern;
  QueueOptions o{conninfo_, "a"};
  o.witness_inline_limit = 1024;
  o.witness_dir = shared;
  ClusterQueue a(o);
  auto witness_of = [&](std::size_t n) {
    std::vector<std::uint8_t> w(n);
    for (auto& b : w) b = static_cast<std::uint8_t>(rng.next_u64());
    return w;
  };
  JobSubmission small = job_of(1, 1);
  small.witness = witness_of(1024);
  JobSubmission large = job_of(1, 0);
  large.witness = witness_of(1025 + rng.next_u64() % 10000);
  a.submit(small);
  a.submit(large);
  const auto in_row = a.claim(kPlentyOfMemory);
  ASSERT_TRUE(in_row.has_value());
  EXPECT_EQ(in_row->witness_inline, small.witness);
  EXPECT_TRUE(in_row->witness_path.empty());
  const auto on_path = a.claim(kPlentyOfMemory);
  ASSERT_TRUE(on_path.has_value());
  EXPECT_TRUE(on_path->witness_inline.empty());
  ASSERT_EQ(std::filesystem::path(on_path->witness_path).parent_path(), shared);
  std::ifstream in(on_path->witness_path, std::ios::binary);
  const std::vector<std::uint8_t> read((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(read, large.witness);
  // Without a shared folder a large witness is refused, and says why.
  QueueOptions no_dir{conninfo_, "b"};
  no_dir.witness_inline_limit = 1024;
  ClusterQueue b(no_dir);
  EXPECT_THROW(b.submit(large), std::invalid_argument);
  std::filesystem::remove_all(shared);
}

TEST_F(ClusterQueueTest, AnIdleHostIsWokenByASubmitElsewhere) {
  auto submitter = host("submitter");
  WorkListener idle(conninfo_);
  EXPECT_FALSE(idle.wait(200ms));
  std::thread later([&] {
    std::this_thread::sleep_for(300ms);
    submitter->submit(job_of(1, 0));
    submitter->submit(job_of(1, 0));
  });
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(idle.wait(10s));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  later.join();
}

TEST_F(ClusterQueueTest, AHostRestartedUnderItsNameReturnsTheClaimsItsLastRunLeft) {
  auto first_run = host("gpu-1");
  first_run->submit(job_of(2, 0));
  ASSERT_TRUE(first_run->claim(kPlentyOfMemory).has_value());
  ASSERT_TRUE(first_run->claim(kPlentyOfMemory).has_value());
  first_run.reset();  // the process died with its work
  auto second_run = host("gpu-1");
  int reclaimed = 0;
  while (auto c = second_run->claim(kPlentyOfMemory)) {
    EXPECT_EQ(c->attempts, 2);
    ++reclaimed;
  }
  EXPECT_EQ(reclaimed, 2);
}

TEST_F(ClusterQueueTest, StatusShowsHostsLeasesAndQueueDepthByPriority) {
  const auto lease = 30s;
  auto a = host("a", lease);
  auto b = host("b", lease);
  a->submit(job_of(3, 2));
  a->submit(job_of(4, 0));
  ASSERT_TRUE(b->claim(kPlentyOfMemory).has_value());
  ASSERT_TRUE(b->claim(kPlentyOfMemory).has_value());
  const ClusterStatus s = a->status();
  ASSERT_EQ(s.hosts.size(), 2u);
  EXPECT_EQ(s.hosts[0].name, "a");
  EXPECT_EQ(s.hosts[0].leases_held, 0);
  EXPECT_EQ(s.hosts[1].name, "b");
  EXPECT_EQ(s.hosts[1].leases_held, 2);
  for (const auto& h : s.hosts) {
    EXPECT_GE(h.heartbeat_age_ms, 0);
    EXPECT_LT(h.heartbeat_age_ms, 10000);
  }
  ASSERT_EQ(s.leases.size(), 2u);
  for (const auto& l : s.leases) {
    EXPECT_EQ(l.host, "b");
    EXPECT_GT(l.remaining_ms, 20000);
  }
  ASSERT_EQ(s.depth.size(), 2u);
  EXPECT_EQ(s.depth[0].priority, 2);
  EXPECT_EQ(s.depth[0].queued, 1);
  EXPECT_EQ(s.depth[0].claimed, 2);
  EXPECT_EQ(s.depth[1].priority, 0);
  EXPECT_EQ(s.depth[1].queued, 4);
  EXPECT_EQ(s.depth[1].claimed, 0);
}

}  // namespace
}  // namespace snarkpipe::cluster
