// `snarkpipe selftest`: the arithmetic checked on fresh random inputs and against known
// answers from outside (the Zcash generators' encodings, e(G1, G2) as blst, zkcrypto and
// noble-curves compute it), with timings.
#pragma once

namespace snarkpipe::cli {

// Prints a report; returns the number of failed checks.
int run_selftest(bool verbose);

}  // namespace snarkpipe::cli
