// The recorded circuit ("pre-compiled circuit"): the R1CS A·z ∘ B·z = C·z as three CSR
// matrices plus the prover's density bitmaps. Recorded once per circuit type
// (RecordingConstraintSystem), cached on disk (r1cs_file.hpp, r1cs_cache.hpp), evaluated per proof against
// a fresh witness (spmv.hpp).
//
// Rows are constraints, in synthesis order, followed by bellperson's one constraint per input
// `input_i · 0 = 0` (ONE included, in input order; input_i in A with coefficient 1, B and C
// rows empty), so num_constraints = circuit constraints + num_inputs (REFERENCE.md §4).
//
// Columns index z = (inputs ‖ aux): column i < num_inputs is input i (column 0 is the
// constant ONE); column num_inputs + j is aux variable j. Hence num_columns =
// num_inputs + num_aux, which must fit in 32 bits.
//
// Invariants (checked by find_defect, relied on by spmv and the file format):
// - num_inputs >= 1 (ONE), num_inputs + num_aux <= 2^32;
// - row_ptr has num_constraints + 1 entries, row_ptr[0] = 0, non-decreasing, last = nnz;
// - col and val have nnz entries; row k's entries are [row_ptr[k], row_ptr[k+1]);
// - within a row, columns are strictly increasing (duplicate terms were merged) and
//   < num_columns;
// - every val is non-zero (zero coefficients were dropped) and a reduced Montgomery form
//   (limbs < r), as blst/sppark keep Fr.
//
// Densities: a_aux_density bit j is set iff aux column j has an entry in A; b_input_density
// bit i iff input column i has one in B; b_aux_density bit j iff aux column j has one in B.
// (A's input density is all ones by construction, thanks to the input constraints.)
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "base/host_array.hpp"
#include "circuit/density.hpp"
#include "ff/fields.hpp"

namespace snarkpipe::circuit {

using ff::Fr;

static_assert(sizeof(Fr) == 32 && std::is_trivially_copyable_v<Fr>, "Fr must be 4 raw Montgomery limbs");

// The CSR arrays' storage: owned, or a view into a mapped .snkr1cs file (base/host_array.hpp).
template <class T>
using CsrArray = base::HostArray<T>;

struct CsrMatrix {
  CsrArray<std::uint64_t> row_ptr;  // num_rows + 1 offsets into col/val
  CsrArray<std::uint32_t> col;      // column of each non-zero
  CsrArray<Fr> val;                 // coefficient of each non-zero (Montgomery form)

  std::size_t num_rows() const { return row_ptr.empty() ? 0 : row_ptr.size() - 1; }
  std::size_t nnz() const { return col.size(); }
  std::span<const std::uint32_t> row_cols(std::size_t r) const {
    return std::span(col).subspan(row_ptr[r], row_ptr[r + 1] - row_ptr[r]);
  }
  std::span<const Fr> row_vals(std::size_t r) const {
    return std::span(val).subspan(row_ptr[r], row_ptr[r + 1] - row_ptr[r]);
  }
  friend bool operator==(const CsrMatrix&, const CsrMatrix&) = default;
};

struct R1cs {
  std::uint64_t num_inputs = 0;  // including ONE
  std::uint64_t num_aux = 0;
  std::uint64_t num_constraints = 0;  // including the num_inputs input constraints
  CsrMatrix a, b, c;
  DensityBitmap a_aux_density;    // num_aux bits
  DensityBitmap b_input_density;  // num_inputs bits
  DensityBitmap b_aux_density;    // num_aux bits

  std::uint64_t num_columns() const { return num_inputs + num_aux; }
  friend bool operator==(const R1cs&, const R1cs&) = default;
};

// The parts of an R1cs, in the order find_defect checks them (and the file stores them).
// `counts` is num_inputs / num_aux / num_constraints and the vector sizes they imply.
enum class R1csField : std::uint8_t {
  counts,
  a_row_ptr,
  a_col,
  a_val,
  b_row_ptr,
  b_col,
  b_val,
  c_row_ptr,
  c_col,
  c_val,
  a_aux_density,
  b_input_density,
  b_aux_density,
};
// "counts", "A.row_ptr", "B.val", "a_aux_density", ...
std::string_view field_name(R1csField f);

// A broken invariant: which part, which entry (row for row_ptr, non-zero for col/val, bit
// for densities, 0 for counts) and what is wrong.
struct R1csDefect {
  R1csField field;
  std::uint64_t index;
  std::string problem;
};

// The first broken invariant of the list above (fields in R1csField order, then lowest
// index), or nullopt for a well-formed R1cs. Multi-threaded; reads every entry once.
std::optional<R1csDefect> find_defect(const R1cs& r1cs);

}  // namespace snarkpipe::circuit
