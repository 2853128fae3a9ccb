// Fresh seeds for randomized tests, printed so a failure can be replayed:
// SNARKPIPE_TEST_SEED=<n> fixes the seed of every test.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ff/random.hpp"

inline std::uint64_t test_seed(const std::string& name) {
  std::uint64_t seed;
  if (const char* env = std::getenv("SNARKPIPE_TEST_SEED")) {
    seed = std::strtoull(env, nullptr, 0);
  } else {
    seed = snarkpipe::ff::fresh_seed();
  }
  std::printf("[seed] %s: SNARKPIPE_TEST_SEED=%llu\n", name.c_str(), static_cast<unsigned long long>(seed));
  return seed;
}
