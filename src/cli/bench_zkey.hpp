// snarkpipe bench prove --zkey: a circom circuit proved from its snarkjs key on the CPU zkey
// prover (circom/prover.hpp) and, with --backend cuda (or auto on a GPU machine), on the GPU one
// (cuda/zkey_prover.hpp): per-phase medians, every proof verified, the GPU's proof bytes equal to
// the CPU's for one fixed r, s, and optionally snarkjs's own `groth16 prove` on the same files.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace snarkpipe::cli {

struct ZkeyBenchOptions {
  std::string zkey, wtns;
  std::string backend = "auto";  // cpu: the CPU prover only; cuda / auto: also the GPU's
  int runs = 5;                  // proofs timed on each prover (median reported)
  int cpu_runs = -1;             // with a GPU: CPU proofs timed (-1: --runs; 0: only the byte check)
  std::string snarkjs;           // non-empty: also time snarkjs on the same files
  int snarkjs_runs = 3;
};

// The record (machine_info() plus "results"); `command` is recorded as given.
nlohmann::json run_zkey_bench(const ZkeyBenchOptions& o, const std::string& command);

}  // namespace snarkpipe::cli
