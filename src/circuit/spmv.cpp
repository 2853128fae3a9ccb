#include "circuit/spmv.hpp"

#include <atomic>
#include <limits>
#include <stdexcept>
#include <string>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace snarkpipe::circuit {

namespace {

// Rows per task: enough work to amortize scheduling, small enough to balance on many cores.
constexpr std::size_t ROW_GRAIN = 4096;

struct Witness {
  const Fr* inputs;
  std::uint64_t num_inputs;
  const Fr* aux;

  const Fr& operator[](std::uint32_t col) const { return col < num_inputs ? inputs[col] : aux[col - num_inputs]; }
};

// Limb-wise equality: Fr's operator== compares arrays through a memcmp call, which costs
// more than the additions in this loop.
inline bool same(const Fr& a, const Fr& b) {
  const auto& x = a.montgomery();
  const auto& y = b.montgomery();
  return ((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3])) == 0;
}

// ⟨row r of m, z⟩. Gadget circuits are dominated by ±1 coefficients and by witness values
// 0 and 1 (bits): a 0 value is skipped, a ±1 coefficient costs an addition, another
// coefficient is added for a 1 and multiplied only otherwise. (Measured on porep-like:
// 2× faster than a multiplication per non-±1 term; skipping zeros first beats adding them
// branch-free, and so does the field's addition over a register-only one.)
inline Fr row_dot(const CsrMatrix& m, std::uint64_t r, const Witness& z) {
  static constexpr Fr one = Fr::one();
  static constexpr Fr minus_one = -Fr::one();
  Fr acc = Fr::zero();
  const std::uint64_t end = m.row_ptr[r + 1];
  for (std::uint64_t k = m.row_ptr[r]; k < end; ++k) {
    const Fr& x = z[m.col[k]];
    if (x.is_zero()) continue;
    const Fr& coeff = m.val[k];
    if (same(coeff, one)) {
      acc += x;
    } else if (same(coeff, minus_one)) {
      acc -= x;
    } else {
      acc += same(x, one) ? coeff : coeff * x;
    }
  }
  return acc;
}

Witness check_witness(const R1cs& r1cs, std::span<const Fr> inputs, std::span<const Fr> aux) {
  if (inputs.size() != r1cs.num_inputs || aux.size() != r1cs.num_aux) {
    throw std::invalid_argument("spmv: witness has " + std::to_string(inputs.size()) + " inputs and " +
                                std::to_string(aux.size()) + " aux values, the R1CS expects " +
                                std::to_string(r1cs.num_inputs) + " and " + std::to_string(r1cs.num_aux));
  }
  return {inputs.data(), r1cs.num_inputs, aux.data()};
}

}  // namespace

void evaluate_into(const R1cs& r1cs, std::span<const Fr> inputs, std::span<const Fr> aux, std::span<Fr> a,
                   std::span<Fr> b, std::span<Fr> c) {
  const Witness z = check_witness(r1cs, inputs, aux);
  const std::uint64_t n = r1cs.num_constraints;
  if (a.size() != n || b.size() != n || c.size() != n) {
    throw std::invalid_argument("spmv: output buffers must hold num_constraints = " + std::to_string(n) + " values");
  }
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, n, ROW_GRAIN), [&](const auto& range) {
    for (std::uint64_t r = range.begin(); r < range.end(); ++r) {
      a[r] = row_dot(r1cs.a, r, z);
      b[r] = row_dot(r1cs.b, r, z);
      c[r] = row_dot(r1cs.c, r, z);
    }
  });
}

Evaluations evaluate(const R1cs& r1cs, std::span<const Fr> inputs, std::span<const Fr> aux) {
  check_witness(r1cs, inputs, aux);
  Evaluations e;
  e.a.resize(r1cs.num_constraints);
  e.b.resize(r1cs.num_constraints);
  e.c.resize(r1cs.num_constraints);
  evaluate_into(r1cs, inputs, aux, e.a, e.b, e.c);
  return e;
}

Satisfaction is_satisfied(const R1cs& r1cs, std::span<const Fr> inputs, std::span<const Fr> aux) {
  const Witness z = check_witness(r1cs, inputs, aux);
  constexpr std::uint64_t none = std::numeric_limits<std::uint64_t>::max();
  std::atomic<std::uint64_t> first{none};
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, r1cs.num_constraints, ROW_GRAIN), [&](const auto& range) {
    for (std::uint64_t r = range.begin(); r < range.end(); ++r) {
      if (r >= first.load(std::memory_order_relaxed)) return;
      if (!same(row_dot(r1cs.a, r, z) * row_dot(r1cs.b, r, z), row_dot(r1cs.c, r, z))) {
        std::uint64_t cur = first.load(std::memory_order_relaxed);
        while (r < cur && !first.compare_exchange_weak(cur, r, std::memory_order_relaxed)) {}
        return;
      }
    }
  });
  const std::uint64_t f = first.load();
  return f == none ? Satisfaction{} : Satisfaction{f};
}

}  // namespace snarkpipe::circuit
