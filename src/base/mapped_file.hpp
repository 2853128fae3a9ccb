// Read-only memory maps of files: an owned descriptor, a mapping of a descriptor, and the two
// together for a whole file by path. Failures throw base::FileError with the step and errno's
// words ("cannot open: No such file or directory"); readers re-throw them as their format's
// error, naming the file.
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace snarkpipe::base {

class FileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "cannot <step>: <errno's words>".
inline FileError file_error(const char* step, int err) {
  return FileError(std::string("cannot ") + step + ": " + std::strerror(err));
}

class UniqueFd {
 public:
  explicit UniqueFd(int fd = -1) : fd_(fd) {}
  ~UniqueFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

struct MapOptions {
  bool populate = false;    // fault every page in up front (MAP_POPULATE): for files read whole
  bool sequential = false;  // read ahead (MADV_SEQUENTIAL): for files read once, in order
};

// A private, read-only mapping of `size` bytes of `fd` (nothing for size 0).
class FileMapping {
 public:
  FileMapping(int fd, std::uint64_t size, MapOptions options = {}) : size_(size) {
    if (size == 0) return;
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | (options.populate ? MAP_POPULATE : 0), fd, 0);
    if (p == MAP_FAILED) throw file_error("mmap", errno);
    data_ = static_cast<const std::uint8_t*>(p);
    if (options.sequential) ::madvise(p, size, MADV_SEQUENTIAL);
  }
  ~FileMapping() {
    if (data_) ::munmap(const_cast<std::uint8_t*>(data_), size_);
  }
  FileMapping(const FileMapping&) = delete;
  FileMapping& operator=(const FileMapping&) = delete;
  const std::uint8_t* data() const { return data_; }
  std::uint8_t* mutable_data() const { return const_cast<std::uint8_t*>(data_); }
  std::uint64_t size() const { return size_; }
  // Lets views write (a write copies the page: the mapping is private). Only after populating:
  // populating a writable private mapping would copy every page up front.
  bool make_writable() { return size_ == 0 || ::mprotect(mutable_data(), size_, PROT_READ | PROT_WRITE) == 0; }

 private:
  const std::uint8_t* data_ = nullptr;
  std::uint64_t size_;
};

// A whole file, mapped read-only.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path, MapOptions options = {})
      : path_(path), fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)), map_(checked(fd_), size_of(fd_), options) {}
  const std::uint8_t* data() const { return map_.data(); }
  std::uint64_t size() const { return map_.size(); }
  const std::string& path() const { return path_; }

 private:
  static int checked(const UniqueFd& fd) {
    if (fd.get() < 0) throw file_error("open", errno);
    return fd.get();
  }
  static std::uint64_t size_of(const UniqueFd& fd) {  // (arguments' order is unspecified: checks too)
    struct stat st {};
    if (::fstat(checked(fd), &st) != 0) throw file_error("stat", errno);
    return std::uint64_t(st.st_size);
  }
  std::string path_;
  UniqueFd fd_;
  FileMapping map_;
};

}  // namespace snarkpipe::base
