// The build without CUDA: no devices, and the reason says so.
#include "cuda/device_info.hpp"

namespace snarkpipe::cuda {

bool compiled_with_cuda() { return false; }
std::vector<DeviceInfo> list_devices() { return {}; }
std::string why_no_devices() { return "this build has no CUDA support (nvcc was not found at configure time)"; }

std::size_t device_free_memory(int) { return 0; }

}  // namespace snarkpipe::cuda
