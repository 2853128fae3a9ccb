#include "cli/ballast.hpp"
#include "cli/measure.hpp"

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace snarkpipe::cli {

Ballast::Ballast(const std::string& program, double free_gib, int timeout_s) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error(std::string("ballast: pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&fa, fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  const std::string n = plain_number(free_gib);
  char* argv[] = {const_cast<char*>(program.c_str()), const_cast<char*>(n.c_str()), nullptr};
  const int e = posix_spawn(&pid_, program.c_str(), &fa, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  if (e != 0) {
    close(fds[0]);
    throw std::runtime_error("ballast: cannot start " + program + ": " + std::strerror(e));
  }
  // Read its words until the line that says it holds the memory (or it exits, or time runs out).
  std::string out;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  bool holding = false, ended = false;
  while (!holding && !ended) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fds[0], POLLIN, 0};
    if (poll(&p, 1, int(left.count())) <= 0) continue;
    char buf[256];
    const ssize_t got = read(fds[0], buf, sizeof buf);
    if (got <= 0) {
      ended = true;
      break;
    }
    out.append(buf, std::size_t(got));
    holding = out.find("ballast: holding") != std::string::npos &&
              out.find('\n', out.find("ballast: holding")) != std::string::npos;
  }
  close(fds[0]);  // it prints nothing more that we need; a write to the closed pipe is ignored
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  said_ = out;
  if (!holding) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
    throw std::runtime_error("ballast " + n + " did not hold the memory: " + (out.empty() ? "(no output)" : out));
  }
}

Ballast::~Ballast() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  waitpid(pid_, nullptr, 0);
}

}  // namespace snarkpipe::cli
