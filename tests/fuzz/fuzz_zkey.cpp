// snarkjs's Groth16 .zkey proving keys: circom::read_zkey (all sections; for a file that
// passes, again with check_subgroup), from the input as a file. read_zkey_vk is read_zkey's
// first two steps (open_zkey, read_header) and nothing else: calling it too decoded and
// subgroup-checked the header's points twice, half of this target's time.
// Rejections: FormatError / UnsupportedCurveError.
#include "circom/zkey.hpp"
#include "fuzz_common.hpp"

using namespace snarkpipe;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::InputFile file(data, size);
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
