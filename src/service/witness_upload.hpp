// Witnesses a client uploads (issue 25), checked as they stream in, before a job is admitted.
// Every form holds `partitions` assignments back to back, each z = (1, public inputs..., aux...)
// in the circuit's column order (a circom circuit's wire order); a value is 32 bytes,
// little-endian, canonical (< r, not Montgomery form):
//
//   wtns        circom's .wtns file (circom/wtns.hpp), one partition.
//   assignment  per partition: num_inputs values (ONE first), then num_aux values.
//               Exactly partitions × (num_inputs + num_aux) × 32 bytes.
//   packed      per partition, the packed form (groth16/packed_witness.hpp), for circuits whose
//               aux values are mostly 0 or 1 (a PoRep partition: ~0.46 GB instead of 4.2 GB):
//                 num_inputs values (ONE first)
//                 general  ceil(num_aux / 64) u64 LE: bit j of word j/64 set: aux j is a value
//                 ones     ceil(num_aux / 64) u64 LE: bit j set: aux j is 1 (never with general)
//                 values   popcount(general) values: the general aux values, in aux order
//               An aux value with neither bit set is 0. Bits past num_aux must be zero.
//
// Checks: the value count, every value < r, the first value of each partition = 1, the packed
// bitmaps disjoint and within num_aux, nothing after the last partition.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "groth16/packed_witness.hpp"
#include "groth16/prover.hpp"

namespace snarkpipe::service {

enum class WitnessFormat { WTNS, ASSIGNMENT, PACKED };
std::optional<WitnessFormat> parse_witness_format(std::string_view name);
std::string_view witness_format_name(WitnessFormat f);

struct WitnessShape {
  std::uint64_t num_inputs = 0;  // ONE included
  std::uint64_t num_aux = 0;
};

// An upload that breaks its format (answered 400), saying where.
class BadWitness : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The upload's exact size where the format fixes it (assignment), else its largest.
std::uint64_t exact_upload_bytes(WitnessFormat f, WitnessShape shape, std::uint64_t partitions);  // 0: not fixed
std::uint64_t max_upload_bytes(WitnessFormat f, WitnessShape shape, std::uint64_t partitions);

// Checks the bytes of an upload as they arrive (assignment and packed; a .wtns is checked
// whole by check_wtns, with circom's reader). feed() throws BadWitness at the first bad byte.
class UploadChecker {
 public:
  UploadChecker(WitnessFormat format, WitnessShape shape, std::uint64_t partitions);
  void feed(const std::uint8_t* data, std::size_t size);
  // Throws BadWitness when the upload stopped short; returns where each partition starts.
  std::vector<std::uint64_t> finish() const;

 private:
  enum class Part { INPUTS, GENERAL, ONES, VALUES, DONE };
  void item(const std::uint8_t* p);  // one value or bitmap word
  void next_part();
  [[noreturn]] void fail(const std::string& why) const;

  WitnessFormat format_;
  WitnessShape shape_;
  std::uint64_t partitions_;
  std::uint64_t words_;  // per bitmap
  std::uint64_t partition_ = 0;
  Part part_ = Part::INPUTS;
  std::uint64_t index_ = 0;      // within the part
  std::uint64_t part_size_ = 0;  // items in the part
  std::uint64_t general_count_ = 0;
  std::vector<std::uint64_t> general_;  // the partition's general bitmap (packed)
  std::uint64_t offset_ = 0;            // bytes consumed
  std::vector<std::uint64_t> starts_;
  std::uint8_t carry_[32];
  std::size_t carried_ = 0;
};

// A whole .wtns upload: circom's reader's checks, then the count against the circuit.
void check_wtns(const std::filesystem::path& file, WitnessShape shape);

// Partition `k` of a checked upload into `out` (a pooled buffer: appended to, see
// engine/job.hpp). `starts` as UploadChecker::finish returned them.
void read_uploaded_partition(const std::filesystem::path& file, WitnessFormat format, WitnessShape shape,
                             const std::vector<std::uint64_t>& starts, std::size_t k, groth16::Witness& out);

// Partition `k` of a checked packed upload straight into its packed form (`out` may be a
// kept witness in a backend's memory): for an engine that takes packed witnesses, no full
// vector is made.
void read_uploaded_packed_partition(const std::filesystem::path& file, WitnessShape shape,
                                    const std::vector<std::uint64_t>& starts, std::size_t k,
                                    groth16::PackedWitness& out);

// The packed bytes of one partition (the client side of the packed form).
std::vector<std::uint8_t> encode_packed(const groth16::Witness& w);

}  // namespace snarkpipe::service
