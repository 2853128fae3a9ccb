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
  std::size_t blocks = 1;            // sha256-preimage: message blocks
  std::size_t depth = 4;             // merkle-sha256: tree depth
  std::string constraints = "2^12";  // synthetic: constraints (N or 2^k)
  std::size_t inputs = 2;            // synthetic: public inputs
  std::string scale = "tiny";        // porep-like: preset (tiny, ci, full), then the overrides below
  std::size_t challenges = 0;        // porep-like overrides; 0 keeps the preset's value
  std::size_t layers = 0;
  std::size_t log2_nodes = 0;
  std::size_t parents = 0;
  std::uint64_t seed = 1;  // the witness (and synthetic's shape)

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

// The circuit's R1cs; std::length_error past max_constraints (nothing kept).
circuit::R1cs record(const circuit::Circuit& c, std::uint64_t max_constraints = ~std::uint64_t(0));
groth16::Witness synthesize_witness(const circuit::Circuit& c);

// Where commands that record a built-in circuit keep it between runs (circuit::R1csCache).
struct CacheOptions {
  std::string dir;        // --cache-dir; empty: R1csCache::default_dir()
  bool disabled = false;  // --no-cache
};
// Adds --cache-dir and --no-cache to a subcommand.
void add_cache_options(CLI::App* cmd, CacheOptions& cache);

// The cache key of the circuit the spec builds: its name and every parameter that changes
// its constraints ("porep-like:challenges=2,layers=4,log2_nodes=12,parents=14"). The seed
// is in it only for synthetic, whose shape the seed draws.
std::string circuit_type(const CircuitSpec& spec);

struct RecordedCircuit {
  circuit::R1cs r1cs;
  bool from_cache = false;
  double ms = 0;           // recording, or loading from the cache
  std::string cache_path;  // the cache file; empty when the cache is off
  // "recorded in 812 ms (cached in PATH)", "loaded from cache in 9 ms (PATH)".
  std::string summary() const;
};
// `shape` (make_circuit(spec).shape) recorded, or loaded from the cache when it holds the
// spec's circuit type as recorded by this very snarkpipe executable: the key includes the
// executable's size and modification time, since a rebuilt snarkpipe may record another
// circuit under the same parameters.
RecordedCircuit record_cached(const CircuitSpec& spec, const circuit::Circuit& shape, const CacheOptions& cache);

}  // namespace snarkpipe::cli
