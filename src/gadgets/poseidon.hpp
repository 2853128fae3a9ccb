// Poseidon over Fr (BLS12-381's scalar field) with the x^5 S-box, exactly as Filecoin's
// neptune computes it (Strength::Standard, HashType::MerkleTree): parameters, the native
// permutation (neptune's optimised schedule, and the textbook one as the reference), the hash,
// a native trace for the fast witness path, and the circuit gadget in neptune's form.
//
// Parameters (width t = arity + 1), as neptune builds them:
// - Round numbers (round_numbers.rs): the smallest S-box count t·R_F + R_P meeting the
//   Poseidon paper's 128-bit inequalities (statistical, interpolation, two Gröbner-basis
//   bounds; n = 256 bits as neptune rounds it, single-precision floats), then the security
//   margin R_F + 2 and R_P · 1.075 rounded up. R_F = 8 and R_P = 55, 56, 57, 57, 59, 59, 60 for
//   arities 2, 4, 8, 11, 16, 24, 36.
// - Round constants (round_constants.rs, the paper's generate_parameters_grain): an 80-bit
//   Grain LFSR seeded with field 1 (2 bits), S-box 1 (4 bits: neptune's code for x^5), field
//   bits 255 (12), t (12), R_F (10), R_P (10) and thirty 1s; taps 62, 51, 38, 23, 13, 0; 160
//   warm-up bits; output bits through the self-shrinking rule (of each pair, the second bit
//   when the first is 1); each constant is the next 255 bits, most significant first, drawn
//   again while >= r; t per round, (R_F + R_P)·t in all.
// - MDS matrix (mds.rs generate_mds): the Cauchy matrix M[i][j] = 1/(x_i + y_j) with
//   x_i = i, y_j = t + j, i.e. 1/(i + j + t); symmetric, so state·M = M·state.
// - Hash of `arity` elements: the state [2^arity − 1 (the domain tag), x_1, ..., x_arity],
//   permuted; the digest is element 1.
// - Permutation (neptune's hash_correct, here poseidon_permute_reference): R_F/2 full rounds,
//   R_P partial rounds (S-box on element 0 only), R_F/2 full rounds; each adds its round
//   constants, applies the S-boxes, then state ← M·state.
// - Neptune's optimised schedule (preprocessing.rs, mds.rs; here poseidon_permute, the fast
//   path): the round constants compressed (each round's constants pushed back through M^-1 so
//   that they are added after the S-boxes; in the partial rounds only one constant per round
//   survives), t·R_F + R_P of them; and the partial rounds' matrices factored into a dense
//   "pre-sparse" matrix applied after the last first-half full round and R_P sparse matrices
//   (dense first row and column, identity elsewhere), one per partial round. Same output as
//   the textbook permutation for every state (tested).
//
// The gadget is neptune's circuit.rs (`poseidon_hash`, the circuit Filecoin's
// filecoin-hashers uses, kept by neptune "for backwards compatibility with extant trusted
// setups"), constraint for constraint:
// - first round: the tag's S-box is a constant; each input x_i (a linear combination) costs
//   (x_i + c)² = l2, l2² = l4, (x_i + c)·l4 = l5 − c' (c, c' its pre and post round keys);
// - every later S-box first allocates its input, a linear combination of the previous S-box
//   outputs, as a variable u (lc · 1 = u), then u·u = l2, l2·l2 = l4, u·l4 = l5 − c'
//   (c' absent in the last round);
// - the digest, element 1, is allocated too (lc · 1 = out).
// That is 3·(t·R_F + R_P − 1) S-box constraints plus (t·R_F + R_P − arity) allocations:
// 311, 377, 505, 598, 761, 1009, 1385 constraints for arities 2, 4, 8, 11, 16, 24, 36
// (neptune's circuit.rs test values), one aux variable per constraint.
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

  // neptune's optimised schedule.
  std::vector<Fr> compressed_round_constants;  // width · full + partial
  std::vector<Fr> pre_sparse;                  // width × width, row-major: state'[j] = Σ_i P[i][j]·state[i]
  std::vector<Fr> sparse_w_hat;                // per partial round, width: state'[0] = Σ_i w[i]·state[i]
  std::vector<Fr> sparse_v_rest;  // per partial round, width − 1: state'[j] = state[j] + v[j−1]·state[0]

  std::size_t rounds() const { return full_rounds + partial_rounds; }
  const Fr* round_constants_of(std::size_t round) const { return round_constants.data() + round * width; }
  const Fr& m(std::size_t row, std::size_t col) const { return mds[row * width + col]; }
  const Fr& p(std::size_t row, std::size_t col) const { return pre_sparse[row * width + col]; }
  const Fr* w_hat(std::size_t partial_round) const { return sparse_w_hat.data() + partial_round * width; }
  const Fr* v_rest(std::size_t partial_round) const { return sparse_v_rest.data() + partial_round * (width - 1); }
};

inline constexpr std::size_t POSEIDON_MAX_ARITY = 36;  // neptune's largest

// neptune's parameters for the given round numbers (arity in 1..POSEIDON_MAX_ARITY, full
// rounds even and >= 2, partial rounds >= 1; else std::invalid_argument).
PoseidonParams make_poseidon_params(std::size_t arity, PoseidonRoundNumbers rounds);
// The parameters for an arity with neptune's round numbers, generated once and kept.
const PoseidonParams& poseidon_params(std::size_t arity);

// S-boxes whose input is a variable (all but the tag's in the first round).
std::size_t poseidon_hash_sboxes(const PoseidonParams& p);
// The gadget's constraints (= its aux variables): 3 per S-box above, one allocation per
// S-box input after the first round, one for the digest.
inline std::size_t poseidon_hash_constraints(const PoseidonParams& p) {
  return 3 * poseidon_hash_sboxes(p) + (p.width * p.full_rounds + p.partial_rounds - p.arity);
}

namespace native {

// The permutation in place (state.size() == width, else std::invalid_argument): neptune's
// optimised schedule, and the textbook one.
void poseidon_permute(const PoseidonParams& p, std::span<Fr> state);
void poseidon_permute_reference(const PoseidonParams& p, std::span<Fr> state);
// The hash of arity elements (else std::invalid_argument), through either permutation.
Fr poseidon_hash(const PoseidonParams& p, std::span<const Fr> inputs);
Fr poseidon_hash_reference(const PoseidonParams& p, std::span<const Fr> inputs);
// The hash, writing the values poseidon_hash_gadget allocates, in its order (first round:
// l2, l4, l5 per input; then u, l2, l4, l5 per S-box; then the digest).
Fr poseidon_hash_trace(const PoseidonParams& p, std::span<const Fr> inputs, AuxWriter& out);

}  // namespace native

// The hash in a circuit: `arity` inputs in (any linear combinations), the digest out as an
// allocated variable (returned as a Num over it, with its value).
Num poseidon_hash_gadget(ConstraintSystem& cs, std::string_view name, const PoseidonParams& p,
                         std::span<const Num> inputs);

}  // namespace snarkpipe::gadgets
