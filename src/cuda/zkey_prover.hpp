// Groth16 proofs for snarkjs keys (.zkey) on the GPU: what circom::ZkeyProver computes, with
// snarkjs's conventions (its rows at π(k), H on the odd coset of the 2m-th roots, its query
// layout; circom/prover.hpp), through the CUDA backend's kernels: the NTTs of cuda/ntt.hpp
// and the 0/1-split MSMs of cuda/split_msm.cuh. The key's bases, rows and coset twiddles are
// uploaded once and stay resident for repeated proofs. For fixed r, s the proof's bytes are
// the CPU prover's.
#pragma once

#include <memory>
#include <span>

#include "circom/prover.hpp"
#include "groth16/proof.hpp"
#include "groth16/prover.hpp"

namespace snarkpipe::cuda {

class GpuZkeyProver {
 public:
  // Uploads `key`'s layout to GPU `device`; `key` must outlive this prover (its vk and shape
  // are read from it). Throws CudaError without a usable device, or when it does not fit.
  explicit GpuZkeyProver(const circom::ZkeyProver& key, int device = 0);
  ~GpuZkeyProver();
  GpuZkeyProver(const GpuZkeyProver&) = delete;
  GpuZkeyProver& operator=(const GpuZkeyProver&) = delete;

  // witness: circom's wire values (key.num_vars() of them, value 0 = 1); groth16::ProverError
  // when it does not fit the key.
  groth16::Proof prove(std::span<const ff::Fr> witness, const groth16::ProverRandomness& rs,
                       circom::ZkeyProverTimings* timings = nullptr);
  // prove() and then verification against the key's vk: never returns a proof that does not
  // verify (a witness that does not satisfy the circuit gives ProverError).
  groth16::Proof prove_checked(std::span<const ff::Fr> witness, const groth16::ProverRandomness& rs,
                               circom::ZkeyProverTimings* timings = nullptr);
  std::size_t device_bytes() const;  // held on the GPU now

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace snarkpipe::cuda
