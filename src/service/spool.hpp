// The daemon's on-disk spool (issue 25): uploaded witnesses, finished proofs and the keys of
// the circuits it registered, under one directory next to its job database:
//
//   STATE_DIR/jobs.sqlite        the job store (job_store.hpp)
//   STATE_DIR/incoming/          uploads being received (removed at start: never admitted)
//   STATE_DIR/witnesses/NAME     an admitted job's witness, as uploaded
//   STATE_DIR/proofs/ID.proof    a finished job's proofs (192 bytes per partition)
//   STATE_DIR/circuits/NAME.*    the keys and recorded circuit of a registered circuit
//
// A file is durable before the database points at it: written, fsync'ed, renamed into place,
// and its directory fsync'ed, so a crash (even SIGKILL or power loss) leaves either no file or
// the whole file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

namespace snarkpipe::service {

class Spool {
 public:
  // Creates the directories; throws std::runtime_error naming the path when it cannot.
  explicit Spool(std::filesystem::path root);

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path database() const { return root_ / "jobs.sqlite"; }
  std::filesystem::path incoming(const std::string& name) const { return root_ / "incoming" / name; }
  std::filesystem::path witness(const std::string& name) const { return root_ / "witnesses" / name; }
  std::filesystem::path proofs() const { return root_ / "proofs"; }
  std::filesystem::path proof(std::uint64_t job) const { return proofs() / (std::to_string(job) + ".proof"); }
  std::filesystem::path circuits() const { return root_ / "circuits"; }

  // Drops uploads a previous run was receiving when it stopped.
  void clear_incoming() const;

 private:
  std::filesystem::path root_;
};

// A fresh random name (32 hex digits, from the OS CSPRNG).
std::string random_name();

// Writes `bytes` to `path` durably (see above); throws std::runtime_error naming the path.
void write_file_durably(const std::filesystem::path& path, std::span<const std::uint8_t> bytes);
// fsync()s an open descriptor, then renames `from` to `to` and fsyncs `to`'s directory.
void commit_file(int fd, const std::filesystem::path& from, const std::filesystem::path& to);
// Renames `from` (already synced) to `to` durably.
void rename_durably(const std::filesystem::path& from, const std::filesystem::path& to);
// Removes a file if it is there; errors are ignored (a file left behind only costs space).
void remove_quietly(const std::filesystem::path& path);

}  // namespace snarkpipe::service
