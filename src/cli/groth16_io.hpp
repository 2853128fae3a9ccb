// What the Groth16 commands share (cmd_keys, cmd_prove, cmd_verify, cmd_files, cmd_demo): files
// in and out, public.json, the circuit-file loader, progress words, and the commands' adders.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "circuit/r1cs.hpp"
#include "cli/command.hpp"
#include "cli/progress.hpp"
#include "ff/fields.hpp"
#include "groth16/keys.hpp"
#include "groth16/prover.hpp"

namespace snarkpipe::cli {

std::vector<std::uint8_t> read_file(const std::string& path);
void write_file(const std::string& path, std::span<const std::uint8_t> bytes);
void write_public_json(const std::string& path, std::span<const ff::Fr> xs);
// One list of public inputs per partition (a flat list is one partition).
std::vector<std::vector<ff::Fr>> read_public_json(const std::string& path);
void print_r1cs_shape(const circuit::R1cs& r);
groth16::ProvingKey run_setup(const circuit::R1cs& r1cs, PhaseProgress& progress);
groth16::ProverProgress prover_progress(PhaseProgress& progress);
std::string file_magic(const std::string& path);  // its first 8 bytes
// A circuit file: snarkpipe's recorded circuit (.snkr1cs, "SNKR1CS") or circom's .r1cs ("r1cs").
circuit::R1cs load_circuit_file(const std::string& path);
void add_proof_format_option(CLI::App* c, std::string& format);

// The commands, in the order --help lists them (register_groth16_commands).
void add_setup_command(CLI::App& app, std::vector<Command>& cmds);
void add_prove_command(CLI::App& app, std::vector<Command>& cmds);
void add_verify_command(CLI::App& app, std::vector<Command>& cmds);
void add_export_vk_command(CLI::App& app, std::vector<Command>& cmds);
void add_import_r1cs_command(CLI::App& app, std::vector<Command>& cmds);
void add_convert_command(CLI::App& app, std::vector<Command>& cmds);
void add_export_circuit_command(CLI::App& app, std::vector<Command>& cmds);
void add_test_ptau_command(CLI::App& app, std::vector<Command>& cmds);
void add_inspect_command(CLI::App& app, std::vector<Command>& cmds);
void add_demo_command(CLI::App& app, std::vector<Command>& cmds);

}  // namespace snarkpipe::cli
