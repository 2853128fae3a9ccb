// The benchmarks' record writer (cli/bench_record.hpp): the envelope's fields, a whole record
// or none at a regular path, and devices written through, not replaced.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "cli/bench_record.hpp"
#include "test_seed.hpp"

namespace snarkpipe::cli {
namespace {

namespace fs = std::filesystem;

TEST(BenchRecord, WritesTheEnvelopeAndTheNumbersWhole) {
  const std::uint64_t value = test_seed("record");
  nlohmann::json r = bench_record("bench something --json");
  r["results"] = {{"value", value}};
  const fs::path dir = fs::temp_directory_path() / ("snarkpipe-record-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path path = dir / "r.json";
  write_record(r, path.string());
  std::ifstream in(path);
  const nlohmann::json back = nlohmann::json::parse(in);
  EXPECT_EQ(back["results"]["value"].get<std::uint64_t>(), value);
  EXPECT_EQ(back["command"], "bench something --json");
  for (const char* key : {"date", "commit", "cpu", "cpu_threads", "memory_bytes", "field_multiplication"})
    EXPECT_TRUE(back.contains(key)) << key;
  // Nothing is left beside it.
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_EQ(files, 1u);
  EXPECT_THROW(write_record(r, (dir / "missing" / "r.json").string()), std::runtime_error);
  fs::remove_all(dir);
}

TEST(BenchRecord, ADeviceIsWrittenThroughNotReplaced) {
  write_record(bench_record("x"), "/dev/null");
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/null was replaced by a file";
}

}  // namespace
}  // namespace snarkpipe::cli
