// The supraseal-c2 ABI's create_SRS path (ffi::load_srs): a bellperson .params file from the
// caller, read, checked and reference-counted, then dropped. Rejections: AbiError.
#include "ffi/adapter.hpp"
#include "fuzz_common.hpp"

using namespace snarkpipe;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::InputFile file(data, size);
  try {
    ffi::LoadedSrs* srs = ffi::load_srs(file.path().c_str(), false);
    ffi::drop_reference(ffi::add_reference(srs));
    ffi::drop_reference(srs);
  } catch (const ffi::AbiError&) {}
  return 0;
}
