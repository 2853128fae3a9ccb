// rust-fil-proofs seal regression records (filecoin::parse_seal_record: JSON, byte arrays, hex
// strings, CIDs), then the public inputs the record's seal is checked against for a record
// that parses. Rejections: SealInputError (std::invalid_argument).
#include <string_view>

#include "filecoin/public_inputs.hpp"
#include "filecoin/seal_record.hpp"
#include "fuzz_common.hpp"

using namespace snarkpipe;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  fuzz::expect_rejection_or_success([&] {
    const filecoin::SealRecord r = filecoin::parse_seal_record(text);
    const filecoin::SealPublicInputs inputs(r.inputs);
    (void)inputs.partition(0);
  });
  return 0;
}
