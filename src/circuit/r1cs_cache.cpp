#include "circuit/r1cs_cache.hpp"

#include "base/clock.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "circuit/r1cs_file.hpp"

namespace snarkpipe::circuit {

namespace {

constexpr std::string_view EXTENSION = ".snkr1cs";
constexpr std::size_t HASH_DIGITS = 16;
// Long enough to read, short enough that stem, hash and extension fit a 255-byte file name.
constexpr std::size_t MAX_STEM = 160;

std::string stem_of(std::string_view type) {
  std::string s(type.substr(0, MAX_STEM));
  for (char& ch : s) {
    const bool keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' ||
                      ch == '_' || ch == '.' || ch == ',' || ch == '=' || ch == '+';
    if (!keep) ch = '_';
  }
  // A leading dot would hide the file; an empty stem would start the name with '-'.
  if (s.empty() || s[0] == '.') s.insert(s.begin(), '_');
  return s;
}

std::uint64_t fnv1a(std::string_view s, std::uint64_t h = 0xcbf29ce484222325ULL) {
  for (const char ch : s) h = (h ^ static_cast<unsigned char>(ch)) * 0x100000001b3ULL;
  return h;
}
std::uint32_t fold32(std::uint64_t h) { return static_cast<std::uint32_t>(h ^ (h >> 32)); }

// True for "<stem>-<8 hex digits of type_hash><8 hex digits>.snkr1cs": the same type's
// file, for any version.
bool is_entry_of(const std::string& name, const std::string& stem, const std::string& type_hash) {
  if (name.size() != stem.size() + 1 + HASH_DIGITS + EXTENSION.size()) return false;
  if (name.compare(0, stem.size(), stem) != 0 || name[stem.size()] != '-') return false;
  if (name.compare(stem.size() + 1, type_hash.size(), type_hash) != 0) return false;
  if (name.compare(name.size() - EXTENSION.size(), EXTENSION.size(), EXTENSION) != 0) return false;
  for (std::size_t i = stem.size() + 1; i < stem.size() + 1 + HASH_DIGITS; ++i) {
    const char ch = name[i];
    if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'))) return false;
  }
  return true;
}

using base::ms_since;

}  // namespace

std::optional<std::filesystem::path> R1csCache::default_dir() {
  const auto absolute_env = [](const char* name) -> std::optional<std::filesystem::path> {
    const char* v = std::getenv(name);
    if (!v || !*v) return std::nullopt;
    std::filesystem::path p(v);
    if (!p.is_absolute()) return std::nullopt;
    return p;
  };
  if (const char* v = std::getenv("SNARKPIPE_CACHE_DIR"); v && *v) return std::filesystem::path(v);
  if (auto xdg = absolute_env("XDG_CACHE_HOME")) return *xdg / "snarkpipe";
  if (auto home = absolute_env("HOME")) return *home / ".cache" / "snarkpipe";
  return std::nullopt;
}

R1csCache::R1csCache(std::filesystem::path dir, std::string version)
    : warn([](const std::string& msg) { std::fprintf(stderr, "warning: %s\n", msg.c_str()); }),
      dir_(std::move(dir)),
      version_(std::move(version)) {}

std::filesystem::path R1csCache::path_for(std::string_view type) const {
  // The version is hashed after the type, behind a NUL, so that ("ab", "c") and ("a", "bc")
  // differ.
  const std::uint64_t of_type = fnv1a(type);
  const std::uint64_t of_both = fnv1a(version_, fnv1a(std::string_view("\0", 1), of_type));
  char hash[HASH_DIGITS + 1];
  std::snprintf(hash, sizeof hash, "%08x%08x", fold32(of_type), fold32(of_both));
  return dir_ / (stem_of(type) + "-" + hash + std::string(EXTENSION));
}

R1cs R1csCache::get_or_record(std::string_view type, const std::function<R1cs()>& recorder, Outcome* outcome) const {
  Outcome local;
  Outcome& out = outcome ? *outcome : local;
  out = Outcome{};
  out.path = path_for(type);

  std::error_code ec;
  if (std::filesystem::exists(out.path, ec)) {
    const auto t0 = std::chrono::steady_clock::now();
    try {
      R1cs r = map_r1cs(out.path);
      out.loaded = true;
      out.ms = ms_since(t0);
      return r;
    } catch (const R1csFileError& e) {
      warn("circuit cache: " + std::string(e.what()) + "; recording the circuit again");
      // Gone before the rewrite, so that a failed write does not leave it to warn again.
      std::filesystem::remove(out.path, ec);
    }
  }

  const auto t0 = std::chrono::steady_clock::now();
  R1cs r = recorder();
  out.ms = ms_since(t0);
  try {
    std::filesystem::create_directories(dir_);
    write_r1cs(out.path, r);
    out.written = true;
  } catch (const R1csFileError& e) {
    warn("circuit cache: " + std::string(e.what()) + "; not cached");
  } catch (const std::filesystem::filesystem_error& e) {
    warn("circuit cache: cannot create " + dir_.string() + ": " + e.code().message() + "; not cached");
  }
  if (out.written) remove_other_versions(out.path);
  return r;
}

void R1csCache::remove_other_versions(const std::filesystem::path& keep) const {
  const std::string name = keep.filename().string();
  const std::string stem = name.substr(0, name.size() - 1 - HASH_DIGITS - EXTENSION.size());
  const std::string type_hash = name.substr(stem.size() + 1, HASH_DIGITS / 2);
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string other = it->path().filename().string();
    if (other != name && is_entry_of(other, stem, type_hash)) {
      std::error_code rm;
      // A process still using the old file keeps its mapping: unlinking frees it afterwards.
      if (!std::filesystem::remove(it->path(), rm) && rm) {
        warn("circuit cache: cannot remove the stale " + it->path().string() + ": " + rm.message());
      }
    }
  }
}

}  // namespace snarkpipe::circuit
