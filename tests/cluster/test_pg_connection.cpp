// The libpq connection against a real server: parameters travel untouched, errors name the
// statement, a restarted server is reconnected to, transactions re-run whole, LISTEN survives.
#include <gtest/gtest.h>

#include <memory>
#include <thread>

#include "cluster/pg_connection.hpp"
#include "postgres_test.hpp"
#include "test_seed.hpp"

namespace snarkpipe::cluster {
namespace {

using PgConnectionTest = testing::PostgresTest;

std::vector<std::uint8_t> random_bytes(ff::SeededRng& rng, std::size_t n) {
  std::vector<std::uint8_t> out(n);
  for (auto& b : out) b = static_cast<std::uint8_t>(rng.next_u64());
  return out;
}

TEST_F(PgConnectionTest, ParametersRoundTripUntouched) {
  ff::SeededRng rng(test_seed("ParametersRoundTripUntouched"));
  PgConnection db({conninfo_});
  db.execute({"create", "CREATE TABLE t (s text, i bigint, b bytea, n text)"});
  for (int round = 0; round < 20; ++round) {
    // Quotes, backslashes and SQL in the text, zero bytes in the blob: none may be interpreted.
    const std::string text = "x'); DROP TABLE t; --\\" + std::to_string(rng.next_u64());
    const auto value = static_cast<std::int64_t>(rng.next_u64());
    auto blob = random_bytes(rng, rng.next_u64() % 3000);
    if (!blob.empty()) blob[0] = 0;
    db.execute({"insert", "INSERT INTO t VALUES ($1, $2, $3, $4)"},
               {PgParam::text(text), PgParam::integer(value), PgParam::bytes(blob), PgParam::null()});
    PgResult r = db.execute({"read", "SELECT s, i, b, n FROM t WHERE i = $1"}, {PgParam::integer(value)});
    ASSERT_EQ(r.rows(), 1);
    EXPECT_EQ(r.text(0, 0), text);
    EXPECT_EQ(r.integer(0, 1), value);
    EXPECT_EQ(r.bytes(0, 2), blob);
    EXPECT_TRUE(r.is_null(0, 3));
  }
  EXPECT_EQ(db.execute({"count", "SELECT count(*) FROM t"}).integer(0, 0), 20);
}

TEST_F(PgConnectionTest, ErrorsNameTheStatementAndSqlstate) {
  PgConnection db({conninfo_});
  try {
    db.execute({"divide_by_zero", "SELECT 1 / $1::int"}, {PgParam::integer(0)});
    FAIL() << "division by zero was accepted";
  } catch (const ConnectionLost&) {
    FAIL() << "a statement error was taken for a lost link";
  } catch (const DatabaseError& e) {
    EXPECT_EQ(e.statement(), "divide_by_zero");
    EXPECT_EQ(e.sqlstate(), "22012");
    EXPECT_NE(std::string(e.what()).find("divide_by_zero"), std::string::npos) << e.what();
  }
  // The connection is still usable after a failed statement.
  EXPECT_EQ(db.execute({"one", "SELECT 1"}).integer(0, 0), 1);
}

TEST_F(PgConnectionTest, TransactionRollsBackWhenTheBodyThrows) {
  PgConnection db({conninfo_});
  db.execute({"create", "CREATE TABLE t (i int)"});
  EXPECT_THROW(db.transaction([&] {
    db.execute({"insert", "INSERT INTO t VALUES (1)"});
    throw std::runtime_error("body failed");
  }),
               std::runtime_error);
  EXPECT_EQ(db.execute({"count", "SELECT count(*) FROM t"}).integer(0, 0), 0);
  db.transaction([&] { db.execute({"insert", "INSERT INTO t VALUES (2)"}); });
  EXPECT_EQ(db.execute({"count", "SELECT count(*) FROM t"}).integer(0, 0), 1);
}

TEST_F(PgConnectionTest, ReconnectsAfterTheServerRestarts) {
  PgConnection db({conninfo_});
  db.execute({"create", "CREATE TABLE t (i int)"});
  db.execute({"insert", "INSERT INTO t VALUES (1)"});
  server_->restart();
  EXPECT_EQ(db.execute({"count", "SELECT count(*) FROM t"}).integer(0, 0), 1);
  EXPECT_EQ(db.reconnects(), 1u);
}

TEST_F(PgConnectionTest, ReconnectsWhileTheServerIsStillDown) {
  PgConnection db({conninfo_});
  server_->stop();
  // The server comes back while the statement is retrying its connection. The server is
  // started from this thread: it is killed when the thread that started it ends (the fixture's
  // guard against orphans).
  std::int64_t answer = 0;
  std::thread query([&] { answer = db.execute({"one", "SELECT 1"}).integer(0, 0); });
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  server_->start();
  query.join();
  EXPECT_EQ(answer, 1);
  EXPECT_EQ(db.reconnects(), 1u);
}

TEST_F(PgConnectionTest, GivesUpWithConnectionLostAfterTheDeadline) {
  PgConnection db({conninfo_, std::chrono::milliseconds(500), std::chrono::milliseconds(50)});
  server_->stop();
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_THROW(db.execute({"one", "SELECT 1"}), ConnectionLost);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(500));
  server_->start();
  EXPECT_EQ(db.execute({"one", "SELECT 1"}).integer(0, 0), 1);
}

TEST_F(PgConnectionTest, TransactionIsRunAgainWholeWhenTheLinkBreaksInside) {
  PgConnection db({conninfo_});
  db.execute({"create", "CREATE TABLE t (i int)"});
  int runs = 0;
  db.transaction([&] {
    ++runs;
    db.execute({"insert", "INSERT INTO t VALUES (7)"});
    if (runs == 1) server_->restart();  // the first run's insert is rolled back with the link
    db.execute({"insert_again", "INSERT INTO t VALUES (8)"});
  });
  EXPECT_EQ(runs, 2);
  PgResult r = db.execute({"read", "SELECT i FROM t ORDER BY i"});
  ASSERT_EQ(r.rows(), 2);
  EXPECT_EQ(r.integer(0, 0), 7);
  EXPECT_EQ(r.integer(1, 0), 8);
}

TEST_F(PgConnectionTest, NotificationsArriveAndListenSurvivesARestart) {
  ff::SeededRng rng(test_seed("NotificationsArriveAndListenSurvivesARestart"));
  PgConnection listener({conninfo_});
  PgConnection sender({conninfo_});
  listener.listen("work");
  EXPECT_FALSE(listener.wait_for_notification(std::chrono::milliseconds(100)).has_value());
  const std::string payload = std::to_string(rng.next_u64());
  sender.execute({"notify", "SELECT pg_notify('work', $1)"}, {PgParam::text(payload)});
  auto n = listener.wait_for_notification(std::chrono::seconds(5));
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->channel, "work");
  EXPECT_EQ(n->payload, payload);

  server_->restart();
  // The listener notices the broken link inside its wait, re-opens it and LISTENs again.
  EXPECT_FALSE(listener.wait_for_notification(std::chrono::milliseconds(300)).has_value());
  const std::string after = std::to_string(rng.next_u64());
  sender.execute({"notify", "SELECT pg_notify('work', $1)"}, {PgParam::text(after)});
  n = listener.wait_for_notification(std::chrono::seconds(5));
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->payload, after);
  EXPECT_THROW(listener.listen("no; DROP"), std::invalid_argument);
}

}  // namespace
}  // namespace snarkpipe::cluster
