// `snarkpipe bench cpu`: the essential CPU arithmetic timings as one JSON object
// (median of several timed runs after a warm-up; dependent chains for the field ops).
#pragma once

#include <nlohmann/json.hpp>

namespace snarkpipe::cli {

nlohmann::json run_cpu_bench(bool quick);

}  // namespace snarkpipe::cli
