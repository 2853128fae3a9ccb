// snarkjs's witness files (.wtns, versions 1 and 2), as circom's witness calculators write
// them (`snarkjs wtns calculate`, or the generate_witness.js circom emits):
//   1 header   n8 u32 ‖ prime (n8 bytes LE) ‖ nWitness u32
//   2 witness  nWitness × value (n8 bytes LE, canonical: not Montgomery form)
// The values are circom's wires in wire order (value 0 is the constant ONE; see r1cs.hpp).
// Checks: the prime (BLS12-381's r), the section sizes against nWitness, every value < r,
// and value 0 = 1. Errors name the section and byte offset.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "circom/binfile.hpp"
#include "groth16/prover.hpp"

namespace snarkpipe::circom {

std::vector<ff::Fr> read_wtns(const std::string& path);

// Writes a .wtns (version 2) file: for tests and conversions.
void write_wtns(const std::string& path, std::span<const ff::Fr> values);

// circom's wire values -> snarkpipe's witness (inputs = ONE and the num_public public
// values, aux = the rest). Throws std::invalid_argument when there are too few values.
groth16::Witness split_witness(std::span<const ff::Fr> values, std::size_t num_public);

}  // namespace snarkpipe::circom
