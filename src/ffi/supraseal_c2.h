/* supraseal-c2's C ABI, as snarkpipe serves it (REFERENCE.md §8).
 *
 * Two libraries export it, built from one adapter (src/ffi/adapter.cpp):
 *   libsnarkpipe_supraseal.so  upstream supraseal-c2 0.1.x (bellperson's `cuda-supraseal`,
 *                              filecoin-ffi with FFI_USE_CUDA_SUPRASEAL=1);
 *   libsnarkpipe_cuzk.so       Curio's fork (cuzk): gpu_mtx / gpu_index, the split
 *                              start / finalize pair, create / destroy_gpu_mutex.
 * Define SNARKPIPE_SUPRASEAL_CUZK before including this header for the fork's signatures;
 * the two generate_groth16_proofs_c differ, so one library cannot export both.
 *
 * The functions are extern "C" with C++ references where the original has them (a reference
 * is a pointer in the ABI). Every call that can fail returns a RustError: code 0 on success,
 * otherwise a code below and a malloc'ed message the caller frees with free(). No call aborts
 * the process on bad input, and no proof is written that has not verified against the key.
 */
#ifndef SNARKPIPE_SUPRASEAL_C2_H
#define SNARKPIPE_SUPRASEAL_C2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* sppark's util/rusterror.h layout (the Rust side is sppark's cuda_error!() type). */
typedef struct RustError {
  int code;
  char* message; /* NULL, or strdup'ed: freed by the caller */
} RustError;

/* Error codes (cudaError_t's numbering is not used: these are the adapter's own). */
enum {
  SNARKPIPE_ABI_OK = 0,
  SNARKPIPE_ABI_INVALID_ARGUMENT = 1, /* a null pointer, a bad gpu_index, a bad SNARKPIPE_* setting */
  SNARKPIPE_ABI_PARAMS_FILE = 2,      /* the .params file is missing, truncated or corrupt */
  SNARKPIPE_ABI_SHAPE_MISMATCH = 3,   /* the Assignment's sizes disagree with the key or with each other */
  SNARKPIPE_ABI_DENSITY_MISMATCH = 4, /* the densities' popcounts disagree with their bits or the key */
  SNARKPIPE_ABI_UNSATISFIED = 5,      /* a·b ≠ c at some constraint: the witness does not satisfy it */
  SNARKPIPE_ABI_DEVICE = 6,           /* the GPU failed (and the CPU retry too) */
  SNARKPIPE_ABI_OUT_OF_MEMORY = 7,    /* neither the GPU nor the host could hold the proof's data */
  SNARKPIPE_ABI_NOT_VERIFIED = 8,     /* a proof did not verify (never written to the output) */
  SNARKPIPE_ABI_INTERNAL = 9
};

/* A reference-counted handle to a loaded key (a bellperson .params file). */
typedef struct SRS {
  void* ptr;
} SRS;

/* blst's limbs: little-endian u64, Montgomery form. */
typedef struct fr_t {
  uint64_t l[4];
} fr_t;
typedef struct fp_t {
  uint64_t l[6];
} fp_t;
typedef struct g1_affine_t {
  fp_t x, y; /* (0, 0) is the point at infinity */
} g1_affine_t;
typedef struct g2_affine_t {
  fp_t x_c0, x_c1, y_c0, y_c1;
} g2_affine_t;
/* bellperson's #[repr(C)] Proof<Bls12>: 384 bytes. */
typedef struct groth16_proof {
  g1_affine_t a;
  g2_affine_t b;
  g1_affine_t c;
} groth16_proof;

/* One circuit's synthesized assignment, as bellperson's ProvingAssignment holds it.
 * Densities: bit i = word[i / 64] >> (i % 64) & 1; bits past bit_len are ignored.
 * a, b, c: the per-constraint evaluations (constraints + inputs long: bellperson appends one
 * constraint per input); the domain is the next power of two. Circuits of one batch share
 * their shape (sizes and densities). */
typedef struct Assignment {
  const uint64_t* a_aux_density;
  size_t a_aux_bit_len;
  size_t a_aux_popcount;
  const uint64_t* b_inp_density;
  size_t b_inp_bit_len;
  size_t b_inp_popcount;
  const uint64_t* b_aux_density;
  size_t b_aux_bit_len;
  size_t b_aux_popcount;
  const fr_t* a;
  const fr_t* b;
  const fr_t* c;
  size_t abc_size;
  const fr_t* inp_assignment_data;
  size_t inp_assignment_size;
  const fr_t* aux_assignment_data;
  size_t aux_assignment_size;
} Assignment;

#ifdef __cplusplus
#define SNARKPIPE_SRS_REF SRS&
#define SNARKPIPE_SRS_CREF const SRS&
#else
#define SNARKPIPE_SRS_REF SRS*
#define SNARKPIPE_SRS_CREF const SRS*
#endif

/* Loads the key at `path` (a bellperson .params) into `ret`. With cache, a process-wide cache
 * of at most 4 keys by path returns the same key to later calls (bellperson passes false). */
RustError create_SRS(SNARKPIPE_SRS_REF ret, const char* path, bool cache);
/* Another reference to the same key. */
SRS clone_SRS(SNARKPIPE_SRS_CREF srs);
/* Drops one reference; the last frees the key (host and GPU copies). */
void drop_SRS(SNARKPIPE_SRS_REF srs);
/* Frees the key's GPU copies and takes it out of the cache; references stay valid (the next
 * proof uploads it again). */
void evict_SRS(SNARKPIPE_SRS_CREF srs);

#ifndef SNARKPIPE_SUPRASEAL_CUZK
/* Proves num_circuits circuits (0: nothing) under one key, one after another on the device; proofs[i] with randomizers r_s[i], s_s[i]. */
RustError generate_groth16_proofs_c(const Assignment provers[], size_t num_circuits, const fr_t r_s[], const fr_t s_s[],
                                    groth16_proof proofs[], SNARKPIPE_SRS_REF srs);
#else
/* gpu_mtx: a create_gpu_mutex() mutex held around the GPU work (NULL: the device's own lock).
 * gpu_index: the device, or -1 for whichever is free first. */
RustError generate_groth16_proofs_c(const Assignment provers[], size_t num_circuits, const fr_t r_s[], const fr_t s_s[],
                                    groth16_proof proofs[], SNARKPIPE_SRS_REF srs, void* gpu_mtx, int gpu_index);
/* The split form: start runs the GPU part under the mutex and returns a pending handle
 * (*pending, NULL on error); finalize assembles, verifies and writes the proofs and frees the
 * handle whatever it returns; destroy_pending_proof abandons one. The Assignments' buffers may
 * be freed once start returns. */
RustError generate_groth16_proofs_start_c(const Assignment provers[], size_t num_circuits, const fr_t r_s[],
                                          const fr_t s_s[], SNARKPIPE_SRS_REF srs, void* gpu_mtx, int gpu_index,
                                          void** pending);
RustError finalize_groth16_proof_c(void* pending, groth16_proof proofs[]);
void destroy_pending_proof(void* pending);
void* create_gpu_mutex(void);
void destroy_gpu_mutex(void* mtx);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SNARKPIPE_SUPRASEAL_C2_H */
