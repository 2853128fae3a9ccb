// libsnarkpipe_supraseal.so: upstream supraseal-c2 0.1.x's proving call (one internal lock per GPU).
#include "ffi/adapter.hpp"

using namespace snarkpipe::ffi;

extern "C" RustError generate_groth16_proofs_c(const Assignment provers[], size_t num_circuits, const fr_t r_s[],
                                               const fr_t s_s[], groth16_proof proofs[], SRS& srs) {
  return guarded([&] {
    if (!proofs) throw AbiError(SNARKPIPE_ABI_INVALID_ARGUMENT, "proofs is null");
    write_proofs(*prove_batch(provers, num_circuits, r_s, s_s, srs, DeviceChoice{}), proofs);
  });
}
