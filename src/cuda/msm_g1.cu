// Fp products in this translation unit: the product called, the square and mul_sub inlined (gpu-notes item 57).
#ifndef SNARKPIPE_FP_CALL  // (an A/B build may set another)
#define SNARKPIPE_FP_CALL 1
#endif
#include "cuda/msm_impl.cuh"

namespace snarkpipe::cuda {
template class GpuMsm<ec::G1Curve>;
}  // namespace snarkpipe::cuda
