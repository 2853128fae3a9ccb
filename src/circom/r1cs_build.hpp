// circom circuits made in memory (circom/synthetic_circuit.hpp) rather than read: completing
// snarkpipe's form of them as read_circom_r1cs does, and writing them as circom's .r1cs
// (version 1, the layout r1cs.hpp describes), readable by read_circom_r1cs and snarkjs.
#pragma once

#include <string>

#include "circom/r1cs.hpp"

namespace snarkpipe::circom {

// `r` holds circom's constraints as rows (sorted by wire, merged, no zero coefficients) with
// num_inputs (ONE and the public signals) and num_aux set: appends the one `input_i · 0 = 0`
// row per input (r1cs.hpp), then sets num_constraints and the density bitmaps.
void append_input_rows(circuit::R1cs& r);

// The header, constraints (rows before the input rows; canonical little-endian
// coefficients) and wire-to-label map (the identity when `circuit.wire_to_label` is empty).
// Throws std::runtime_error when the file cannot be written.
void write_circom_r1cs(const std::string& path, const CircomR1cs& circuit);

}  // namespace snarkpipe::circom
