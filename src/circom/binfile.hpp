// The iden3 binary container that circom's .r1cs, snarkjs's .wtns, .zkey and .ptau share:
//
//   magic (4 bytes: "r1cs", "wtns", "zkey", "ptau") ‖ version u32 ‖ section count u32
//   then per section: type u32 ‖ size u64 ‖ size bytes of body
//
// all integers little-endian. Sections may come in any order; readers look them up by type.
// Every read is bounds-checked against its section, and every failure is a FormatError that
// names the file, the section and the byte offset (from the start of the file) where the
// problem lies. A prime field that is not BLS12-381's gives UnsupportedCurveError.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/file_error.hpp"
#include "ec/curves.hpp"

namespace snarkpipe::circom {

// "<path>: section <section> at byte offset <offset>: <problem>".
// "<path>: section <section> at byte offset <offset>: <problem>".
class FormatError : public base::FileFormatError {
 public:
  FormatError(std::string path, std::string section, std::uint64_t offset, std::string problem)
      : base::FileFormatError(std::move(path), "section " + section, offset, std::move(problem)),
        section_(std::move(section)) {}
  const std::string& section() const { return section_; }

 private:
  std::string section_;
};

// The file is for another curve (its field prime is not BLS12-381's r or p).
class UnsupportedCurveError : public FormatError {
 public:
  using FormatError::FormatError;
};

// A whole file in memory (read once; the formats are read front to back).
std::vector<std::uint8_t> read_whole_file(const std::string& path);

struct Section {
  std::uint32_t type = 0;
  std::uint64_t offset = 0;  // of the body, from the start of the file
  std::uint64_t size = 0;
};

// A bounds-checked cursor over one section's body.
class SectionReader {
 public:
  SectionReader(const class BinFile& file, const Section& s);
  std::uint32_t u32();
  std::uint64_t u64();
  std::span<const std::uint8_t> bytes(std::uint64_t n);
  std::uint64_t offset() const { return pos_; }  // absolute
  std::uint64_t remaining() const { return end_ - pos_; }
  // Throws unless the whole section was consumed.
  void expect_end() const;
  [[noreturn]] void fail(std::uint64_t offset, const std::string& problem) const;
  const std::string& path() const;
  const std::string& section_name() const { return name_; }

 private:
  const BinFile* file_;
  std::string name_;
  std::uint64_t pos_, end_;
};

class BinFile {
 public:
  // Reads and parses the container; `section_names` names the section types for messages
  // (an unknown type prints as its number).
  BinFile(std::string path, std::string_view magic, std::uint32_t max_version,
          std::map<std::uint32_t, std::string> section_names);

  const std::string& path() const { return path_; }
  std::uint32_t version() const { return version_; }
  std::span<const std::uint8_t> bytes() const { return data_; }
  std::string section_name(std::uint32_t type) const;

  // The one section of this type; throws when it is missing or duplicated.
  const Section& unique(std::uint32_t type) const;
  // nullptr when absent; throws when duplicated.
  const Section* find(std::uint32_t type) const;
  SectionReader reader(std::uint32_t type) const { return SectionReader(*this, unique(type)); }

  [[noreturn]] void fail(std::uint32_t type, std::uint64_t offset, const std::string& problem) const;

 private:
  std::string path_;
  std::vector<std::uint8_t> data_;
  std::uint32_t version_ = 0;
  std::vector<Section> sections_;
  std::map<std::uint32_t, std::string> names_;
};

// Check a field prime as the files store it (n8 bytes, little-endian) against BLS12-381's
// scalar field r or base field p; another curve's prime gives UnsupportedCurveError, naming
// the curve when it is a known one (bn128, bls12377, goldilocks, ...).
void expect_scalar_prime(const SectionReader& at, std::uint64_t offset, std::span<const std::uint8_t> le_bytes);
void expect_base_prime(const SectionReader& at, std::uint64_t offset, std::span<const std::uint8_t> le_bytes);

// Little-endian canonical bytes -> Fr; false when the value is >= r.
bool fr_from_le(std::span<const std::uint8_t> b, ff::Fr& out);

}  // namespace snarkpipe::circom
