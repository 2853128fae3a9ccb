// circom's .r1cs files (iden3 binfile container): circom::read_circom_r1cs, from the input as
// a file. Rejections: FormatError / UnsupportedCurveError (std::runtime_error).
#include "circom/r1cs.hpp"
#include "fuzz_common.hpp"

using namespace snarkpipe;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::InputFile file(data, size);
  fuzz::expect_rejection_or_success([&] { (void)circom::read_circom_r1cs(file.path()); });
  return 0;
}
