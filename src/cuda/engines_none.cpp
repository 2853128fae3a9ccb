// The device memory pool and the NTT and MSM engines in a build without nvcc: constructing
// an engine says so, and no device buffer can exist. Only the members that code compiled in
// every build calls are here (`snarkpipe bench gpu`, which finds no devices before it gets
// this far; `snarkpipe bench prove`, which counts the devices); such code that calls another
// member adds it here.
#include <utility>

#include "cuda/error.hpp"
#include "cuda/memory.hpp"
#include "cuda/msm.hpp"
#include "cuda/ntt.hpp"

namespace snarkpipe::cuda {

namespace {

[[noreturn]] void not_built(const char* what) {
  throw CudaError(what, 35, "this snarkpipe was built without CUDA (no nvcc found at configure time)", __FILE__,
                  __LINE__);
}

}  // namespace

// Only empty buffers exist here (no pool can be made), so none has a block to give back.
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  pool_ = std::exchange(o.pool_, nullptr);
  data_ = std::exchange(o.data_, nullptr);
  capacity_ = std::exchange(o.capacity_, 0);
  return *this;
}
void DeviceBuffer::reset() {
  pool_ = nullptr;
  data_ = nullptr;
  capacity_ = 0;
}
DeviceBuffer BufferPool::acquire(std::size_t) { not_built("BufferPool::acquire"); }
int usable_device_count() { return 0; }
std::pmr::memory_resource* pinned_memory() { return std::pmr::get_default_resource(); }

struct GpuNtt::Impl {};
GpuNtt::GpuNtt(unsigned, int, Twiddles) { not_built("GpuNtt"); }
void GpuNtt::release_scratch() { not_built("GpuNtt::release_scratch"); }
void GpuNtt::intt_times(ff::Fr*, unsigned, const ff::Fr&, void*) { not_built("GpuNtt::intt_times"); }
void GpuNtt::icoset_ntt_times(ff::Fr*, unsigned, const ff::Fr&, void*) { not_built("GpuNtt::icoset_ntt_times"); }
GpuNtt::~GpuNtt() = default;
void GpuNtt::ntt(ff::Fr*, unsigned, Order, Order, void*) { not_built("GpuNtt::ntt"); }
void GpuNtt::intt(ff::Fr*, unsigned, Order, Order, void*) { not_built("GpuNtt::intt"); }
void GpuNtt::coset_ntt(ff::Fr*, unsigned, Order, Order, void*) { not_built("GpuNtt::coset_ntt"); }
void GpuNtt::icoset_ntt(ff::Fr*, unsigned, Order, Order, void*) { not_built("GpuNtt::icoset_ntt"); }
void GpuNtt::coset_from_evaluations(ff::Fr*, unsigned, void*) { not_built("GpuNtt::coset_from_evaluations"); }
void GpuNtt::quotient_coefficients(ff::Fr*, ff::Fr*, ff::Fr*, unsigned, const ff::Fr&, void*) {
  not_built("GpuNtt::quotient_coefficients");
}
void* GpuNtt::stream() const { not_built("GpuNtt::stream"); }
BufferPool& GpuNtt::pool() { not_built("GpuNtt::pool"); }

template <class C>
struct GpuMsm<C>::Impl {};
template <class C>
GpuMsm<C>::GpuMsm(std::size_t, int) {
  not_built("GpuMsm");
}
template <class C>
GpuMsm<C>::~GpuMsm() = default;
template <class C>
typename GpuMsm<C>::Affine* GpuMsm<C>::device_bases() {
  not_built("GpuMsm::device_bases");
}
template <class C>
typename GpuMsm<C>::Jacobian GpuMsm<C>::msm_device(const ff::Fr*, std::size_t, const GpuMsmConfig&,
                                                   const std::uint32_t*, std::size_t) {
  not_built("GpuMsm::msm_device");
}
template <class C>
unsigned GpuMsm<C>::window_bits_for(std::size_t) {
  not_built("GpuMsm::window_bits_for");
}
template <class C>
void GpuMsm<C>::precompute(unsigned) {
  not_built("GpuMsm::precompute");
}
template <class C>
unsigned GpuMsm<C>::precomputed_window_bits() const {
  not_built("GpuMsm::precomputed_window_bits");
}
template <class C>
void GpuMsm<C>::drop_precomputed() {
  not_built("GpuMsm::drop_precomputed");
}
template <class C>
const GpuMsmTimings& GpuMsm<C>::last_timings() const {
  not_built("GpuMsm::last_timings");
}
template <class C>
void* GpuMsm<C>::stream() const {
  not_built("GpuMsm::stream");
}
template <class C>
BufferPool& GpuMsm<C>::pool() {
  not_built("GpuMsm::pool");
}
template class GpuMsm<ec::G1Curve>;
template class GpuMsm<ec::G2Curve>;

}  // namespace snarkpipe::cuda
