// Each subcommand registers its options on the CLI11 app and returns what to run when chosen.
//
// CLI11 writes every option into the variable it was bound to while it parses, after
// registration has returned; so everything a command binds lives in one options struct that
// the command owns (make_command), and the run function reads the options from there. A
// value bound anywhere else (a local, or a shared_ptr that only a lambda's captures keep
// alive) is written after it is gone (issue 27).
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <type_traits>
#include <vector>

namespace snarkpipe::cli {

struct Command {
  CLI::App* app;
  std::function<int()> run;  // the exit status
};

// A command whose options are all in `options`, kept alive by the command: `run(options, app)`
// runs it. `run` is a plain function (a lambda without captures), so it can reach nothing
// but the options it is given and its app.
template <class Options>
Command make_command(CLI::App* app, std::shared_ptr<Options> options,
                     std::type_identity_t<int (*)(Options&, const CLI::App&)> run) {
  return {app, [app, options = std::move(options), run] { return run(*options, *app); }};
}

std::vector<Command> register_groth16_commands(CLI::App& app);
std::vector<Command> register_bench_commands(CLI::App& app);
// Each of these adds its subcommands (some under `bench`, so they run after the bench group).
std::vector<Command> register_synthetic_commands(CLI::App& app);    // cmd_synthetic.cpp
std::vector<Command> register_workload_commands(CLI::App& app);     // cmd_workload.cpp
std::vector<Command> register_engine_commands(CLI::App& app);       // cmd_engine.cpp
std::vector<Command> register_gpu_bench_commands(CLI::App& app);    // cmd_bench_gpu.cpp
std::vector<Command> register_serve_commands(CLI::App& app);        // cmd_serve.cpp
std::vector<Command> register_hash_commands(CLI::App& app);         // cmd_hash.cpp
std::vector<Command> register_filecoin_commands(CLI::App& app);     // cmd_filecoin.cpp
std::vector<Command> register_soak_commands(CLI::App& app);         // bench_soak.cpp (under bench)
std::vector<Command> register_soak_daemon_commands(CLI::App& app);  // bench_soak_daemon.cpp (under bench)

}  // namespace snarkpipe::cli
