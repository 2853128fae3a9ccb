// Number-theoretic transforms over Fr on the GPU, the same functions as src/poly/ntt.hpp,
// natural or bit-reversed order in and out (poly::Order; natural by default):
//   ntt:         A_j = Σ_i a_i·ω^(ij)                 coefficients → evaluations a(ω^j)
//   intt:        a_i = m^-1 · Σ_j A_j·ω^(-ij)
//   coset_ntt:   A_j = Σ_i (a_i·g^i)·ω^(ij)           evaluations on g·H, g = 7
//   icoset_ntt:  a_i = g^-i · m^-1 · Σ_j A_j·ω^(-ij)
// bit for bit equal to the CPU's for every size 2^0 .. 2^max_log_n and every ordering.
//
// How: decimation-in-time stages (bit-reversed in, natural out) or decimation-in-frequency
// stages (natural in, bit-reversed out), in groups of up to 10 per kernel launch on tiles
// held in shared memory, so log m stages take ⌈log m / 10⌉-ish passes over memory. Natural
// order in and out folds the bit reversal into the first group's loads or stores (and the
// coset and m^-1 scalings with it): no permutation pass. Bit-reversed in and out costs one
// permutation pass; orderings that put a scaled end on a later group cost one scaling pass.
// Twiddles for every stage (ω and ω^-1, N = 2^max_log_n entries each) are computed once, on
// the device, when the engine is built; one table serves every smaller size. Twiddles::compact
// keeps instead two 256 KiB factor tables per direction and multiplies them per twiddle (for
// cards without the 2·N·32 bytes: the H computation of memory tier 4), the same results.
//
// Streams: each call runs asynchronously on the given stream (a cudaStream_t; null: the
// engine's own, stream()). Every stream that has run a transform keeps its own scratch
// buffer, so transforms on different streams can be in flight together, sharing the tables.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

#include "cuda/memory.hpp"
#include "ff/fields.hpp"
#include "poly/ntt.hpp"

namespace snarkpipe::cuda {

class GpuNtt {
 public:
  static constexpr unsigned MAX_LOG_N = 28;
  enum class Twiddles { dense, compact };

  // Throws std::invalid_argument when max_log_n > MAX_LOG_N, CudaError when the device
  // fails or lacks the memory (dense twiddles take 2 · 2^max_log_n · 32 bytes; compact 1 MiB).
  explicit GpuNtt(unsigned max_log_n, int device = 0, Twiddles twiddles = Twiddles::dense);
  ~GpuNtt();
  GpuNtt(const GpuNtt&) = delete;
  GpuNtt& operator=(const GpuNtt&) = delete;

  unsigned max_log_n() const;

  using Order = poly::Order;

  // In place on 2^log_n elements already on the device, asynchronous on `stream`.
  void ntt(ff::Fr* d_values, unsigned log_n, Order in = Order::Natural, Order out = Order::Natural,
           void* stream = nullptr);
  void intt(ff::Fr* d_values, unsigned log_n, Order in = Order::Natural, Order out = Order::Natural,
            void* stream = nullptr);
  void coset_ntt(ff::Fr* d_values, unsigned log_n, Order in = Order::Natural, Order out = Order::Natural,
                 void* stream = nullptr);
  void icoset_ntt(ff::Fr* d_values, unsigned log_n, Order in = Order::Natural, Order out = Order::Natural,
                  void* stream = nullptr);
  // intt and icoset_ntt with the result also multiplied by c (free: it rides on m^-1).
  void intt_times(ff::Fr* d_values, unsigned log_n, const ff::Fr& c, void* stream = nullptr);
  void icoset_ntt_times(ff::Fr* d_values, unsigned log_n, const ff::Fr& c, void* stream = nullptr);
  // coset_ntt(intt(x)), evaluations on H to evaluations on gH (natural order), in two fewer
  // passes over memory and without the two bit-reversal permutations (the H computation's step).
  void coset_from_evaluations(ff::Fr* d_values, unsigned log_n, void* stream = nullptr);
  // The H computation of a proof: from the evaluations a, b, c on H (2^log_n, natural order),
  // the coefficients of h = (a·b − c)/Z into d_a (d_b and d_c are overwritten), z_inv the
  // inverse of Z on the coset (poly::EvaluationDomain::coset_vanishing_inv). Six transforms
  // instead of seven: Z is a constant z on the coset and icoset_ntt is linear and undoes
  // coset_ntt, so h = icoset_ntt(â·b̂)/z − intt(c)/z (x̂: x's coset evaluations).
  void quotient_coefficients(ff::Fr* d_a, ff::Fr* d_b, ff::Fr* d_c, unsigned log_n, const ff::Fr& z_inv,
                             void* stream = nullptr);

  // Host data, copied in and out through pinned staging; returns when done. The size must
  // be a power of two no larger than 2^max_log_n (std::invalid_argument otherwise).
  void ntt(std::span<ff::Fr> values, Order in = Order::Natural, Order out = Order::Natural);
  void intt(std::span<ff::Fr> values, Order in = Order::Natural, Order out = Order::Natural);
  void coset_ntt(std::span<ff::Fr> values, Order in = Order::Natural, Order out = Order::Natural);
  void icoset_ntt(std::span<ff::Fr> values, Order in = Order::Natural, Order out = Order::Natural);
  void coset_from_evaluations(std::span<ff::Fr> values);

  // Gives back the scratch vectors (one 2^log_n vector per stream that ran a transform) until
  // the next transform needs them again (after the streams' queued work).
  void release_scratch();
  // The engine's stream (a cudaStream_t) and pool.
  void* stream() const;
  BufferPool& pool();
  void synchronize();

 private:
  struct Impl;
  enum class Kind { Forward, Inverse, CosetForward, CosetInverse, ToCoset };
  // `extra` (inverse transforms only): a constant the result is also multiplied by, for free.
  void run(Kind kind, ff::Fr* d_values, unsigned log_n, Order in, Order out, void* stream,
           const ff::Fr* extra = nullptr);
  void run_host(Kind kind, std::span<ff::Fr> values, Order in, Order out);
  std::unique_ptr<Impl> impl_;
};

}  // namespace snarkpipe::cuda
