// The CUDA prover backend (groth16::ProverBackend on one GPU): the whole of start() runs on
// the device, the CPU only copies the witness in and assembles the proof in finish().
//
// Device memory is planned on first use of a key or circuit (cuda/memory_plan.hpp: tiers 1-3
// by what fits, refused with the numbers otherwise). Per circuit (cached by the R1cs's address
// until release_circuit): the three CSR matrices and the A/B column lists (which witness
// entries each query's points take) live on the device, or in tier 3 the circuit stays on the
// host, whose cores evaluate a, b, c for each proof. Per key (cached by address until
// release_key), by SrsResidency:
//   vram: the five queries live on the device, copied once (a PoRep key is ~47 GB: an H200
//         holds it with room to spare);
//   host: they stay in host memory, pinned in place once (cudaHostRegister), and every MSM
//         streams them through two device buffers, the copy of piece k+1 overlapping the
//         MSM of piece k (for devices that cannot hold the key);
//   automatic: vram when the device has room for everything, else host.
// Per proof: z = (inputs ‖ aux) crosses the bus once; a, b, c = A·z, B·z, C·z (SpMV on the
// device), H by iNTT → coset NTT → (a·b − c)/Z → inverse coset NTT, then the H, L, A, B_G1
// and B_G2 MSMs, every one with its bases resident. Device memory comes from one pool per
// backend, allocated on first use and reused; before a proof starts the backend checks that
// the device can hold it and otherwise says what it needs and what the device has.
//
// Same key, witness, r and s → the same proof bytes as the CPU backend.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "groth16/backend.hpp"

namespace snarkpipe::cuda {

// Device time per phase of the last start(), in milliseconds (CUDA events). With `concurrent`
// the L, A and B MSMs ran on a second stream beside upload → H MSM (their spans overlap it);
// device_total spans the whole, both streams.
struct CudaProverPhases {
  float upload = 0, abc = 0, ntt = 0, h_msm = 0, l_msm = 0, a_msm = 0, b_g1_msm = 0, b_g2_msm = 0;
  float device_total = 0;
  // Host time (ms) from start's entry until the first device mark is queued, and from the
  // last mark's completion until start returns: what of start's wall time lies outside
  // device_total besides launch and wake-up latency.
  // host_checks: the part of host_before spent checking the inputs' shapes.
  double host_before = 0, host_after = 0, host_checks = 0;
  bool concurrent = false;
};

enum class SrsResidency { vram, host, automatic };

// "vram", "host", "auto" (std::invalid_argument otherwise), and back.
SrsResidency parse_srs_residency(const std::string& text);
const char* to_string(SrsResidency r);

struct CudaBackendOptions {
  int device = 0;
  SrsResidency residency = SrsResidency::automatic;
  // Points per streamed piece in host residency (G2 pieces hold half as many); 0: 2^25.
  std::size_t host_piece_points = 0;
  // With the key in GPU memory, run the L, A and B MSMs on a second stream beside the H
  // computation and H MSM (false: one after the other, on one stream).
  bool concurrent_msms = true;
  // memory.device_budget: the most device memory a proof's plan may take (0: what is free).
  std::size_t device_budget = 0;
  // Rows per piece of a streamed circuit's matrices (tiers 3 and 4); 0: 2^22. Tests make it
  // small to have many pieces.
  std::size_t circuit_piece_rows = 0;
  // Only this memory tier (1-4; 0: the planner's choice): for tests that must run each path,
  // and for an operator who wants one tier's behaviour whatever the free memory.
  int only_tier = 0;
};

class CudaBackend final : public groth16::ProverBackend {
 public:
  // Throws CudaError when the device cannot be used (or the build has no CUDA).
  explicit CudaBackend(const CudaBackendOptions& options = {});
  ~CudaBackend() override;

  std::string name() const override;
  groth16::ProofParts start(const groth16::ProvingKey& pk, const circuit::R1cs& r1cs, const groth16::Witness& witness,
                            groth16::ProverTimings* timings = nullptr,
                            const groth16::ProverProgress& progress = {}) override;
  // The packed form: only the bits and the general values cross the bus.
  groth16::ProofParts start_packed(const groth16::ProvingKey& pk, const circuit::R1cs& r1cs,
                                   const groth16::PackedWitness& witness, groth16::ProverTimings* timings = nullptr,
                                   const groth16::ProverProgress& progress = {}) override;
  bool takes_packed() const override { return true; }
  // a, b, c cross the bus instead of being computed from a resident circuit; the A and B
  // queries' scalar positions are expanded from the densities on the device.
  groth16::ProofParts start_evaluated(const groth16::ProvingKey& pk, const groth16::EvaluatedAssignment& assignment,
                                      groth16::ProverTimings* timings = nullptr,
                                      const groth16::ProverProgress& progress = {}) override;
  // Page-locked host memory (cuda::pinned_memory): a packed witness kept there crosses the bus
  // at its full rate, with no staging copy on the host's cores.
  std::pmr::memory_resource* witness_memory() const override;
  void release_key(const groth16::ProvingKey& pk) override;
  void release_circuit(const circuit::R1cs& r1cs) override;

  // The device memory one proof of this circuit and key needs (the resident circuit
  // included, and the key when residency is vram), from the sizes alone.
  static std::size_t device_bytes_needed(const groth16::ProvingKey& pk, const circuit::R1cs& r1cs,
                                         SrsResidency residency = SrsResidency::vram,
                                         std::size_t host_piece_points = 0);
  // The same with circuit_bytes(r1cs) given: it classifies every coefficient, so a caller that
  // needs both sizes (or several residencies) computes it once.
  static std::size_t device_bytes_needed(const groth16::ProvingKey& pk, const circuit::R1cs& r1cs,
                                         SrsResidency residency, std::size_t host_piece_points, std::size_t circuit);
  // The same for an evaluated assignment (no resident circuit; a, b, c cross the bus).
  static std::size_t device_bytes_needed(const groth16::ProvingKey& pk, const groth16::EvaluatedAssignment& assignment,
                                         SrsResidency residency, std::size_t host_piece_points = 0);
  // What a resident key (vram residency) and a resident circuit (CSR) take on the device.
  static std::size_t key_bytes(const groth16::ProvingKey& pk);
  static std::size_t circuit_bytes(const circuit::R1cs& r1cs);
  // The residency the last start() used for its key (vram or host).
  SrsResidency residency_used() const;
  // The last memory plan (cuda/memory_plan.hpp) in words: its tier, what lives where, the
  // bytes and the bus traffic per partition; empty before the first proof.
  const std::string& memory_plan() const;
  int memory_tier() const;                // the last plan's tier (1-3; 0 before the first proof)
  std::size_t device_bytes_held() const;  // by this backend's two pools now
  const CudaProverPhases& last_phases() const;

 private:
  // One of full, packed (with r1cs) or evaluated (r1cs null) is given.
  groth16::ProofParts start_common(const groth16::ProvingKey& pk, const circuit::R1cs* r1cs,
                                   const groth16::Witness* full, const groth16::PackedWitness* packed,
                                   const groth16::EvaluatedAssignment* evaluated, groth16::ProverTimings* timings,
                                   const groth16::ProverProgress& progress,
                                   std::chrono::steady_clock::time_point entered);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace snarkpipe::cuda
