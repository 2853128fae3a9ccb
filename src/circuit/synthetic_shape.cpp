#include "circuit/synthetic_shape.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include "circuit/coefficient_codes.hpp"
#include "circuit/r1cs_file.hpp"
#include "ff/random.hpp"

namespace snarkpipe::circuit {

namespace {

using u64 = std::uint64_t;
using u32 = std::uint32_t;

constexpr u64 ROWS_PER_BLOCK = u64(1) << 16;
// Bounds that keep one row's term selection cheap (distinctness is checked by a scan).
constexpr u64 MAX_FIELD_TERMS = 1024;
constexpr u64 MAX_EXTRA_C_TERMS = 64;
// One pick of a free boolean in this many comes from anywhere in the circuit; the rest stay
// in the block, as a real circuit's wiring is mostly local.
constexpr u64 GLOBAL_PICK_ONE_IN = 16;

u64 mix64(u64 x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Stream separation: the structure of block b, and the witness values.
u64 block_stream(u64 seed, u64 block) { return mix64(mix64(seed ^ 0x5157a7c0de5eedULL) + block); }
bool free_bit(u64 witness_seed, u64 column) { return mix64(mix64(witness_seed ^ 0xb175eedULL) ^ column) & 1; }

// floor(q · i / n), exactly (in 64 bits when q · i fits: 128-bit division is a slow call).
u64 split_prefix(u64 q, u64 i, u64 n) {
  u64 product;
  if (!__builtin_mul_overflow(q, i, &product)) return product / n;
  return static_cast<u64>(static_cast<unsigned __int128>(q) * i / n);
}
u64 split_part(u64 q, u64 i, u64 n) { return split_prefix(q, i + 1, n) - split_prefix(q, i, n); }

u64 round_count(double x, const char* what) {
  if (!std::isfinite(x) || x < 0 || x >= 9e18) throw std::invalid_argument(std::string(what) + " is out of range");
  return static_cast<u64>(std::llround(x));
}

struct Coefficients {
  std::array<Fr, 64> pow2, neg_pow2;  // ±2^k
  Coefficients() {
    for (unsigned k = 0; k < 64; ++k) {
      pow2[k] = Fr::from_u64(u64(1) << k);
      neg_pow2[k] = -pow2[k];
    }
  }
};
const Coefficients& coefficients() {
  static const Coefficients c;
  return c;
}

// Sorts coefficients into ±1, ±2^k (k ≥ 1) and the rest (PowerOfTwoCoefficients).
class CoefficientClassifier {
 public:
  void count(std::span<const Fr> xs, SyntheticStats& s) const {
    for (const Fr& x : xs) {
      const auto code = powers_.code(x);
      if (!code) ++s.coeff_other;
      else if ((*code & ~COEFF_NEGATIVE) == 0) ++s.coeff_unit;
      else ++s.coeff_pow2;
    }
  }

 private:
  PowerOfTwoCoefficients powers_;
};

// The parameters one by one; Plan checks what they give together.
void check_parameters(const SyntheticShape& s) {
  const auto fail = [](const std::string& what) { throw std::invalid_argument("synthetic shape: " + what); };
  const auto ratio = [&](double x, const char* name, double lo, double hi) {
    if (!std::isfinite(x) || x < lo || x > hi) {
      fail(std::string(name) + " = " + std::to_string(x) + " is outside [" + std::to_string(lo) + ", " +
           std::to_string(hi) + "]");
    }
  };
  if (s.num_inputs == 0) fail("num_inputs must be at least 1 (ONE)");
  if (s.num_aux == 0) fail("num_aux must be at least 1");
  if (s.num_inputs + s.num_aux > (u64(1) << 32) || s.num_aux > (u64(1) << 32))
    fail("num_inputs + num_aux exceeds 2^32 columns");
  if (s.num_constraints < s.num_inputs + s.num_aux) {
    fail("num_constraints (" + std::to_string(s.num_constraints) + ") must be at least num_inputs + num_aux (" +
         std::to_string(s.num_inputs + s.num_aux) + "): each aux variable is defined or checked by its own constraint");
  }
  ratio(s.a_per_row, "a_per_row", 0, 1024);
  ratio(s.b_per_row, "b_per_row", 0, 2);
  ratio(s.c_per_row, "c_per_row", 0, 64);
  ratio(s.a_aux_density, "a_aux_density", 0, 1);
  ratio(s.b_aux_density, "b_aux_density", 0, 1);
  ratio(s.boolean_fraction, "boolean_fraction", 0, 1);
}

// ---------------------------------------------------------------------------------------
// The plan: the shape's totals and their exact split into blocks.

class Plan {
 public:
  struct Block {
    u64 index;
    u64 aux_begin, aux;   // aux columns [aux_begin, aux_begin + aux)
    u64 row_begin, rows;  // circuit rows
    u64 free_bools;       // free booleans (each with its check row)
    u64 gate_bools;       // booleans defined by AND / XOR / CH rows
    u64 fields;           // field values, one row each
    u64 field_in_b;       // field values that the next field row puts in B
    u64 rechecks;         // `x · ONE = x` rows
    u64 and_rows, xor_rows, ch_rows;
    u64 field_terms;                    // A entries of the field rows
    u64 extra_c;                        // C entries of the field rows besides their outputs
    u64 retired;                        // gate outputs never used in A
    std::array<u64, 3> nnz_begin, nnz;  // this block's non-zeros of A, B, C
  };

  explicit Plan(const SyntheticShape& s) : shape_(s) {
    check_parameters(s);
    const u64 n = s.num_aux;
    rc_ = s.circuit_constraints();
    blocks_ = std::max<u64>(1, (rc_ + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK);
    surplus_ = rc_ - n;
    const u64 booleans = round_count(s.boolean_fraction * double(n), "boolean_fraction");
    fields_ = n - booleans;
    const u64 b_aux = round_count(s.b_aux_density * double(n), "b_aux_density");
    // Half the field values go into B (at most half of the B columns); free booleans fill the rest.
    field_in_b_ = std::min(fields_ / 2, b_aux / 2);
    free_bools_ = b_aux - field_in_b_;
    not_in_a_ = n - round_count(s.a_aux_density * double(n), "a_aux_density");
    a_nnz_ = round_count(s.a_per_row * double(s.num_constraints), "a_per_row");
    b_nnz_ = round_count(s.b_per_row * double(s.num_constraints), "b_per_row");
    c_nnz_ = round_count(s.c_per_row * double(s.num_constraints), "c_per_row");

    const auto fail = [&](const std::string& what) { throw std::invalid_argument("synthetic shape: " + what); };
    if (free_bools_ > booleans)
      fail("b_aux_density is too high for boolean_fraction (B columns are mostly free booleans)");
    if (free_bools_ < 2 * blocks_) {
      fail("b_aux_density is too low (or num_aux too small): the circuit needs at least " +
           std::to_string(2 * blocks_) + " aux columns in B (two per 2^16 constraints)");
    }
    if (fields_ < blocks_) {
      fail(
          "boolean_fraction is too high (or num_aux too small): at least one non-boolean aux value per 2^16 "
          "constraints is needed");
    }
    // Circuit rows hold the input rows' A entries elsewhere: A's circuit part excludes them.
    if (a_nnz_ < s.num_inputs + rc_) fail("a_per_row is too low: every constraint has an A term");
    extra_a_ = a_nnz_ - s.num_inputs - rc_;
    if (b_nnz_ < rc_) fail("b_per_row is too low: every circuit constraint has a B term");
    ch_rows_ = b_nnz_ - rc_;
    if (c_nnz_ < rc_ + ch_rows_) fail("c_per_row is too low for this b_per_row: every circuit constraint has a C term");
    extra_c_ = c_nnz_ - rc_ - ch_rows_;
    for (u64 b = 0; b < blocks_; ++b) check_block(block(b), fail);
  }

  const SyntheticShape& shape() const { return shape_; }
  u64 blocks() const { return blocks_; }
  u64 circuit_rows() const { return rc_; }
  u64 a_nnz() const { return a_nnz_; }
  u64 b_nnz() const { return b_nnz_; }
  u64 c_nnz() const { return c_nnz_; }

  Block block(u64 b) const {
    const u64 g = blocks_;
    Block k{};
    k.index = b;
    k.aux_begin = split_prefix(shape_.num_aux, b, g);
    k.aux = split_part(shape_.num_aux, b, g);
    k.rechecks = split_part(surplus_, b, g);
    k.row_begin = k.aux_begin + split_prefix(surplus_, b, g);
    k.rows = k.aux + k.rechecks;
    k.free_bools = split_part(free_bools_, b, g);
    k.fields = split_part(fields_, b, g);
    k.gate_bools = k.aux - std::min(k.aux, k.free_bools + k.fields);  // checked in check_block
    k.field_in_b = split_part(field_in_b_, b, g);
    k.ch_rows = split_part(ch_rows_, b, g);
    const u64 extra_a = split_part(extra_a_, b, g), extra_c = split_part(extra_c_, b, g);
    k.field_terms = k.fields + extra_a;
    // C beyond one entry per row: XOR rows carry two more, the rest goes to field rows.
    k.xor_rows = std::min(extra_c / 2, k.gate_bools - std::min(k.gate_bools, k.ch_rows));
    k.extra_c = extra_c - 2 * k.xor_rows;
    k.and_rows = k.gate_bools - std::min(k.gate_bools, k.ch_rows + k.xor_rows);
    const u64 not_in_a = split_part(not_in_a_, b, g);
    // The last field row's output is never used; the rest of the quota retires gate outputs.
    k.retired = std::min(k.gate_bools, not_in_a - std::min<u64>(not_in_a, k.fields > 0 ? 1 : 0));
    k.nnz_begin = {k.row_begin + split_prefix(extra_a_, b, g), k.row_begin + split_prefix(ch_rows_, b, g),
                   k.row_begin + split_prefix(ch_rows_, b, g) + split_prefix(extra_c_, b, g)};
    k.nnz = {k.rows + extra_a, k.rows + k.ch_rows, k.rows + k.ch_rows + extra_c};
    return k;
  }

  // Free boolean j of block c, as a column of z.
  u64 free_offset(const Block& k, u64 j) const { return split_prefix(k.aux, j, k.free_bools); }
  u64 free_count(u64 c) const { return split_part(free_bools_, c, blocks_); }
  u64 free_column(u64 c, u64 j) const {
    const u64 aux = split_part(shape_.num_aux, c, blocks_);
    return shape_.num_inputs + split_prefix(shape_.num_aux, c, blocks_) + split_prefix(aux, j, free_count(c));
  }

 private:
  template <class Fail>
  void check_block(const Block& k, const Fail& fail) const {
    const std::string where = " (in block " + std::to_string(k.index) + " of 2^16 rows)";
    if (k.free_bools + k.fields > k.aux)
      fail("boolean_fraction and b_aux_density leave no room for gate booleans" + where);
    if (k.ch_rows > k.gate_bools) fail("b_per_row is too high: only gate rows can have two B terms" + where);
    if (k.field_in_b + 1 > std::max<u64>(k.fields, 1)) fail("too few field values for b_aux_density" + where);
    if (k.fields == 0) fail("boolean_fraction is too high" + where);
    if ((k.field_terms + k.fields - 1) / k.fields > MAX_FIELD_TERMS) {
      fail("a_per_row is too high: field rows would need more than " + std::to_string(MAX_FIELD_TERMS) + " A terms" +
           where);
    }
    if ((k.extra_c + k.fields - 1) / k.fields > MAX_EXTRA_C_TERMS) fail("c_per_row is too high" + where);
  }

  SyntheticShape shape_;
  u64 rc_ = 0, blocks_ = 1, surplus_ = 0, fields_ = 0, field_in_b_ = 0, free_bools_ = 0, not_in_a_ = 0;
  u64 a_nnz_ = 0, b_nnz_ = 0, c_nnz_ = 0, extra_a_ = 0, ch_rows_ = 0, extra_c_ = 0;
};

// ---------------------------------------------------------------------------------------
// One block, walked row by row: emitting the rows, computing the values, or both.

struct Term {
  u32 col;
  Fr val;
};

// One matrix row under construction: fixed capacity, so adding a term is a store.
class TermList {
 public:
  explicit TermList(std::size_t capacity) : terms_(capacity) {}
  void add(u32 col, const Fr& val) {
    if (size_ == terms_.size()) throw std::logic_error("synthetic generator: a row outgrew its plan");
    terms_[size_++] = {col, val};
  }
  void clear() { size_ = 0; }
  std::size_t size() const { return size_; }
  Term* begin() { return terms_.data(); }
  Term* end() { return terms_.data() + size_; }
  Term& operator[](std::size_t i) { return terms_[i]; }
  const Term& operator[](std::size_t i) const { return terms_[i]; }
  bool contains(u32 col) const {
    for (std::size_t i = 0; i < size_; ++i) {
      if (terms_[i].col == col) return true;
    }
    return false;
  }

 private:
  std::vector<Term> terms_;
  std::size_t size_ = 0;
};

// Where a block's rows go: spans of the three matrices starting at the block's first row and
// first non-zero, and block-local density bits (bit i = aux column aux_begin + i).
struct RowSink {
  std::array<std::span<u64>, 3> row_ptr;
  std::array<std::span<u32>, 3> col;
  std::array<std::span<Fr>, 3> val;
  std::array<u64, 3> base{};  // global index of the block's first non-zero
  std::array<u64, 3> pos{};
  u64 row = 0;
  std::vector<u64> a_aux_bits, b_aux_bits;
  bool one_in_b = false;
};

struct ValueSink {
  u64 witness_seed;
  std::span<const Fr> inputs;
  std::span<Fr> aux;   // aux values from column aux_offset on; a block writes its own columns
  u64 aux_offset = 0;  // non-zero when aux is a chunk's scratch
};

enum class RowKind : std::uint8_t { check, recheck, and_gate, xor_gate, ch_gate, field };

class BlockWalker {
 public:
  BlockWalker(const Plan& plan, u64 b, RowSink* rows, const ValueSink* values)
      : plan_(plan),
        k_(plan.block(b)),
        rows_(rows),
        values_(values),
        rng_(block_stream(plan.shape().seed, b)),
        coeff_(coefficients()),
        one_(coeff_.pow2[0]),
        ni_(plan.shape().num_inputs),
        col_begin_(ni_ + k_.aux_begin) {}

  void run() {
    std::vector<RowKind> kinds;
    kinds.reserve(k_.rows);
    kinds.insert(kinds.end(), k_.free_bools, RowKind::check);
    kinds.insert(kinds.end(), k_.rechecks, RowKind::recheck);
    kinds.insert(kinds.end(), k_.and_rows, RowKind::and_gate);
    kinds.insert(kinds.end(), k_.xor_rows, RowKind::xor_gate);
    kinds.insert(kinds.end(), k_.ch_rows, RowKind::ch_gate);
    kinds.insert(kinds.end(), k_.fields, RowKind::field);
    for (u64 i = kinds.size(); i > 1; --i) std::swap(kinds[i - 1], kinds[rng_.next_u64() % i]);
    // A field row last: it takes the variables not yet used in A (see field_row).
    std::swap(*std::find(kinds.rbegin(), kinds.rend(), RowKind::field), kinds.back());

    bools_.reserve(k_.free_bools + k_.gate_bools);
    if (values_) bits_.assign(k_.aux, 0);
    for (u64 j = 0; j < k_.free_bools; ++j) {
      const u32 c = local_free(j);
      bools_.push_back(c);
      if (values_) set_bit(c, free_bit(values_->witness_seed, c));
    }
    fields_.reserve(k_.fields);
    fields_left_ = k_.fields;
    terms_left_ = k_.field_terms;
    extra_c_left_ = k_.extra_c;

    for (const RowKind kind : kinds) {
      switch (kind) {
        case RowKind::check:
          check_row();
          break;
        case RowKind::recheck:
          recheck_row();
          break;
        case RowKind::and_gate:
        case RowKind::xor_gate:
        case RowKind::ch_gate:
          gate_row(kind);
          break;
        case RowKind::field:
          field_row();
          break;
      }
    }
    skip_free_offsets();
    if (next_offset_ != k_.aux || checks_done_ != k_.free_bools) internal_error("columns not all allocated");
    if (rows_ && (rows_->row != k_.rows || rows_->pos != k_.nnz)) internal_error("non-zero counts off plan");
  }

 private:
  [[noreturn]] void internal_error(const std::string& what) const {
    throw std::logic_error("synthetic generator, block " + std::to_string(k_.index) + ": " + what);
  }

  u32 local_free(u64 j) const { return static_cast<u32>(col_begin_ + plan_.free_offset(k_, j)); }
  bool in_block(u32 c) const { return c >= col_begin_ && c < col_begin_ + k_.aux; }

  void skip_free_offsets() {
    while (next_free_ < k_.free_bools && plan_.free_offset(k_, next_free_) == next_offset_) {
      ++next_free_;
      ++next_offset_;
    }
  }
  // The next aux column in the block that is not a free boolean: dependents in definition order.
  u32 new_dependent() {
    skip_free_offsets();
    if (next_offset_ >= k_.aux) internal_error("out of aux columns");
    return static_cast<u32>(col_begin_ + next_offset_++);
  }

  u64 rand(u64 n) { return rng_.next_u64() % n; }
  u32 global_free() {
    for (;;) {
      const u64 c = rand(plan_.blocks());
      if (const u64 n = plan_.free_count(c)) return static_cast<u32>(plan_.free_column(c, rand(n)));
    }
  }
  // The plan gives every block at least two free booleans.
  u32 pick_free() {
    if (rand(GLOBAL_PICK_ONE_IN) == 0) return global_free();
    return local_free(rand(k_.free_bools));
  }
  // A free boolean other than the given columns.
  u32 pick_free_except(u32 x, u32 y) {
    for (int tries = 0; tries < 256; ++tries) {
      const u32 c = pick_free();
      if (c != x && c != y) return c;
    }
    internal_error("no distinct free boolean");
  }
  // bools_ starts with the block's free booleans, so it is never empty.
  u32 pick_bool() {
    if (rand(GLOBAL_PICK_ONE_IN) == 0) return global_free();
    return bools_[rand(bools_.size())];
  }
  u32 pick_field() {
    if (!fields_.empty()) return fields_[rand(fields_.size())];
    return ni_ > 1 ? static_cast<u32>(1 + rand(ni_ - 1)) : 0;
  }
  static u32 pop(std::vector<u32>& q, std::size_t& head) {
    const u32 c = q[head++];
    if (head == q.size()) {
      q.clear();
      head = 0;
    }
    return c;
  }
  bool bool_queued() const { return bool_head_ < bool_queue_.size(); }
  bool field_queued() const { return field_head_ < field_queue_.size(); }

  Fr sign(const Fr& x) { return rng_.next_u64() & 1 ? x : -x; }
  // ±1, and now and then a full-size constant (Poseidon's round constants and MDS entries).
  Fr field_coefficient() {
    if (rand(16) == 0) {
      for (;;) {
        const Fr x = Fr::random(rng_);
        if (!x.is_zero()) return x;
      }
    }
    return sign(one_);
  }

  // Values (only with a ValueSink).
  Fr value(u32 c) const {
    if (c < ni_) return values_->inputs[c];
    if (in_block(c)) return values_->aux[c - ni_ - values_->aux_offset];
    return free_bit(values_->witness_seed, c) ? one_ : Fr{};  // a free boolean elsewhere
  }
  // Booleans of the block are also kept as bytes: gates read them often, and the block's
  // bytes stay in L2 where its 32-byte values do not.
  bool bit(u32 c) const {
    if (in_block(c)) return bits_[c - col_begin_];
    return free_bit(values_->witness_seed, c);
  }
  void set_value(u32 c, const Fr& v) { values_->aux[c - ni_ - values_->aux_offset] = v; }
  void set_bit(u32 c, bool v) {
    bits_[c - col_begin_] = v;
    set_value(c, v ? one_ : Fr{});
  }

  void emit() {
    if (!rows_) return;
    RowSink& s = *rows_;
    std::array<TermList*, 3> m = {&a_, &b_, &c_};
    for (int i = 0; i < 3; ++i) {
      TermList& row = *m[i];
      // Insertion sort: rows are short (1 to 3 terms but for field rows).
      for (std::size_t j = 1; j < row.size(); ++j) {
        for (std::size_t i2 = j; i2 > 0 && row[i2 - 1].col > row[i2].col; --i2) std::swap(row[i2 - 1], row[i2]);
      }
      s.row_ptr[i][s.row] = s.base[i] + s.pos[i];
      if (s.pos[i] + row.size() > s.col[i].size()) internal_error("more non-zeros than planned");
      for (const Term& t : row) {
        s.col[i][s.pos[i]] = t.col;
        s.val[i][s.pos[i]] = t.val;
        ++s.pos[i];
        if (t.col >= col_begin_ && t.col < col_begin_ + k_.aux) {
          const u64 bit = t.col - col_begin_;
          if (i == 0) s.a_aux_bits[bit / 64] |= u64(1) << (bit % 64);
          if (i == 1) s.b_aux_bits[bit / 64] |= u64(1) << (bit % 64);
        }
        if (i == 1 && t.col == 0) s.one_in_b = true;
      }
    }
    ++s.row;
  }
  void clear_row() {
    a_.clear();
    b_.clear();
    c_.clear();
  }

  // b·b = b: free boolean number checks_done_ of the block.
  void check_row() {
    clear_row();
    const u32 b = local_free(checks_done_++);
    a_.add(b, one_);
    b_.add(b, one_);
    c_.add(b, one_);
    emit();
  }

  // x · ONE = x, on a variable not yet used in A when there is one.
  void recheck_row() {
    clear_row();
    const u32 x = bool_queued()    ? pop(bool_queue_, bool_head_)
                  : field_queued() ? pop(field_queue_, field_head_)
                                   : pick_bool();
    a_.add(x, one_);
    b_.add(0, one_);
    c_.add(x, one_);
    emit();
  }

  //   AND  x·y = z;   XOR  2x·y = x + y − z;   CH  x·(y − w) = z − w;   y, w free booleans.
  void gate_row(RowKind kind) {
    clear_row();
    const u32 x = bool_queued() && rand(4) != 0 ? pop(bool_queue_, bool_head_) : pick_bool();
    const u32 y = pick_free_except(x, x);
    const u32 z = new_dependent();
    bool v = false;
    switch (kind) {
      case RowKind::and_gate:
        a_.add(x, one_);
        b_.add(y, one_);
        c_.add(z, one_);
        if (values_) v = bit(x) && bit(y);
        break;
      case RowKind::xor_gate:
        a_.add(x, coeff_.pow2[1]);
        b_.add(y, one_);
        c_.add(x, one_);
        c_.add(y, one_);
        c_.add(z, coeff_.neg_pow2[0]);
        if (values_) v = bit(x) != bit(y);
        break;
      default: {
        const u32 w = pick_free_except(x, y);
        a_.add(x, one_);
        b_.add(y, one_);
        b_.add(w, coeff_.neg_pow2[0]);
        c_.add(z, one_);
        c_.add(w, coeff_.neg_pow2[0]);
        if (values_) v = bit(x) ? bit(y) : bit(w);
        break;
      }
    }
    if (values_) set_bit(z, v);
    emit();
    // Retired outputs (the block's share of aux absent from A) are never used again.
    const u64 g = gates_done_++, r = k_.retired, n = k_.gate_bools;
    if (split_prefix(r, g + 1, n) != split_prefix(r, g, n)) return;
    bools_.push_back(z);
    bool_queue_.push_back(z);
  }

  // z = (Σ cᵢ·vᵢ)·B − Σ w, B = ONE or the previous field value: a field value first, then the
  // bits and values not yet used in A (with 2^k / ±1 coefficients), then random earlier ones.
  void field_row() {
    clear_row();
    const u64 k = fields_done_++;
    const u64 terms = terms_left_ / fields_left_, extra_c = extra_c_left_ / fields_left_;
    terms_left_ -= terms;
    extra_c_left_ -= extra_c;
    --fields_left_;
    const bool last = fields_left_ == 0;
    const u64 sq = k_.field_in_b, n1 = k_.fields - 1;
    const bool in_b = k >= 1 && split_prefix(sq, k, n1) != split_prefix(sq, k - 1, n1);

    a_.add(field_queued() ? pop(field_queue_, field_head_) : pick_field(), field_coefficient());
    unsigned bit_pos = 0;
    while (a_.size() < terms) {
      if (bool_queued()) {
        a_.add(pop(bool_queue_, bool_head_), coeff_.pow2[bit_pos++ % 32]);
        continue;
      }
      if (field_queued()) {
        a_.add(pop(field_queue_, field_head_), sign(one_));
        continue;
      }
      for (int tries = 0;; ++tries) {
        if (tries == 256) internal_error("no distinct A term");
        // Mostly bits; a quarter field values; a public input now and then.
        const u64 r = rand(64);
        const bool input = r == 0 && ni_ > 1, field = !input && r < 16 && !fields_.empty();
        const u32 c = input ? static_cast<u32>(1 + rand(ni_ - 1)) : field ? pick_field() : pick_bool();
        if (a_.contains(c)) continue;
        a_.add(c, input || field ? sign(one_) : coeff_.pow2[bit_pos++ % 32]);
        break;
      }
    }
    const u32 b = in_b ? prev_field_ : 0;
    b_.add(b, one_);
    const u32 z = new_dependent();
    c_.add(z, one_);
    for (u64 i = 0; i < extra_c; ++i) {
      for (int tries = 0;; ++tries) {
        if (tries == 256) internal_error("no distinct C term");
        const u32 w = rand(4) == 0 ? pick_field() : pick_bool();
        if (c_.contains(w)) continue;
        c_.add(w, one_);
        break;
      }
    }
    if (values_) {
      Fr s = Fr{};
      for (const Term& t : a_) {
        const Fr v = value(t.col);
        if (v == one_) {
          s += t.val;
        } else if (!v.is_zero()) {
          s += t.val * v;
        }
      }
      if (b != 0) s *= value(b);
      for (std::size_t i = 1; i < c_.size(); ++i) s -= value(c_[i].col);
      set_value(z, s);
    }
    emit();
    prev_field_ = z;
    if (last) return;  // nothing follows the block's last row
    fields_.push_back(z);
    field_queue_.push_back(z);
  }

  const Plan& plan_;
  const Plan::Block k_;
  RowSink* rows_;
  const ValueSink* values_;
  ff::SeededRng rng_;
  const Coefficients& coeff_;
  const Fr one_;  // Fr::one() is a Montgomery multiplication when not folded at compile time
  const u64 ni_, col_begin_;

  std::vector<u32> bools_, fields_;            // variables a row may pick
  std::vector<std::uint8_t> bits_;             // boolean values by block offset (witness only)
  std::vector<u32> bool_queue_, field_queue_;  // defined and not yet used in A, oldest first
  std::size_t bool_head_ = 0, field_head_ = 0;
  u64 next_offset_ = 0, next_free_ = 0;  // column allocation within the block
  u64 checks_done_ = 0, gates_done_ = 0, fields_done_ = 0;
  u64 fields_left_ = 0, terms_left_ = 0, extra_c_left_ = 0;
  u32 prev_field_ = 0;
  TermList a_{MAX_FIELD_TERMS}, b_{2}, c_{MAX_EXTRA_C_TERMS + 3};
};

// ORs a block's local density bits (bit i = aux column first + i) into the shared bitmap;
// blocks share the words at their edges, hence the atomics. Set bits stay below num_aux,
// so the words touched are in range.
void merge_bits(std::vector<u64>& global, const std::vector<u64>& local, u64 first) {
  const u64 shift = first % 64;
  for (u64 i = 0; i < local.size(); ++i) {
    u64 w = local[i];
    if (w == 0) continue;
    const u64 g = first / 64 + i;
    std::atomic_ref<u64>(global[g]).fetch_or(w << shift, std::memory_order_relaxed);
    if (shift != 0 && (w >> (64 - shift)) != 0) {
      std::atomic_ref<u64>(global[g + 1]).fetch_or(w >> (64 - shift), std::memory_order_relaxed);
    }
  }
}

// The shared state of one generation: density bitmaps and the ONE-in-B flag.
struct Densities {
  explicit Densities(u64 num_aux)
      : a_aux(DensityBitmap::words_for(num_aux), 0), b_aux(DensityBitmap::words_for(num_aux), 0) {}
  std::vector<u64> a_aux, b_aux;
  std::atomic<bool> one_in_b{false};

  void merge(const Plan::Block& k, RowSink& s) {
    merge_bits(a_aux, s.a_aux_bits, k.aux_begin);
    merge_bits(b_aux, s.b_aux_bits, k.aux_begin);
    if (s.one_in_b) one_in_b.store(true, std::memory_order_relaxed);
  }
};

void reset_sink(RowSink& s, const Plan::Block& k) {
  s.pos = {};
  s.row = 0;
  s.one_in_b = false;
  s.a_aux_bits.assign(DensityBitmap::words_for(k.aux), 0);
  s.b_aux_bits.assign(DensityBitmap::words_for(k.aux), 0);
  s.base = k.nnz_begin;
}

// The input rows `input_i · 0 = 0` after the circuit rows: input_i in A, B and C empty.
void input_rows(const Plan& plan, std::span<u64> a_row_ptr, std::span<u32> a_col, std::span<Fr> a_val,
                std::span<u64> b_row_ptr, std::span<u64> c_row_ptr) {
  const u64 ni = plan.shape().num_inputs, a_circ = plan.a_nnz() - ni;
  for (u64 i = 0; i <= ni; ++i) {
    a_row_ptr[i] = a_circ + i;
    b_row_ptr[i] = plan.b_nnz();
    c_row_ptr[i] = plan.c_nnz();
  }
  for (u64 i = 0; i < ni; ++i) {
    a_col[i] = static_cast<u32>(i);
    a_val[i] = Fr::one();
  }
}

std::string errno_text() { return std::strerror(errno); }

// r1cs_file.hpp's snkhash64 of a file whose checksum field is still zero, read with pread
// one 2^20-byte hash block at a time: the same value as r1cs_file_checksum over a mapping,
// without mapping (and faulting in) the whole file. read_r1cs checks it in the tests.
u64 streamed_checksum(int fd, u64 size, const std::string& name) {
  constexpr u64 BLOCK = u64(1) << 20, P1 = 0x9e3779b185ebca87ULL, P2 = 0xc2b2ae3d27d4eb4fULL;
  const auto fmix = [](u64 x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
  };
  const u64 blocks = (size + BLOCK - 1) / BLOCK;
  std::vector<u64> hashes(blocks);
  tbb::enumerable_thread_specific<std::vector<u64>> buffers([] { return std::vector<u64>(BLOCK / 8); });
  tbb::parallel_for(tbb::blocked_range<u64>(0, blocks, 1), [&](const auto& range) {
    std::vector<u64>& buf = buffers.local();
    for (u64 i = range.begin(); i < range.end(); ++i) {
      const u64 begin = i * BLOCK, len = std::min(BLOCK, size - begin);
      auto* p = reinterpret_cast<std::uint8_t*>(buf.data());
      for (u64 got = 0; got < len;) {
        const ssize_t n = ::pread(fd, p + got, len - got, static_cast<off_t>(begin + got));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw R1csFileError(name, "checksum", begin + got, "read back failed: " + errno_text());
        got += static_cast<u64>(n);
      }
      std::array<u64, 4> v;
      for (u64 j = 0; j < 4; ++j) v[j] = fmix(4 * i + j + 1);
      for (u64 w = 0; w < len / 8; w += 4) {
        for (u64 j = 0; j < 4; ++j) v[j] = std::rotl(v[j] + buf[w + j] * P2, 31) * P1;
      }
      hashes[i] = fmix(std::rotl(v[0], 1) + std::rotl(v[1], 7) + std::rotl(v[2], 12) + std::rotl(v[3], 18) + len);
    }
  });
  u64 h = 0;
  for (const u64 bh : hashes) h = std::rotl(h ^ bh, 27) * P1 + P2;
  return fmix(h ^ size);
}

}  // namespace

// ---------------------------------------------------------------------------------------

SyntheticShape SyntheticShape::scaled(double s) const {
  if (!std::isfinite(s) || s <= 0) throw std::invalid_argument("scale must be a positive number");
  if (num_constraints < num_inputs) throw std::invalid_argument("num_constraints is less than num_inputs");
  SyntheticShape r = *this;
  r.num_aux = round_count(double(num_aux) * s, "scaled num_aux");
  r.num_constraints = round_count(double(circuit_constraints()) * s, "scaled num_constraints") + num_inputs;
  return r;
}

void SyntheticShape::validate() const { (void)Plan(*this); }

std::string SyntheticShape::describe() const {
  return std::to_string(num_constraints) + " constraints (incl. " + std::to_string(num_inputs) + " input rows), " +
         std::to_string(num_inputs) + " inputs, " + std::to_string(num_aux) + " aux, seed " + std::to_string(seed);
}

double parse_scale(const std::string& text) {
  const auto bad = [&]() {
    return std::invalid_argument("bad scale '" + text +
                                 "': expected a positive number or fraction like 1/1024 or 0.125");
  };
  const auto number = [&](const std::string& s) {
    std::size_t pos = 0;
    double x;
    try {
      x = std::stod(s, &pos);
    } catch (const std::exception&) {
      throw bad();
    }
    if (pos != s.size() || !std::isfinite(x) || x <= 0) throw bad();
    return x;
  };
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos) return number(text);
  return number(text.substr(0, slash)) / number(text.substr(slash + 1));
}

R1cs generate_synthetic_r1cs(const SyntheticShape& shape) {
  const Plan plan(shape);
  const u64 rows = shape.num_constraints, rc = plan.circuit_rows();
  R1cs r;
  r.num_inputs = shape.num_inputs;
  r.num_aux = shape.num_aux;
  r.num_constraints = rows;
  std::array<CsrMatrix*, 3> m = {&r.a, &r.b, &r.c};
  const std::array<u64, 3> nnz = {plan.a_nnz(), plan.b_nnz(), plan.c_nnz()};
  for (int i = 0; i < 3; ++i) {
    m[i]->row_ptr.resize(rows + 1);
    m[i]->col.resize(nnz[i]);
    m[i]->val.resize(nnz[i]);
  }
  Densities dens(shape.num_aux);
  tbb::enumerable_thread_specific<RowSink> sinks;
  tbb::parallel_for(tbb::blocked_range<u64>(0, plan.blocks(), 1), [&](const auto& range) {
    RowSink& s = sinks.local();
    for (u64 b = range.begin(); b < range.end(); ++b) {
      const Plan::Block k = plan.block(b);
      reset_sink(s, k);
      for (int i = 0; i < 3; ++i) {
        s.row_ptr[i] = std::span(m[i]->row_ptr).subspan(k.row_begin, k.rows);
        s.col[i] = std::span(m[i]->col).subspan(k.nnz_begin[i], k.nnz[i]);
        s.val[i] = std::span(m[i]->val).subspan(k.nnz_begin[i], k.nnz[i]);
      }
      BlockWalker(plan, b, &s, nullptr).run();
      dens.merge(k, s);
    }
  });
  const u64 a_circ = plan.a_nnz() - shape.num_inputs;
  input_rows(plan, std::span(r.a.row_ptr).subspan(rc), std::span(r.a.col).subspan(a_circ),
             std::span(r.a.val).subspan(a_circ), std::span(r.b.row_ptr).subspan(rc),
             std::span(r.c.row_ptr).subspan(rc));
  r.a_aux_density = DensityBitmap::from_words(shape.num_aux, std::move(dens.a_aux));
  r.b_aux_density = DensityBitmap::from_words(shape.num_aux, std::move(dens.b_aux));
  r.b_input_density = DensityBitmap(shape.num_inputs);
  if (dens.one_in_b) r.b_input_density.set(0);
  return r;
}

SyntheticStats measure_r1cs(const R1cs& r) {
  SyntheticStats s;
  s.num_constraints = r.num_constraints;
  s.num_inputs = r.num_inputs;
  s.num_aux = r.num_aux;
  s.a_nnz = r.a.nnz();
  s.b_nnz = r.b.nnz();
  s.c_nnz = r.c.nnz();
  s.a_aux_columns = r.a_aux_density.count();
  s.b_aux_columns = r.b_aux_density.count();
  s.b_input_columns = r.b_input_density.count();
  const CoefficientClassifier classifier;
  for (const CsrMatrix* m : {&r.a, &r.b, &r.c}) {
    const SyntheticStats part = tbb::parallel_reduce(
        tbb::blocked_range<u64>(0, m->nnz(), u64(1) << 16), SyntheticStats{},
        [&](const auto& range, SyntheticStats acc) {
          classifier.count(std::span(m->val).subspan(range.begin(), range.size()), acc);
          return acc;
        },
        [](SyntheticStats x, const SyntheticStats& y) {
          x.coeff_unit += y.coeff_unit;
          x.coeff_pow2 += y.coeff_pow2;
          x.coeff_other += y.coeff_other;
          return x;
        });
    s.coeff_unit += part.coeff_unit;
    s.coeff_pow2 += part.coeff_pow2;
    s.coeff_other += part.coeff_other;
  }
  return s;
}

SyntheticStats write_synthetic_r1cs(const std::filesystem::path& path, const SyntheticShape& shape,
                                    bool measure_coefficients) {
  const Plan plan(shape);
  const u64 rows = shape.num_constraints, rc = plan.circuit_rows(), ni = shape.num_inputs;
  const std::array<u64, 3> nnz = {plan.a_nnz(), plan.b_nnz(), plan.c_nnz()};
  const auto layout = r1cs_file_layout(ni, shape.num_aux, rows, nnz[0], nnz[1], nnz[2]);
  const std::string name = path.string();
  if (!layout) throw R1csFileError(name, "counts", 0, "the section sizes overflow 64 bits");

  static std::atomic<u64> serial{0};
  const std::filesystem::path tmp =
      name + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(serial.fetch_add(1));
  const std::string tmp_name = tmp.string();
  const int fd = ::open(tmp_name.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw R1csFileError(name, "file", 0, "cannot create " + tmp_name + ": " + errno_text());
  struct Cleanup {
    int fd;
    const std::filesystem::path& tmp;
    bool keep = false;
    ~Cleanup() {
      ::close(fd);
      if (!keep) {
        std::error_code ec;
        std::filesystem::remove(tmp, ec);
      }
    }
  } cleanup{fd, tmp};

  // The file at its final size: unwritten gaps read as the zero padding the format wants.
  if (::ftruncate(fd, static_cast<off_t>(layout->file_size)) != 0) {
    throw R1csFileError(name, "file", 0,
                        "cannot size to " + std::to_string(layout->file_size) + " bytes: " + errno_text());
  }
  const auto put = [&](const void* data, u64 size, u64 offset, const char* field) {
    const auto* p = static_cast<const std::uint8_t*>(data);
    while (size > 0) {
      const ssize_t n = ::pwrite(fd, p, std::min<u64>(size, u64(1) << 30), static_cast<off_t>(offset));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw R1csFileError(name, field, offset, "write failed: " + errno_text());
      p += n;
      size -= static_cast<u64>(n);
      offset += static_cast<u64>(n);
    }
  };
  using F = R1csField;
  const std::array<std::array<F, 3>, 3> sections = {
      {{F::a_row_ptr, F::a_col, F::a_val}, {F::b_row_ptr, F::b_col, F::b_val}, {F::c_row_ptr, F::c_col, F::c_val}}};
  const auto at = [&](F f, u64 index, u64 size) { return layout->section(f).offset + index * size; };

  // Per thread: one block's rows, written at their offsets once the block is done.
  struct Buffers {
    RowSink sink;
    std::array<std::vector<u64>, 3> row_ptr;
    std::array<std::vector<u32>, 3> col;
    std::array<std::vector<Fr>, 3> val;
    SyntheticStats coefficients;
  };
  Densities dens(shape.num_aux);
  tbb::enumerable_thread_specific<Buffers> buffers;
  const CoefficientClassifier classifier;
  tbb::parallel_for(tbb::blocked_range<u64>(0, plan.blocks(), 1), [&](const auto& range) {
    Buffers& buf = buffers.local();
    RowSink& s = buf.sink;
    for (u64 b = range.begin(); b < range.end(); ++b) {
      const Plan::Block k = plan.block(b);
      reset_sink(s, k);
      for (int i = 0; i < 3; ++i) {
        buf.row_ptr[i].resize(k.rows);
        buf.col[i].resize(k.nnz[i]);
        buf.val[i].resize(k.nnz[i]);
        s.row_ptr[i] = buf.row_ptr[i];
        s.col[i] = buf.col[i];
        s.val[i] = buf.val[i];
      }
      BlockWalker(plan, b, &s, nullptr).run();
      dens.merge(k, s);
      for (int i = 0; i < 3; ++i) {
        put(buf.row_ptr[i].data(), k.rows * 8, at(sections[i][0], k.row_begin, 8), "row_ptr");
        put(buf.col[i].data(), k.nnz[i] * 4, at(sections[i][1], k.nnz_begin[i], 4), "col");
        put(buf.val[i].data(), k.nnz[i] * 32, at(sections[i][2], k.nnz_begin[i], 32), "val");
        if (measure_coefficients) classifier.count(buf.val[i], buf.coefficients);
      }
    }
  });

  // The input rows and the final row_ptr entries.
  {
    std::vector<u64> a_ptr(ni + 1), b_ptr(ni + 1), c_ptr(ni + 1);
    std::vector<u32> a_col(ni);
    std::vector<Fr> a_val(ni);
    input_rows(plan, a_ptr, a_col, a_val, b_ptr, c_ptr);
    const u64 a_circ = nnz[0] - ni;
    put(a_ptr.data(), (ni + 1) * 8, at(F::a_row_ptr, rc, 8), "A.row_ptr");
    put(b_ptr.data(), (ni + 1) * 8, at(F::b_row_ptr, rc, 8), "B.row_ptr");
    put(c_ptr.data(), (ni + 1) * 8, at(F::c_row_ptr, rc, 8), "C.row_ptr");
    put(a_col.data(), ni * 4, at(F::a_col, a_circ, 4), "A.col");
    put(a_val.data(), ni * 32, at(F::a_val, a_circ, 32), "A.val");
  }
  const DensityBitmap a_aux = DensityBitmap::from_words(shape.num_aux, std::move(dens.a_aux));
  const DensityBitmap b_aux = DensityBitmap::from_words(shape.num_aux, std::move(dens.b_aux));
  DensityBitmap b_input(ni);
  if (dens.one_in_b) b_input.set(0);
  const auto put_density = [&](F f, const DensityBitmap& d) {
    put(d.words().data(), d.words().size() * 8, layout->section(f).offset, "density");
  };
  put_density(F::a_aux_density, a_aux);
  put_density(F::b_input_density, b_input);
  put_density(F::b_aux_density, b_aux);

  // The header as r1cs_file.hpp lays it out; the checksum over the finished image last.
  std::array<std::uint8_t, R1CS_FILE_HEADER_SIZE> header{};
  const auto store = [&](u64 offset, auto x) { std::memcpy(header.data() + offset, &x, sizeof x); };
  std::memcpy(header.data(), R1CS_FILE_MAGIC, sizeof(R1CS_FILE_MAGIC));
  store(8, R1CS_FILE_VERSION);
  store(12, static_cast<std::uint32_t>(R1CS_FILE_HEADER_SIZE));
  store(16, ni);
  store(24, shape.num_aux);
  store(32, rows);
  store(40, nnz[0]);
  store(48, nnz[1]);
  store(56, nnz[2]);
  store(64, layout->file_size);
  put(header.data(), header.size(), 0, "header");
  const u64 checksum = streamed_checksum(fd, layout->file_size, name);
  put(&checksum, 8, R1CS_FILE_CHECKSUM_OFFSET, "checksum");
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw R1csFileError(name, "file", 0, "cannot rename " + tmp_name + ": " + ec.message());
  cleanup.keep = true;

  SyntheticStats s;
  s.num_constraints = rows;
  s.num_inputs = ni;
  s.num_aux = shape.num_aux;
  s.a_nnz = nnz[0];
  s.b_nnz = nnz[1];
  s.c_nnz = nnz[2];
  s.a_aux_columns = a_aux.count();
  s.b_aux_columns = b_aux.count();
  s.b_input_columns = b_input.count();
  for (const Buffers& buf : buffers) {
    s.coeff_unit += buf.coefficients.coeff_unit;
    s.coeff_pow2 += buf.coefficients.coeff_pow2;
    s.coeff_other += buf.coefficients.coeff_other;
  }
  if (measure_coefficients) {
    // The input rows' A coefficients are ones.
    s.coeff_unit += ni;
  }
  return s;
}

namespace {
void fill_synthetic_inputs(std::uint64_t witness_seed, std::span<Fr> inputs) {
  inputs[0] = Fr::one();
  for (u64 i = 1; i < inputs.size(); ++i) {
    ff::SeededRng rng(mix64(mix64(witness_seed ^ 0x1a97e5ULL) + i));
    inputs[i] = Fr::random(rng);
  }
}
}  // namespace

void generate_synthetic_witness_chunks(
    const SyntheticShape& shape, std::uint64_t witness_seed, std::span<Fr> inputs, std::uint64_t chunk_values,
    const std::function<void(std::uint64_t aux_begin, std::span<const Fr> values)>& consume) {
  const Plan plan(shape);
  if (inputs.size() != shape.num_inputs)
    throw std::invalid_argument("synthetic witness: a buffer of " + std::to_string(inputs.size()) +
                                " inputs, the shape has " + std::to_string(shape.num_inputs));
  fill_synthetic_inputs(witness_seed, inputs);
  // Blocks are independent (each writes only its own columns): a chunk is a run of whole
  // blocks, generated in parallel into the scratch, then handed over in order.
  const u64 per_block = std::max<u64>(1, plan.block(0).aux);
  const u64 group = std::max<u64>(1, chunk_values / per_block);
  std::vector<Fr> scratch;
  for (u64 first = 0; first < plan.blocks(); first += group) {
    const u64 end = std::min(plan.blocks(), first + group);
    const u64 begin_col = plan.block(first).aux_begin;
    const Plan::Block last = plan.block(end - 1);
    const u64 n = last.aux_begin + last.aux - begin_col;
    scratch.resize(n);
    const ValueSink values{witness_seed, inputs, scratch, begin_col};
    tbb::parallel_for(tbb::blocked_range<u64>(first, end, 1), [&](const auto& range) {
      for (u64 b = range.begin(); b < range.end(); ++b) BlockWalker(plan, b, nullptr, &values).run();
    });
    consume(begin_col, std::span<const Fr>(scratch.data(), n));
  }
}

void generate_synthetic_witness_into(const SyntheticShape& shape, std::uint64_t witness_seed, std::span<Fr> inputs,
                                     std::span<Fr> aux) {
  const Plan plan(shape);
  if (inputs.size() != shape.num_inputs || aux.size() != shape.num_aux) {
    throw std::invalid_argument("synthetic witness: buffers of " + std::to_string(inputs.size()) + " inputs and " +
                                std::to_string(aux.size()) + " aux values, the shape has " +
                                std::to_string(shape.num_inputs) + " and " + std::to_string(shape.num_aux));
  }
  fill_synthetic_inputs(witness_seed, inputs);
  const ValueSink values{witness_seed, inputs, aux};
  tbb::parallel_for(tbb::blocked_range<u64>(0, plan.blocks(), 1), [&](const auto& range) {
    for (u64 b = range.begin(); b < range.end(); ++b) BlockWalker(plan, b, nullptr, &values).run();
  });
}

SyntheticWitness generate_synthetic_witness(const SyntheticShape& shape, std::uint64_t witness_seed) {
  shape.validate();  // before allocating what an invalid shape asks for
  SyntheticWitness w;
  w.inputs.resize(shape.num_inputs);
  w.aux.resize(shape.num_aux);
  generate_synthetic_witness_into(shape, witness_seed, w.inputs, w.aux);
  return w;
}

WitnessStats measure_witness(std::span<const Fr> values) {
  return tbb::parallel_reduce(
      tbb::blocked_range<u64>(0, values.size(), u64(1) << 16), WitnessStats{},
      [&, one = Fr::one()](const auto& range, WitnessStats acc) {
        for (u64 i = range.begin(); i < range.end(); ++i) {
          if (values[i].is_zero()) {
            ++acc.zeros;
          } else if (values[i] == one) {
            ++acc.ones;
          }
        }
        acc.total += range.size();
        return acc;
      },
      [](WitnessStats x, const WitnessStats& y) {
        x.zeros += y.zeros;
        x.ones += y.ones;
        x.total += y.total;
        return x;
      });
}

}  // namespace snarkpipe::circuit
