// Constraint evaluation against a witness: a = A·z, b = B·z, c = C·z with z = (inputs ‖ aux)
// (r1cs.hpp's column order), one value per constraint — the prover's a/b/c vectors
// (REFERENCE.md §4). Multi-threaded over blocks of rows with oneTBB; the three matrices are
// walked in the same pass so each block reads its slice of z while it is in cache.
//
// The R1cs must be well-formed (find_defect finds nothing): as recorded by
// RecordingConstraintSystem or read by read_r1cs. Vector lengths are checked (throwing
// std::invalid_argument), column bounds are not.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "circuit/r1cs.hpp"

namespace snarkpipe::circuit {

struct Evaluations {
  std::vector<Fr> a, b, c;  // num_constraints each
};

// inputs: num_inputs values, inputs[0] the constant 1; aux: num_aux values.
Evaluations evaluate(const R1cs& r1cs, std::span<const Fr> inputs, std::span<const Fr> aux);
// The same into caller-owned buffers of num_constraints entries each (pooled buffers).
void evaluate_into(const R1cs& r1cs, std::span<const Fr> inputs, std::span<const Fr> aux, std::span<Fr> a,
                   std::span<Fr> b, std::span<Fr> c);

// Whether a∘b = c on every row; when not, the first row where it fails.
struct Satisfaction {
  std::optional<std::uint64_t> first_failing_row;
  bool ok() const { return !first_failing_row; }
  explicit operator bool() const { return ok(); }
};
Satisfaction is_satisfied(const R1cs& r1cs, std::span<const Fr> inputs, std::span<const Fr> aux);

}  // namespace snarkpipe::circuit
