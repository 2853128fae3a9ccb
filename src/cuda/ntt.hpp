// Number-theoretic transforms over Fr on the GPU, the same functions as src/poly/ntt.hpp
// with natural order in and out:
//   ntt:         A_j = Σ_i a_i·ω^(ij)                 coefficients → evaluations a(ω^j)
//   intt:        a_i = m^-1 · Σ_j A_j·ω^(-ij)
//   coset_ntt:   A_j = Σ_i (a_i·g^i)·ω^(ij)           evaluations on g·H, g = 7
//   icoset_ntt:  a_i = g^-i · m^-1 · Σ_j A_j·ω^(-ij)
// bit for bit equal to the CPU's for every size 2^0 .. 2^max_log_n.
//
// How: forward transforms are a bit-reversal permutation (which also multiplies by g^i for
// the coset) and then decimation-in-time radix-2 stages; inverse transforms are
// decimation-in-frequency stages and then the permutation (which multiplies by m^-1, and
// g^-i for the coset). The stages run in groups of up to 10 per kernel launch on tiles held
// in shared memory: log m stages take ⌈log m / 10⌉-ish passes over memory instead of log m.
// Twiddles ω_N^i (i < N/2, N = 2^max_log_n) and their inverses are computed once, on the
// device, when the engine is built; one table serves every smaller size.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

#include "cuda/memory.hpp"
#include "ff/fields.hpp"

namespace snarkpipe::cuda {

class GpuNtt {
 public:
  static constexpr unsigned MAX_LOG_N = 28;

  // Throws std::invalid_argument when max_log_n > MAX_LOG_N, CudaError when the device
  // fails or lacks the memory (twiddles take 2^max_log_n · 32 bytes).
  explicit GpuNtt(unsigned max_log_n, int device = 0);
  ~GpuNtt();
  GpuNtt(const GpuNtt&) = delete;
  GpuNtt& operator=(const GpuNtt&) = delete;

  unsigned max_log_n() const;

  // In place on 2^log_n elements already on the device, asynchronous on stream().
  void ntt(ff::Fr* d_values, unsigned log_n);
  void intt(ff::Fr* d_values, unsigned log_n);
  void coset_ntt(ff::Fr* d_values, unsigned log_n);
  void icoset_ntt(ff::Fr* d_values, unsigned log_n);
  // coset_ntt(intt(x)), evaluations on H to evaluations on gH, in two fewer passes over
  // memory and without the two bit-reversal permutations (the H computation's step).
  void coset_from_evaluations(ff::Fr* d_values, unsigned log_n);

  // Host data, copied in and out through pinned staging; returns when done. The size must
  // be a power of two no larger than 2^max_log_n (std::invalid_argument otherwise).
  void ntt(std::span<ff::Fr> values);
  void intt(std::span<ff::Fr> values);
  void coset_ntt(std::span<ff::Fr> values);
  void icoset_ntt(std::span<ff::Fr> values);
  void coset_from_evaluations(std::span<ff::Fr> values);

  // The engine's stream (a cudaStream_t) and pool.
  void* stream() const;
  BufferPool& pool();
  void synchronize();

 private:
  struct Impl;
  enum class Kind { Forward, Inverse, CosetForward, CosetInverse, ToCoset };
  void run(Kind kind, ff::Fr* d_values, unsigned log_n);
  void run_host(Kind kind, std::span<ff::Fr> values);
  std::unique_ptr<Impl> impl_;
};

}  // namespace snarkpipe::cuda
