#include "circom/synthetic_circuit.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "circom/r1cs_build.hpp"
#include "ff/random.hpp"

namespace snarkpipe::circom {

namespace {

using ff::Fr;

// The window of recent wires most references go to (circom's templates wire neighbours).
constexpr std::uint64_t RECENT = 64;

class RowWriter {
 public:
  explicit RowWriter(std::uint64_t rows) {
    row_ptr_.reserve(rows + 1);
    row_ptr_.push_back(0);
  }
  void add(std::uint32_t wire, const Fr& coeff) { terms_.emplace_back(wire, coeff); }
  // Ends the row: terms sorted by wire, merged, zeros dropped (r1cs.hpp's invariants).
  void end_row() {
    std::sort(terms_.begin(), terms_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t i = 0; i < terms_.size();) {
      Fr sum = terms_[i].second;
      std::size_t j = i + 1;
      for (; j < terms_.size() && terms_[j].first == terms_[i].first; ++j) sum += terms_[j].second;
      if (!sum.is_zero()) {
        col_.push_back(terms_[i].first);
        val_.push_back(sum);
      }
      i = j;
    }
    terms_.clear();
    row_ptr_.push_back(col_.size());
  }
  Fr dot(const std::vector<Fr>& z) const {
    Fr acc;
    for (const auto& [w, c] : terms_) acc += c * z[w];
    return acc;
  }
  void move_into(circuit::CsrMatrix& m) {
    m.row_ptr = std::move(row_ptr_);
    m.col = std::move(col_);
    m.val = std::move(val_);
  }

 private:
  std::vector<std::pair<std::uint32_t, Fr>> terms_;
  std::vector<std::uint64_t> row_ptr_;
  std::vector<std::uint32_t> col_;
  std::vector<Fr> val_;
};

Fr nonzero_random(ff::SeededRng& rng) {
  for (;;) {
    const Fr x = Fr::random(rng);
    if (!x.is_zero()) return x;
  }
}

// 1 half of the time, else ±2..±16 or a uniform non-zero element.
Fr coefficient(ff::SeededRng& rng) {
  const std::uint64_t pick = rng.next_u64();
  switch (pick % 4) {
    case 2: {
      const Fr small = Fr::from_u64(2 + (pick >> 8) % 15);
      return (pick >> 16) & 1 ? -small : small;
    }
    case 3:
      return nonzero_random(rng);
    default:
      return Fr::one();
  }
}

}  // namespace

void CircomSyntheticShape::validate() const {
  const std::uint64_t inputs = std::uint64_t(public_outputs) + public_inputs + 1;
  if (private_inputs == 0)
    throw std::invalid_argument("the circuit needs at least one private input (the chain's start)");
  if (rows < inputs + public_outputs + 1)
    throw std::invalid_argument(std::to_string(rows) + " rows leave no room for a chain beside the " +
                                std::to_string(inputs) + " input rows and the " + std::to_string(public_outputs) +
                                " output constraints (at least " + std::to_string(inputs + public_outputs + 1) + ")");
  const std::uint64_t wires = inputs + private_inputs + circom_constraints() - public_outputs;
  if (wires > 0xffffffffu)
    throw std::invalid_argument(std::to_string(wires) + " wires do not fit circom's 32-bit wire numbers");
}

CircomSyntheticCircuit make_circom_synthetic(const CircomSyntheticShape& shape) {
  shape.validate();
  ff::SeededRng rng(shape.seed);
  const std::uint64_t outputs = shape.public_outputs, constraints = shape.circom_constraints();
  const std::uint64_t chain = constraints - outputs;
  const std::uint64_t first_public_input = 1 + outputs, first_private = first_public_input + shape.public_inputs;
  const std::uint64_t first_internal = first_private + shape.private_inputs;
  const std::uint64_t wires = first_internal + chain;

  CircomSyntheticCircuit out;
  CircomR1cs& c = out.circuit;
  c.num_wires = std::uint32_t(wires);
  c.num_public_outputs = shape.public_outputs;
  c.num_public_inputs = shape.public_inputs;
  c.num_private_inputs = shape.private_inputs;
  c.num_labels = wires;
  c.num_constraints = std::uint32_t(constraints);

  std::vector<Fr>& z = out.witness;
  z.assign(wires, Fr::zero());
  z[0] = Fr::one();
  for (std::uint64_t w = first_public_input; w < first_internal; ++w) z[w] = Fr::random(rng);

  // An earlier wire for constraint k: an input or one of s_0..s_{k-1} (outputs are known
  // only at the end, ONE comes in as a constant term).
  auto earlier = [&](std::uint64_t k) {
    const std::uint64_t available = first_internal + k - first_public_input;
    const std::uint64_t r = rng.next_u64();
    const std::uint64_t back = r % 4 != 0 ? 1 + (r >> 2) % std::min(available, RECENT) : 1 + (r >> 2) % available;
    return std::uint32_t(first_internal + k - back);
  };

  const std::uint64_t rows = constraints + shape.public_outputs + shape.public_inputs + 1;
  RowWriter a(rows), b(rows), cm(rows);
  for (std::uint64_t k = 0; k < chain; ++k) {
    a.add(std::uint32_t(k == 0 ? first_private : first_internal + k - 1), Fr::one());
    if (k < shape.public_inputs) a.add(std::uint32_t(first_public_input + k), coefficient(rng));
    else if (const std::uint64_t p = k - shape.public_inputs + 1; p < shape.private_inputs)
      a.add(std::uint32_t(first_private + p), coefficient(rng));
    if (rng.next_u64() % 2 == 0) a.add(earlier(k), coefficient(rng));
    b.add(earlier(k), coefficient(rng));
    if (rng.next_u64() % 8 == 0) b.add(0, coefficient(rng));
    const std::uint32_t s = std::uint32_t(first_internal + k);
    Fr value = a.dot(z) * b.dot(z);
    cm.add(s, Fr::one());
    if (rng.next_u64() % 4 == 0) {
      const std::uint32_t w = earlier(k);
      const Fr coeff = -coefficient(rng);
      cm.add(w, coeff);
      value -= coeff * z[w];
    }
    z[s] = value;
    a.end_row();
    b.end_row();
    cm.end_row();
  }
  for (std::uint64_t o = 0; o < outputs; ++o) {
    const std::uint64_t source = first_internal + chain - 1 - o % chain;
    a.add(std::uint32_t(source), Fr::one());
    b.add(0, Fr::one());
    cm.add(std::uint32_t(1 + o), Fr::one());
    z[1 + o] = z[source];
    a.end_row();
    b.end_row();
    cm.end_row();
  }

  circuit::R1cs& r = c.r1cs;
  r.num_inputs = first_public_input + shape.public_inputs;
  r.num_aux = wires - r.num_inputs;
  a.move_into(r.a);
  b.move_into(r.b);
  cm.move_into(r.c);
  append_input_rows(r);
  if (const auto d = circuit::find_defect(r))
    throw std::logic_error("internal error: the synthetic circom circuit breaks an invariant: " + d->problem);
  return out;
}

}  // namespace snarkpipe::circom
