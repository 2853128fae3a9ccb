// The adapter behind supraseal-c2's C ABI (supraseal_c2.h): keys loaded from bellperson
// .params files and shared by reference count, and batches of bellperson assignments proved
// through a ProverBackend (the CUDA backend on a free GPU, the CPU backend without one).
//
// Every function here throws AbiError (a code of supraseal_c2.h and a message naming the
// problem); the extern "C" layers (abi_*.cpp) turn it into a RustError. A proof reaches the
// caller only after it verified against the key; one that does not is diagnosed (the witness
// does not satisfy its constraints, or the device computed it wrongly and the CPU agrees
// with the caller).
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "ffi/supraseal_c2.h"
#include "groth16/keys.hpp"
#include "groth16/proof.hpp"

namespace snarkpipe::ffi {

class AbiError : public std::runtime_error {
 public:
  AbiError(int code, const std::string& what) : std::runtime_error(what), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

// A key read from a .params file: what an SRS handle points to.
struct LoadedSrs {
  std::string path;
  groth16::ProvingKey pk;
  groth16::PreparedVerifyingKey pvk;
  std::atomic<long> references{1};
};

// create_SRS: a new key with one reference, or (cache) the cached key with one more.
LoadedSrs* load_srs(const char* path, bool cache);
LoadedSrs* add_reference(LoadedSrs* srs);
// Drops one reference; the last frees the key and its GPU copies.
void drop_reference(LoadedSrs* srs);
// Frees the GPU copies and takes the key out of the cache.
void evict(LoadedSrs* srs);

// What a prove call may hold: the caller's mutex (Curio's gpu_mtx) and device (−1: any).
struct DeviceChoice {
  std::mutex* caller_mutex = nullptr;
  int gpu_index = -1;
};

// A batch after its GPU part, assembled and verified: finalize copies it out.
struct PendingProofs {
  std::vector<groth16::Proof> proofs;
};

// Validates the batch, proves each circuit, verifies each proof; throws AbiError.
std::unique_ptr<PendingProofs> prove_batch(const Assignment* provers, std::size_t num_circuits, const fr_t* r_s,
                                           const fr_t* s_s, const SRS& srs, const DeviceChoice& device);
// Writes proofs in blst's layout (bellperson's Proof<Bls12>).
void write_proofs(const PendingProofs& pending, groth16_proof* out);

// Runs f, returning {0, NULL} or the error it threw as {code, strdup'ed message}.
template <class F>
RustError guarded(F&& f) noexcept;

RustError to_rust_error(int code, const std::string& message) noexcept;
RustError current_exception_error() noexcept;  // inside a catch (...)

template <class F>
RustError guarded(F&& f) noexcept {
  try {
    f();
    return RustError{0, nullptr};
  } catch (...) {
    return current_exception_error();
  }
}

}  // namespace snarkpipe::ffi
