#include "cuda/fixed_base.hpp"
#include "cuda/launch.hpp"

#include <algorithm>
#include <cstring>

#include "cuda/check.cuh"
#include "cuda/curve.cuh"
#include "cuda/memory.hpp"
#include "cuda/stream.hpp"
#include "cuda/to_affine.cuh"
#include "ec/scalar_mul.hpp"

namespace snarkpipe::cuda {

namespace {

constexpr unsigned DIGIT_BITS = 12;
constexpr unsigned DIGITS = (255 + DIGIT_BITS - 1) / DIGIT_BITS;  // r < 2^255
constexpr unsigned PER_DIGIT = (1u << DIGIT_BITS) - 1;            // entries d = 1 .. 2^12 - 1
constexpr std::size_t BATCH = std::size_t(1) << 22;

template <class F>
__global__ void __launch_bounds__(128)
    fixed_base_kernel(const fr_t* __restrict__ scalars, std::size_t n, const affine_t<F>* __restrict__ table,
                      xyzz_t<F>* __restrict__ out) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const fr_t k = fr_t::load(&scalars[i]).from_montgomery();
  xyzz_t<F> acc = xyzz_t<F>::identity();
  for (unsigned j = 0; j < DIGITS; ++j) {
    const unsigned bit = j * DIGIT_BITS, limb = bit / 32, sh = bit % 32;
    uint64_t w = k.v[limb];
    if (limb + 1 < 8) w |= uint64_t(k.v[limb + 1]) << 32;
    const unsigned d = unsigned(w >> sh) & PER_DIGIT;
    if (d) acc = acc.add_affine_inline(affine_t<F>::load(&table[j * PER_DIGIT + d - 1]));
  }
  acc.store(&out[i]);
}

}  // namespace

template <class C>
struct GpuFixedBase<C>::Impl {
  int device;
  BufferPool pool;
  Stream stream;
  DeviceBuffer table;
  PinnedBuffer staging;
  explicit Impl(int dev) : device(dev), pool(dev) {}
};

template <class C>
GpuFixedBase<C>::GpuFixedBase(const ec::Affine<C>& base, int device) : impl_(std::make_unique<Impl>(device)) {
  Impl& m = *impl_;
  SNARKPIPE_CUDA_CHECK(cudaSetDevice(device));
  m.stream = Stream(cudaStreamNonBlocking);
  // T[j][d-1] = d·2^(12j)·base: per digit position, the running sums of P_j = 2^(12j)·base.
  std::vector<ec::Jacobian<C>> entries(std::size_t(DIGITS) * PER_DIGIT);
  ec::Jacobian<C> p = ec::Jacobian<C>::from_affine(base);
  for (unsigned j = 0; j < DIGITS; ++j) {
    ec::Jacobian<C> acc = p;
    for (unsigned d = 0; d < PER_DIGIT; ++d) {
      entries[std::size_t(j) * PER_DIGIT + d] = acc;
      acc += p;
    }
    p = acc;  // (2^12)·P_j
  }
  const std::vector<ec::Affine<C>> table = ec::batch_to_affine<C>(entries);
  const std::size_t bytes = table.size() * sizeof(ec::Affine<C>);
  m.table = m.pool.acquire(bytes);
  SNARKPIPE_CUDA_CHECK(cudaMemcpy(m.table.data(), table.data(), bytes, cudaMemcpyHostToDevice));
}

template <class C>
GpuFixedBase<C>::~GpuFixedBase() = default;

template <class C>
std::vector<ec::Affine<C>> GpuFixedBase<C>::batch_mul(std::span<const ff::Fr> scalars) {
  using F = device_field_t<C>;
  Impl& m = *impl_;
  SNARKPIPE_CUDA_CHECK(cudaSetDevice(m.device));
  std::vector<ec::Affine<C>> result(scalars.size());
  const std::size_t batch = std::min(BATCH, std::max<std::size_t>(scalars.size(), 1));
  DeviceBuffer k = m.pool.acquire(batch * sizeof(ff::Fr));
  DeviceBuffer xyzz = m.pool.acquire(batch * sizeof(xyzz_t<F>));
  DeviceBuffer aff = m.pool.acquire(batch * sizeof(affine_t<F>));
  m.staging.reserve(batch * std::max(sizeof(ff::Fr), sizeof(ec::Affine<C>)));
  for (std::size_t off = 0; off < scalars.size(); off += batch) {
    const std::size_t n = std::min(batch, scalars.size() - off);
    std::memcpy(m.staging.data(), scalars.data() + off, n * sizeof(ff::Fr));
    SNARKPIPE_CUDA_CHECK(
        cudaMemcpyAsync(k.data(), m.staging.data(), n * sizeof(ff::Fr), cudaMemcpyHostToDevice, m.stream));
    fixed_base_kernel<F><<<blocks_for(n, 128), 128, 0, m.stream>>>(k.as<fr_t>(), n, m.table.template as<affine_t<F>>(),
                                                                   xyzz.as<xyzz_t<F>>());
    SNARKPIPE_CUDA_CHECK_LAUNCH();
    to_affine_kernel<F><<<blocks_for(blocks_for(n, TO_AFFINE_CHUNK), 128), 128, 0, m.stream>>>(xyzz.as<xyzz_t<F>>(), n,
                                                                                               aff.as<affine_t<F>>());
    SNARKPIPE_CUDA_CHECK_LAUNCH();
    SNARKPIPE_CUDA_CHECK(
        cudaMemcpyAsync(m.staging.data(), aff.data(), n * sizeof(ec::Affine<C>), cudaMemcpyDeviceToHost, m.stream));
    SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(m.stream));
    std::memcpy(result.data() + off, m.staging.data(), n * sizeof(ec::Affine<C>));
  }
  return result;
}

template class GpuFixedBase<ec::G1Curve>;
template class GpuFixedBase<ec::G2Curve>;

}  // namespace snarkpipe::cuda
