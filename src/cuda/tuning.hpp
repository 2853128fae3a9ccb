// Every compile-time tuning choice of the CUDA code, in one place. An A/B build overrides one
// with -D on the nvcc command line (bench/cuda/build_variant.sh); otherwise these defaults hold.
// Included before the field code, so a translation unit's choices are made before any kernel.
#pragma once

#include <cstdint>

// The Fp (384-bit) product called (__noinline__) instead of inlined: more instructions per
// product, a loop small enough for the instruction cache (src/cuda/mont.cuh says how much).
// Default: called in the MSM units (msm_g1.cu, msm_g2.cu define SNARKPIPE_MSM_UNIT), else inlined.
#ifndef SNARKPIPE_FP_MUL_CALLED
#ifdef SNARKPIPE_MSM_UNIT
#define SNARKPIPE_FP_MUL_CALLED 1
#else
#define SNARKPIPE_FP_MUL_CALLED 0
#endif
#endif

// Sorted MSM pairs per accumulation thread: longer halves the bucket sums, slows the accumulation.
#ifndef SNARKPIPE_MSM_SEGMENT
#define SNARKPIPE_MSM_SEGMENT 128
#endif

// G1 gathering kernels' blocks per SM: more blocks hide latency, fewer registers each (spills).
#ifndef SNARKPIPE_G1_GATHER_BLOCKS
#define SNARKPIPE_G1_GATHER_BLOCKS 3
#endif

namespace snarkpipe::cuda::tuning {

inline constexpr bool fp_mul_is_called = SNARKPIPE_FP_MUL_CALLED != 0;
inline constexpr uint32_t msm_segment = SNARKPIPE_MSM_SEGMENT;
inline constexpr int g1_gather_blocks = SNARKPIPE_G1_GATHER_BLOCKS;

}  // namespace snarkpipe::cuda::tuning
