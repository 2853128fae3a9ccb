// snarkpipe: a Groth16 proving engine over BLS12-381. This is the command-line front end;
// each subcommand lives in its own file.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>

#include "cli/bench_cpu.hpp"
#include "cli/selftest.hpp"
#include "cuda/device_info.hpp"

namespace {

constexpr const char* DESCRIPTION = R"(snarkpipe — a Groth16 proving engine over BLS12-381

Proves large Groth16 circuits (Filecoin Commit-2 partitions and anything else) on the
CPU or on NVIDIA GPUs with the same program. Today it holds the BLS12-381 arithmetic:
fields, curves, the Zcash point encodings and the pairing.

Examples:
  snarkpipe selftest               check the arithmetic against known answers
  snarkpipe bench cpu --json       time the CPU arithmetic, print JSON
  snarkpipe info                   show the build and the GPUs found
)";

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{DESCRIPTION, "snarkpipe"};
  app.require_subcommand(1);
  app.footer("Run `snarkpipe <command> --help` for a command's options. Docs: README.md.");

  auto* selftest = app.add_subcommand("selftest", "Check the arithmetic on fresh random inputs and known answers; exits 1 on any failure");
  bool verbose = false;
  selftest->add_flag("-v,--verbose", verbose, "Print more detail");

  auto* bench = app.add_subcommand("bench", "Measure performance and print (or record) the numbers");
  bench->require_subcommand(1);
  auto* bench_cpu = bench->add_subcommand("cpu", "Field, curve and pairing timings on this CPU (median of 7 runs)");
  bool json = false, quick = false;
  std::string out_path;
  bench_cpu->add_flag("--json", json, "Print one JSON object instead of a table");
  bench_cpu->add_flag("--quick", quick, "Shorter runs (noisier), for smoke tests");
  bench_cpu->add_option("-o,--out", out_path, "Also write the JSON record to this file (e.g. bench/results/cpu-DATE.json)");

  auto* info = app.add_subcommand("info", "Show the build configuration and the GPUs this process can see");

  CLI11_PARSE(app, argc, argv);

  try {
    if (*selftest) return snarkpipe::cli::run_selftest(verbose) == 0 ? 0 : 1;
    if (*bench_cpu) {
      nlohmann::json record = snarkpipe::cli::machine_info();
      record["command"] = "snarkpipe bench cpu" + std::string(quick ? " --quick" : "");
      record["results"] = snarkpipe::cli::run_cpu_bench(quick);
      if (json) {
        std::cout << record.dump(2) << "\n";
      } else {
        for (const auto& [k, v] : record["results"].items()) std::printf("  %-26s %12.3f\n", k.c_str(), v.get<double>());
      }
      if (!out_path.empty()) {
        std::ofstream f(out_path);
        if (!f) {
          std::fprintf(stderr, "error: cannot write %s\n", out_path.c_str());
          return 1;
        }
        f << record.dump(2) << "\n";
      }
      return 0;
    }
    if (*info) {
      std::printf("snarkpipe %s\n", SNARKPIPE_VERSION);
      std::printf("  field multiplication: %s\n", snarkpipe::cli::machine_info()["field_multiplication"].get<std::string>().c_str());
      std::printf("  CUDA support compiled in: %s\n", snarkpipe::cuda::compiled_with_cuda() ? "yes" : "no");
      const auto devices = snarkpipe::cuda::list_devices();
      if (devices.empty()) std::printf("  GPUs: none found (%s)\n", snarkpipe::cuda::why_no_devices().c_str());
      for (const auto& d : devices)
        std::printf("  GPU %d: %s, %.1f GiB, compute capability %d.%d, %d SMs\n", d.index, d.name.c_str(),
                    double(d.total_memory) / (1ull << 30), d.major, d.minor, d.sm_count);
      return 0;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
