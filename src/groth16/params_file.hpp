// bellperson's parameter files (REFERENCE.md §3), read and written byte-compatibly so a
// Filecoin operator's existing `.params` / `.vk` files load:
//
//   .vk      alpha_g1 ‖ beta_g1 ‖ beta_g2 ‖ gamma_g2 ‖ delta_g1 ‖ delta_g2   (864 bytes, all
//            uncompressed: G1 96 B, G2 192 B), then u32 big-endian count ‖ ic points (G1)
//   .params  the .vk bytes, then five vectors, each u32 big-endian count ‖ points:
//            h (G1), l (G1), a (G1), b_g1 (G1), b_g2 (G2)
//
// Readers memory-map the file and bound every count by the bytes that remain, so a
// truncated or corrupt file gives a ParamsFileError naming the field and the byte offset.
// Points are always range- and curve-checked; the subgroup check (costly for 10^8 points)
// is optional. Points at infinity are rejected in the vectors and for the verifying key's
// alpha, beta, gamma and delta, as bellperson does (the error names the field).
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

#include "base/file_error.hpp"
#include "groth16/keys.hpp"

namespace snarkpipe::groth16 {

// "<path>: <field> at byte offset <offset>: <problem>".
class ParamsFileError : public base::FileFormatError {
 public:
  using base::FileFormatError::FileFormatError;
};

struct ParamsReadOptions {
  bool check_subgroup = false;
  // Called with (bytes read so far, total bytes) while reading; may be empty.
  std::function<void(std::uint64_t, std::uint64_t)> progress;
};

ProvingKey read_params(const std::string& path, const ParamsReadOptions& opts = {});
VerifyingKey read_vk(const std::string& path, const ParamsReadOptions& opts = {});
// The verifying key at the start of a .params file (or a whole .vk), without the queries: the
// first 864 bytes + the IC vector (32,356 bytes of the 47 GB PoRep file).
VerifyingKey read_params_vk(const std::string& path, const ParamsReadOptions& opts = {});
void write_params(const std::string& path, const ProvingKey& pk);
void write_vk(const std::string& path, const VerifyingKey& vk);

// The five queries of a .params file, left in the file and read piece by piece where they are
// used: a GPU backend copies them to the device, or into its own page-locked memory, so the
// host never holds a second copy of a 47 GB key (only the page cache of the file, which the
// kernel may drop). Reads use pread (no mapping), in parallel; each point is checked as
// read_params checks it, and an error names the field, the point and its byte offset.
class ParamsQueries {
 public:
  enum class Query : int { h, l, a, b_g1, b_g2 };
  // Opens the file and checks its layout (every count against the file's length); the points
  // are checked as they are read.
  ParamsQueries(const std::string& path, const ParamsReadOptions& opts);
  ~ParamsQueries();
  ParamsQueries(const ParamsQueries&) = delete;
  ParamsQueries& operator=(const ParamsQueries&) = delete;

  const std::string& path() const { return path_; }
  std::uint64_t count(Query q) const { return count_[int(q)]; }
  std::uint64_t offset(Query q) const { return offset_[int(q)]; }  // of its first point
  // Points [first, first + n) of a G1 query (h, l, a, b_g1) or of b_g2.
  void read_g1(Query q, std::uint64_t first, std::uint64_t n, G1Affine* out) const;
  void read_g2(std::uint64_t first, std::uint64_t n, ec::G2Affine* out) const;

 private:
  template <class Point, class Decode>
  void read(Query q, std::uint64_t first, std::uint64_t n, Point* out, std::size_t point_bytes, Decode decode) const;
  std::string path_;
  ParamsReadOptions opts_;
  int fd_ = -1;
  std::uint64_t count_[5]{}, offset_[5]{};
};

// The key of a .params file with its verifying key read (and checked) and its queries left in
// the file (ProvingKey::deferred): what a GPU backend loads without a host copy. The CPU
// prover refuses such a key; read_params is its counterpart that holds everything.
ProvingKey open_params_deferred(const std::string& path, const ParamsReadOptions& opts = {});

// What a file holds, from its counts alone (fast even for a 47 GB file).
struct ParamsSummary {
  enum class Kind { VerifyingKey, Parameters } kind;
  std::uint64_t file_bytes = 0;
  std::uint64_t ic = 0, h = 0, l = 0, a = 0, b_g1 = 0, b_g2 = 0;
};
ParamsSummary summarize_params_file(const std::string& path);

}  // namespace snarkpipe::groth16
