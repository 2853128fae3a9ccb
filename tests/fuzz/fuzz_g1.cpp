// ec::g1_from_bytes: the Zcash G1 encodings, compressed (48 bytes) and uncompressed (96),
// with full validation and without the subgroup check; a decoded point must re-encode to
// the same bytes (the encoding is canonical).
#include <cstring>
#include "ec/encoding.hpp"
#include "fuzz_common.hpp"

using namespace snarkpipe;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> in(data, size);
  for (auto v : {ec::Validation::Full, ec::Validation::SkipSubgroup}) {
    const auto r = ec::g1_from_bytes(in, v);
    if (!r) {
      (void)ec::describe(r.error());
      continue;
    }
    const auto& p = r.value();
    if (size == ec::G1_COMPRESSED_BYTES) {
      const auto back = ec::g1_to_compressed(p);
      if (std::memcmp(back.data(), data, size) != 0) __builtin_trap();
    } else if (size == ec::G1_UNCOMPRESSED_BYTES) {
      const auto back = ec::g1_to_uncompressed(p);
      if (std::memcmp(back.data(), data, size) != 0) __builtin_trap();
    }
  }
  return 0;
}
