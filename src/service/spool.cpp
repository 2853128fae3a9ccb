#include "service/spool.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "base/hex.hpp"

namespace snarkpipe::service {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& what, const fs::path& path) {
  throw std::runtime_error(what + " " + path.string() + ": " + std::strerror(errno));
}

void sync_directory(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fail("cannot open directory", dir);
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) fail("cannot sync directory", dir);
}

}  // namespace

Spool::Spool(fs::path root) : root_(std::move(root)) {
  for (const char* sub : {"incoming", "witnesses", "proofs", "circuits"}) {
    std::error_code ec;
    fs::create_directories(root_ / sub, ec);
    if (ec)
      throw std::runtime_error("cannot create the spool directory " + (root_ / sub).string() + ": " + ec.message() +
                               " (service.state_dir must be a writable directory)");
  }
}

void Spool::clear_incoming() const {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root_ / "incoming", ec)) remove_quietly(entry.path());
}

std::string random_name() {
  std::uint8_t bytes[16];
  std::size_t got = 0;
  while (got < sizeof bytes) {
    const ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(std::string("getrandom failed: ") + std::strerror(errno));
    got += std::size_t(n);
  }
  return base::hex(std::span<const std::uint8_t>(bytes, sizeof bytes));
}

void commit_file(int fd, const fs::path& from, const fs::path& to) {
  if (::fsync(fd) != 0) fail("cannot sync", from);
  rename_durably(from, to);
}

void rename_durably(const fs::path& from, const fs::path& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) fail("cannot rename " + from.string() + " to", to);
  sync_directory(to.parent_path());
}

void write_file_durably(const fs::path& path, std::span<const std::uint8_t> bytes) {
  const fs::path tmp = path.string() + ".tmp-" + random_name();
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) fail("cannot create", tmp);
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int saved = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      errno = saved;
      fail("cannot write", tmp);
    }
    done += std::size_t(n);
  }
  try {
    commit_file(fd, tmp, path);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  ::close(fd);
}

void remove_quietly(const fs::path& path) {
  std::error_code ec;
  fs::remove(path, ec);
}

}  // namespace snarkpipe::service
