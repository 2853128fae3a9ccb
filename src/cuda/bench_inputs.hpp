// What `snarkpipe bench gpu` needs on the device besides the NTT and MSM engines.
// Inputs made on the device, so that 2^27-element inputs cost no host time: random field
// elements, and bases A[i mod 2^12] + B[i >> 12] from two small tables of points whose
// discrete logarithms the caller knows (so it can check the MSM's result). Also event
// timing, copies, the pointwise step of the H computation and the arithmetic rate kernels,
// so that the command itself needs no CUDA headers. Free of CUDA headers; in a build
// without nvcc every function throws CudaError (bench_inputs_none.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

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

// Device milliseconds of each of `runs` calls of f, which enqueues its work on `stream`:
// CUDA events recorded on `stream` around each call, after `warmup` untimed calls.
std::vector<float> time_on_stream(void* stream, unsigned warmup, unsigned runs, const std::function<void()>& f);

// The MSM of n device scalars against n bases kept in pinned host memory (copied there from
// d_bases first) and streamed through the device piece by piece, as the prover does with a
// host-resident key (BaseStreamer; piece_points = 0: its default of 2^25 G1 points, half as
// many G2): device milliseconds of each of `runs` calls after `warmup` untimed ones, from
// before the first piece's copy to the result; `result` is the last call's sum.
template <class C>
std::vector<float> host_streamed_msm_ms(const ec::Affine<C>* d_bases, const ff::Fr* d_scalars, std::size_t n,
                                        std::size_t piece_points, unsigned warmup, unsigned runs,
                                        ec::Jacobian<C>& result);

// Copies of `bytes` bytes ordered on `stream`: device to host returns when the data is
// there; device to device returns at once.
void copy_to_host(void* dst, const void* d_src, std::size_t bytes, void* stream);
void copy_on_device(void* d_dst, const void* d_src, std::size_t bytes, void* stream);

// The CUDA runtime this program was linked with and the newest the driver supports, as
// "13.0" (the driver's own version is in /proc/driver/nvidia/version).
std::string runtime_version();
std::string driver_api_version();

// Field and curve throughput: every thread runs independent chains (four of Fr or Fp
// products, two of Fp2 products, one of G1 additions) of `iters` dependent operations on
// random inputs (the results are stored, so nothing is elided).
// Returns the device milliseconds of one launch of `blocks`×256 threads on a stream of its
// own, after a warm-up launch.
enum class RateOp { fr_mul, fp_mul, fp_sqr, fp2_mul, g1_add_affine };
float op_rate_ms(RateOp op, unsigned blocks, unsigned iters);

}  // namespace snarkpipe::cuda::bench
