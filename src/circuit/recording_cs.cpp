#include "circuit/recording_cs.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace snarkpipe::circuit {

namespace {

void set_bit(std::vector<std::uint64_t>& words, std::uint64_t bit) {
  if (bit / 64 >= words.size()) words.resize(std::max<std::size_t>(bit / 64 + 1, words.size() * 2), 0);
  words[bit / 64] |= std::uint64_t(1) << (bit % 64);
}

}  // namespace

Variable RecordingConstraintSystem::alloc(std::string_view, const ValueFn&) {
  if (num_aux_ >= AUX_TAG) throw std::length_error("recording constraint system: more than 2^31 aux variables");
  return Variable::aux(static_cast<std::uint32_t>(num_aux_++));
}

Variable RecordingConstraintSystem::alloc_input(std::string_view, const ValueFn&) {
  if (num_inputs_ >= AUX_TAG) throw std::length_error("recording constraint system: more than 2^31 inputs");
  return Variable::input(static_cast<std::uint32_t>(num_inputs_++));
}

void RecordingConstraintSystem::check_terms(std::string_view name, const LinearCombination& lc) const {
  for (const auto& t : lc.terms()) {
    const bool ok = t.var.is_input() ? t.var.index < num_inputs_ : t.var.index < num_aux_;
    if (!ok) {
      throw std::out_of_range("constraint '" + std::string(name) + "': " + (t.var.is_input() ? "input " : "aux ") +
                              std::to_string(t.var.index) + " is not allocated");
    }
  }
}

void RecordingConstraintSystem::enforce(std::string_view name, const LinearCombination& a, const LinearCombination& b,
                                        const LinearCombination& c) {
  if (num_constraints_ >= max_constraints_)
    throw std::length_error("the circuit has more than " + std::to_string(max_constraints_) +
                            " constraints (the limit set for recording it)");
  // Check all three first so a failed enforce records nothing.
  check_terms(name, a);
  check_terms(name, b);
  check_terms(name, c);
  append_row(a_, a, nullptr, &a_aux_words_);
  append_row(b_, b, &b_input_words_, &b_aux_words_);
  append_row(c_, c, nullptr, nullptr);
  ++num_constraints_;
}

void RecordingConstraintSystem::append_row(Matrix& m, const LinearCombination& lc,
                                           std::vector<std::uint64_t>* input_density,
                                           std::vector<std::uint64_t>* aux_density) {
  scratch_.clear();
  for (const auto& t : lc.terms()) {
    scratch_.push_back({t.var.is_input() ? t.var.index : (AUX_TAG | t.var.index), t.coeff});
  }
  const auto by_col = [](const Entry& x, const Entry& y) { return x.col < y.col; };
  if (!std::is_sorted(scratch_.begin(), scratch_.end(), by_col)) std::sort(scratch_.begin(), scratch_.end(), by_col);
  for (std::size_t i = 0; i < scratch_.size();) {
    const std::uint32_t col = scratch_[i].col;
    Fr sum = scratch_[i].coeff;
    for (++i; i < scratch_.size() && scratch_[i].col == col; ++i) sum += scratch_[i].coeff;
    if (sum.is_zero()) continue;
    m.col.push_back(col);
    m.val.push_back(sum);
    if (col & AUX_TAG) {
      if (aux_density) set_bit(*aux_density, col & ~AUX_TAG);
    } else if (input_density) {
      set_bit(*input_density, col);
    }
  }
  m.row_end.push_back(m.col.size());
}

CsrMatrix RecordingConstraintSystem::drain(Matrix& m, bool input_rows) {
  CsrMatrix out;
  const std::uint64_t rows = m.row_end.size() + num_inputs_;
  out.row_ptr.reserve(rows + 1);
  out.row_ptr.push_back(0);
  m.row_end.drain_into(out.row_ptr, [](std::uint64_t x) { return x; });
  const std::uint64_t extra = input_rows ? num_inputs_ : 0;
  out.col.reserve(m.col.size() + extra);
  out.val.reserve(m.val.size() + extra);
  const std::uint32_t n_in = static_cast<std::uint32_t>(num_inputs_);
  m.col.drain_into(out.col, [n_in](std::uint32_t c) { return (c & AUX_TAG) ? n_in + (c & ~AUX_TAG) : c; });
  m.val.drain_into(out.val, [](const Fr& x) { return x; });
  // bellperson's input constraints: input_i · 0 = 0, input_i in A only.
  for (std::uint64_t i = 0; i < num_inputs_; ++i) {
    if (input_rows) {
      out.col.push_back(static_cast<std::uint32_t>(i));
      out.val.push_back(Fr::one());
    }
    out.row_ptr.push_back(out.col.size());
  }
  return out;
}

R1cs RecordingConstraintSystem::finish() {
  if (num_aux_ > (std::uint64_t(1) << 32) - num_inputs_) {
    throw std::length_error("recording constraint system: num_inputs + num_aux exceeds 2^32 columns");
  }
  R1cs r;
  r.num_inputs = num_inputs_;
  r.num_aux = num_aux_;
  r.num_constraints = num_constraints_ + num_inputs_;
  r.a = drain(a_, true);
  r.b = drain(b_, false);
  r.c = drain(c_, false);
  const auto density = [](std::vector<std::uint64_t>& words, std::uint64_t size) {
    words.resize(DensityBitmap::words_for(size), 0);
    return DensityBitmap::from_words(size, std::move(words));
  };
  r.a_aux_density = density(a_aux_words_, num_aux_);
  r.b_input_density = density(b_input_words_, num_inputs_);
  r.b_aux_density = density(b_aux_words_, num_aux_);

  num_inputs_ = 1;
  num_aux_ = 0;
  num_constraints_ = 0;
  a_aux_words_.clear();
  b_input_words_.clear();
  b_aux_words_.clear();
  return r;
}

}  // namespace snarkpipe::circuit
