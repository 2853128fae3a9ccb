#include <cuda_runtime.h>

#include "cuda/device_info.hpp"

namespace snarkpipe::cuda {

bool compiled_with_cuda() { return true; }

std::vector<DeviceInfo> list_devices() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device / no driver" error
    return {};
  }
  std::vector<DeviceInfo> out;
  for (int i = 0; i < n; ++i) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
    out.push_back({i, p.name, p.totalGlobalMem, p.major, p.minor, p.multiProcessorCount});
  }
  return out;
}

std::string why_no_devices() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return cudaGetErrorString(e);
  }
  return n == 0 ? "the driver reports no devices" : "devices present";
}

std::size_t device_free_memory(int device) {
  std::size_t free_bytes = 0, total = 0;
  if (cudaSetDevice(device) != cudaSuccess || cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return free_bytes;
}

}  // namespace snarkpipe::cuda
