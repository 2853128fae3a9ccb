// Each subcommand registers its options on the CLI11 app and returns what to run when chosen.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <vector>

namespace snarkpipe::cli {

struct Command {
  CLI::App* app;
  std::function<int()> run;  // the exit status
};

std::vector<Command> register_groth16_commands(CLI::App& app);
std::vector<Command> register_bench_commands(CLI::App& app);
// Each of these adds its subcommands (some under `bench`, so they run after the bench group).
std::vector<Command> register_synthetic_commands(CLI::App& app);  // cmd_synthetic.cpp
std::vector<Command> register_workload_commands(CLI::App& app);   // cmd_workload.cpp
std::vector<Command> register_engine_commands(CLI::App& app);     // cmd_engine.cpp
std::vector<Command> register_gpu_bench_commands(CLI::App& app);  // cmd_bench_gpu.cpp
std::vector<Command> register_serve_commands(CLI::App& app);      // cmd_serve.cpp
std::vector<Command> register_hash_commands(CLI::App& app);       // cmd_hash.cpp
std::vector<Command> register_filecoin_commands(CLI::App& app);   // cmd_filecoin.cpp

}  // namespace snarkpipe::cli
