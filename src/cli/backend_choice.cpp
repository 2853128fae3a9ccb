#include "cli/backend_choice.hpp"

#include <cstdio>
#include <stdexcept>

#include "circuit/spmv.hpp"
#include "cuda/device_info.hpp"
#include "cuda/fixed_base.hpp"
#include "cuda/memory.hpp"
#include "cuda/memory_plan.hpp"
#include "cuda/prover.hpp"
#include "groth16/verifier.hpp"

namespace snarkpipe::cli {

void add_backend_options(CLI::App* command, BackendOptions& options) {
  command
      ->add_option("--backend", options.backend,
                   "Where to prove: cpu, cuda (the first GPU), or auto (cuda when a GPU is usable, else cpu)")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}))
      ->capture_default_str();
  command
      ->add_option("--srs-residency", options.srs_residency,
                   "With cuda: the proving key in GPU memory (vram), pinned in host memory and streamed per proof "
                   "(host), or vram when it fits (auto)")
      ->check(CLI::IsMember({"vram", "host", "auto"}))
      ->capture_default_str();
}

std::string resolve_backend_kind(const BackendOptions& options) {
  const std::string& kind = options.backend;
  if (kind != "cpu" && kind != "cuda" && kind != "auto")
    throw std::invalid_argument("--backend must be cpu, cuda or auto (got '" + options.backend + "')");
  if (kind == "cpu") return kind;
  const bool gpu = cuda::usable_device_count() > 0;
  if (kind == "auto") return gpu ? "cuda" : "cpu";
  if (!gpu) throw std::invalid_argument("--backend cuda: " + cuda::why_no_devices() + " (use --backend cpu)");
  return kind;
}

std::unique_ptr<groth16::ProverBackend> make_prover_backend(const BackendOptions& options) {
  if (resolve_backend_kind(options) == "cpu") return std::make_unique<groth16::CpuBackend>();
  cuda::CudaBackendOptions o;
  o.residency = cuda::parse_srs_residency(options.srs_residency);
  o.concurrent_msms = !options.serial_msms;
  return std::make_unique<cuda::CudaBackend>(o);
}

groth16::Proof prove_with(groth16::ProverBackend& backend, const groth16::ProvingKey& pk, const circuit::R1cs& r1cs,
                          const groth16::Witness& w, groth16::ProverTimings* timings,
                          const groth16::ProverProgress& progress) {
  groth16::check_shapes(pk, r1cs, w);
  const auto sat = circuit::is_satisfied(r1cs, w.inputs, w.aux);
  if (!sat)
    throw groth16::ProverError("the witness does not satisfy constraint " + std::to_string(*sat.first_failing_row));
  const groth16::ProverRandomness rs = groth16::ProverRandomness::random();
  const groth16::Proof proof = backend.finish(pk.vk, backend.start(pk, r1cs, w, timings, progress), rs);
  const std::vector<ff::Fr> publics(w.inputs.begin() + 1, w.inputs.end());
  if (!groth16::verify(groth16::PreparedVerifyingKey::from(pk.vk), proof, publics))
    throw std::runtime_error("internal error: the " + backend.name() +
                             " backend's proof does not verify against its own key; not returning it");
  return proof;
}

struct SetupMultiplierChoice::Tables {
  cuda::GpuFixedBaseG1 g1{ec::G1Affine::generator()};
  cuda::GpuFixedBaseG2 g2{ec::G2Affine::generator()};
};

SetupMultiplierChoice::SetupMultiplierChoice(bool on_gpu) {
  if (!on_gpu) return;
  // Planned like a proof, before any work: too little free GPU memory sets up on the CPU.
  const std::size_t need = cuda::setup_device_bytes(), free_bytes = cuda::device_free_memory(0);
  if (free_bytes < need) {
    std::fprintf(stderr,
                 "setup: the GPU has %s free, its fixed-base multiplications need about %s: setting up on the CPU\n",
                 cuda::format_gib(free_bytes).c_str(), cuda::format_gib(need).c_str());
    return;
  }
  tables_ = std::make_unique<Tables>();
  multipliers_.g1 = [t = tables_.get()](std::span<const ff::Fr> k) { return t->g1.batch_mul(k); };
  multipliers_.g2 = [t = tables_.get()](std::span<const ff::Fr> k) { return t->g2.batch_mul(k); };
}

SetupMultiplierChoice::~SetupMultiplierChoice() = default;

}  // namespace snarkpipe::cli
