// Fp products in this translation unit: every Fp product called (gpu-notes item 57).
#define SNARKPIPE_FP_CALL 7
#include "cuda/msm_impl.cuh"

namespace snarkpipe::cuda {
template class GpuMsm<ec::G2Curve>;
}  // namespace snarkpipe::cuda
