// Element-wise device arithmetic for the tests: each call copies its inputs to the device,
// runs one kernel over them (src/cuda's field and curve code) and copies the results back.
#pragma once

#include <span>
#include <vector>

#include "ec/curves.hpp"

namespace snarkpipe::cuda::testing {

// MulSub: a[i]·b[i] − a[j]·b[j] with j = (i + 1) mod n (one reduction for the two products).
enum class FieldOp { Add, Sub, Neg, Mul, Sqr, Dbl, MulSub, FromMontgomery, ToMontgomery, Inverse };
enum class PointOp { Add, Dbl, AddAffine };

// out[i] = op(a[i], b[i]) (b unused by the unary operations).
std::vector<ff::Fr> fr_op(FieldOp op, std::span<const ff::Fr> a, std::span<const ff::Fr> b);
std::vector<ff::Fp> fp_op(FieldOp op, std::span<const ff::Fp> a, std::span<const ff::Fp> b);
std::vector<ff::Fp2> fp2_op(FieldOp op, std::span<const ff::Fp2> a, std::span<const ff::Fp2> b);

// out[i] = a[i] + b[i], a[i].dbl(), or a[i].add_affine(q[i]).
template <class C>
std::vector<ec::XYZZ<C>> point_op(PointOp op, std::span<const ec::XYZZ<C>> a, std::span<const ec::XYZZ<C>> b,
                                  std::span<const ec::Affine<C>> q);

}  // namespace snarkpipe::cuda::testing
