// Shared by the fuzz targets: the input as a file for the readers that take a path, and the
// rule that the decoders' documented exceptions are rejections, not findings.
#pragma once
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace snarkpipe::fuzz {

// The input in an anonymous in-memory file (memfd), named by its /proc/self/fd path: the
// path-based readers open, stat and mmap it as they would a file on disk.
class InputFile {
 public:
  InputFile(const std::uint8_t* data, std::size_t size) {
    fd_ = memfd_create("fuzz-input", 0);
    if (fd_ < 0) {
      std::perror("memfd_create");
      std::abort();
    }
    std::size_t done = 0;
    while (done < size) {
      const ssize_t n = ::write(fd_, data + done, size - done);
      if (n <= 0) {
        std::perror("write");
        std::abort();
      }
      done += std::size_t(n);
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~InputFile() { ::close(fd_); }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

// Runs `f`; the exceptions the project's decoders document (std::invalid_argument,
// std::runtime_error and the project's errors derived from them) are normal rejections.
// Anything else escapes and libFuzzer reports it as a crash (uncaught exception).
template <class F>
void expect_rejection_or_success(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument&) {
  } catch (const std::runtime_error&) {}
}

}  // namespace snarkpipe::fuzz
