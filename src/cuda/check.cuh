// Every CUDA runtime call goes through SNARKPIPE_CUDA_CHECK; every kernel launch is followed
// by SNARKPIPE_CUDA_CHECK_LAUNCH(). A failure throws CudaError naming the call and the reason.
// Tests may inject failures through fault_injection.hpp.
#pragma once

#include <cuda_runtime.h>

#include "cuda/error.hpp"
#include "cuda/fault_injection.hpp"

namespace snarkpipe::cuda {

[[noreturn]] inline void throw_cuda_error(const char* call, cudaError_t e, const char* file, int line) {
  throw CudaError(call, int(e), cudaGetErrorString(e), file, line);
}

}  // namespace snarkpipe::cuda

#define SNARKPIPE_CUDA_CHECK(call)                                                         \
  do {                                                                                     \
    cudaError_t snarkpipe_cuda_err_ = (call);                                              \
    if (snarkpipe_cuda_err_ == cudaSuccess && ::snarkpipe::cuda::fault_injection::fire())  \
      snarkpipe_cuda_err_ = cudaErrorLaunchFailure; /* a test's injected fault */          \
    if (snarkpipe_cuda_err_ != cudaSuccess)                                                \
      ::snarkpipe::cuda::throw_cuda_error(#call, snarkpipe_cuda_err_, __FILE__, __LINE__); \
  } while (0)

// Launch-configuration errors surface at once; faults inside the kernel at the next sync.
#define SNARKPIPE_CUDA_CHECK_LAUNCH() SNARKPIPE_CUDA_CHECK(cudaGetLastError())
