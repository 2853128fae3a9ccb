// circom's .r1cs files (version 1), read into snarkpipe's recorded circuit (circuit/r1cs.hpp).
//
// Sections (binfile.hpp's container, magic "r1cs"):
//   1 header       n8 u32 ‖ prime (n8 bytes LE) ‖ nWires u32 ‖ nPubOut u32 ‖ nPubIn u32 ‖
//                  nPrvIn u32 ‖ nLabels u64 ‖ nConstraints u32
//   2 constraints  nConstraints × (A, B, C), each linear combination as
//                  nTerms u32 ‖ nTerms × (wire u32 ‖ coefficient, n8 bytes LE canonical)
//   3 wire-to-label map   nWires × u64 (the label of each wire; labels < nLabels)
//   4, 5 custom gates (circom's PLONK extension): rejected, Groth16 has no custom gates.
//
// Wire numbering. circom numbers wires as: 0 = the constant ONE, then the public outputs
// (nPubOut), the public inputs (nPubIn), the private inputs, then every internal signal.
// snarkjs's statement is wires 1..nPublic with nPublic = nPubOut + nPubIn (outputs first),
// so circom's order is already snarkpipe's column order "inputs first, then aux":
//   column w = wire w;  num_inputs = 1 + nPublic (ONE included);  aux j = wire 1 + nPublic + j.
// Rows are circom's constraints in file order, followed by one `input_i · 0 = 0` row per
// input (ONE included, input_i in A): the same extra rows, in the same order, that snarkjs's
// `groth16 setup` appends (A[nConstraints + i][i] = 1), so both build the same QAP.
// Within a row, terms are sorted by wire, duplicates summed and zero coefficients dropped.
//
// Checks: the prime must be BLS12-381's r (circom --prime bls12381), otherwise
// UnsupportedCurveError; counts against the section sizes (nWires against the wire-to-label
// map's, or without a map against the file's: at most one wire a byte, so that nothing is
// built for wires the file does not describe); wires < nWires; coefficients < r; labels <
// nLabels; every section consumed exactly. Errors name the field, the section and byte offset.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "circom/binfile.hpp"
#include "circuit/r1cs.hpp"

namespace snarkpipe::circom {

struct CircomR1cs {
  std::uint32_t num_wires = 0;
  std::uint32_t num_public_outputs = 0;
  std::uint32_t num_public_inputs = 0;
  std::uint32_t num_private_inputs = 0;
  std::uint64_t num_labels = 0;
  std::uint32_t num_constraints = 0;         // circom's, without the input rows
  std::vector<std::uint64_t> wire_to_label;  // empty when the file has no section 3
  circuit::R1cs r1cs;                        // snarkpipe's form (see above)

  std::uint32_t num_public() const { return num_public_outputs + num_public_inputs; }
};

CircomR1cs read_circom_r1cs(const std::string& path);

}  // namespace snarkpipe::circom
