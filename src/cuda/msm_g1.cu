// Fp products in this translation unit: the product called, the square and mul_sub inlined (gpu-notes item 57).
#define SNARKPIPE_FP_CALL 1
#include "cuda/msm_impl.cuh"

namespace snarkpipe::cuda {
template class GpuMsm<ec::G1Curve>;
}  // namespace snarkpipe::cuda
