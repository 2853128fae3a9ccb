// `snarkpipe bench service`: the daemon's overhead against the engine alone (issue 25's Speed
// section). In one process, on the same keys and witnesses: bench pipeline's run of the engine
// alone, then an in-process daemon on 127.0.0.1 over the same engine configuration, with J
// client threads uploading packed witnesses over HTTP, following their jobs' events and
// verifying every proof against the served vk.
#pragma once

#include <vector>

#include <CLI/CLI.hpp>

#include "cli/command.hpp"

namespace snarkpipe::cli {

// Adds `service` under the `bench` command.
void register_service_bench(CLI::App* bench, std::vector<Command>& cmds);

}  // namespace snarkpipe::cli
