// Benchmark inputs made on the device, so that 2^27-element inputs cost no host time:
// random field elements, and bases A[i mod 2^12] + B[i >> 12] from two small tables of
// points whose discrete logarithms the caller knows (so it can check the MSM's result).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "ec/curves.hpp"

namespace snarkpipe::cuda::bench {

inline constexpr unsigned TABLE_LO_BITS = 12;

// n random Fr in Montgomery form (never zero), from a seed.
void random_scalars(ff::Fr* d_out, std::size_t n, std::uint64_t seed, void* stream);

// d_out[i] = lo[i mod 2^12] + hi[i >> 12] in affine form, for i < n (lo has 2^12 points,
// hi at least ⌈n / 2^12⌉); the tables are copied to the device here.
template <class C>
void table_bases(ec::Affine<C>* d_out, std::size_t n, std::span<const ec::Affine<C>> lo,
                 std::span<const ec::Affine<C>> hi, void* stream);

// The number of i < n with a[i] != b[i] (device arrays of Fr).
std::size_t count_mismatches(const ff::Fr* d_a, const ff::Fr* d_b, std::size_t n, void* stream);

// Field and curve throughput: every thread runs four independent chains of `iters`
// dependent operations on random inputs (the results are stored, so nothing is elided).
// Returns the device milliseconds of one launch of `blocks`×256 threads, after a warm-up.
enum class RateOp { fr_mul, fp_mul, fp_sqr, fp2_mul, g1_add_affine };
float op_rate_ms(RateOp op, unsigned blocks, unsigned iters, void* stream);

}  // namespace snarkpipe::cuda::bench
