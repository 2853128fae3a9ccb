// Launch geometry shared by the CUDA sources.
#pragma once

#include <cstddef>

namespace snarkpipe::cuda {

// Blocks of `threads` threads covering n items.
inline unsigned blocks_for(std::size_t n, unsigned threads) { return unsigned((n + threads - 1) / threads); }

}  // namespace snarkpipe::cuda
