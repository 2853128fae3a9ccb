// Errors from the CUDA runtime, as exceptions that name the call and the runtime's reason.
// Host-only and free of CUDA headers, so code built without nvcc can catch them.
#pragma once

#include <stdexcept>
#include <string>

namespace snarkpipe::cuda {

class CudaError : public std::runtime_error {
 public:
  CudaError(std::string call, int code, const std::string& reason, const char* file, int line)
      : std::runtime_error(call + " failed: " + reason + " (cudaError " + std::to_string(code) + ", " + file + ":" +
                           std::to_string(line) + ")"),
        call_(std::move(call)),
        code_(code) {}
  const std::string& call() const { return call_; }
  int code() const { return code_; }

 private:
  std::string call_;
  int code_;
};

}  // namespace snarkpipe::cuda
