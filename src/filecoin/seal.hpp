// Checking a sealed sector's proof (filecoin-proofs/src/api/seal.rs verify_seal): the
// partitions' proofs, concatenated (192 bytes each), verified in one batch against the
// verifying key, each partition k with its own public inputs.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "filecoin/public_inputs.hpp"
#include "groth16/keys.hpp"

namespace snarkpipe::filecoin {

struct SealCheck {
  bool valid = false;
  std::string reason;  // why not, when !valid
  unsigned partitions = 0;
  std::size_t inputs_per_partition = 0;  // ONE excluded
  double derive_ms = 0;                  // deriving every partition's public inputs
  double verify_ms = 0;                  // decoding the proofs and the batch check
};

// Throws SealInputError for inputs that cannot be checked at all: a commitment not in the
// field, an unsupported sector size, a proof of the wrong length or with an invalid point
// ("proof"), a key whose IC count does not fit the proof type ("vk"). Returns valid = false,
// with the reason, for a proof with a point that does not decode or that does not verify.
SealCheck verify_seal(const SealInputs& inputs, std::span<const std::uint8_t> proof,
                      const groth16::PreparedVerifyingKey& pvk);

}  // namespace snarkpipe::filecoin
