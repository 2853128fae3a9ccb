// The QAP's column polynomials at τ, which every key construction needs (setup.cpp for
// bellperson keys, circom/zkey_setup.cpp for snarkjs keys).
#pragma once

#include <cstddef>
#include <vector>

#include "circuit/r1cs.hpp"

namespace snarkpipe::groth16 {

// out[j] = Σ_k M[k][j]·lagrange[k] for j < columns: with the Lagrange basis at τ by row,
// column j's polynomial at τ (u_j, v_j or w_j). Multi-threaded.
std::vector<ff::Fr> transpose_times(const circuit::CsrMatrix& m, std::size_t columns,
                                    const std::vector<ff::Fr>& lagrange);

}  // namespace snarkpipe::groth16
