// Poseidon over Fr (BLS12-381's scalar field) with the x^5 S-box: parameters, the native
// permutation and hash, a native trace for the fast witness path, and the circuit gadget.
//
// Parameters (width t = arity + 1):
// - Round numbers as Filecoin's neptune chooses them: the smallest S-box count
//   t·R_F + R_P meeting the Poseidon paper's 128-bit inequalities (statistical, interpolation,
//   two Gröbner-basis bounds; n = 256 bits as neptune rounds it), then neptune's security
//   margin R_F + 2 and R_P · 1.075 rounded up. That gives R_F = 8 and R_P = 55, 56, 57, 57
//   for arities 2, 4, 8, 11 (neptune's own known values).
// - Round constants and MDS matrix from the Grain LFSR of the paper's reference script
//   (generate_parameters_grain), as @noble/curves' grainGenConstants does: an 80-bit state
//   seeded with field type 1 (2 bits), S-box 0 (4), field bits 255 (12), t (12), R_F (10),
//   R_P (10) and thirty 1s; taps 62, 51, 38, 23, 13, 0; 160 warm-up bits; output through the
//   shrinking generator. Round constants are 255-bit draws rejected when >= r; then the
//   Cauchy matrix M[i][j] = 1/(x_i + y_j) from 2t further draws reduced mod r. Like noble,
//   the first candidate matrix is taken (the script's extra invariant-subspace checks are
//   not run; a Cauchy matrix over distinct points is MDS).
//   These are not neptune's constants: neptune draws its round constants the same way but
//   builds its MDS matrix from fixed points (x_i = i, y_j = t + j) and the "optimized"
//   constant schedule, so its digests differ from ours.
// - Permutation: R_F/2 full rounds, R_P partial rounds (S-box on element 0), R_F/2 full
//   rounds; each adds the round constants, applies the S-boxes, then state ← M·state.
// - Hash of `arity` elements: permute [2^arity - 1, x_1, ..., x_arity] and keep element 1
//   (neptune's Merkle-tree domain tag and output position).
//
// The gadget keeps the state as affine forms over the S-box outputs and allocates only
// x^2, x^4, x^5 per S-box (3 constraints each); the constant tag's first S-box folds away.
// A hash costs 3·(t·R_F + R_P − 1) constraints: arity 2 234, arity 4 285, arity 8 384,
// arity 11 456.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "gadgets/aux_writer.hpp"
#include "gadgets/num.hpp"

namespace snarkpipe::gadgets {

struct PoseidonRoundNumbers {
  std::size_t full = 0;
  std::size_t partial = 0;
};

// neptune's round numbers for width t >= 2 (see above).
PoseidonRoundNumbers poseidon_round_numbers(std::size_t width);

struct PoseidonParams {
  std::size_t arity = 0;
  std::size_t width = 0;
  std::size_t full_rounds = 0;
  std::size_t partial_rounds = 0;
  std::vector<Fr> round_constants;  // (full + partial) rows of `width`, in round order
  std::vector<Fr> mds;              // width × width, row-major
  Fr domain_tag;                    // 2^arity − 1

  std::size_t rounds() const { return full_rounds + partial_rounds; }
  const Fr* round_constants_of(std::size_t round) const { return round_constants.data() + round * width; }
  const Fr& m(std::size_t row, std::size_t col) const { return mds[row * width + col]; }
};

inline constexpr std::size_t POSEIDON_MAX_ARITY = 32;

// Grain-LFSR parameters for the given round numbers (arity in 1..POSEIDON_MAX_ARITY, full
// rounds even; else std::invalid_argument).
PoseidonParams make_poseidon_params(std::size_t arity, PoseidonRoundNumbers rounds);
// The parameters for an arity with neptune's round numbers, generated once and kept.
const PoseidonParams& poseidon_params(std::size_t arity);

// S-boxes whose input is a variable, hence the gadget's constraints = 3 × this.
std::size_t poseidon_hash_sboxes(const PoseidonParams& p);
inline std::size_t poseidon_hash_constraints(const PoseidonParams& p) { return 3 * poseidon_hash_sboxes(p); }

namespace native {

// The permutation in place (state.size() == width, else std::invalid_argument).
void poseidon_permute(const PoseidonParams& p, std::span<Fr> state);
// The hash of arity elements (else std::invalid_argument).
Fr poseidon_hash(const PoseidonParams& p, std::span<const Fr> inputs);
// The hash, writing the values poseidon_hash_gadget allocates (x^2, x^4, x^5 per S-box in
// its order) when every input is a variable, as in the Merkle and column hashes.
Fr poseidon_hash_trace(const PoseidonParams& p, std::span<const Fr> inputs, AuxWriter& out);

}  // namespace native

// The hash in a circuit: `arity` inputs in, the output as a linear combination with its
// value (free to use; allocate it only where a variable is needed).
Num poseidon_hash_gadget(ConstraintSystem& cs, std::string_view name, const PoseidonParams& p,
                         std::span<const Num> inputs);

}  // namespace snarkpipe::gadgets
