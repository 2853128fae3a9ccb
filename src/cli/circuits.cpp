#include "cli/circuits.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "base/clock.hpp"
#include "base/sizes.hpp"
#include "circuit/r1cs_cache.hpp"
#include "circuit/recording_cs.hpp"
#include "circuit/witness_cs.hpp"
#include "gadgets/circuits.hpp"
#include "gadgets/porep_like.hpp"
#include "gadgets/synthetic.hpp"

namespace snarkpipe::cli {

std::size_t parse_size(const std::string& s) { return std::size_t(base::parse_count(s)); }

std::string CircuitSpec::describe() const {
  if (name == "sha256-preimage")
    return name + " (" + std::to_string(blocks) + " block" + (blocks == 1 ? "" : "s") + ")";
  if (name == "merkle-sha256") return name + " (depth " + std::to_string(depth) + ")";
  if (name == "synthetic") return name + " (" + constraints + " constraints, " + std::to_string(inputs) + " inputs)";
  if (name == "porep-like") return name + " (" + porep_like_params(*this).describe() + ")";
  return name;
}

gadgets::PorepLikeParams porep_like_params(const CircuitSpec& spec) {
  gadgets::PorepLikeParams p = gadgets::PorepLikeParams::preset(spec.scale);
  if (spec.challenges) p.challenges = spec.challenges;
  if (spec.layers) p.layers = spec.layers;
  if (spec.log2_nodes) p.log2_nodes = spec.log2_nodes;
  if (spec.parents) p.parents = spec.parents;
  p.validate();
  return p;
}

void add_circuit_options(CLI::App* cmd, CircuitSpec& spec) {
  cmd->add_option("--circuit", spec.name,
                  "Built-in circuit: sha256-preimage (knowledge of a SHA-256 preimage), merkle-sha256 (a leaf in a "
                  "binary SHA-256 Merkle tree), synthetic (random constraints, any size), porep-like (a stand-in for "
                  "a Filecoin PoRep partition: SHA-256 and Poseidon Merkle paths, labelling, encoding)")
      ->check(CLI::IsMember({"sha256-preimage", "merkle-sha256", "synthetic", "porep-like"}))
      ->capture_default_str();
  cmd->add_option("--blocks", spec.blocks, "sha256-preimage: number of 64-byte message blocks")->capture_default_str();
  cmd->add_option("--depth", spec.depth, "merkle-sha256: tree depth (about 45,600 constraints per level)")
      ->capture_default_str();
  cmd->add_option("--constraints", spec.constraints, "synthetic: number of constraints, N or 2^k")
      ->capture_default_str();
  cmd->add_option("--inputs", spec.inputs, "synthetic: number of public inputs")->capture_default_str();
  cmd->add_option("--scale", spec.scale,
                  "porep-like: preset tiny (~480K constraints), ci (~2.8M) or full (~130M, a PoRep partition)")
      ->check(CLI::IsMember({"tiny", "ci", "full"}))
      ->capture_default_str();
  cmd->add_option("--challenges", spec.challenges, "porep-like: challenges (overrides the preset)");
  cmd->add_option("--layers", spec.layers, "porep-like: layers (overrides the preset)");
  cmd->add_option("--log2-nodes", spec.log2_nodes,
                  "porep-like: log2 of the sector's node count, a multiple of 3 (overrides the preset)");
  cmd->add_option("--parents", spec.parents, "porep-like: parent labels hashed per layer (overrides the preset)");
  cmd->add_option("--seed", spec.seed, "Seed of the witness (and of the synthetic circuit's shape)")
      ->capture_default_str();
}

CircuitInstance make_circuit(const CircuitSpec& spec) {
  CircuitInstance c;
  if (spec.name == "sha256-preimage") {
    if (spec.blocks < 1 || spec.blocks > 1024) throw std::invalid_argument("--blocks must be in 1..1024");
    auto pre = gadgets::Sha256PreimageCircuit::random_preimage(spec.blocks, spec.seed);
    c.expected_public = gadgets::Sha256PreimageCircuit::public_inputs(pre);
    c.shape = std::make_unique<gadgets::Sha256PreimageCircuit>(spec.blocks, std::nullopt);
    c.proving = std::make_unique<gadgets::Sha256PreimageCircuit>(spec.blocks, std::move(pre));
  } else if (spec.name == "merkle-sha256") {
    if (spec.depth < 1 || spec.depth > 32) throw std::invalid_argument("--depth must be in 1..32");
    auto w = gadgets::MerkleSha256Circuit::random_witness(spec.depth, spec.seed);
    c.expected_public = gadgets::MerkleSha256Circuit::public_inputs(w);
    c.shape = std::make_unique<gadgets::MerkleSha256Circuit>(spec.depth, std::nullopt);
    c.proving = std::make_unique<gadgets::MerkleSha256Circuit>(spec.depth, std::move(w));
  } else if (spec.name == "synthetic") {
    const std::size_t n = parse_size(spec.constraints);
    if (n < 1 || n > (std::size_t(1) << 28)) throw std::invalid_argument("--constraints must be in 1..2^28");
    c.shape = std::make_unique<gadgets::SyntheticCircuit>(n, spec.inputs, spec.seed);
    c.proving = std::make_unique<gadgets::SyntheticCircuit>(n, spec.inputs, spec.seed);
  } else if (spec.name == "porep-like") {
    const gadgets::PorepLikeParams p = porep_like_params(spec);
    auto w = gadgets::PorepLikeWitness::random(p, spec.seed);
    c.expected_public = gadgets::porep_like_public_inputs(p, w);
    c.shape = std::make_unique<gadgets::PorepLikeCircuit>(p, std::nullopt);
    c.proving = std::make_unique<gadgets::PorepLikeCircuit>(p, std::move(w));
  } else {
    throw std::invalid_argument("unknown circuit '" + spec.name +
                                "' (try sha256-preimage, merkle-sha256, synthetic, porep-like)");
  }
  return c;
}

circuit::R1cs record(const circuit::Circuit& c, std::uint64_t max_constraints) {
  circuit::RecordingConstraintSystem cs(max_constraints);
  c.synthesize(cs);
  return cs.finish();
}

groth16::Witness synthesize_witness(const circuit::Circuit& c) {
  circuit::WitnessConstraintSystem cs;
  c.synthesize(cs);
  return {cs.take_inputs(), cs.take_aux()};
}

namespace {

// Names the code that records: the release and this executable's size and modification
// time, which change whenever snarkpipe is rebuilt (any change of a gadget may change the
// circuit a type records to).
std::string recorder_version() {
  std::string v = "snarkpipe " SNARKPIPE_VERSION;
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return v;
  const auto size = std::filesystem::file_size(exe, ec);
  if (ec) return v;
  const auto mtime = std::filesystem::last_write_time(exe, ec);
  if (ec) return v;
  return v + ", " + exe.string() + ", " + std::to_string(size) + " bytes, modified " +
         std::to_string(mtime.time_since_epoch().count());
}

}  // namespace

void add_cache_options(CLI::App* cmd, CacheOptions& cache) {
  cmd->add_option("--cache-dir", cache.dir,
                  "Where recorded circuits are cached (default $SNARKPIPE_CACHE_DIR, else $XDG_CACHE_HOME/snarkpipe, "
                  "else ~/.cache/snarkpipe)");
  cmd->add_flag("--no-cache", cache.disabled, "Record the circuit without reading or writing the cache");
}

std::string circuit_type(const CircuitSpec& spec) {
  if (spec.name == "sha256-preimage") return spec.name + ":blocks=" + std::to_string(spec.blocks);
  if (spec.name == "merkle-sha256") return spec.name + ":depth=" + std::to_string(spec.depth);
  if (spec.name == "synthetic") {
    return spec.name + ":constraints=" + std::to_string(parse_size(spec.constraints)) +
           ",inputs=" + std::to_string(spec.inputs) + ",seed=" + std::to_string(spec.seed);
  }
  if (spec.name == "porep-like") {
    const gadgets::PorepLikeParams p = porep_like_params(spec);
    return spec.name + ":challenges=" + std::to_string(p.challenges) + ",layers=" + std::to_string(p.layers) +
           ",log2_nodes=" + std::to_string(p.log2_nodes) + ",parents=" + std::to_string(p.parents);
  }
  throw std::invalid_argument("unknown circuit '" + spec.name + "'");
}

std::string RecordedCircuit::summary() const {
  char ms_text[32];
  std::snprintf(ms_text, sizeof ms_text, "%.0f ms", ms);
  if (from_cache) return std::string("loaded from cache in ") + ms_text + " (" + cache_path + ")";
  if (cache_path.empty()) return std::string("recorded in ") + ms_text;
  return std::string("recorded in ") + ms_text + " (cached in " + cache_path + ")";
}

RecordedCircuit record_cached(const CircuitSpec& spec, const circuit::Circuit& shape, const CacheOptions& cache) {
  RecordedCircuit out;
  std::optional<std::filesystem::path> dir;
  if (!cache.disabled) {
    dir = cache.dir.empty() ? circuit::R1csCache::default_dir() : std::optional<std::filesystem::path>(cache.dir);
    if (!dir) std::fprintf(stderr, "warning: no circuit cache: set SNARKPIPE_CACHE_DIR or HOME, or pass --cache-dir\n");
  }
  if (!dir) {
    const auto t0 = base::Clock::now();
    out.r1cs = record(shape);
    out.ms = base::ms_since(t0);
    return out;
  }
  const circuit::R1csCache c(*dir, recorder_version());
  circuit::R1csCache::Outcome o;
  out.r1cs = c.get_or_record(
      circuit_type(spec), [&] { return record(shape); }, &o);
  out.from_cache = o.loaded;
  out.ms = o.ms;
  if (o.loaded || o.written) out.cache_path = o.path.string();
  return out;
}

}  // namespace snarkpipe::cli
