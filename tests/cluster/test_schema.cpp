// The schema's migrations against a real server: applied once, at start, by one of several
// hosts starting together; a database newer than the binary is refused.
#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <thread>

#include "cluster/schema.hpp"
#include "postgres_test.hpp"

namespace snarkpipe::cluster {
namespace {

using SchemaTest = testing::PostgresTest;

TEST_F(SchemaTest, FirstStartAppliesEveryMigrationAndTheSecondNothing) {
  PgConnection db({conninfo_});
  EXPECT_EQ(schema_version(db), 0);
  const std::vector<int> first = apply_migrations(db);
  ASSERT_EQ(first.size(), schema_migrations().size());
  for (std::size_t i = 0; i < first.size(); ++i) EXPECT_EQ(first[i], schema_migrations()[i].version);
  EXPECT_EQ(schema_version(db), latest_schema_version());
  for (const char* table : {"hosts", "jobs", "partitions", "schema_version"})
    EXPECT_TRUE(
        db.execute({"table_exists", "SELECT to_regclass($1) IS NOT NULL"}, {PgParam::text(table)}).boolean(0, 0))
        << table;
  for (const char* index : {"jobs_claim_order", "partitions_open", "partitions_by_holder", "partitions_by_lease"})
    EXPECT_EQ(
        db.execute({"index_exists", "SELECT count(*) FROM pg_indexes WHERE indexname = $1"}, {PgParam::text(index)})
            .integer(0, 0),
        1)
        << index;
  // The idempotency key is unique across the cluster: the database says so, not the hosts.
  EXPECT_EQ(db.execute({"unique_key", R"sql(SELECT count(*) FROM pg_indexes
      WHERE tablename = 'jobs' AND indexdef LIKE 'CREATE UNIQUE INDEX%(idempotency_key)')sql"})
                .integer(0, 0),
            1);

  PgConnection again({conninfo_});
  EXPECT_TRUE(apply_migrations(again).empty());
  EXPECT_EQ(db.execute({"versions", "SELECT count(*) FROM schema_version"}).integer(0, 0),
            static_cast<std::int64_t>(schema_migrations().size()));
}

TEST_F(SchemaTest, HostsStartingTogetherApplyEachMigrationOnce) {
  std::mutex mu;
  std::vector<int> all_applied;
  std::vector<std::thread> hosts;
  for (int h = 0; h < 4; ++h)
    hosts.emplace_back([&] {
      PgConnection db({conninfo_});
      const std::vector<int> applied = apply_migrations(db);
      std::lock_guard lock(mu);
      all_applied.insert(all_applied.end(), applied.begin(), applied.end());
    });
  for (auto& t : hosts) t.join();
  EXPECT_EQ(all_applied.size(), schema_migrations().size());
  PgConnection db({conninfo_});
  EXPECT_EQ(schema_version(db), latest_schema_version());
}

TEST_F(SchemaTest, ADatabaseNewerThanThisBinaryIsRefused) {
  PgConnection db({conninfo_});
  apply_migrations(db);
  db.execute({"future", "INSERT INTO schema_version (version, description) VALUES ($1, 'from a newer host')"},
             {PgParam::integer(latest_schema_version() + 1)});
  try {
    apply_migrations(db);
    FAIL() << "a newer schema was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("newer"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace snarkpipe::cluster
