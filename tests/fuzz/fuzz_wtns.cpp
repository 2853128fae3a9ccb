// snarkjs's .wtns witness files: circom::read_wtns, from the input as a file, then
// split_witness of what it read. Rejections: FormatError (std::runtime_error),
// std::invalid_argument from split_witness.
#include "circom/wtns.hpp"
#include "fuzz_common.hpp"

using namespace snarkpipe;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::InputFile file(data, size);
  fuzz::expect_rejection_or_success([&] {
    const auto values = circom::read_wtns(file.path());
    (void)circom::split_witness(values, size % 4);
  });
  return 0;
}
