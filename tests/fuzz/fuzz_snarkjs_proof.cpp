// snarkjs's proof.json: circom::parse_json_text (the depth-bounded JSON parser every JSON input
// goes through), then proof_from_json, and back to JSON. Rejections: JsonFormatError.
#include <string_view>
#include "circom/snarkjs_json.hpp"
#include "fuzz_common.hpp"

using namespace snarkpipe;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  fuzz::expect_rejection_or_success([&] {
    const nlohmann::json j = circom::parse_json_text(text, "proof.json");
    (void)circom::describe_json(j);
    const auto value = circom::proof_from_json(j, "proof.json");
    (void)circom::proof_to_json(value).dump();
  });
  return 0;
}
