// bellperson .params files: groth16::read_params (the whole proving key; for a file that
// passes, again with the subgroup check), read_params_vk (its verifying key only) and
// summarize_params_file (the counts), each from the input as a file. Rejections:
// ParamsFileError.
#include "fuzz_common.hpp"
#include "groth16/params_file.hpp"

using namespace snarkpipe;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::InputFile file(data, size);
  fuzz::expect_rejection_or_success([&] { (void)groth16::summarize_params_file(file.path()); });
  fuzz::expect_rejection_or_success([&] { (void)groth16::read_params_vk(file.path()); });
  bool read = false;
  fuzz::expect_rejection_or_success([&] {
    (void)groth16::read_params(file.path());
    read = true;
  });
  // The subgroup check on (costly: a scalar multiplication per point), only for files that
  // pass every other check: the check is what then remains to be exercised.
  if (read) {
    groth16::ParamsReadOptions o;
    o.check_subgroup = true;
    fuzz::expect_rejection_or_success([&] { (void)groth16::read_params(file.path(), o); });
  }
  return 0;
}
