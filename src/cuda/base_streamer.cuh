// MSMs over bases that stay in pinned host memory: a proving key too large for the device
// (--srs-residency host) and `bench gpu`'s host_pinned inputs. Pieces of the bases cross
// the bus into two device buffers on a copy stream while the MSM of the previous piece runs
// on the compute stream; events order the two (a piece buffer is refilled only after the
// MSM that read it), so the host never waits for a copy.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "cuda/check.cuh"
#include "cuda/memory.hpp"
#include "cuda/msm.hpp"
#include "cuda/stream.hpp"

namespace snarkpipe::cuda {

class BaseStreamer {
 public:
  // Pieces of g1_piece G1 points, or half as many G2 points (the same bytes); the buffers
  // and every MSM temporary come from `pool`, the MSMs run on `stream`.
  BaseStreamer(BufferPool& pool, cudaStream_t stream, std::size_t g1_piece)
      : stream_(stream),
        g1_piece_(std::max<std::size_t>(g1_piece, 2)),
        copy_stream_(cudaStreamNonBlocking),
        entry_(cudaEventDisableTiming),
        copied_{Event(cudaEventDisableTiming), Event(cudaEventDisableTiming)},
        freed_{Event(cudaEventDisableTiming), Event(cudaEventDisableTiming)} {
    const std::size_t bytes = g1_piece_ * sizeof(ec::G1Affine);
    static_assert(2 * sizeof(ec::G1Affine) == sizeof(ec::G2Affine));
    piece_[0] = pool.acquire(bytes);
    piece_[1] = pool.acquire(bytes);
    g1_ = std::make_unique<GpuMsmG1>(0, pool, stream);
    g2_ = std::make_unique<GpuMsmG2>(0, pool, stream);
  }
  ~BaseStreamer() {
    g1_.reset();
    g2_.reset();
    piece_[0].reset();
    piece_[1].reset();
  }
  BaseStreamer(const BaseStreamer&) = delete;
  BaseStreamer& operator=(const BaseStreamer&) = delete;

  template <class C>
  std::size_t piece_points() const {
    return std::is_same_v<C, ec::G1Curve> ? g1_piece_ : g1_piece_ / 2;
  }

  // Σ over the pieces [off, off + len) of n host points of run_piece(msm, off, len), where
  // msm reads that piece's points as its bases (indices 0..len) and run_piece returns the
  // piece's Jacobian sum (ordered on `stream`; msm_device synchronizes for its result).
  template <class C, class RunPiece>
  ec::Jacobian<C> run(const ec::Affine<C>* host_points, std::size_t n, RunPiece&& run_piece) {
    GpuMsm<C>& msm = msm_for<C>();
    const std::size_t per_piece = piece_points<C>();
    const std::size_t pieces = (n + per_piece - 1) / per_piece;
    ec::Jacobian<C> acc = ec::Jacobian<C>::identity();
    // The first copy waits for what the caller queued before (it may still read a piece).
    SNARKPIPE_CUDA_CHECK(cudaEventRecord(entry_, stream_));
    SNARKPIPE_CUDA_CHECK(cudaStreamWaitEvent(copy_stream_, entry_));
    auto enqueue = [&](std::size_t p) {
      const std::size_t off = p * per_piece, len = std::min(per_piece, n - off);
      if (p >= 2) SNARKPIPE_CUDA_CHECK(cudaStreamWaitEvent(copy_stream_, freed_[p % 2]));
      SNARKPIPE_CUDA_CHECK(cudaMemcpyAsync(piece_[p % 2].data(), host_points + off, len * sizeof(ec::Affine<C>),
                                           cudaMemcpyHostToDevice, copy_stream_));
      SNARKPIPE_CUDA_CHECK(cudaEventRecord(copied_[p % 2], copy_stream_));
    };
    if (pieces) enqueue(0);
    for (std::size_t p = 0; p < pieces; ++p) {
      if (p + 1 < pieces) enqueue(p + 1);
      const std::size_t off = p * per_piece, len = std::min(per_piece, n - off);
      SNARKPIPE_CUDA_CHECK(cudaStreamWaitEvent(stream_, copied_[p % 2]));
      msm.use_external_bases(piece_[p % 2].template as<ec::Affine<C>>(), len);
      acc += run_piece(msm, off, len);
      SNARKPIPE_CUDA_CHECK(cudaEventRecord(freed_[p % 2], stream_));
    }
    return acc;
  }

 private:
  template <class C>
  GpuMsm<C>& msm_for() {
    if constexpr (std::is_same_v<C, ec::G1Curve>) return *g1_;
    else return *g2_;
  }

  cudaStream_t stream_;
  std::size_t g1_piece_;
  Stream copy_stream_;
  Event entry_, copied_[2], freed_[2];
  DeviceBuffer piece_[2];
  std::unique_ptr<GpuMsmG1> g1_;
  std::unique_ptr<GpuMsmG2> g2_;
};

}  // namespace snarkpipe::cuda
