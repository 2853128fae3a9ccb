// snarkjs's Groth16 .zkey proving keys: circom::read_zkey (all sections; for a file that
// passes, again with check_subgroup) and read_zkey_vk (sections 1-3), from the input as a
// file. Rejections: FormatError / UnsupportedCurveError.
#include "circom/zkey.hpp"
#include "fuzz_common.hpp"

using namespace snarkpipe;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::InputFile file(data, size);
  fuzz::expect_rejection_or_success([&] { (void)circom::read_zkey_vk(file.path()); });
  bool read = false;
  fuzz::expect_rejection_or_success([&] {
    (void)circom::read_zkey(file.path());
    read = true;
  });
  // The subgroup check for sections 5-9 (costly), only for files that pass every other check.
  if (read) {
    circom::ZkeyReadOptions o;
    o.check_subgroup = true;
    fuzz::expect_rejection_or_success([&] { (void)circom::read_zkey(file.path(), o); });
  }
  return 0;
}
