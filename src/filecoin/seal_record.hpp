// One seal to check, as a JSON object in the form of a line of rust-fil-proofs' seal
// regression records (filecoin-proofs/tests/regression.rs SealRegressionRecord, serde's JSON;
// e.g. tests/seal_regression_records-v16.json):
//
//   {"porep_config": {"sector_size": 34359738368, "partitions": 10,
//                     "porep_id": [8,0,…,0], "api_version": "V1_1_0", "api_features": []},
//    "comm_r": [32 numbers], "comm_d": […], "prover_id": […], "sector_id": 9259733836259213201,
//    "ticket": […], "seed": […], "proof": [192 × partitions numbers]}
//
// Byte fields may also be hex strings (and comm_r / comm_d CIDs). Unknown keys are ignored.
#pragma once

#include <string_view>
#include <vector>

#include "filecoin/public_inputs.hpp"

namespace snarkpipe::filecoin {

struct SealRecord {
  SealInputs inputs;
  std::vector<std::uint8_t> proof;
};

// Throws SealInputError naming the JSON field ("porep_config.api_version", "comm_r", …).
SealRecord parse_seal_record(std::string_view json);

}  // namespace snarkpipe::filecoin
