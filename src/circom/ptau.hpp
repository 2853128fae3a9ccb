// A prepared powers-of-tau file (.ptau, as `snarkjs powersoftau prepare phase2` writes it)
// made directly from known τ, α, β: INSECURE (whoever knows the seed can forge proofs), for
// tests and benchmarks only, where snarkjs's own ceremony commands take minutes (power 11:
// ~100 s on the 2-core machine) to hours. `snarkjs groth16 setup` accepts it as it accepts
// its own.
//
// Layout (binfile.hpp's container, magic "ptau", version 1, 11 sections; points in the
// LEM encoding of zkey.hpp):
//   1  n8 = 48 u32 ‖ p (48 bytes LE) ‖ power u32 ‖ ceremonyPower u32
//   2  τ^i·G1, i < 2^(power+1) − 1        3  τ^i·G2, i < 2^power
//   4  α·τ^i·G1, i < 2^power               5  β·τ^i·G1, i < 2^power
//   6  β·G2                                7  contributions: count u32 = 0
//   12 for each level k = 0..power+1: L^(2^k)_j(τ)·G1, j < 2^k
//   13 for k = 0..power: L^(2^k)_j(τ)·G2     14, 15: α·L^(2^k)_j(τ)·G1, β·L^(2^k)_j(τ)·G1
// L^(n)_j is the Lagrange basis of the n-th roots of unity in snarkjs's order (prover.hpp:
// ω'_n^j). snarkjs computes section 12 as the inverse FFT of section 2, which for the top
// level lacks τ^(2^(power+1)−1) (taken as zero): there the entry is L_j(τ) − τ^(N−1)·ω'^j/N,
// N = 2^(power+1), and this writer does the same.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "ff/fields.hpp"

namespace snarkpipe::circom {

struct PtauSecrets {
  ff::Fr tau, alpha, beta;
  static PtauSecrets from_seed(std::uint64_t seed);
};

// power in 1..27. Calls progress(section name) before each section when given.
void write_insecure_ptau(const std::string& path, unsigned power, const PtauSecrets& s,
                         const std::function<void(std::string_view)>& progress = {});

}  // namespace snarkpipe::circom
