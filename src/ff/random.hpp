// Sources of uniform 64-bit words for sampling field elements and scalars.
// SystemRng reads the OS CSPRNG (getrandom) and is what setup and the prover's r, s use;
// SeededRng (xoshiro256**) is deterministic from a seed, for tests and reproducible runs.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace snarkpipe::ff {

class SystemRng {
 public:
  std::uint64_t next_u64();
  // Fills `out` from the OS CSPRNG; throws std::system_error when the kernel refuses.
  static void fill(void* out, std::size_t len);

 private:
  std::array<std::uint64_t, 32> buf_{};
  std::size_t pos_ = buf_.size();
};

class SeededRng {
 public:
  explicit SeededRng(std::uint64_t seed);
  std::uint64_t next_u64();

 private:
  std::array<std::uint64_t, 4> s_{};
};

// A fresh 64-bit seed from the OS, for tests that print the seed they used.
std::uint64_t fresh_seed();

}  // namespace snarkpipe::ff
