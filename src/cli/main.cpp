// snarkpipe: a Groth16 proving engine over BLS12-381. This is the command-line front end;
// each group of subcommands lives in its own file (cmd_*.cpp).
#include <CLI/CLI.hpp>

#include <cstdio>

#include "cli/bench_record.hpp"
#include "cli/command.hpp"
#include "cli/selftest.hpp"
#include "cuda/device_info.hpp"
#include "cuda/memory_plan.hpp"

namespace snarkpipe::cli {
std::vector<Command> register_client_commands(CLI::App& app);   // cmd_client.cpp: submit, jobs, cancel, register
std::vector<Command> register_cluster_commands(CLI::App& app);  // cmd_cluster.cpp: cluster status
}  // namespace snarkpipe::cli

namespace {

constexpr const char* DESCRIPTION = R"(snarkpipe — a Groth16 proving engine over BLS12-381

Proves Groth16 circuits (Filecoin Commit-2 partitions and anything else) on the CPU or
on NVIDIA GPUs with the same program. Keys and proofs use bellperson's formats, so they
interoperate with the Filecoin stack; public inputs use snarkjs's public.json.

Where it proves: --backend auto (the default) uses the GPU when one is usable, else the CPU.

Examples:
  snarkpipe demo                                   set up, prove and verify a default circuit
  snarkpipe setup --circuit merkle-sha256 --depth 4 --params m.params --vk m.vk
  snarkpipe prove --circuit merkle-sha256 --depth 4 --params m.params --proof m.proof --public m.json
  snarkpipe verify --vk m.vk --proof m.proof --public m.json
  snarkpipe inspect m.params
  snarkpipe selftest                               check the arithmetic against known answers
  snarkpipe bench cpu --json                       time the CPU arithmetic
  snarkpipe bench gpu --json                       time the GPU's MSM, NTT and H computation
  snarkpipe bench prove --circuit synthetic --scale 1 --backend cuda
                                                   one full-size PoRep partition, time per phase
  snarkpipe bench pipeline --backend cuda --shape-scale 1/16 --partitions 10 --proofs 4 --concurrency 3
                                                   a stream of 10-partition jobs through the engine
  snarkpipe serve --listen 127.0.0.1:8080 --circuit synthetic --constraints 2^12
                                                   the engine as a daemon (HTTP JSON API, /metrics)

circom and snarkjs users, in the forms rapidsnark and snarkjs take:
  snarkpipe prove circuit.zkey witness.wtns proof.json public.json
  snarkpipe verify verification_key.json public.json proof.json
  snarkpipe convert --zkey circuit.zkey --circom-r1cs circuit.r1cs --params c.params --vk c.vk --r1cs c.snkr1cs
                                                   a snarkjs key (its ceremony kept) as a bellperson key
)";

}  // namespace

int main(int argc, char** argv) {
  snarkpipe::cli::record_invocation(argc, argv);
  CLI::App app{DESCRIPTION, "snarkpipe"};
  app.set_version_flag("--version", std::string("snarkpipe ") + SNARKPIPE_VERSION, "Print the version and exit");
  app.require_subcommand(1);
  app.footer("Run `snarkpipe <command> --help` for a command's options. Docs: README.md.");

  std::vector<snarkpipe::cli::Command> commands = snarkpipe::cli::register_groth16_commands(app);
  for (auto* group : {snarkpipe::cli::register_bench_commands, snarkpipe::cli::register_gpu_bench_commands,
                      snarkpipe::cli::register_synthetic_commands, snarkpipe::cli::register_workload_commands,
                      snarkpipe::cli::register_engine_commands, snarkpipe::cli::register_serve_commands,
                      snarkpipe::cli::register_hash_commands, snarkpipe::cli::register_filecoin_commands,
                      snarkpipe::cli::register_client_commands, snarkpipe::cli::register_cluster_commands,
                      snarkpipe::cli::register_soak_commands, snarkpipe::cli::register_soak_daemon_commands})
    for (auto& c : group(app)) commands.push_back(std::move(c));

  struct SelftestOptions {
    bool verbose = false;
  };
  auto selftest_options = std::make_shared<SelftestOptions>();
  auto* selftest = app.add_subcommand(
      "selftest", "Check the arithmetic on fresh random inputs and known answers; exits 1 on any failure");
  selftest->add_flag("-v,--verbose", selftest_options->verbose, "Print more detail");
  commands.push_back(snarkpipe::cli::make_command(selftest, selftest_options, [](SelftestOptions& o, const CLI::App&) {
    return snarkpipe::cli::run_selftest(o.verbose) == 0 ? 0 : 1;
  }));

  auto* info = app.add_subcommand("info", "Show the build configuration and the GPUs this process can see");
  commands.push_back(
      {info, [] {
         std::printf("snarkpipe %s\n", SNARKPIPE_VERSION);
         std::printf("  field multiplication: %s\n", snarkpipe::cli::field_multiplication().c_str());
         std::printf("  CUDA support compiled in: %s\n", snarkpipe::cuda::compiled_with_cuda() ? "yes" : "no");
         const auto devices = snarkpipe::cuda::list_devices();
         if (devices.empty()) std::printf("  GPUs: none found (%s)\n", snarkpipe::cuda::why_no_devices().c_str());
         // How a full PoRep partition would use each GPU's free memory (cuda/memory_plan.hpp).
         using namespace snarkpipe::cuda;
         const ProofShape porep = ProofShape::porep_partition();
         for (const auto& d : devices) {
           std::printf("  GPU %d: %s, %.1f GiB, compute capability %d.%d, %d SMs\n", d.index, d.name.c_str(),
                       double(d.total_memory) / (1ull << 30), d.major, d.minor, d.sm_count);
           PlanRequest r;
           r.shape = porep;
           r.device_free = device_free_memory(d.index);
           r.device_name = "GPU " + std::to_string(d.index);
           try {
             std::printf("  a full PoRep partition on GPU %d: %s", d.index, plan_device_memory(r).describe().c_str());
           } catch (const MemoryPlanError& e) {
             std::printf("  a full PoRep partition on GPU %d: refused: %s\n", d.index, e.what());
           }
         }
         std::printf("  device memory a full PoRep partition needs, by tier:");
         for (const MemoryTier t :
              {MemoryTier::resident, MemoryTier::key_streamed, MemoryTier::circuit_streamed, MemoryTier::bounded_h})
           std::printf(
               " %d (%s) %s;", int(t), to_string(t),
               format_gib(plan_for_tier(porep, t, t == MemoryTier::resident ? 0 : std::size_t(1) << 20).device_bytes)
                   .c_str());
         std::printf(
             " 4 with a/b/c from the host %s\n",
             format_gib(plan_for_tier(porep, MemoryTier::bounded_h, std::size_t(1) << 20, true).device_bytes).c_str());
         return 0;
       }});

  CLI11_PARSE(app, argc, argv);
  for (const auto& c : commands) {
    if (!c.app->parsed()) continue;
    try {
      return c.run();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
      return 1;
    }
  }
  return 0;
}
