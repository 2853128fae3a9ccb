#include <cstring>

#include "cuda/check.cuh"
#include "cuda/curve.cuh"
#include "gpu_arith.hpp"

namespace snarkpipe::cuda::testing {

namespace {

template <class D>
__global__ void field_kernel(FieldOp op, const D* a, const D* b, D* out, std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const D x = a[i], y = b[i];
  D r;
  switch (op) {
    case FieldOp::Add:
      r = x + y;
      break;
    case FieldOp::Sub:
      r = x - y;
      break;
    case FieldOp::Neg:
      r = -x;
      break;
    case FieldOp::Mul:
      r = x * y;
      break;
    case FieldOp::Sqr:
      r = x.sqr();
      break;
    case FieldOp::Dbl:
      r = x.dbl();
      break;
    case FieldOp::MulSub:
      r = D::mul_sub(x, y, a[(i + 1) % n], b[(i + 1) % n]);
      break;
    default:
      r = x;
      break;
  }
  out[i] = r;
}

// The conversions exist for the prime fields only.
template <class D>
__global__ void unary_kernel(FieldOp op, const D* a, D* out, std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const D x = a[i];
  if constexpr (std::is_same_v<D, fp2_t>) {
    out[i] = x.inverse();
  } else {
    out[i] = op == FieldOp::FromMontgomery ? x.from_montgomery()
             : op == FieldOp::ToMontgomery ? x.to_montgomery()
                                           : x.inverse();
  }
}

template <class F>
__global__ void point_kernel(PointOp op, const xyzz_t<F>* a, const xyzz_t<F>* b, const affine_t<F>* q, xyzz_t<F>* out,
                             std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const xyzz_t<F> p = xyzz_t<F>::load(&a[i]);
  xyzz_t<F> r;
  switch (op) {
    case PointOp::Add:
      r = p + xyzz_t<F>::load(&b[i]);
      break;
    case PointOp::Dbl:
      r = p.dbl();
      break;
    case PointOp::AddAffine:
      r = p.add_affine(affine_t<F>::load(&q[i]));
      break;
  }
  r.store(&out[i]);
}

// Copies `ins` to the device, runs launch(device pointers..., out, n), copies out back.
template <class Out, class Launch, class... In>
std::vector<Out> on_device(std::size_t n, Launch launch, std::span<const In>... ins) {
  std::vector<Out> out(n);
  if (n == 0) return out;
  auto upload = [&](auto span) {
    void* d = nullptr;
    const std::size_t bytes = std::max<std::size_t>(span.size_bytes(), 1);
    SNARKPIPE_CUDA_CHECK(cudaMalloc(&d, bytes));
    if (!span.empty()) SNARKPIPE_CUDA_CHECK(cudaMemcpy(d, span.data(), span.size_bytes(), cudaMemcpyHostToDevice));
    return d;
  };
  void* ptrs[] = {upload(ins)...};
  void* d_out = nullptr;
  SNARKPIPE_CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(Out)));
  launch(ptrs, d_out, (unsigned)((n + 127) / 128));
  SNARKPIPE_CUDA_CHECK_LAUNCH();
  SNARKPIPE_CUDA_CHECK(cudaDeviceSynchronize());
  SNARKPIPE_CUDA_CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(Out), cudaMemcpyDeviceToHost));
  for (void* p : ptrs) SNARKPIPE_CUDA_CHECK(cudaFree(p));
  SNARKPIPE_CUDA_CHECK(cudaFree(d_out));
  return out;
}

template <class D, class H>
std::vector<H> field_op(FieldOp op, std::span<const H> a, std::span<const H> b) {
  static_assert(sizeof(D) == sizeof(H));
  const bool binary = op == FieldOp::Add || op == FieldOp::Sub || op == FieldOp::Mul || op == FieldOp::MulSub;
  if (!binary) b = a;
  return on_device<H>(
      a.size(),
      [&](void** p, void* out, unsigned blocks) {
        if (op == FieldOp::FromMontgomery || op == FieldOp::ToMontgomery || op == FieldOp::Inverse) {
          unary_kernel<D><<<blocks, 128>>>(op, (const D*)p[0], (D*)out, a.size());
        } else {
          field_kernel<D><<<blocks, 128>>>(op, (const D*)p[0], (const D*)p[1], (D*)out, a.size());
        }
      },
      a, b);
}

}  // namespace

std::vector<ff::Fr> fr_op(FieldOp op, std::span<const ff::Fr> a, std::span<const ff::Fr> b) {
  return field_op<fr_t>(op, a, b);
}
std::vector<ff::Fp> fp_op(FieldOp op, std::span<const ff::Fp> a, std::span<const ff::Fp> b) {
  return field_op<fp_t>(op, a, b);
}
std::vector<ff::Fp2> fp2_op(FieldOp op, std::span<const ff::Fp2> a, std::span<const ff::Fp2> b) {
  return field_op<fp2_t>(op, a, b);
}

template <class C>
std::vector<ec::XYZZ<C>> point_op(PointOp op, std::span<const ec::XYZZ<C>> a, std::span<const ec::XYZZ<C>> b,
                                  std::span<const ec::Affine<C>> q) {
  using F = device_field_t<C>;
  if (b.empty()) b = a;
  return on_device<ec::XYZZ<C>>(
      a.size(),
      [&](void** p, void* out, unsigned blocks) {
        point_kernel<F><<<blocks, 128>>>(op, (const xyzz_t<F>*)p[0], (const xyzz_t<F>*)p[1], (const affine_t<F>*)p[2],
                                         (xyzz_t<F>*)out, a.size());
      },
      a, b, q);
}

template std::vector<ec::XYZZ<ec::G1Curve>> point_op<ec::G1Curve>(PointOp, std::span<const ec::XYZZ<ec::G1Curve>>,
                                                                  std::span<const ec::XYZZ<ec::G1Curve>>,
                                                                  std::span<const ec::Affine<ec::G1Curve>>);
template std::vector<ec::XYZZ<ec::G2Curve>> point_op<ec::G2Curve>(PointOp, std::span<const ec::XYZZ<ec::G2Curve>>,
                                                                  std::span<const ec::XYZZ<ec::G2Curve>>,
                                                                  std::span<const ec::Affine<ec::G2Curve>>);

}  // namespace snarkpipe::cuda::testing
