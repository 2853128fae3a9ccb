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

}  // namespace snarkpipe::cli
