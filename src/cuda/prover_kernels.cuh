// The prover's own device code: the sparse matrix-vector product of the constraint matrices,
// the unpacking of a packed witness, tier 4's element-wise combines, and the expansion of
// density bitmaps into z indices. prover.cu (CudaBackend) launches them and is the only file
// that includes this header, so that they stay in its translation unit, with internal linkage.
#pragma once

#include <cstddef>
#include <cstdint>

#include "circuit/coefficient_codes.hpp"
#include "cuda/fields.cuh"

namespace snarkpipe::cuda {

// prover.cu's unnamed namespace (this header is part of that translation unit only).
namespace {

// One thread per row: out[r] = Σ_k coefficient(code[k])·z[col[k]] over row r's entries, the
// coefficients as circuit/coefficient_codes.hpp encodes them: ±1 an addition or subtraction,
// ±2^k a multiplication by pow2[k], others a multiplication by others[code − 64].
// A streamed piece of rows passes base = its first entry's index (its col and code start there).
__global__ void spmv_kernel(const uint64_t* __restrict__ row_ptr, const uint32_t* __restrict__ col,
                            const uint32_t* __restrict__ code, const fr_t* __restrict__ others,
                            const fr_t* __restrict__ pow2, const fr_t* __restrict__ z, std::size_t rows,
                            fr_t* __restrict__ out, uint64_t base) {
  const std::size_t r = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  fr_t acc = fr_t::zero();
  for (uint64_t k = row_ptr[r] - base, end = row_ptr[r + 1] - base; k < end; ++k) {
    const uint32_t c = code[k], m = c & ~circuit::COEFF_NEGATIVE;
    fr_t x = fr_t::load(&z[col[k]]);
    if (m != 0) x = x * fr_t::load(m < circuit::COEFF_POWERS ? &pow2[m] : &others[m - circuit::COEFF_POWERS]);
    acc = c & circuit::COEFF_NEGATIVE ? acc - x : acc + x;
  }
  acc.store(&out[r]);
}

// z_aux[j] from a packed witness: a general value (by its rank among them) or 0 / 1.
__global__ void unpack_kernel(const uint64_t* __restrict__ general, const uint64_t* __restrict__ ones,
                              const uint32_t* __restrict__ rank, const fr_t* __restrict__ values, std::size_t n,
                              fr_t* __restrict__ z_aux) {
  const std::size_t j = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n) return;
  const std::size_t w = j / 64;
  const unsigned b = unsigned(j % 64);
  const uint64_t g = general[w];
  fr_t x;
  if ((g >> b) & 1) x = fr_t::load(&values[rank[w] + __popcll(g & ((uint64_t(1) << b) - 1))]);
  else x = ((ones[w] >> b) & 1) ? fr_t::one() : fr_t::zero();
  x.store(&z_aux[j]);
}

// Tier 4's combine of the device vector with a staged piece: v[i] ← v[i]·x[i], or x[i] − v[i].
__global__ void mul_by_kernel(fr_t* __restrict__ v, const fr_t* __restrict__ x, std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) (fr_t::load(&v[i]) * fr_t::load(&x[i])).store(&v[i]);
}
__global__ void subtract_from_kernel(fr_t* __restrict__ v, const fr_t* __restrict__ x, std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) (fr_t::load(&x[i]) - fr_t::load(&v[i])).store(&v[i]);
}

// counts[w] = the set bits of density word w.
__global__ void popcount_kernel(const uint64_t* __restrict__ words, std::size_t n, uint32_t* __restrict__ counts) {
  const std::size_t w = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w < n) counts[w] = __popcll(words[w]);
}

// The z index (first_column + bit) of every set bit of a density bitmap, in bit order, from
// each word's place among them (offsets: the exclusive prefix sum of the words' counts).
__global__ void expand_density_kernel(const uint64_t* __restrict__ words, const uint32_t* __restrict__ offsets,
                                      std::size_t n, uint32_t first_column, uint32_t* __restrict__ out) {
  const std::size_t w = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= n) return;
  uint64_t x = words[w];
  uint32_t* o = out + offsets[w];
  while (x) {
    *o++ = first_column + uint32_t(w * 64 + __ffsll(x) - 1);
    x &= x - 1;
  }
}

}  // namespace

}  // namespace snarkpipe::cuda
