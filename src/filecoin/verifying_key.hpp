// The verifying-key files a seal is checked against:
//   - bellperson's .vk (points uncompressed, REFERENCE.md §3) and the first 864 bytes + IC of a
//     .params file (groth16::read_vk / read_params_vk);
//   - the compressed form polka-storage keeps on chain (pallets/proofs, lib/polka-storage-proofs
//     groth16 VerifyingKey::into_bytes): bellperson's field order with every point compressed —
//     alpha_g1 (48) ‖ beta_g1 (48) ‖ beta_g2 (96) ‖ gamma_g2 (96) ‖ delta_g1 (48) ‖ delta_g2 (96)
//     ‖ u32 big-endian IC count ‖ IC points (48 each): 2,356 bytes for IC = 40.
// A file may hold the bytes themselves or their hex text (whitespace and a 0x prefix ignored).
// The forms are told apart by the compression flag (0x80) of the first point's first byte.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "groth16/keys.hpp"

namespace snarkpipe::filecoin {

// Every point range-, curve- and subgroup-checked. Throws groth16::ParamsFileError naming the
// field and byte offset.
groth16::VerifyingKey read_compressed_vk(std::span<const std::uint8_t> bytes, const std::string& where = "vk");

// Any of the forms above, from a file. Throws groth16::ParamsFileError (or std::runtime_error
// when the file cannot be read).
groth16::VerifyingKey load_verifying_key(const std::string& path);

// A small file's bytes: the hex they spell when the file is hex text, else the raw bytes.
std::vector<std::uint8_t> read_bytes_or_hex(const std::string& path);

}  // namespace snarkpipe::filecoin
