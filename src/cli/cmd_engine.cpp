#include "cli/command.hpp"

namespace snarkpipe::cli {

std::vector<Command> register_engine_commands(CLI::App& /*app*/) { return {}; }

}  // namespace snarkpipe::cli
