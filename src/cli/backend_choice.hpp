// Which prover backend a command uses: --backend cpu|cuda|auto (auto: the GPU when one is
// usable, else the CPU) and, for CUDA, --srs-residency vram|host|auto.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>

#include "groth16/backend.hpp"
#include "groth16/setup.hpp"

namespace snarkpipe::cli {

struct BackendOptions {
  std::string backend = "auto";
  std::string srs_residency = "auto";
  bool serial_msms = false;  // cuda: the L, A, B MSMs after the H MSM instead of beside it
};

void add_backend_options(CLI::App* command, BackendOptions& options);

// "cpu" or "cuda" for --backend (auto: cuda when a GPU is usable). Throws std::invalid_argument
// naming the problem (an unknown backend; cuda without a GPU, with the reason).
std::string resolve_backend_kind(const BackendOptions& options);

// The backend resolve_backend_kind names; throws as it does.
std::unique_ptr<groth16::ProverBackend> make_prover_backend(const BackendOptions& options);

// prove_checked's contract with any backend: a witness that does not satisfy the circuit is
// refused (naming the first failing constraint), and the proof is verified before it is
// returned.
groth16::Proof prove_with(groth16::ProverBackend& backend, const groth16::ProvingKey& pk, const circuit::R1cs& r1cs,
                          const groth16::Witness& witness, groth16::ProverTimings* timings = nullptr,
                          const groth16::ProverProgress& progress = {});

// Setup's fixed-base multiplications on the first GPU (cuda/fixed_base.hpp), or on the CPU
// when `on_gpu` is false; the GPU tables live as long as this object.
class SetupMultiplierChoice {
 public:
  explicit SetupMultiplierChoice(bool on_gpu);
  ~SetupMultiplierChoice();
  const groth16::SetupMultipliers& get() const { return multipliers_; }

 private:
  struct Tables;
  std::unique_ptr<Tables> tables_;
  groth16::SetupMultipliers multipliers_;
};

}  // namespace snarkpipe::cli
