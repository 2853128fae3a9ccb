#include "circuit/r1cs.hpp"

#include <algorithm>
#include <atomic>
#include <limits>
#include <mutex>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace snarkpipe::circuit {

std::string_view field_name(R1csField f) {
  switch (f) {
    case R1csField::counts:
      return "counts";
    case R1csField::a_row_ptr:
      return "A.row_ptr";
    case R1csField::a_col:
      return "A.col";
    case R1csField::a_val:
      return "A.val";
    case R1csField::b_row_ptr:
      return "B.row_ptr";
    case R1csField::b_col:
      return "B.col";
    case R1csField::b_val:
      return "B.val";
    case R1csField::c_row_ptr:
      return "C.row_ptr";
    case R1csField::c_col:
      return "C.col";
    case R1csField::c_val:
      return "C.val";
    case R1csField::a_aux_density:
      return "a_aux_density";
    case R1csField::b_input_density:
      return "b_input_density";
    case R1csField::b_aux_density:
      return "b_aux_density";
  }
  return "?";
}

namespace {

using Found = std::optional<std::pair<std::uint64_t, std::string>>;

// The lowest-index defect over [0, n): `check(begin, end)` returns the first defect in its
// block. Blocks run in parallel; a block that starts past the best defect so far is skipped.
template <class Check>
Found first_defect_parallel(std::uint64_t n, std::uint64_t grain, const Check& check) {
  std::atomic<std::uint64_t> best{std::numeric_limits<std::uint64_t>::max()};
  std::mutex mu;
  Found found;
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, n, grain), [&](const auto& r) {
    if (r.begin() >= best.load(std::memory_order_relaxed)) return;
    Found f = check(r.begin(), r.end());
    if (!f) return;
    std::lock_guard lock(mu);
    if (!found || f->first < found->first) {
      found = std::move(f);
      best.store(found->first, std::memory_order_relaxed);
    }
  });
  return found;
}

void set_bit_atomic(std::vector<std::uint64_t>& words, std::uint64_t bit) {
  std::uint64_t& w = words[bit / 64];
  const std::uint64_t mask = std::uint64_t(1) << (bit % 64);
  std::atomic_ref<std::uint64_t> ref(w);
  if ((ref.load(std::memory_order_relaxed) & mask) == 0) ref.fetch_or(mask, std::memory_order_relaxed);
}

struct MatrixFields {
  R1csField row_ptr, col, val;
};

// Checks one matrix; records which columns occur into `input_words` / `aux_words` when given.
std::optional<R1csDefect> check_matrix(const CsrMatrix& m, MatrixFields fields, std::uint64_t rows,
                                       std::uint64_t num_inputs, std::uint64_t num_columns,
                                       std::vector<std::uint64_t>* input_words, std::vector<std::uint64_t>* aux_words) {
  const std::uint64_t nnz = m.col.size();
  if (m.row_ptr.size() != rows + 1) {
    return R1csDefect{fields.row_ptr, std::min<std::uint64_t>(m.row_ptr.size(), rows + 1),
                      "has " + std::to_string(m.row_ptr.size()) + " entries, expected " + std::to_string(rows + 1)};
  }
  if (m.row_ptr[0] != 0) return R1csDefect{fields.row_ptr, 0, "does not start at 0"};
  if (Found f = first_defect_parallel(rows, 1 << 16, [&](std::uint64_t b, std::uint64_t e) -> Found {
        for (std::uint64_t i = b; i < e; ++i) {
          if (m.row_ptr[i + 1] < m.row_ptr[i]) return std::pair(i + 1, std::string("not monotone"));
        }
        return std::nullopt;
      })) {
    return R1csDefect{fields.row_ptr, f->first, f->second};
  }
  if (m.row_ptr[rows] != nnz) {
    return R1csDefect{fields.row_ptr, rows,
                      "ends at " + std::to_string(m.row_ptr[rows]) + ", not at nnz " + std::to_string(nnz)};
  }
  if (m.val.size() != nnz) {
    return R1csDefect{fields.val, std::min<std::uint64_t>(m.val.size(), nnz),
                      "has " + std::to_string(m.val.size()) + " entries, col has " + std::to_string(nnz)};
  }
  if (Found f = first_defect_parallel(rows, 1 << 12, [&](std::uint64_t b, std::uint64_t e) -> Found {
        for (std::uint64_t r = b; r < e; ++r) {
          const std::uint64_t end = m.row_ptr[r + 1];
          for (std::uint64_t k = m.row_ptr[r]; k < end; ++k) {
            const std::uint64_t c = m.col[k];
            if (c >= num_columns) {
              return std::pair(k, "column " + std::to_string(c) + " >= num_columns " + std::to_string(num_columns));
            }
            if (k > m.row_ptr[r] && c <= m.col[k - 1]) {
              return std::pair(k, "columns of row " + std::to_string(r) + " not strictly increasing");
            }
            if (c < num_inputs) {
              if (input_words) set_bit_atomic(*input_words, c);
            } else if (aux_words) {
              set_bit_atomic(*aux_words, c - num_inputs);
            }
          }
        }
        return std::nullopt;
      })) {
    return R1csDefect{fields.col, f->first, f->second};
  }
  if (Found f = first_defect_parallel(nnz, 1 << 16, [&](std::uint64_t b, std::uint64_t e) -> Found {
        for (std::uint64_t k = b; k < e; ++k) {
          const auto& limbs = m.val[k].montgomery();
          if (ff::is_zero(limbs)) return std::pair(k, std::string("zero coefficient"));
          if (ff::compare(limbs, Fr::MODULUS) >= 0) return std::pair(k, std::string("coefficient not reduced (>= r)"));
        }
        return std::nullopt;
      })) {
    return R1csDefect{fields.val, f->first, f->second};
  }
  return std::nullopt;
}

std::optional<R1csDefect> check_density(const DensityBitmap& d, R1csField field, std::uint64_t size,
                                        const std::vector<std::uint64_t>& expected, std::string_view matrix) {
  if (d.size() != size) {
    return R1csDefect{field, 0, "has " + std::to_string(d.size()) + " bits, expected " + std::to_string(size)};
  }
  const auto words = d.words();
  for (std::size_t w = 0; w < words.size(); ++w) {
    if (const std::uint64_t diff = words[w] ^ expected[w]) {
      const std::uint64_t bit = w * 64 + static_cast<std::uint64_t>(std::countr_zero(diff));
      return R1csDefect{field, bit,
                        "bit " + std::to_string(bit) + ((words[w] >> (bit % 64)) & 1 ? " set" : " clear") +
                            " but the column " + ((expected[w] >> (bit % 64)) & 1 ? "occurs" : "does not occur") +
                            " in " + std::string(matrix)};
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<R1csDefect> find_defect(const R1cs& r) {
  if (r.num_inputs == 0) return R1csDefect{R1csField::counts, 0, "num_inputs is 0 (ONE is input 0)"};
  if (r.num_aux > (std::uint64_t(1) << 32) - r.num_inputs || r.num_inputs > (std::uint64_t(1) << 32)) {
    return R1csDefect{R1csField::counts, 0, "num_inputs + num_aux exceeds 2^32 columns"};
  }
  const std::uint64_t rows = r.num_constraints, cols = r.num_columns();
  std::vector<std::uint64_t> a_aux(DensityBitmap::words_for(r.num_aux), 0);
  std::vector<std::uint64_t> b_input(DensityBitmap::words_for(r.num_inputs), 0);
  std::vector<std::uint64_t> b_aux(DensityBitmap::words_for(r.num_aux), 0);
  using F = R1csField;
  if (auto d = check_matrix(r.a, {F::a_row_ptr, F::a_col, F::a_val}, rows, r.num_inputs, cols, nullptr, &a_aux))
    return d;
  if (auto d = check_matrix(r.b, {F::b_row_ptr, F::b_col, F::b_val}, rows, r.num_inputs, cols, &b_input, &b_aux))
    return d;
  if (auto d = check_matrix(r.c, {F::c_row_ptr, F::c_col, F::c_val}, rows, r.num_inputs, cols, nullptr, nullptr))
    return d;
  if (auto d = check_density(r.a_aux_density, F::a_aux_density, r.num_aux, a_aux, "A")) return d;
  if (auto d = check_density(r.b_input_density, F::b_input_density, r.num_inputs, b_input, "B")) return d;
  if (auto d = check_density(r.b_aux_density, F::b_aux_density, r.num_aux, b_aux, "B")) return d;
  return std::nullopt;
}

}  // namespace snarkpipe::circuit
