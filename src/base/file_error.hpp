// The one shape of a bad-file error, whatever the format: "<path>: <field> at byte offset
// <offset>: <problem>", with each part kept for callers (the CLI names the field, tests the
// offset). Each format's reader throws its own subclass (ParamsFileError, R1csFileError, ...).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace snarkpipe::base {

class FileFormatError : public std::runtime_error {
 public:
  FileFormatError(std::string path, std::string field, std::uint64_t offset, std::string problem)
      : std::runtime_error(path + ": " + field + " at byte offset " + std::to_string(offset) + ": " + problem),
        path_(std::move(path)),
        field_(std::move(field)),
        offset_(offset),
        problem_(std::move(problem)) {}
  const std::string& path() const { return path_; }
  const std::string& field() const { return field_; }
  std::uint64_t offset() const { return offset_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string path_, field_;
  std::uint64_t offset_;
  std::string problem_;
};

}  // namespace snarkpipe::base
