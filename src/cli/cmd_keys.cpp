// setup, export-vk and test-ptau: Groth16 keys from the command line (bellperson .params/.vk,
// snarkjs vk.json, an insecure prepared powers of tau for tests).
#include <cstdio>
#include <memory>

#include "circom/ptau.hpp"
#include "circom/snarkjs_json.hpp"
#include "circom/zkey.hpp"
#include "cli/circuits.hpp"
#include "cli/command.hpp"
#include "cli/progress.hpp"
#include "groth16/params_file.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "cli/groth16_io.hpp"

namespace snarkpipe::cli {

using groth16::ProvingKey;

void add_setup_command(CLI::App& app, std::vector<Command>& cmds) {
  // setup
  {
    struct SetupOptions {
      CircuitSpec spec;
      std::string r1cs_path;
      std::string params;
      std::string vk;
      CacheOptions cache;
    };
    auto o = std::make_shared<SetupOptions>();
    auto* c = app.add_subcommand("setup", "Generate Groth16 keys for a circuit (fresh toxic waste from the OS CSPRNG)");
    c->footer(
        "Writes bellperson-format files: OUT.params (the proving key) and OUT.vk (the verifying key).\n"
        "The circuit is a built-in one (--circuit) or a file (--r1cs: circom .r1cs or snarkpipe's recorded circuit).\n"
        "Example: snarkpipe setup --circuit merkle-sha256 --depth 4 --params m4.params --vk m4.vk\n"
        "         snarkpipe setup --r1cs circuit.r1cs --params c.params --vk c.vk");
    add_circuit_options(c, o->spec);
    add_cache_options(c, o->cache);
    c->add_option("--r1cs", o->r1cs_path, "A circuit file instead of a built-in circuit (circom .r1cs or .snkr1cs)")
        ->check(CLI::ExistingFile);
    c->add_option("--params", o->params, "Where to write the proving key (.params)")->required();
    c->add_option("--vk", o->vk, "Where to write the verifying key (.vk)")->required();
    cmds.push_back(make_command(c, o, [](SetupOptions& o, const CLI::App&) -> int {
      const std::string what = o.r1cs_path.empty() ? o.spec.describe() : o.r1cs_path;
      PhaseProgress progress("setup " + what, 10);
      circuit::R1cs r1cs;
      std::string recorded;
      if (o.r1cs_path.empty()) {
        const CircuitInstance ci = make_circuit(o.spec);
        progress.phase("record circuit");
        RecordedCircuit rc = record_cached(o.spec, *ci.shape, o.cache);
        recorded = rc.summary();
        r1cs = std::move(rc.r1cs);
      } else {
        progress.phase("read circuit");
        r1cs = load_circuit_file(o.r1cs_path);
      }
      const ProvingKey pk = run_setup(r1cs, progress);
      progress.phase("write files");
      groth16::write_params(o.params, pk);
      groth16::write_vk(o.vk, pk.vk);
      progress.finish();
      print_r1cs_shape(r1cs);
      if (!recorded.empty()) std::printf("circuit %s\n", recorded.c_str());
      std::printf("wrote %s and %s (%.1f s)\n", o.params.c_str(), o.vk.c_str(), progress.total_ms() / 1e3);
      return 0;
    }));
  }
}

void add_export_vk_command(CLI::App& app, std::vector<Command>& cmds) {
  // export-vk
  {
    struct ExportVkOptions {
      std::string vk_path;
      std::string zkey;
      std::string format = "snarkjs";
      std::string out;
    };
    auto o = std::make_shared<ExportVkOptions>();
    auto* c = app.add_subcommand("export-vk", "Write a verifying key as snarkjs's vk.json");
    c->footer(
        "From a bellperson .vk (or .params) or from a snarkjs .zkey (as `snarkjs zkey export verificationkey`).\n"
        "Example: snarkpipe export-vk --vk m4.vk --format snarkjs --out vk.json");
    c->add_option("--vk", o->vk_path, "A bellperson verifying key (.vk) or parameters (.params)")
        ->check(CLI::ExistingFile);
    c->add_option("--zkey", o->zkey, "A snarkjs Groth16 key (.zkey)")->check(CLI::ExistingFile);
    c->add_option("--format", o->format, "The output format")->check(CLI::IsMember({"snarkjs"}))->capture_default_str();
    c->add_option("--out", o->out, "Where to write vk.json")->required();
    cmds.push_back(make_command(c, o, [](ExportVkOptions& o, const CLI::App&) -> int {
      if (o.vk_path.empty() == o.zkey.empty()) throw std::invalid_argument("give exactly one of --vk and --zkey");
      groth16::VerifyingKey vk;
      if (!o.zkey.empty()) {
        vk = circom::read_zkey_vk(o.zkey);
      } else {
        groth16::ParamsReadOptions ro;
        ro.check_subgroup = true;
        vk = groth16::summarize_params_file(o.vk_path).kind == groth16::ParamsSummary::Kind::Parameters
                 ? groth16::read_params_vk(o.vk_path, ro)
                 : groth16::read_vk(o.vk_path, ro);
      }
      circom::write_json_file(o.out, circom::vk_to_json(vk));
      std::printf("wrote %s (%zu public inputs)\n", o.out.c_str(), vk.ic.size() - 1);
      return 0;
    }));
  }
}

void add_test_ptau_command(CLI::App& app, std::vector<Command>& cmds) {
  // test-ptau
  {
    struct TestPtauOptions {
      unsigned power = 12;
      std::string out;
      std::uint64_t seed = 1;
    };
    auto o = std::make_shared<TestPtauOptions>();
    auto* c = app.add_subcommand("test-ptau", "Write an INSECURE prepared powers-of-tau file for tests and benchmarks");
    c->footer(
        "τ, α and β come from --seed, so anyone who knows it can forge proofs: never use the keys it leads to.\n"
        "snarkjs's own ceremony takes minutes even for small powers; this takes seconds. For `snarkjs groth16 setup`,\n"
        "circuits with up to 2^power constraints (public inputs included).\n"
        "Example: snarkpipe test-ptau --power 16 --out test16.ptau");
    c->add_option("--power", o->power, "log2 of the largest domain (1..27)")->capture_default_str();
    c->add_option("--out", o->out, "Where to write the .ptau")->required();
    c->add_option("--seed", o->seed, "Seed of τ, α, β")->capture_default_str();
    cmds.push_back(make_command(c, o, [](TestPtauOptions& o, const CLI::App&) -> int {
      PhaseProgress progress("test-ptau 2^" + std::to_string(o.power), 11);
      circom::write_insecure_ptau(o.out, o.power, circom::PtauSecrets::from_seed(o.seed),
                                  [&](std::string_view p) { progress.phase(std::string(p)); });
      progress.finish();
      std::printf("wrote %s (power %u, INSECURE: for tests only) in %.1f s\n", o.out.c_str(), o.power,
                  progress.total_ms() / 1e3);
      return 0;
    }));
  }
}

}  // namespace snarkpipe::cli
