// What `bench pipeline` (cmd_engine.cpp) and `bench service` (bench_service.cpp) share: the
// options, the workload (keys and where each partition's witness comes from), the engine
// configuration they make from the options, and one timed run of the engine alone.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/circuits.hpp"
#include "engine/circuit_store.hpp"
#include "engine/config.hpp"
#include "engine/job.hpp"
#include "groth16/prover.hpp"

namespace snarkpipe::cli {

struct PipelineOptions {
  CircuitSpec circuit;
  std::string shape_scale;        // non-empty: the PoRep-shape synthetic circuit at this scale instead
  std::string params_file;        // with shape_scale: its key from this .params (queries left in the file for a GPU)
  std::string r1cs_file;          // with shape_scale: its circuit mapped from this .snkr1cs
  std::size_t witness_cache = 0;  // serve copies of this many pre-made witnesses
  std::vector<std::size_t> gpu_counts;  // non-empty: run with devices 0..k-1 for each k (a sweep)
  std::size_t proofs = 8;
  std::vector<std::size_t> concurrency{2};
  std::size_t partitions = 2;
  std::size_t gpu_workers = 0;                 // 0: from the configuration
  std::vector<std::size_t> synthesis_workers;  // empty: from the configuration
  std::string backend;                         // empty: from the configuration
  std::string config_file;
  std::vector<std::string> settings;  // --set section.key=value
  bool json = false;
  bool baseline = false;  // first time one partition alone
  std::string timeline;
  std::string out;
};

// The run's one JSON object (the keys the issue fixes) plus, for a sweep, its grid point.
struct RunResult {
  nlohmann::json metrics;
  std::size_t concurrency = 0, synthesis_workers = 0;
};

// What the runs prove: the keys, where partition k's witness comes from, and its public inputs.
struct Workload {
  std::shared_ptr<const engine::CircuitKeys> keys;
  engine::WitnessSource source;
  engine::PackedWitnessSource packed_source;  // the same witnesses packed as they are made (or none)
  std::vector<std::vector<ff::Fr>> publics;   // per partition index
  std::string describe;
  // With a witness cache: the witnesses made up front; partition k's is premade[k % size].
  std::shared_ptr<const std::vector<groth16::Witness>> premade;
  // One witness's host bytes as a full vector and packed (0/1 values as bits): what a
  // partition holds while it waits for a device, for backends that take either form.
  std::uint64_t witness_bytes = 0, packed_witness_bytes = 0;
  void measure(const groth16::Witness& w);
};

// The engine configuration: the machine's defaults, then --config, then --set, then the
// flags (--backend resolved: auto becomes cpu or cuda).
engine::EngineConfig pipeline_config(const PipelineOptions& o);

// A circuit of the CLI's registry, recorded and set up on the CPU; every partition proves the
// same witness (synthesized per partition, or copied when o.witness_cache > 0).
Workload gadget_workload(const PipelineOptions& o);
// The PoRep-shape synthetic circuit at o.shape_scale (keys from o.params_file / o.r1cs_file
// when given), a fresh witness per partition index, or copies of o.witness_cache made up front.
Workload shape_workload(const PipelineOptions& o, const std::string& backend);

// o.proofs jobs of o.partitions partitions through a fresh engine, `concurrency` in flight,
// every returned proof verified; the metrics bench pipeline reports.
RunResult run_pipeline(const PipelineOptions& o, engine::EngineConfig config, std::size_t concurrency,
                       const Workload& work, const std::string& timeline_path);

}  // namespace snarkpipe::cli
