// Fp products in this translation unit: the product called (gpu-notes item 57; G2's Fp2
// square and mul_sub are made of Fp products, so calling the Fp square and mul_sub as well
// measured the same).
#ifndef SNARKPIPE_FP_CALL  // (an A/B build may set another)
#define SNARKPIPE_FP_CALL 1
#endif
#include "cuda/msm_impl.cuh"

namespace snarkpipe::cuda {
template class GpuMsm<ec::G2Curve>;
}  // namespace snarkpipe::cuda
