// A directory of recorded circuits (.snkr1cs files), one per circuit type: recording a large
// circuit takes seconds to minutes and gives the same R1cs every time, so it is done once and
// the file is memory-mapped afterwards (map_r1cs: no copy, the page cache is the storage).
//
// A type is a string naming the circuit and every parameter that changes its constraints
// ("porep-like:challenges=2,layers=4,..."). Its file is <dir>/<stem>-<hash>.snkr1cs: the
// stem is the type made filename-safe (readable, for people clearing the cache); the hash is
// 8 hex digits of FNV-1a of the type, then 8 of FNV-1a of the type and the cache's version,
// so that types that read alike, and other versions' files, never share a file.
//
// The version names the code that records: a file recorded by other code may hold another
// circuit under the same type, so a new version records afresh, and writing a type's file
// removes that type's files of other versions (the same stem and first 8 digits) rather than
// leaving gigabytes of stale circuits behind.
//
// Files are trusted only after map_r1cs's full validation (checksum, every invariant); a
// corrupt, truncated or unreadable file is reported through `warn` and recorded again.
// Writes are atomic (write_r1cs: a temporary file, then rename), so a reader never sees a
// partial file and concurrent recorders of one type both end with a valid one.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "circuit/r1cs.hpp"

namespace snarkpipe::circuit {

class R1csCache {
 public:
  // $SNARKPIPE_CACHE_DIR, else $XDG_CACHE_HOME/snarkpipe, else $HOME/.cache/snarkpipe
  // (empty or relative values skipped, as the XDG spec asks); nullopt when none is set.
  static std::optional<std::filesystem::path> default_dir();

  // `dir` is created when the first file is written.
  explicit R1csCache(std::filesystem::path dir, std::string version = "");

  const std::filesystem::path& dir() const { return dir_; }
  // Where `type`'s file lies (whether or not it exists).
  std::filesystem::path path_for(std::string_view type) const;

  struct Outcome {
    bool loaded = false;         // true: from the file; false: recorded now
    bool written = false;        // recorded and written (false when the write failed)
    double ms = 0;               // loading or recording (without writing), wall time
    std::filesystem::path path;  // the type's file
  };

  // The type's R1cs from its file when that is present and valid; otherwise recorder()'s,
  // written to the file (a failed write is a warning: the R1cs is returned all the same).
  R1cs get_or_record(std::string_view type, const std::function<R1cs()>& recorder, Outcome* outcome = nullptr) const;

  // Called with each problem that does not stop get_or_record (an invalid file, a failed
  // write); by default a line on stderr.
  std::function<void(const std::string&)> warn;

 private:
  void remove_other_versions(const std::filesystem::path& keep) const;

  std::filesystem::path dir_;
  std::string version_;
};

}  // namespace snarkpipe::circuit
