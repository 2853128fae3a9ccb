// snarkpipe bench prove --circuit synthetic: one PoRep-shape partition (or a scaled one)
// proved with the CPU or the CUDA backend, per-phase medians, every proof verified.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace snarkpipe::cli {

struct ProveBenchOptions {
  std::string scale = "1/1024";        // of the full PoRep partition shape
  std::string backend = "auto";        // cpu | cuda | auto (cuda when a GPU is usable)
  int runs = 3;                        // timed proofs, after one warm-up proof
  std::string params;                  // cache the key here (bellperson .params): read if present, else written
  bool compare_cpu = false;            // also prove with the CPU backend and require equal proof bytes
  std::string srs_residency = "auto";  // cuda: vram | host | auto
  bool serial_msms = false;            // cuda: the L, A, B MSMs after the H MSM, on one stream
  // cuda: card sizes to measure in turn, each under `ballast` holding all but that many GiB of
  // the GPU (0: no ballast). Empty: one run with the GPU as it is.
  std::vector<double> free_gib;
  std::string ballast;  // the ballast program (../shared/anchors/bin/ballast)
};

// The JSON record (machine, command, results: one per card size) of the run; throws on any
// failure, including a proof that does not verify. A card size too small for every memory
// tier is recorded as refused (with the plan's words) and the next size runs.
nlohmann::json run_prove_bench(const ProveBenchOptions& options, const std::string& command);

}  // namespace snarkpipe::cli
