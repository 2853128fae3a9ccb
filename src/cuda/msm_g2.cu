#include "cuda/msm_impl.cuh"

namespace snarkpipe::cuda {
template class GpuMsm<ec::G2Curve>;
}  // namespace snarkpipe::cuda
