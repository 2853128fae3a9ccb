// The GPUs this process can see. Works in every build: without CUDA compiled in, or on a
// machine without a driver or device, the list is empty and why_no_devices() says why.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace snarkpipe::cuda {

struct DeviceInfo {
  int index = 0;
  std::string name;
  std::size_t total_memory = 0;
  int major = 0, minor = 0;
  int sm_count = 0;
};

bool compiled_with_cuda();
std::vector<DeviceInfo> list_devices();
std::string why_no_devices();
// The memory free on a device now (cudaMemGetInfo; 0 without the device). It makes the
// device's context current: a query for reports, not for the steady state.
std::size_t device_free_memory(int device);

}  // namespace snarkpipe::cuda
