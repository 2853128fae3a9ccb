// snarkpipe hash: Filecoin's hashes from the command line (issue 24).
#include "cli/command.hpp"

namespace snarkpipe::cli {

std::vector<Command> register_hash_commands(CLI::App& app) {
  std::vector<Command> cmds;
  (void)app;
  return cmds;
}

}  // namespace snarkpipe::cli
