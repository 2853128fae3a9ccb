// The recorded-circuit cache: a miss records and writes, a hit maps the file without
// recording, a damaged file is reported and recorded again, types and versions never share
// a file; and map_r1cs (the cache's reader) gives exactly what read_r1cs gives.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "circuit/r1cs_cache.hpp"
#include "circuit/r1cs_file.hpp"
#include "circuit/recording_cs.hpp"
#include "random_circuit.hpp"
#include "test_seed.hpp"

using namespace snarkpipe::circuit;
namespace fs = std::filesystem;

namespace {

R1cs random_r1cs(std::uint64_t seed, int steps) {
  test_support::RandomCircuit circuit(seed, steps);
  RecordingConstraintSystem rec;
  circuit.synthesize(rec);
  return rec.finish();
}

class R1csCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("snarkpipe-r1cs-cache-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    seed_ = test_seed("R1csCache");
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // A cache whose warnings are collected rather than printed.
  R1csCache cache(std::string version = "v1") {
    R1csCache c(dir_ / "cache", std::move(version));
    c.warn = [this](const std::string& w) { warnings_.push_back(w); };
    return c;
  }
  // A recorder that counts its calls.
  std::function<R1cs()> recorder(const R1cs& r, int& calls) {
    return [&r, &calls] {
      ++calls;
      return r;
    };
  }

  fs::path dir_;
  std::uint64_t seed_ = 0;
  std::vector<std::string> warnings_;
};

TEST_F(R1csCacheTest, MissRecordsAndWritesThenHitMapsWithoutRecording) {
  const R1cs want = random_r1cs(seed_, 300);
  const R1csCache c = cache();
  int calls = 0;
  R1csCache::Outcome out;
  const R1cs first = c.get_or_record("random:steps=300", recorder(want, calls), &out);
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(out.loaded);
  EXPECT_TRUE(out.written);
  EXPECT_EQ(out.path, c.path_for("random:steps=300"));
  EXPECT_EQ(out.path.parent_path(), dir_ / "cache");
  EXPECT_TRUE(first == want);
  EXPECT_TRUE(read_r1cs(out.path) == want);

  const R1cs second = c.get_or_record("random:steps=300", recorder(want, calls), &out);
  EXPECT_EQ(calls, 1) << "a hit must not record";
  EXPECT_TRUE(out.loaded);
  EXPECT_FALSE(out.written);
  EXPECT_TRUE(second == want);
  EXPECT_TRUE(second.a.val.is_view() && second.b.col.is_view() && second.c.row_ptr.is_view());
  EXPECT_TRUE(warnings_.empty());
}

TEST_F(R1csCacheTest, DamagedFilesAreReportedAndRecordedAgain) {
  const R1cs want = random_r1cs(seed_, 200);
  const R1csCache c = cache();
  const std::string type = "random:steps=200";
  const fs::path p = c.path_for(type);
  int calls = 0;
  c.get_or_record(type, recorder(want, calls));
  const auto size = fs::file_size(p);

  struct Damage {
    const char* what;
    std::function<void()> apply;
  };
  const Damage damages[] = {
      {"flipped byte",
       [&] {
         std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
         f.seekg(static_cast<std::streamoff>(size / 2));
         const char b = static_cast<char>(f.get());
         f.seekp(static_cast<std::streamoff>(size / 2));
         f.put(static_cast<char>(b ^ 0x10));
       }},
      {"truncated", [&] { fs::resize_file(p, size / 2); }},
      {"empty", [&] { fs::resize_file(p, 0); }},
      {"not an r1cs file", [&] { std::ofstream(p, std::ios::trunc) << "hello"; }},
  };
  for (const Damage& d : damages) {
    SCOPED_TRACE(d.what);
    d.apply();
    warnings_.clear();
    const int before = calls;
    R1csCache::Outcome out;
    const R1cs got = c.get_or_record(type, recorder(want, calls), &out);
    EXPECT_EQ(calls, before + 1);
    EXPECT_FALSE(out.loaded);
    EXPECT_TRUE(out.written);
    EXPECT_TRUE(got == want);
    ASSERT_EQ(warnings_.size(), 1u);
    EXPECT_NE(warnings_[0].find(p.string()), std::string::npos) << warnings_[0];
    EXPECT_NE(warnings_[0].find("recording the circuit again"), std::string::npos) << warnings_[0];
    // Rewritten whole: the next call is a hit.
    EXPECT_TRUE(c.get_or_record(type, recorder(want, calls), &out) == want);
    EXPECT_TRUE(out.loaded);
    EXPECT_EQ(calls, before + 1);
  }
}

TEST_F(R1csCacheTest, TypesNeverShareAFile) {
  // Alike once made filename-safe ("t_a=1"), different circuits.
  const R1cs r1 = random_r1cs(seed_, 100), r2 = random_r1cs(seed_ + 1, 150), r3 = random_r1cs(seed_ + 2, 120);
  const R1csCache c = cache();
  EXPECT_NE(c.path_for("t:a=1"), c.path_for("t/a=1"));
  EXPECT_NE(c.path_for("t:a=1"), c.path_for("t:a=2"));
  EXPECT_EQ(c.path_for("t:a=1").filename().string().substr(0, 6), "t_a=1-");
  int calls = 0;
  c.get_or_record("t:a=1", recorder(r1, calls));
  c.get_or_record("t/a=1", recorder(r2, calls));
  c.get_or_record("t:a=2", recorder(r3, calls));
  EXPECT_EQ(calls, 3);
  R1csCache::Outcome out;
  EXPECT_TRUE(c.get_or_record("t:a=1", recorder(r2, calls), &out) == r1);
  EXPECT_TRUE(out.loaded);
  EXPECT_TRUE(c.get_or_record("t/a=1", recorder(r1, calls), &out) == r2);
  EXPECT_TRUE(out.loaded);
  EXPECT_TRUE(c.get_or_record("t:a=2", recorder(r1, calls), &out) == r3);
  EXPECT_TRUE(out.loaded);
  EXPECT_EQ(calls, 3);
  // Names stay short and safe whatever the type.
  const std::string odd = ".." + std::string(500, '/') + "\n";
  const std::string name = c.path_for(odd).filename().string();
  EXPECT_LT(name.size(), 255u);
  EXPECT_NE(name[0], '.');
  EXPECT_EQ(name.find('/'), std::string::npos);
}

TEST_F(R1csCacheTest, AnotherVersionRecordsAfreshAndReplacesTheStaleFile) {
  const R1cs old_r = random_r1cs(seed_, 100), new_r = random_r1cs(seed_ + 1, 100);
  const R1csCache v1 = cache("v1"), v2 = cache("v2");
  ASSERT_NE(v1.path_for("t"), v2.path_for("t"));
  int calls = 0;
  v1.get_or_record("t", recorder(old_r, calls));
  v1.get_or_record("u", recorder(old_r, calls));
  R1csCache::Outcome out;
  EXPECT_TRUE(v2.get_or_record("t", recorder(new_r, calls), &out) == new_r);
  EXPECT_FALSE(out.loaded);
  EXPECT_EQ(calls, 3);
  EXPECT_FALSE(fs::exists(v1.path_for("t"))) << "v1's file of type t is stale";
  EXPECT_TRUE(fs::exists(v1.path_for("u"))) << "another type's file is not";
  EXPECT_TRUE(fs::exists(v2.path_for("t")));
}

TEST_F(R1csCacheTest, AnUnwritableDirectoryStillGivesTheCircuit) {
  const R1cs want = random_r1cs(seed_, 50);
  fs::create_directories(dir_);
  std::ofstream(dir_ / "cache") << "a file where the directory should be";
  const R1csCache c = cache();
  int calls = 0;
  R1csCache::Outcome out;
  EXPECT_TRUE(c.get_or_record("t", recorder(want, calls), &out) == want);
  EXPECT_FALSE(out.written);
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_NE(warnings_[0].find("not cached"), std::string::npos) << warnings_[0];
}

TEST_F(R1csCacheTest, DefaultDirFollowsTheEnvironment) {
  const auto set = [](const char* k, const char* v) {
    if (v) ::setenv(k, v, 1);
    else ::unsetenv(k);
  };
  const auto saved = [](const char* k) -> std::optional<std::string> {
    const char* v = std::getenv(k);
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  const auto cache_dir = saved("SNARKPIPE_CACHE_DIR"), xdg = saved("XDG_CACHE_HOME"), home = saved("HOME");
  set("SNARKPIPE_CACHE_DIR", "/a/b");
  set("XDG_CACHE_HOME", "/x");
  set("HOME", "/h");
  EXPECT_EQ(R1csCache::default_dir(), fs::path("/a/b"));
  set("SNARKPIPE_CACHE_DIR", "");
  EXPECT_EQ(R1csCache::default_dir(), fs::path("/x/snarkpipe"));
  set("XDG_CACHE_HOME", "relative");
  EXPECT_EQ(R1csCache::default_dir(), fs::path("/h/.cache/snarkpipe"));
  set("HOME", nullptr);
  EXPECT_EQ(R1csCache::default_dir(), std::nullopt);
  set("SNARKPIPE_CACHE_DIR", cache_dir ? cache_dir->c_str() : nullptr);
  set("XDG_CACHE_HOME", xdg ? xdg->c_str() : nullptr);
  set("HOME", home ? home->c_str() : nullptr);
}

TEST_F(R1csCacheTest, MappedReadsEqualCopiedReads) {
  const R1cs want = random_r1cs(seed_, 400);
  fs::create_directories(dir_);
  const fs::path p = dir_ / "c.snkr1cs";
  write_r1cs(p, want);
  const R1cs copied = read_r1cs(p);
  R1cs mapped = map_r1cs(p);
  EXPECT_FALSE(copied.a.col.is_view());
  EXPECT_TRUE(mapped.a.col.is_view() && mapped.a.val.is_view() && mapped.a.row_ptr.is_view());
  EXPECT_TRUE(mapped == copied);
  EXPECT_TRUE(mapped == want);

  // A copy owns its entries; a move hands the view over.
  const R1cs copy = mapped;
  EXPECT_FALSE(copy.b.val.is_view());
  EXPECT_TRUE(copy == want);
  R1cs moved = std::move(mapped);
  EXPECT_TRUE(moved.b.val.is_view());
  EXPECT_TRUE(moved == want);

  // Writes through a view stay in this process (the mapping is private); growing owns first.
  moved.c.val[0] = moved.c.val[0] + Fr::one();
  moved.a.col.push_back(7);
  EXPECT_FALSE(moved.a.col.is_view());
  EXPECT_EQ(moved.a.col.size(), want.a.col.size() + 1);
  EXPECT_TRUE(moved.c.val.is_view());
  EXPECT_FALSE(moved.c.val[0] == want.c.val[0]);
  EXPECT_TRUE(read_r1cs(p) == want) << "a write through a view reached the file";

  // Errors are read_r1cs's.
  fs::resize_file(p, fs::file_size(p) - 64);
  try {
    map_r1cs(p);
    ADD_FAILURE() << "a truncated file was mapped";
  } catch (const R1csFileError& e) {
    EXPECT_EQ(e.field(), "file_size");
  }
}

}  // namespace
