// The verifying keys a seal or PoSt is checked against (filecoin/verifying_key.hpp): the
// compressed on-chain form from bytes, and every form (bellperson .vk, hex text of either)
// through load_verifying_key from the input as a file. Rejections: ParamsFileError
// (std::runtime_error).
#include <span>

#include "filecoin/verifying_key.hpp"
#include "fuzz_common.hpp"

using namespace snarkpipe;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // A first byte with the compression flag: load_verifying_key reads the file as the
  // compressed form, these very bytes (a second decode of the same points was half the time).
  if (size == 0 || !(data[0] & 0x80))
    fuzz::expect_rejection_or_success(
        [&] { (void)filecoin::read_compressed_vk(std::span<const std::uint8_t>(data, size)); });
  const fuzz::InputFile file(data, size);
  fuzz::expect_rejection_or_success([&] { (void)filecoin::load_verifying_key(file.path()); });
  return 0;
}
