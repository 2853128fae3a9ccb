// A ballast process (../shared/anchors/bin/ballast N) that holds all but N GiB of the GPU's
// memory while it lives, so one benchmark process can measure several card sizes in turn
// (bench prove --free-gib): the key and circuit are made once, each card size gets a fresh
// backend that plans its memory from what the ballast leaves free.
#pragma once

#include <sys/types.h>

#include <string>

namespace snarkpipe::cli {

class Ballast {
 public:
  // Starts PROGRAM N and waits (up to timeout_s) for its "ballast: holding" line. Throws
  // std::runtime_error with the program's words when it cannot hold (too little free, not found).
  Ballast(const std::string& program, double free_gib, int timeout_s = 120);
  ~Ballast();  // kills it, which frees its memory
  Ballast(const Ballast&) = delete;
  Ballast& operator=(const Ballast&) = delete;

  const std::string& said() const { return said_; }  // its line

 private:
  pid_t pid_ = -1;
  std::string said_;
};

}  // namespace snarkpipe::cli
