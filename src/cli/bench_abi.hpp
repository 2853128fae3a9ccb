// snarkpipe bench abi: a synthetic PoRep-shape partition proved through the Filecoin ABI
// (libsnarkpipe_supraseal.so, loaded with dlopen as bellperson's crate links it), from a
// bellperson .params file and a/b/c + assignments in the caller's memory: pageable (a Rust
// Vec) and page-locked, one circuit per call and a batch, every proof verified.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace snarkpipe::cli {

struct AbiBenchOptions {
  std::string scale = "1/1024";  // of the full PoRep partition shape
  std::string params;            // the key (.params): read if present, else set up and written there
  std::string library;           // libsnarkpipe_supraseal.so; empty: next to this program's build
  int runs = 3;                  // timed calls per buffer kind, after one warm-up call
  int batch = 10;                // circuits in the batched call (0: none)
};

nlohmann::json run_abi_bench(const AbiBenchOptions& options, const std::string& command);

}  // namespace snarkpipe::cli
