// A .wtns read for a .zkey: the witness must have one value per signal of the key's circuit,
// and when it does not, the error names both files and the fields that disagree (the
// witness's nWitness, the key's nVars), rather than only the counts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ff/fields.hpp"

namespace snarkpipe::circom {

// read_wtns(wtns_path), then a FormatError for the .wtns's header (at nWitness) when its
// count is not `zkey_num_vars`, the nVars of the Groth16 header of `zkey_path`.
std::vector<ff::Fr> read_wtns_for_zkey(const std::string& wtns_path, const std::string& zkey_path,
                                       std::uint32_t zkey_num_vars);

}  // namespace snarkpipe::circom
