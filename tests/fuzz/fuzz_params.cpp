// bellperson .params files: groth16::read_params (the whole proving key), read_params_vk (its
// verifying key only) and summarize_params_file (the counts), each from the input as a file.
// Rejections: ParamsFileError.
#include "fuzz_common.hpp"
#include "groth16/params_file.hpp"

using namespace snarkpipe;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::InputFile file(data, size);
  fuzz::expect_rejection_or_success([&] { (void)groth16::summarize_params_file(file.path()); });
  fuzz::expect_rejection_or_success([&] { (void)groth16::read_params_vk(file.path()); });
  fuzz::expect_rejection_or_success([&] { (void)groth16::read_params(file.path()); });
  // The subgroup check on: small inputs only (it costs ~40 µs a point under no sanitizer).
  if (size <= 16384) {
    groth16::ParamsReadOptions o;
    o.check_subgroup = true;
    fuzz::expect_rejection_or_success([&] { (void)groth16::read_params(file.path(), o); });
  }
  return 0;
}
