// An MSM unit: its Fp product called, the square and mul_sub inlined (cuda/tuning.hpp; gpu-notes item 57).
#define SNARKPIPE_MSM_UNIT
#include "cuda/msm_impl.cuh"

namespace snarkpipe::cuda {
template class GpuMsm<ec::G1Curve>;
}  // namespace snarkpipe::cuda
