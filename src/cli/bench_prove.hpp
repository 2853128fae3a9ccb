// snarkpipe bench prove --circuit synthetic: one PoRep-shape partition (or a scaled one)
// proved with the CPU or the CUDA backend, per-phase medians, every proof verified.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace snarkpipe::cli {

struct ProveBenchOptions {
  std::string scale = "1/1024";  // of the full PoRep partition shape
  std::string backend = "auto";  // cpu | cuda | auto (cuda when a GPU is usable)
  int runs = 3;                  // timed proofs, after one warm-up proof
  std::string params;            // cache the key here (bellperson .params): read if present, else written
  bool compare_cpu = false;      // also prove with the CPU backend and require equal proof bytes
  std::string srs_residency = "auto";  // cuda: vram | host | auto
  bool serial_msms = false;            // cuda: the L, A, B MSMs after the H MSM, on one stream
};

// The JSON record (machine, command, results) of the run; throws on any failure, including a
// proof that does not verify.
nlohmann::json run_prove_bench(const ProveBenchOptions& options, const std::string& command);

}  // namespace snarkpipe::cli
