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

#include "circuit/density.hpp"
#include "ff/fields.hpp"

namespace snarkpipe::circuit {

using ff::Fr;

static_assert(sizeof(Fr) == 32 && std::is_trivially_copyable_v<Fr>, "Fr must be 4 raw Montgomery limbs");

// The storage of one CSR array: either owned (a std::vector) or a view into a memory-mapped
// .snkr1cs file (map_r1cs), so that a cached circuit is used in place instead of being
// copied (a copy would double the memory of a 10 GB recorded circuit while it is made).
//
// Reads cost what a vector's do: data_/size_ always describe the entries, whichever way
// they are held. A view may be written through: map_r1cs maps the file private, so a write
// copies the touched page and never reaches the file. Anything that changes the size
// (push_back, resize, ...) first copies a view into an owned vector. Copying a CsrArray
// copies the entries into an owned array, as copying a vector does (a shared view would let
// a write through one copy show through the other); moving hands the view over.
template <class T>
class CsrArray {
 public:
  using value_type = T;
  using size_type = std::size_t;
  using iterator = T*;
  using const_iterator = const T*;

  CsrArray() = default;
  // Implicit, so that vectors are assigned and compared as before.
  CsrArray(std::vector<T> v) : owned_(std::move(v)) { sync(); }
  // A view of the n entries at p, which stay valid while `keep` is alive.
  static CsrArray view(std::shared_ptr<void> keep, T* p, std::size_t n) {
    CsrArray a;
    a.keep_ = std::move(keep);
    a.data_ = p;
    a.size_ = n;
    return a;
  }

  CsrArray(const CsrArray& o) : owned_(o.begin(), o.end()) { sync(); }
  CsrArray(CsrArray&& o) noexcept : owned_(std::move(o.owned_)), keep_(std::move(o.keep_)) {
    data_ = keep_ ? o.data_ : owned_.data();
    size_ = o.size_;
    o.reset();
  }
  CsrArray& operator=(const CsrArray& o) {
    if (this != &o) {
      owned_.assign(o.begin(), o.end());
      keep_.reset();
      sync();
    }
    return *this;
  }
  CsrArray& operator=(CsrArray&& o) noexcept {
    if (this != &o) {
      owned_ = std::move(o.owned_);
      keep_ = std::move(o.keep_);
      data_ = keep_ ? o.data_ : owned_.data();
      size_ = o.size_;
      o.reset();
    }
    return *this;
  }

  // True when the entries live in a mapped file.
  bool is_view() const { return keep_ != nullptr; }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }

  void reserve(std::size_t n) {
    own().reserve(n);
    sync();
  }
  void resize(std::size_t n) {
    own().resize(n);
    sync();
  }
  void push_back(const T& x) {
    own().push_back(x);
    sync();
  }
  void pop_back() {
    own().pop_back();
    sync();
  }
  void clear() {
    own().clear();
    sync();
  }

  friend bool operator==(const CsrArray& x, const CsrArray& y) {
    return x.size_ == y.size_ && std::equal(x.begin(), x.end(), y.begin());
  }

 private:
  // The owned vector, made from the view first when there is one.
  std::vector<T>& own() {
    if (keep_) {
      owned_.assign(data_, data_ + size_);
      keep_.reset();
    }
    return owned_;
  }
  void sync() {
    data_ = owned_.data();
    size_ = owned_.size();
  }
  void reset() {
    owned_.clear();
    keep_.reset();
    sync();
  }

  std::vector<T> owned_;
  std::shared_ptr<void> keep_;  // the mapping a view lies in; null when owned
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

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
  a_row_ptr, a_col, a_val,
  b_row_ptr, b_col, b_val,
  c_row_ptr, c_col, c_val,
  a_aux_density, b_input_density, b_aux_density,
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
