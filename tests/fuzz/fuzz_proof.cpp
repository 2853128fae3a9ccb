// groth16::Proof::from_bytes (the 192-byte A ‖ B ‖ C proof) and decode_proofs (concatenated
// partition proofs, as `snarkpipe prove` writes a .proof file). Rejections: ProofFormatError.
#include <cstring>
#include "fuzz_common.hpp"
#include "groth16/proof.hpp"

using namespace snarkpipe;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> in(data, size);
  fuzz::expect_rejection_or_success([&] {
    const auto proofs = groth16::decode_proofs(in);
    const auto back = groth16::encode_proofs(proofs);
    if (back.size() != size || std::memcmp(back.data(), data, size) != 0) __builtin_trap();
  });
  // A length that is a multiple of 192 went through Proof::from_bytes above, first proof
  // first; from_bytes on its own is for the others, which decode_proofs rejects by length
  // alone (a second decode of the same proof was half of this target's time).
  if (size >= groth16::Proof::BYTES && size % groth16::Proof::BYTES != 0)
    fuzz::expect_rejection_or_success([&] { (void)groth16::Proof::from_bytes(in.first(groth16::Proof::BYTES)); });
  return 0;
}
