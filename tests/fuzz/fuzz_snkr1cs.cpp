// snarkpipe's recorded-circuit files (.snkr1cs, circuit/r1cs_file.hpp): circuit::read_r1cs
// (copying) and map_r1cs (mmap'ed views), from the input as a file. Rejections: R1csFileError.
//
// The file carries a checksum over its whole image, which random mutation almost never
// matches; so that the fuzzer gets past it to the header, padding and contents checks, an
// input whose length is a multiple of 64 (as every valid file's is) gets its checksum field
// recomputed first. Inputs of other lengths go in unchanged (they exercise the length checks).
#include <cstring>
#include <vector>
#include "circuit/r1cs_file.hpp"
#include "fuzz_common.hpp"

using namespace snarkpipe;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::uint8_t> bytes(data, data + size);
  if (size >= circuit::R1CS_FILE_HEADER_SIZE && size % circuit::R1CS_FILE_ALIGN == 0) {
    const std::uint64_t sum = circuit::r1cs_file_checksum(bytes);
    std::memcpy(bytes.data() + circuit::R1CS_FILE_CHECKSUM_OFFSET, &sum, sizeof sum);
  }
  const fuzz::InputFile file(bytes.data(), bytes.size());
  fuzz::expect_rejection_or_success([&] { (void)circuit::read_r1cs(file.path()); });
  fuzz::expect_rejection_or_success([&] { (void)circuit::map_r1cs(file.path()); });
  return 0;
}
