// Writing snarkjs Groth16 proving keys (.zkey), byte for byte in the layout snarkjs 0.7.6's
// `groth16 setup` (zkey_new.js) gives them, so that `snarkjs groth16 prove` and read_zkey
// (zkey.hpp, which documents every section and encoding) both take the file:
//
//   magic "zkey" ‖ version 1 ‖ 10 sections, in snarkjs's file order
//   1 header, 2 Groth16 header, 4 coefficients, 3 IC, 9 H, 8 C, 5 A, 6 B1, 7 B2, 10 contributions
//
// Field elements and points in the LEM encoding (reduced Montgomery limbs, little-endian),
// the identity as zero bytes, coefficients as v·R² mod r. Section 10 holds a zero circuit
// hash and no contributions: a key made here (zkey_setup.hpp) has no ceremony transcript,
// so `snarkjs zkey verify` cannot check it, but proving and verifying do not read it.
#pragma once

#include <string>

#include "circom/zkey.hpp"

namespace snarkpipe::circom {

// Throws std::invalid_argument when the key's parts disagree with its counts (the sections
// would not read back), std::runtime_error when the file cannot be written.
void write_zkey(const std::string& path, const Zkey& zkey);

}  // namespace snarkpipe::circom
