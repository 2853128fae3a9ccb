// libsnarkpipe_cuzk.so: Curio's fork of supraseal-c2 (cuzk): the caller's GPU mutex and index,
// and the split start / finalize pair, whose start holds the GPU only for the kernels and
// returns the batch assembled and verified, so that finalize only copies it out.
#define SNARKPIPE_SUPRASEAL_CUZK
#include "ffi/adapter.hpp"

using namespace snarkpipe::ffi;

extern "C" {

RustError generate_groth16_proofs_c(const Assignment provers[], size_t num_circuits, const fr_t r_s[], const fr_t s_s[],
                                    groth16_proof proofs[], SRS& srs, void* gpu_mtx, int gpu_index) {
  return guarded([&] {
    if (!proofs) throw AbiError(SNARKPIPE_ABI_INVALID_ARGUMENT, "proofs is null");
    const DeviceChoice device{static_cast<std::mutex*>(gpu_mtx), gpu_index};
    write_proofs(*prove_batch(provers, num_circuits, r_s, s_s, srs, device), proofs);
  });
}

RustError generate_groth16_proofs_start_c(const Assignment provers[], size_t num_circuits, const fr_t r_s[],
                                          const fr_t s_s[], SRS& srs, void* gpu_mtx, int gpu_index, void** pending) {
  if (pending) *pending = nullptr;
  return guarded([&] {
    if (!pending) throw AbiError(SNARKPIPE_ABI_INVALID_ARGUMENT, "pending is null");
    const DeviceChoice device{static_cast<std::mutex*>(gpu_mtx), gpu_index};
    *pending = prove_batch(provers, num_circuits, r_s, s_s, srs, device).release();
  });
}

RustError finalize_groth16_proof_c(void* pending, groth16_proof proofs[]) {
  std::unique_ptr<PendingProofs> owned(static_cast<PendingProofs*>(pending));
  return guarded([&] {
    if (!owned) throw AbiError(SNARKPIPE_ABI_INVALID_ARGUMENT, "the pending handle is null");
    write_proofs(*owned, proofs);
  });
}

void destroy_pending_proof(void* pending) { delete static_cast<PendingProofs*>(pending); }

void* create_gpu_mutex(void) { return new (std::nothrow) std::mutex; }

void destroy_gpu_mutex(void* mtx) { delete static_cast<std::mutex*>(mtx); }

}  // extern "C"
