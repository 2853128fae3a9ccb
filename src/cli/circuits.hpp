// The built-in circuits the command line proves, chosen by name (`--circuit NAME`) with
// their size options, and a deterministic witness drawn from `--seed`.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "circuit/constraint_system.hpp"
#include "circuit/r1cs.hpp"
#include "gadgets/porep_like.hpp"
#include "groth16/prover.hpp"

namespace snarkpipe::cli {

struct CircuitSpec {
  std::string name = "merkle-sha256";
  std::size_t blocks = 1;          // sha256-preimage: message blocks
  std::size_t depth = 4;           // merkle-sha256: tree depth
  std::string constraints = "2^12";  // synthetic: constraints (N or 2^k)
  std::size_t inputs = 2;          // synthetic: public inputs
  std::string scale = "tiny";      // porep-like: preset (tiny, ci, full), then the overrides below
  std::size_t challenges = 0;      // porep-like overrides; 0 keeps the preset's value
  std::size_t layers = 0;
  std::size_t log2_nodes = 0;
  std::size_t parents = 0;
  std::uint64_t seed = 1;          // the witness (and synthetic's shape)

  std::string describe() const;
};

// Adds --circuit and the size options to a subcommand.
void add_circuit_options(CLI::App* cmd, CircuitSpec& spec);

// The porep-like parameters the spec selects (validated; std::invalid_argument).
gadgets::PorepLikeParams porep_like_params(const CircuitSpec& spec);

// Parses "N" or "2^k" (the --constraints syntax); throws std::invalid_argument.
std::size_t parse_size(const std::string& s);

struct CircuitInstance {
  std::unique_ptr<circuit::Circuit> shape;    // no witness: for recording
  std::unique_ptr<circuit::Circuit> proving;  // with the witness from the seed
  std::vector<ff::Fr> expected_public;        // computed natively (empty when not known)
};
CircuitInstance make_circuit(const CircuitSpec& spec);

circuit::R1cs record(const circuit::Circuit& c);
groth16::Witness synthesize_witness(const circuit::Circuit& c);

}  // namespace snarkpipe::cli
