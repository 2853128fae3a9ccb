// The recording constraint system: runs a circuit without values and writes its constraints
// straight into CSR form (r1cs.hpp). Names and namespaces are ignored, value functions are
// never called; per constraint it sorts and merges the three linear combinations and appends
// them to chunked arrays, so recording a 130M-constraint circuit costs the arrays and no
// per-constraint objects. finish() appends the input constraints and hands back the R1cs.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "circuit/constraint_system.hpp"
#include "circuit/r1cs.hpp"

namespace snarkpipe::circuit {

namespace detail {

// An append-only array in fixed-size chunks: growth never copies what was recorded, and the
// final contiguous copy frees each chunk as soon as it is copied (peak = data + one chunk).
template <class T>
class ChunkedArray {
 public:
  static constexpr std::size_t CHUNK = std::size_t(1) << 18;

  void push_back(const T& x) {
    if (last_fill_ == CHUNK || chunks_.empty()) {
      chunks_.push_back(std::make_unique_for_overwrite<T[]>(CHUNK));
      last_fill_ = 0;
    }
    chunks_.back()[last_fill_++] = x;
  }
  std::size_t size() const { return chunks_.empty() ? 0 : (chunks_.size() - 1) * CHUNK + last_fill_; }

  // Moves everything into `out` (appending), applying `f` to each element, and empties this.
  // `out` is any vector-like container (std::vector, CsrArray).
  template <class Out, class F>
  void drain_into(Out& out, const F& f) {
    out.reserve(out.size() + size());
    for (std::size_t i = 0; i < chunks_.size(); ++i) {
      const std::size_t n = i + 1 == chunks_.size() ? last_fill_ : CHUNK;
      for (std::size_t k = 0; k < n; ++k) out.push_back(f(chunks_[i][k]));
      chunks_[i].reset();
    }
    chunks_.clear();
    last_fill_ = 0;
  }

 private:
  std::vector<std::unique_ptr<T[]>> chunks_;
  std::size_t last_fill_ = 0;
};

}  // namespace detail

class RecordingConstraintSystem final : public ConstraintSystem {
 public:
  RecordingConstraintSystem() = default;
  // Refuses (std::length_error, nothing recorded for it) the constraint past max_constraints:
  // a circuit too large for its purpose stops early instead of filling memory.
  explicit RecordingConstraintSystem(std::uint64_t max_constraints) : max_constraints_(max_constraints) {}

  Variable alloc(std::string_view name, const ValueFn& value) override;
  Variable alloc_input(std::string_view name, const ValueFn& value) override;
  // Throws std::out_of_range when a term names a variable not allocated yet.
  void enforce(std::string_view name, const LinearCombination& a, const LinearCombination& b,
               const LinearCombination& c) override;
  void push_namespace(std::string_view) override {}
  void pop_namespace() override {}
  bool needs_values() const override { return false; }

  std::uint64_t num_inputs() const { return num_inputs_; }  // including ONE
  std::uint64_t num_aux() const { return num_aux_; }
  std::uint64_t num_constraints() const { return num_constraints_; }  // circuit constraints so far

  // The R1cs: the circuit's constraints, then `input_i · 0 = 0` for every input (ONE
  // included) in input order. Leaves this system empty (as if freshly constructed).
  R1cs finish();

 private:
  // While recording, a column is the input index, or AUX_TAG | aux index: sorting by it
  // puts inputs before aux, as the final columns do, so finish() only relabels.
  static constexpr std::uint32_t AUX_TAG = std::uint32_t(1) << 31;

  struct Matrix {
    detail::ChunkedArray<std::uint64_t> row_end;  // row_ptr without its leading 0
    detail::ChunkedArray<std::uint32_t> col;
    detail::ChunkedArray<Fr> val;
  };
  struct Entry {
    std::uint32_t col;
    Fr coeff;
  };

  void check_terms(std::string_view name, const LinearCombination& lc) const;
  void append_row(Matrix& m, const LinearCombination& lc, std::vector<std::uint64_t>* input_density,
                  std::vector<std::uint64_t>* aux_density);
  CsrMatrix drain(Matrix& m, bool input_rows);

  std::uint64_t num_inputs_ = 1;
  std::uint64_t num_aux_ = 0;
  std::uint64_t num_constraints_ = 0;
  std::uint64_t max_constraints_ = ~std::uint64_t(0);
  Matrix a_, b_, c_;
  std::vector<std::uint64_t> a_aux_words_, b_input_words_, b_aux_words_;
  std::vector<Entry> scratch_;
};

}  // namespace snarkpipe::circuit
