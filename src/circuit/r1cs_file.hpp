// The on-disk form of a recorded circuit (r1cs.hpp): the PCE cache file. Built to be
// mmap'ed — every array starts on a 64-byte boundary in exactly its in-memory layout, so a
// reader (or a GPU upload) can use the sections in place.
//
// Format, version 1. All integers little-endian.
//
//   offset  size  field
//   0       8     magic            "SNKR1CS\0"
//   8       4     version          u32, 1
//   12      4     header_size      u32, 128
//   16      8     num_inputs       u64, including ONE (>= 1)
//   24      8     num_aux          u64 (num_inputs + num_aux <= 2^32)
//   32      8     num_constraints  u64, including the input constraints
//   40      8     a_nnz            u64
//   48      8     b_nnz            u64
//   56      8     c_nnz            u64
//   64      8     file_size        u64, the exact length of the file
//   72      8     checksum         u64, see below
//   80      48    reserved         zero
//
// Then the sections, in this order, each starting at the next multiple of 64 after the
// previous one's end (the gap zero-filled); the file ends at the last section's end rounded
// up to 64 (zero-filled):
//
//   A.row_ptr        (num_constraints + 1) × u64
//   A.col            a_nnz × u32
//   A.val            a_nnz × 32 bytes: Fr in Montgomery form, four u64 limbs, least first
//   B.row_ptr, B.col, B.val    likewise with b_nnz
//   C.row_ptr, C.col, C.val    likewise with c_nnz
//   a_aux_density    ceil(num_aux / 64) × u64    bit j of the bitmap = bit j%64 of word j/64
//   b_input_density  ceil(num_inputs / 64) × u64
//   b_aux_density    ceil(num_aux / 64) × u64
//
// The contents obey r1cs.hpp's invariants (rows sorted by column, no duplicate columns, no
// zero or unreduced coefficients, densities equal to the matrices' columns); the bits past
// the end of a density bitmap are zero.
//
// Checksum ("snkhash64"): the whole file, with the 8 checksum bytes read as zero, is cut
// into blocks of 2^20 bytes (the last may be shorter; all are multiples of 64 bytes). Each
// block i is hashed with four 64-bit lanes v_j = fmix(4i + j + 1), j = 0..3; its u64 words,
// taken in stripes of four, update v_j = rotl(v_j + w_{4s+j}·P2, 31)·P1; the block hash is
// fmix(rotl(v0,1) + rotl(v1,7) + rotl(v2,12) + rotl(v3,18) + block length). The file hash
// folds the block hashes in order: h = 0; h = rotl(h ^ bh_i, 27)·P1 + P2; checksum =
// fmix(h ^ file_size). P1 = 0x9e3779b185ebca87, P2 = 0xc2b2ae3d27d4eb4f, and fmix is
// x ^= x>>33; x *= 0xff51afd7ed558ccd; x ^= x>>33; x *= 0xc4ceb9fe1a85ec53; x ^= x>>33.
// Blocks hash independently, so verification runs at memory speed on all cores.
//
// read_r1cs validates, in order: the header (magic, version, header_size, reserved bytes,
// counts, section sizes without overflow, file_size against the counts and against the
// file's length), the checksum, the zero padding, then every invariant of the contents.
// Any failure throws R1csFileError naming the field and its byte offset; a corrupt file
// never crashes the reader. (The file must not be truncated while it is being read: as
// with any mmap, that would raise SIGBUS.)
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

#include "base/file_error.hpp"
#include "circuit/r1cs.hpp"

namespace snarkpipe::circuit {

inline constexpr char R1CS_FILE_MAGIC[8] = {'S', 'N', 'K', 'R', '1', 'C', 'S', '\0'};
inline constexpr std::uint32_t R1CS_FILE_VERSION = 1;
inline constexpr std::uint64_t R1CS_FILE_HEADER_SIZE = 128;
inline constexpr std::uint64_t R1CS_FILE_CHECKSUM_OFFSET = 72;
inline constexpr std::uint64_t R1CS_FILE_ALIGN = 64;

// "<path>: <field> at byte offset <offset>: <problem>".
class R1csFileError : public base::FileFormatError {
 public:
  using base::FileFormatError::FileFormatError;
};

struct R1csFileSection {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;  // bytes, without padding
};

// Where everything lies in a file with the given counts. sections[field] for every
// R1csField; sections[counts] is the header.
struct R1csFileLayout {
  std::array<R1csFileSection, 13> sections;
  std::uint64_t file_size = 0;
  const R1csFileSection& section(R1csField f) const { return sections[static_cast<std::size_t>(f)]; }
};
// nullopt when a size overflows 64 bits.
std::optional<R1csFileLayout> r1cs_file_layout(std::uint64_t num_inputs, std::uint64_t num_aux,
                                               std::uint64_t num_constraints, std::uint64_t a_nnz, std::uint64_t b_nnz,
                                               std::uint64_t c_nnz);

// snkhash64 of a whole file image (the checksum field is read as zero). The length must be
// a multiple of 64 and at least the header; throws std::invalid_argument otherwise.
std::uint64_t r1cs_file_checksum(std::span<const std::uint8_t> file);

// Writes `r1cs` to `path` atomically (a temporary file in the same directory, then rename).
// Throws std::invalid_argument when the R1cs breaks an invariant (find_defect), and
// R1csFileError when the file cannot be written.
void write_r1cs(const std::filesystem::path& path, const R1cs& r1cs);

// Reads and fully validates a file written by write_r1cs, copying the arrays into owned
// vectors; throws R1csFileError. Peak memory is twice the file (the mapping and the copy),
// but the result does not depend on the file afterwards.
R1cs read_r1cs(const std::filesystem::path& path);

// As read_r1cs (the same validation and errors), but the matrices' arrays are views into a
// private mapping of the file (CsrArray::is_view), kept alive by the R1cs and its moves:
// memory is the file's pages only, which the kernel may drop and re-read under pressure.
// Only for files replaced by rename, never rewritten in place (as write_r1cs and R1csCache
// do): a file truncated while mapped raises SIGBUS on the next access, and a private mapping
// may show changes made to the file after it was mapped.
R1cs map_r1cs(const std::filesystem::path& path);

}  // namespace snarkpipe::circuit
