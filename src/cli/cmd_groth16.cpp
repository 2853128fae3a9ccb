// The Groth16 commands, in the order --help lists them: setup, prove, verify, export-vk,
// import-r1cs, convert, export-circuit, test-ptau, inspect, demo (cmd_keys.cpp, cmd_prove.cpp,
// cmd_verify.cpp, cmd_files.cpp, cmd_demo.cpp), with bellperson's file formats (.params, .vk,
// 192-byte proofs), snarkjs's JSON (public.json, proof.json, vk.json) and circom's .r1cs / .wtns
// and snarkjs's .zkey.
#include "cli/command.hpp"
#include "cli/groth16_io.hpp"

namespace snarkpipe::cli {

std::vector<Command> register_groth16_commands(CLI::App& app) {
  std::vector<Command> cmds;
  for (auto* add :
       {add_setup_command, add_prove_command, add_verify_command, add_export_vk_command, add_import_r1cs_command,
        add_convert_command, add_export_circuit_command, add_test_ptau_command, add_inspect_command, add_demo_command})
    add(app, cmds);
  return cmds;
}

}  // namespace snarkpipe::cli
