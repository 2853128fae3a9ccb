// The short strings a Filecoin command takes from a user or a chain record: commitments (hex
// or CID, sealed and unsealed), 32-byte hex, prover actor addresses, proof-type names or ids,
// sector sizes and API versions. Rejections: SealInputError (std::invalid_argument); the
// parse_* functions that return optional say no with nullopt.
#include <string_view>

#include "filecoin/commitment.hpp"
#include "filecoin/public_inputs.hpp"
#include "filecoin/sector.hpp"
#include "filecoin/window_post.hpp"
#include "fuzz_common.hpp"

using namespace snarkpipe;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (auto kind : {filecoin::CommitmentKind::Sealed, filecoin::CommitmentKind::Unsealed}) {
    fuzz::expect_rejection_or_success([&] {
      const filecoin::Bytes32 c = filecoin::parse_commitment(text, kind, "comm");
      // A commitment that parses prints as a CID that parses back to it.
      if (filecoin::parse_commitment(filecoin::commitment_cid(c, kind), kind, "cid") != c) __builtin_trap();
    });
  }
  fuzz::expect_rejection_or_success([&] { (void)filecoin::parse_bytes32_hex(text, "hex"); });
  fuzz::expect_rejection_or_success([&] { (void)filecoin::prover_id_from_actor(text, "prover"); });
  (void)filecoin::find_registered_window_post_proof(text);
  (void)filecoin::parse_sector_size(text);
  (void)filecoin::parse_api_version(text);
  (void)filecoin::parse_api_feature(text);
  return 0;
}
