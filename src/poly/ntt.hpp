// Number-theoretic transforms over Fr on an EvaluationDomain of size m = 2^k (DESIGN.md §2).
//
// With ω = domain.omega(), g = domain.g() = 7 and natural indices:
//   ntt:         A_j = Σ_i a_i·ω^(ij)                 coefficients → evaluations a(ω^j)
//   intt:        a_i = m^-1 · Σ_j A_j·ω^(-ij)         evaluations a(ω^j) → coefficients
//   coset_ntt:   A_j = Σ_i (a_i·g^i)·ω^(ij)           coefficients → evaluations a(g·ω^j)
//   icoset_ntt:  a_i = g^-i · m^-1 · Σ_j A_j·ω^(-ij)   evaluations a(g·ω^j) → coefficients
//
// Orderings: Order::Natural holds element i at position i; Order::BitReversed holds element i
// at position bitrev_k(i) (the k-bit reversal of i). `in` says how the span holds its input,
// `out` how it is to hold the result; every combination is supported, in place.
//
// Cost: the transforms are a decimation-in-frequency pass (natural in, bit-reversed out) or a
// decimation-in-time pass (bit-reversed in, natural out), plus a bit-reversal permutation
// (about one pass over memory, no field multiplications) where the orderings ask for one:
//   ntt, intt:    Natural→BitReversed and BitReversed→Natural need none, the others one.
//   coset_ntt:    BitReversed→Natural needs none; Natural→Natural and BitReversed→BitReversed
//                 one; Natural→BitReversed two.
//   icoset_ntt:   Natural→BitReversed needs none; Natural→Natural and BitReversed→BitReversed
//                 one; BitReversed→Natural two.
//   The coset shift is folded into the twiddle factors: no pass of its own, but no twiddle is
//   exactly one any more, so a coset transform does ~10% more multiplications than a plain one.
//   intt and icoset_ntt multiply by m^-1 (one multiplication per element, in cache).
//
// Threads: the transforms run on the calling thread's oneTBB arena; to cap one at k threads,
// call it inside tbb::task_arena(k).execute(...). Concurrent calls on different spans are safe.
// Twiddle factors come from tables that are built once per stage size and shared by every
// domain (about 16 MiB in all once 2^28 has been used), so nothing is recomputed per call.
#pragma once

#include <cstddef>
#include <span>

#include "poly/domain.hpp"

namespace snarkpipe::poly {

enum class Order { Natural, BitReversed };

// Each throws std::invalid_argument when values.size() != domain.m().
void ntt(std::span<Fr> values, const EvaluationDomain& domain, Order in = Order::Natural, Order out = Order::Natural);
void intt(std::span<Fr> values, const EvaluationDomain& domain, Order in = Order::Natural, Order out = Order::Natural);
void coset_ntt(std::span<Fr> values, const EvaluationDomain& domain, Order in = Order::Natural,
               Order out = Order::Natural);
void icoset_ntt(std::span<Fr> values, const EvaluationDomain& domain, Order in = Order::Natural,
                Order out = Order::Natural);

// Swaps the elements at positions i and bitrev_k(i); the size must be a power of two
// (std::invalid_argument otherwise). Cache-blocked and multi-threaded.
void bit_reverse_permute(std::span<Fr> values);

// The blocking of the transforms (for benchmarks and tests; the defaults suit a core with a
// 512 KiB-2 MiB L2). A transform of 2^k > 2^block_log elements does its first (DIF) or last
// (DIT) k - block_log stages on groups of columns of the 2^(k-block_log) × 2^block_log matrix
// the data forms, gathered into a scratch buffer of about group_elements elements, and the
// other stages on contiguous blocks of 2^block_log elements. block_log is clamped to 1..14.
struct NttConfig {
  unsigned block_log = 12;
  std::size_t group_elements = std::size_t(1) << 12;
};
// Not synchronized with transforms in flight: set it before starting them.
void set_ntt_config(const NttConfig& config);
NttConfig ntt_config();

}  // namespace snarkpipe::poly
