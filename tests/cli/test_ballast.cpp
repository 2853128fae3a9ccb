// cli::Ballast (bench prove --free-gib): it starts the program with N, waits for its "ballast:
// holding" line, and kills it when it goes; a program that cannot hold, says nothing, or does not
// exist is an error with its words. Real child processes (shell scripts standing in for
// ../shared/anchors/bin/ballast, which needs a GPU).
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "cli/ballast.hpp"

namespace snarkpipe::cli {
namespace {

namespace fs = std::filesystem;

struct Scripts : ::testing::Test {
  fs::path dir = fs::temp_directory_path() / ("snarkpipe-ballast-" + std::to_string(getpid()));
  void SetUp() override { fs::create_directories(dir); }
  void TearDown() override { fs::remove_all(dir); }
  std::string script(const std::string& name, const std::string& body) {
    const fs::path p = dir / name;
    std::ofstream(p) << "#!/bin/sh\n" << body << "\n";
    fs::permissions(p, fs::perms::owner_all);
    return p.string();
  }
  pid_t pid_in(const std::string& file) {
    pid_t pid = 0;
    std::ifstream(dir / file) >> pid;
    return pid;
  }
};

bool alive(pid_t pid) { return pid > 0 && (kill(pid, 0) == 0 || errno != ESRCH); }

TEST_F(Scripts, HoldsUntilDestroyedWithItsArgument) {
  const std::string p =
      script("hold", "echo $$ > " + (dir / "pid").string() +
                         "\necho \"ballast: holding 1.00 GiB, $1 GiB free of 2.00\"\nexec sleep 1000");
  pid_t pid = 0;
  {
    Ballast b(p, 3.5);
    EXPECT_EQ(b.said(), "ballast: holding 1.00 GiB, 3.5 GiB free of 2.00");
    pid = pid_in("pid");
    EXPECT_TRUE(alive(pid));
  }
  // Killed and reaped when it goes (the pid no longer names a process, or names another's).
  for (int i = 0; i < 50 && alive(pid); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(alive(pid));
}

TEST_F(Scripts, WholeNumbersAreWrittenPlain) {
  const std::string p = script("hold16", "echo \"ballast: holding 1 GiB, $1 GiB free\"\nexec sleep 1000");
  Ballast b(p, 16);
  EXPECT_EQ(b.said(), "ballast: holding 1 GiB, 16 GiB free");
}

TEST_F(Scripts, ACardTooSmallIsAnErrorWithItsWords) {
  const std::string p = script("small", "echo \"ballast: only 1.0 GiB free\"\nexit 1");
  try {
    Ballast b(p, 24);
    ADD_FAILURE() << "a ballast that cannot hold was taken";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("only 1.0 GiB free"), std::string::npos) << e.what();
  }
}

TEST_F(Scripts, SilenceIsAnErrorAfterTheTimeoutAndTheProgramIsKilled) {
  const std::string p = script("silent", "echo $$ > " + (dir / "pid").string() + "\nexec sleep 1000");
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_THROW(Ballast(p, 8, 1), std::runtime_error);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  const pid_t pid = pid_in("pid");
  for (int i = 0; i < 50 && alive(pid); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(alive(pid));
}

TEST_F(Scripts, AMissingProgramIsAnError) {
  EXPECT_THROW(Ballast((dir / "no-such-program").string(), 8, 1), std::runtime_error);
}

}  // namespace
}  // namespace snarkpipe::cli
