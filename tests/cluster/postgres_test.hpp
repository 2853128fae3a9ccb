// A test suite over one real PostgreSQL (postgres_fixture.hpp), started for the suite and
// stopped after it, with a fresh database for each test in conninfo_. Where no server can run
// here, every test skips with the reason.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "postgres_fixture.hpp"

namespace snarkpipe::cluster::testing {

class PostgresTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (auto why = PostgresServer::unavailable_reason()) {
      skip_reason_ = *why;
      return;
    }
    server_ = std::make_unique<PostgresServer>();
  }
  static void TearDownTestSuite() { server_.reset(); }
  void SetUp() override {
    if (!server_) GTEST_SKIP() << skip_reason_;
    conninfo_ = server_->create_database();
  }

  static inline std::unique_ptr<PostgresServer> server_;
  static inline std::string skip_reason_;
  std::string conninfo_;
};

}  // namespace snarkpipe::cluster::testing
