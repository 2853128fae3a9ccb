// A new file written whole, optionally fsynced (another host reads it once this one answered);
// on any failure the partial file is removed and std::runtime_error names the path.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <system_error>

namespace snarkpipe::base {

// `flags`: O_EXCL to refuse an existing file, O_TRUNC to replace it.
inline void write_file(const std::filesystem::path& path, std::span<const std::uint8_t> bytes, int flags, bool sync,
                       int mode = 0644) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | flags, mode);
  if (fd < 0) throw std::runtime_error("cannot create " + path.string());
  std::size_t written = 0;
  bool ok = true;
  while (ok && written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    ok = n > 0;
    if (ok) written += static_cast<std::size_t>(n);
  }
  if (ok && sync) ok = ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) {
    std::error_code ec;
    std::filesystem::remove(path, ec);
    throw std::runtime_error("cannot write " + path.string());
  }
}

}  // namespace snarkpipe::base
