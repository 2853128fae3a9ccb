// An MSM unit: its Fp product called (cuda/tuning.hpp; gpu-notes item 57; G2's Fp2 square and
// mul_sub are made of Fp products, so calling the Fp square and mul_sub as well measured the same).
#define SNARKPIPE_MSM_UNIT
#include "cuda/msm_impl.cuh"

namespace snarkpipe::cuda {
template class GpuMsm<ec::G2Curve>;
}  // namespace snarkpipe::cuda
