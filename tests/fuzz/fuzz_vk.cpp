// bellperson .vk files: groth16::read_vk (without the subgroup check, then, for a file that
// passes, with it) and summarize_params_file, from the input as a file. Rejections:
// ParamsFileError.
#include "fuzz_common.hpp"
#include "groth16/params_file.hpp"

using namespace snarkpipe;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::InputFile file(data, size);
  fuzz::expect_rejection_or_success([&] { (void)groth16::summarize_params_file(file.path()); });
  bool read = false;
  fuzz::expect_rejection_or_success([&] {
    (void)groth16::read_vk(file.path());
    read = true;
  });
  // The subgroup check on (costly), only for files that pass every other check.
  if (read) {
    groth16::ParamsReadOptions o;
    o.check_subgroup = true;
    fuzz::expect_rejection_or_success([&] { (void)groth16::read_vk(file.path(), o); });
  }
  return 0;
}
