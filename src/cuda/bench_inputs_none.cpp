// The benchmark's device helpers in a build without nvcc: each says so. `snarkpipe bench gpu`
// exits before calling them (no devices are listed), but it links against them.
#include "cuda/bench_inputs.hpp"
#include "cuda/error.hpp"

namespace snarkpipe::cuda::bench {

namespace {

[[noreturn]] void not_built(const char* what) {
  throw CudaError(what, 35, "this snarkpipe was built without CUDA (no nvcc found at configure time)", __FILE__,
                  __LINE__);
}

}  // namespace

void random_scalars(ff::Fr*, std::size_t, std::uint64_t, void*) { not_built("random_scalars"); }

template <class C>
void table_bases(ec::Affine<C>*, std::size_t, std::span<const ec::Affine<C>>, std::span<const ec::Affine<C>>, void*) {
  not_built("table_bases");
}
template void table_bases<ec::G1Curve>(ec::Affine<ec::G1Curve>*, std::size_t, std::span<const ec::Affine<ec::G1Curve>>,
                                       std::span<const ec::Affine<ec::G1Curve>>, void*);
template void table_bases<ec::G2Curve>(ec::Affine<ec::G2Curve>*, std::size_t, std::span<const ec::Affine<ec::G2Curve>>,
                                       std::span<const ec::Affine<ec::G2Curve>>, void*);

std::size_t count_mismatches(const ff::Fr*, const ff::Fr*, std::size_t, void*) { not_built("count_mismatches"); }
std::vector<float> time_on_stream(void*, unsigned, unsigned, const std::function<void()>&) {
  not_built("time_on_stream");
}
template <class C>
std::vector<float> host_streamed_msm_ms(const ec::Affine<C>*, const ff::Fr*, std::size_t, std::size_t, unsigned,
                                        unsigned, ec::Jacobian<C>&) {
  not_built("host_streamed_msm_ms");
}
template std::vector<float> host_streamed_msm_ms<ec::G1Curve>(const ec::Affine<ec::G1Curve>*, const ff::Fr*,
                                                              std::size_t, std::size_t, unsigned, unsigned,
                                                              ec::Jacobian<ec::G1Curve>&);
template std::vector<float> host_streamed_msm_ms<ec::G2Curve>(const ec::Affine<ec::G2Curve>*, const ff::Fr*,
                                                              std::size_t, std::size_t, unsigned, unsigned,
                                                              ec::Jacobian<ec::G2Curve>&);
void copy_to_host(void*, const void*, std::size_t, void*) { not_built("copy_to_host"); }
void copy_on_device(void*, const void*, std::size_t, void*) { not_built("copy_on_device"); }
std::string runtime_version() { not_built("runtime_version"); }
std::string driver_api_version() { not_built("driver_api_version"); }
float op_rate_ms(RateOp, unsigned, unsigned) { not_built("op_rate_ms"); }

}  // namespace snarkpipe::cuda::bench
