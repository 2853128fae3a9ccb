// demo: what `make run` runs: set up (or reuse keys), prove and verify a default circuit.
#include <cstdio>
#include <filesystem>
#include <cctype>
#include <memory>

#include "cli/backend_choice.hpp"
#include "cli/circuits.hpp"
#include "cli/command.hpp"
#include "base/hex.hpp"
#include "cli/progress.hpp"
#include "groth16/params_file.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "cli/groth16_io.hpp"

namespace snarkpipe::cli {

using base::hex;
using groth16::Proof;
using groth16::ProvingKey;

void add_demo_command(CLI::App& app, std::vector<Command>& cmds) {
  // demo: what `make run` runs.
  {
    struct DemoOptions {
      CircuitSpec spec;
      std::string keys_dir = "build/keys";
      BackendOptions demo_backend;
    };
    auto o = std::make_shared<DemoOptions>();
    auto* c = app.add_subcommand("demo", "Set up (or reuse keys), prove and verify a default circuit, with timings");
    c->footer("The keys are cached in --keys-dir and reused on the next run.");
    add_circuit_options(c, o->spec);
    c->add_option("--keys-dir", o->keys_dir, "Where keys are cached")->capture_default_str();
    add_backend_options(c, o->demo_backend);
    cmds.push_back(make_command(c, o, [](DemoOptions& o, const CLI::App&) -> int {
      PhaseProgress progress("demo: " + o.spec.describe(), 14);
      const CircuitInstance ci = make_circuit(o.spec);
      progress.phase("record circuit");
      const circuit::R1cs r1cs = record(*ci.shape);
      std::filesystem::create_directories(o.keys_dir);
      std::string stem = o.spec.describe();
      for (char& ch : stem)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      const std::string params = o.keys_dir + "/" + stem + ".params", vkf = o.keys_dir + "/" + stem + ".vk";
      ProvingKey pk;
      bool loaded = false;
      if (std::filesystem::exists(params)) {
        try {
          progress.phase("load cached key");
          pk = groth16::read_params(params);
          loaded = pk.vk.ic.size() == r1cs.num_inputs && pk.l.size() == r1cs.num_aux;
        } catch (const std::exception&) {
          loaded = false;
        }
      }
      if (!loaded) {
        pk = run_setup(r1cs, progress);
        progress.phase("write keys");
        groth16::write_params(params, pk);
        groth16::write_vk(vkf, pk.vk);
      }
      progress.phase("witness");
      const groth16::Witness w = synthesize_witness(*ci.proving);
      groth16::ProverTimings t;
      const auto backend = make_prover_backend(o.demo_backend);
      const Proof proof = prove_with(*backend, pk, r1cs, w, &t, prover_progress(progress));
      progress.phase("verify (from the .vk file)");
      const auto pvk = groth16::PreparedVerifyingKey::from(groth16::read_vk(vkf));
      const std::vector<ff::Fr> xs(w.inputs.begin() + 1, w.inputs.end());
      const bool ok = groth16::verify(pvk, Proof::from_bytes(proof.to_bytes()), xs);
      progress.finish();
      print_r1cs_shape(r1cs);
      std::printf("proof:  %s\n", hex(proof.to_bytes()).c_str());
      std::printf("public:");
      for (const auto& x : xs) std::printf(" %s", x.to_decimal().c_str());
      std::printf("\nverified: %s\n", ok ? "yes" : "NO");
      std::printf("backend: %s\n", backend->name().c_str());
      std::printf(
          "prover: %.0f ms (a,b,c + H NTTs %.0f, H MSM %.0f, L MSM %.0f, A MSM %.0f, B G1 MSM %.0f, B G2 MSM %.0f)\n",
          t.total_ms, t.ntt_ms, t.h_msm_ms, t.l_msm_ms, t.a_msm_ms, t.b_g1_msm_ms, t.b_g2_msm_ms);
      return ok ? 0 : 1;
    }));
  }
}

}  // namespace snarkpipe::cli
