// snarkjs's Groth16 .zkey proving keys: circom::read_zkey (all sections) and read_zkey_vk
// (sections 1-3), from the input as a file. Rejections: FormatError / UnsupportedCurveError.
#include "circom/zkey.hpp"
#include "fuzz_common.hpp"

using namespace snarkpipe;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::InputFile file(data, size);
  fuzz::expect_rejection_or_success([&] { (void)circom::read_zkey_vk(file.path()); });
  fuzz::expect_rejection_or_success([&] { (void)circom::read_zkey(file.path()); });
  if (size <= 16384) {
    circom::ZkeyReadOptions o;
    o.check_subgroup = true;
    fuzz::expect_rejection_or_success([&] { (void)circom::read_zkey(file.path(), o); });
  }
  return 0;
}
