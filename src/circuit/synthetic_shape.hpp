// A synthetic circuit with the exact shape of a Filecoin 32 GiB PoRep partition
// (REFERENCE.md §5), built directly as a recorded circuit (r1cs.hpp) — no
// constraint-by-constraint synthesis — together with satisfying witnesses.
//
// What "shape" means here, measured on the generated R1cs (measure_r1cs, measure_witness):
// rows, inputs, aux; non-zeros of A, B, C (exact: round(per_row × num_constraints));
// the A-aux and B-aux densities (exact up to a handful of variables per 2^16 rows); the
// fraction of aux values in {0, 1} (exact for every witness seed: it is structural); and
// coefficients that are almost all ±1 or ±2^k (k < 32), as bellperson's gadgets make them.
//
// Counting: num_constraints is the R1cs row count, i.e. the circuit's constraints PLUS the
// num_inputs input rows `input_i · 0 = 0` (r1cs.hpp). The default 130,278,869 is therefore
// 130,278,541 circuit constraints + 328 input rows, and the per-row ratios are over all
// 130,278,869 rows, as REFERENCE.md's non-zero counts are.
//
// The construction. Aux variables are of four kinds:
//   free booleans   value drawn from the witness seed; each has a check row b·b = b, which
//                   also puts it in B — they are most of the B-aux density;
//   gate booleans   z = x AND y   (x·y = z),  z = x XOR y  (2x·y = x + y − z),
//                   z = x ? y : w (x·(y − w) = z − w) — y, w free booleans (B side);
//   field values    z = (Σ cᵢ·vᵢ)·B − Σ w: packings of bits with 2^k coefficients mixed with
//                   field values and public inputs (±1, now and then a random constant);
//                   B is ONE, or the previous field value (which puts it in B);
//   rows that define nothing: the check rows above and `x · ONE = x` rechecks (the
//   constraints − inputs − aux surplus).
// So any witness seed gives a satisfying witness of the same R1cs: free booleans and public
// inputs are chosen per seed, every other value is computed from them row by row.
//
// Parallel and deterministic: rows are cut into blocks of 2^16; every per-block quantity
// (row count, aux count, non-zeros, kinds) is an exact integer split of the totals, so a
// block knows where its rows, columns and non-zeros go without looking at other blocks.
// Each block draws its structure from its own stream of the seed. A block's rows refer only
// to its own variables, the public inputs, and free booleans of any block (whose values are
// a hash of the witness seed and the column) — so witnesses are computed block-parallel too.
// The result is identical for any thread count.
#pragma once

#include <cstdint>
#include <functional>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "circuit/r1cs.hpp"

namespace snarkpipe::circuit {

struct SyntheticShape {
  // Defaults: one 32 GiB PoRep partition (REFERENCE.md §5).
  std::uint64_t num_constraints = 130'278'869;  // R1cs rows, including the num_inputs input rows
  std::uint64_t num_inputs = 328;               // including ONE
  std::uint64_t num_aux = 130'169'893;
  // Non-zeros per row, over all num_constraints rows: the totals are these times
  // num_constraints, rounded (309,405,051; 130,327,340; 282,656,500 for the default).
  double a_per_row = 309'405'051.0 / 130'278'869.0;
  double b_per_row = 130'327'340.0 / 130'278'869.0;
  double c_per_row = 282'656'500.0 / 130'278'869.0;
  // Fraction of aux columns with an entry in A / in B.
  double a_aux_density = 129'753'292.0 / 130'169'893.0;
  double b_aux_density = 33'112'281.0 / 130'169'893.0;
  // Fraction of aux variables whose value is 0 or 1 in every witness.
  double boolean_fraction = 0.9;
  std::uint64_t seed = 1;  // the circuit's structure (witness values have their own seed)

  // The same ratios at scale s > 0: circuit constraints (num_constraints − num_inputs) and
  // num_aux are multiplied by s and rounded; num_inputs stays (it is the statement's size,
  // and keeping circuit constraints ≥ aux needs the input rows left out of the scaling).
  // Throws std::invalid_argument for a non-positive or non-finite s.
  SyntheticShape scaled(double s) const;
  std::uint64_t circuit_constraints() const { return num_constraints - num_inputs; }
  // Throws std::invalid_argument naming the first parameter that makes the shape impossible.
  void validate() const;
  // "130278869 constraints (incl. 328 input rows), 328 inputs, 130169893 aux, seed 1".
  std::string describe() const;
};

// Parses a scale: "1/1024", "0.125", "1". Throws std::invalid_argument (naming the text).
double parse_scale(const std::string& text);

// The whole recorded circuit in memory (the full default shape needs ~26 GB). Multi-threaded;
// the same R1cs for any thread count. Throws std::invalid_argument for an invalid shape.
R1cs generate_synthetic_r1cs(const SyntheticShape& shape);

// What measure_r1cs counts, and what write_synthetic_r1cs reports for the file it wrote.
struct SyntheticStats {
  std::uint64_t num_constraints = 0, num_inputs = 0, num_aux = 0;
  std::uint64_t a_nnz = 0, b_nnz = 0, c_nnz = 0;
  std::uint64_t a_aux_columns = 0, b_aux_columns = 0, b_input_columns = 0;  // density bits set
  // Coefficients of all three matrices: ±1; ±2^k with 1 ≤ k < 64; anything else.
  std::uint64_t coeff_unit = 0, coeff_pow2 = 0, coeff_other = 0;
};
// Counts everything from the matrices and bitmaps themselves. Multi-threaded.
SyntheticStats measure_r1cs(const R1cs& r1cs);

// Writes the recorded circuit straight to an r1cs file (r1cs_file.hpp's format, read back by
// read_r1cs), block by block: memory use is a few blocks' worth plus the density bitmaps
// (~50 MB for the default shape), never the whole circuit. Atomic (temporary file, rename).
// With measure_coefficients the coefficient counts of the stats are filled (costs ~10 %).
// Returns the stats of what it wrote. Throws std::invalid_argument for an invalid shape and
// R1csFileError when the file cannot be written.
SyntheticStats write_synthetic_r1cs(const std::filesystem::path& path, const SyntheticShape& shape,
                                    bool measure_coefficients = false);

// A satisfying assignment: inputs[0] = ONE, then the public inputs; aux in column order.
struct SyntheticWitness {
  std::vector<Fr> inputs;
  std::vector<Fr> aux;
};

// A fresh satisfying witness of the circuit generate_synthetic_r1cs(shape) builds: the
// structure comes from shape.seed, the values from witness_seed (one per partition). Does
// not need the matrices; multi-threaded, identical for any thread count.
SyntheticWitness generate_synthetic_witness(const SyntheticShape& shape, std::uint64_t witness_seed);
// The same into caller-owned buffers (e.g. pinned memory) of num_inputs and num_aux values.
// Throws std::invalid_argument when a size is wrong.
void generate_synthetic_witness_into(const SyntheticShape& shape, std::uint64_t witness_seed, std::span<Fr> inputs,
                                     std::span<Fr> aux);

// The same witness in aux order, whole blocks of 2^16 rows at a time, through a scratch of
// about chunk_values values: consume(aux_begin, values) is called for each chunk in turn, so a
// caller can pack or stream a partition's 4.2 GB witness holding only the chunk. `inputs` as
// above (filled first).
void generate_synthetic_witness_chunks(
    const SyntheticShape& shape, std::uint64_t witness_seed, std::span<Fr> inputs, std::uint64_t chunk_values,
    const std::function<void(std::uint64_t aux_begin, std::span<const Fr> values)>& consume);

struct WitnessStats {
  std::uint64_t zeros = 0, ones = 0, total = 0;
};
WitnessStats measure_witness(std::span<const Fr> values);

}  // namespace snarkpipe::circuit
