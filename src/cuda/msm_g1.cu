#include "cuda/msm_impl.cuh"

namespace snarkpipe::cuda {
template class GpuMsm<ec::G1Curve>;
}  // namespace snarkpipe::cuda
