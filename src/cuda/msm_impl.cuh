// The definitions of GpuMsm<C> (msm.hpp), included by one .cu per curve (msm_g1.cu,
// msm_g2.cu) so that the two instantiations compile in parallel: the host side (planning,
// buffers, sorts, launches); the kernels it launches are in msm_kernels.cuh.
#pragma once

#include <algorithm>
#include <bit>
#include <chrono>
#include <climits>
#include <cstring>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <stdexcept>
#include <vector>

#include "cuda/check.cuh"
#include "cuda/launch.hpp"
#include "cuda/curve.cuh"
#include "cuda/msm.hpp"
#include "cuda/stream.hpp"
#include "cuda/tuning.hpp"
#include "cuda/to_affine.cuh"

#include "cuda/msm_kernels.cuh"

namespace snarkpipe::cuda {

namespace {

using ff::Fr;

constexpr unsigned MAX_WINDOW_BITS = MSM_MAX_WINDOW_BITS;
// The reduction's cost per bucket in mixed additions (measured 2026-11-30 on the H200:
// bucket sums plus running sums ≈ 7 additions' time per bucket).
constexpr double BUCKET_COST = MSM_BUCKET_COST;

class EventTimer {
 public:
  EventTimer(bool on, cudaStream_t s) : on_(on), stream_(s) {}
  void mark() {
    if (!on_) return;
    Event e(cudaEventDefault);
    SNARKPIPE_CUDA_CHECK(cudaEventRecord(e, stream_));
    events_.push_back(std::move(e));
  }
  // Milliseconds between mark i and mark i + 1 (after the stream has synchronized).
  float span(std::size_t i) const {
    if (!on_ || i + 1 >= events_.size()) return 0;
    return elapsed_ms(events_[i], events_[i + 1]);
  }

 private:
  bool on_;
  cudaStream_t stream_;
  std::vector<Event> events_;
};

}  // namespace

template <class C>
struct GpuMsm<C>::Impl {
  int device;
  std::size_t n;
  std::unique_ptr<BufferPool> own_pool;  // when the caller gives none; outlives the buffers
  BufferPool& pool;
  Stream own_stream;  // when the caller gives none
  cudaStream_t stream = nullptr;
  DeviceBuffer bases;
  const void* external = nullptr;  // use_external_bases: the caller's device memory instead
  // precompute(): windows_for(pre_c) copies of the n bases, copy j = 2^(pre_c·j)·P, back to back.
  DeviceBuffer copies;
  unsigned pre_c = 0;
  PinnedBuffer staging;
  GpuMsmTimings timings;

  const void* base_ptr() const { return external ? external : bases.data(); }

  Impl(std::size_t count, int dev)
      : device(dev), n(count), own_pool(std::make_unique<BufferPool>(dev)), pool(*own_pool) {
    SNARKPIPE_CUDA_CHECK(cudaSetDevice(dev));
    own_stream = Stream(cudaStreamNonBlocking);
    stream = own_stream;
    bases = pool.acquire(std::max<std::size_t>(count, 1) * sizeof(ec::Affine<C>));
  }
  Impl(std::size_t count, BufferPool& bases_pool, BufferPool& work, cudaStream_t s)
      : device(work.device()), n(count), pool(work), stream(s) {
    SNARKPIPE_CUDA_CHECK(cudaSetDevice(device));
    bases = bases_pool.acquire(std::max<std::size_t>(count, 1) * sizeof(ec::Affine<C>));
  }
  ~Impl() {
    copies.reset();
    bases.reset();
  }
};

template <class C>
GpuMsm<C>::GpuMsm(std::span<const Affine> bases, int device) : impl_(std::make_unique<Impl>(bases.size(), device)) {
  const std::size_t bytes = bases.size() * sizeof(Affine);
  if (bytes == 0) return;
  impl_->staging.reserve(bytes);
  std::memcpy(impl_->staging.data(), bases.data(), bytes);
  SNARKPIPE_CUDA_CHECK(
      cudaMemcpyAsync(impl_->bases.data(), impl_->staging.data(), bytes, cudaMemcpyHostToDevice, impl_->stream));
  SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(impl_->stream));
}

template <class C>
GpuMsm<C>::GpuMsm(std::size_t n, int device) : impl_(std::make_unique<Impl>(n, device)) {}

template <class C>
GpuMsm<C>::GpuMsm(std::size_t n, BufferPool& pool, void* stream)
    : impl_(std::make_unique<Impl>(n, pool, pool, cudaStream_t(stream))) {}

template <class C>
GpuMsm<C>::GpuMsm(std::size_t n, BufferPool& bases_pool, BufferPool& pool, void* stream)
    : impl_(std::make_unique<Impl>(n, bases_pool, pool, cudaStream_t(stream))) {}

template <class C>
GpuMsm<C>::~GpuMsm() = default;

template <class C>
std::size_t GpuMsm<C>::size() const {
  return impl_->n;
}
template <class C>
void GpuMsm<C>::use_external_bases(const Affine* d_bases, std::size_t n) {
  impl_->external = d_bases;
  impl_->n = n;
  drop_precomputed();  // the copies were of the old bases
}

template <class C>
void GpuMsm<C>::drop_precomputed() {
  impl_->copies.reset();
  impl_->pre_c = 0;
}

template <class C>
unsigned GpuMsm<C>::window_bits_for_precomputed(std::size_t n) {
  // One bucket set for every window: the reduction costs 2^(c-1) buckets once, not per window.
  unsigned best = 2;
  double best_cost = 0;
  for (unsigned c = 2; c <= MAX_WINDOW_BITS; ++c) {
    const double cost = double(n) * windows_for(c) + BUCKET_COST * double(1u << (c - 1));
    if (c == 2 || cost < best_cost) best = c, best_cost = cost;
  }
  return best;
}

template <class C>
void GpuMsm<C>::precompute(unsigned window_bits) {
  using F = device_field_t<C>;
  Impl& m = *impl_;
  const unsigned c = window_bits ? window_bits : window_bits_for_precomputed(m.n);
  if (c < 2 || c > MAX_WINDOW_BITS) throw std::invalid_argument("GpuMsm::precompute: window_bits must be 2..22");
  const unsigned W = windows_for(c);
  if (std::size_t(W) * m.n >= SIGN_BIT)
    throw std::invalid_argument("GpuMsm::precompute: windows × bases must stay below 2^31");
  SNARKPIPE_CUDA_CHECK(cudaSetDevice(m.device));
  drop_precomputed();
  if (m.n == 0) return;
  const std::size_t bytes = std::size_t(W) * m.n * sizeof(affine_t<F>);
  try {
    m.copies = m.pool.acquire(bytes);
  } catch (const std::exception& e) {
    throw std::runtime_error("GpuMsm::precompute: " + std::to_string(W) + " copies of " + std::to_string(m.n) +
                             " bases need " + std::to_string(bytes >> 20) + " MiB of device memory: " + e.what());
  }
  affine_t<F>* out = m.copies.template as<affine_t<F>>();
  SNARKPIPE_CUDA_CHECK(
      cudaMemcpyAsync(out, m.base_ptr(), m.n * sizeof(affine_t<F>), cudaMemcpyDeviceToDevice, m.stream));
  DeviceBuffer tmp = m.pool.acquire(m.n * sizeof(xyzz_t<F>));
  for (unsigned j = 1; j < W; ++j) {
    shift_kernel<F><<<blocks_for(m.n, POINT_THREADS), POINT_THREADS, 0, m.stream>>>(out + (j - 1) * m.n, m.n, c,
                                                                                    tmp.as<xyzz_t<F>>());
    SNARKPIPE_CUDA_CHECK_LAUNCH();
    to_affine_kernel<F><<<blocks_for(blocks_for(m.n, TO_AFFINE_CHUNK), 128), 128, 0, m.stream>>>(tmp.as<xyzz_t<F>>(),
                                                                                                 m.n, out + j * m.n);
    SNARKPIPE_CUDA_CHECK_LAUNCH();
  }
  SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(m.stream));  // tmp goes back to the pool
  m.pre_c = c;
}

template <class C>
unsigned GpuMsm<C>::precomputed_window_bits() const {
  return impl_->pre_c;
}

template <class C>
typename GpuMsm<C>::Affine* GpuMsm<C>::device_bases() {
  return impl_->bases.template as<Affine>();
}
template <class C>
void* GpuMsm<C>::stream() const {
  return impl_->stream;
}
template <class C>
BufferPool& GpuMsm<C>::pool() {
  return impl_->pool;
}
template <class C>
const GpuMsmTimings& GpuMsm<C>::last_timings() const {
  return impl_->timings;
}

template <class C>
unsigned GpuMsm<C>::window_bits_for(std::size_t n) {
  return msm_window_bits(n);
}

template <class C>
typename GpuMsm<C>::Jacobian GpuMsm<C>::msm(std::span<const Fr> scalars, const GpuMsmConfig& cfg) {
  Impl& m = *impl_;
  if (scalars.size() > m.n) throw std::invalid_argument("GpuMsm: more scalars than bases");
  if (scalars.empty()) return Jacobian::identity();
  SNARKPIPE_CUDA_CHECK(cudaSetDevice(m.device));
  const std::size_t bytes = scalars.size() * sizeof(Fr);
  DeviceBuffer d = m.pool.acquire(bytes);
  m.staging.reserve(bytes);
  std::memcpy(m.staging.data(), scalars.data(), bytes);
  SNARKPIPE_CUDA_CHECK(cudaMemcpyAsync(d.data(), m.staging.data(), bytes, cudaMemcpyHostToDevice, m.stream));
  return msm_device(d.template as<Fr>(), scalars.size(), cfg);  // synchronizes before returning
}

template <class C>
typename GpuMsm<C>::Jacobian GpuMsm<C>::sum_device(const uint32_t* d_index, std::size_t n) {
  using F = device_field_t<C>;
  using P = xyzz_t<F>;
  Impl& m = *impl_;
  if (n == 0) return Jacobian::identity();
  if (n > UINT32_MAX) throw std::invalid_argument("GpuMsm::sum_device: more than 2^32 indices");
  SNARKPIPE_CUDA_CHECK(cudaSetDevice(m.device));
  cudaStream_t st = m.stream;
  uint32_t count = blocks_for(n, SEGMENT);
  DeviceBuffer a = m.pool.acquire(std::size_t(count) * sizeof(P));
  DeviceBuffer b = m.pool.acquire(std::size_t(blocks_for(count, GROUP)) * sizeof(P));
  indexed_sum_kernel<F><<<blocks_for(count, POINT_THREADS), POINT_THREADS, 0, st>>>(
      d_index, uint32_t(n), static_cast<const affine_t<F>*>(m.base_ptr()), a.as<P>());
  SNARKPIPE_CUDA_CHECK_LAUNCH();
  P* in = a.as<P>();
  P* out = b.as<P>();
  while (count > 1) {
    const uint32_t groups = blocks_for(count, GROUP);
    group_sum_kernel<F><<<blocks_for(groups, POINT_THREADS), POINT_THREADS, 0, st>>>(in, count, 1, out);
    SNARKPIPE_CUDA_CHECK_LAUNCH();
    std::swap(in, out);
    count = groups;
  }
  ec::XYZZ<C> sum;
  static_assert(sizeof(ec::XYZZ<C>) == sizeof(P));
  SNARKPIPE_CUDA_CHECK(cudaMemcpyAsync(&sum, in, sizeof(P), cudaMemcpyDeviceToHost, st));
  SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(st));
  return sum.to_jacobian();
}

template <class C>
typename GpuMsm<C>::Jacobian GpuMsm<C>::msm_device(const Fr* d_scalars, std::size_t n, const GpuMsmConfig& cfg,
                                                   const uint32_t* d_base_index, std::size_t base_offset) {
  if (n + base_offset > impl_->n) throw std::invalid_argument("GpuMsm: more scalars than bases");
  if (n == 0) return Jacobian::identity();
  return run(d_scalars, n, 1, cfg, d_base_index, base_offset)[0];
}

template <class C>
std::vector<typename GpuMsm<C>::Jacobian> GpuMsm<C>::msm_device_batch(const Fr* d_scalars, std::size_t n,
                                                                      unsigned count, const GpuMsmConfig& cfg) {
  if (n > impl_->n) throw std::invalid_argument("GpuMsm: more scalars than bases");
  if (n == 0 || count == 0) return std::vector<Jacobian>(count, Jacobian::identity());
  return run(d_scalars, n, count, cfg, nullptr, 0);
}

// The MSM for `vectors` scalar vectors of n (scalars[v·n + i]) against the same bases: the
// windows in passes of at most cfg.max_entries / (n·vectors) windows each (all in one pass
// without a bound), each pass one digit decomposition, one sort, one accumulation and one
// reduction over every vector's bucket sets; the passes' partial sums added on the host.
template <class C>
std::vector<typename GpuMsm<C>::Jacobian> GpuMsm<C>::run(const Fr* d_scalars, std::size_t n, unsigned vectors,
                                                         const GpuMsmConfig& cfg, const uint32_t* d_base_index,
                                                         std::size_t base_offset) {
  Impl& m = *impl_;
  // Precomputed copies serve every call that does not ask for another window.
  const bool shared = m.pre_c != 0 && (cfg.window_bits == 0 || cfg.window_bits == m.pre_c);
  const unsigned asked = shared ? m.pre_c : cfg.window_bits ? cfg.window_bits : window_bits_for(n);
  if (asked < 2 || asked > MAX_WINDOW_BITS) throw std::invalid_argument("GpuMsm: window_bits must be 2..22");
  const WindowLayout layout = shared ? uniform_windows(asked) : balanced_windows(asked);
  const unsigned W = layout.windows;
  const std::size_t per_vector_window = n * vectors;
  const unsigned per_pass =
      cfg.max_entries ? unsigned(std::clamp<std::size_t>(cfg.max_entries / per_vector_window, 1, W)) : W;
  if (cfg.timings) m.timings = {};
  std::vector<Jacobian> results(vectors, Jacobian::identity());
  for (unsigned wb = 0; wb < W; wb += per_pass) {
    const std::vector<Jacobian> part =
        run_pass(d_scalars, n, vectors, cfg, layout, shared, wb, std::min(W, wb + per_pass), d_base_index, base_offset);
    for (unsigned v = 0; v < vectors; ++v) results[v] += part[v];
  }
  return results;
}

// One pass of run: windows [w_begin, w_end).
template <class C>
std::vector<typename GpuMsm<C>::Jacobian> GpuMsm<C>::run_pass(const Fr* d_scalars, std::size_t n, unsigned vectors,
                                                              const GpuMsmConfig& cfg, const WindowLayout& layout,
                                                              bool shared, unsigned w_begin, unsigned w_end,
                                                              const uint32_t* d_base_index, std::size_t base_offset) {
  using F = device_field_t<C>;
  using P = xyzz_t<F>;
  Impl& m = *impl_;
  const unsigned W = w_end - w_begin;  // this pass's windows
  const uint32_t half = 1u << (layout.bits - 1);
  const unsigned sets = vectors * (shared ? 1u : W);  // bucket sets ("windows" of the reduction)
  if (std::size_t(sets) * half >= SIGN_BIT) throw std::invalid_argument("GpuMsm: too many buckets for one pass");
  const uint32_t B = sets * half;  // buckets; B is also the sentinel key
  if (std::size_t(n) * W * vectors > std::size_t(INT_MAX))
    throw std::invalid_argument("GpuMsm: n·windows·vectors exceeds 2^31 (set max_entries)");
  const uint32_t total = uint32_t(n * W * vectors);
  const int key_bits = std::bit_width(B);
  const std::size_t max_segments = total / SEGMENT + B + 1;
  SNARKPIPE_CUDA_CHECK(cudaSetDevice(m.device));
  cudaStream_t st = m.stream;
  EventTimer timer(cfg.timings, st);

  DeviceBuffer keys0 = m.pool.acquire(total * sizeof(uint32_t)), keys1 = m.pool.acquire(total * sizeof(uint32_t));
  DeviceBuffer vals0 = m.pool.acquire(total * sizeof(uint32_t)), vals1 = m.pool.acquire(total * sizeof(uint32_t));
  DeviceBuffer start = m.pool.acquire((B + 1) * sizeof(uint32_t)), end = m.pool.acquire((B + 1) * sizeof(uint32_t));
  DeviceBuffer counts = m.pool.acquire((B + 1) * sizeof(uint32_t)),
               offsets = m.pool.acquire((B + 1) * sizeof(uint32_t));

  timer.mark();
  digits_kernel<<<blocks_for(n * vectors, 256), 256, 0, st>>>(
      reinterpret_cast<const fr_t*>(d_scalars), uint32_t(n), vectors, layout, w_begin, w_end,
      shared ? uint32_t(m.n) : 0u, B, d_base_index, keys0.as<uint32_t>(), vals0.as<uint32_t>());
  SNARKPIPE_CUDA_CHECK_LAUNCH();
  timer.mark();

  cub::DoubleBuffer<uint32_t> keys(keys0.as<uint32_t>(), keys1.as<uint32_t>());
  cub::DoubleBuffer<uint32_t> vals(vals0.as<uint32_t>(), vals1.as<uint32_t>());
  std::size_t sort_bytes = 0, scan_bytes = 0, max_bytes = 0;
  SNARKPIPE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys, vals, int(total), 0, key_bits, st));
  SNARKPIPE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts.as<uint32_t>(), offsets.as<uint32_t>(),
                                                     int(B + 1), st));
  SNARKPIPE_CUDA_CHECK(
      cub::DeviceReduce::Max(nullptr, max_bytes, counts.as<uint32_t>(), end.as<uint32_t>() + B, int(B + 1), st));
  DeviceBuffer temp = m.pool.acquire(std::max({sort_bytes, scan_bytes, max_bytes}));
  SNARKPIPE_CUDA_CHECK(
      cub::DeviceRadixSort::SortPairs(temp.data(), sort_bytes, keys, vals, int(total), 0, key_bits, st));
  timer.mark();

  SNARKPIPE_CUDA_CHECK(cudaMemsetAsync(start.data(), 0, (B + 1) * sizeof(uint32_t), st));
  SNARKPIPE_CUDA_CHECK(cudaMemsetAsync(end.data(), 0, (B + 1) * sizeof(uint32_t), st));
  bucket_bounds_kernel<<<blocks_for(total, 256), 256, 0, st>>>(keys.Current(), total, B, start.as<uint32_t>(),
                                                               end.as<uint32_t>());
  SNARKPIPE_CUDA_CHECK_LAUNCH();
  piece_count_kernel<<<blocks_for(B + 1, 256), 256, 0, st>>>(start.as<uint32_t>(), end.as<uint32_t>(), B,
                                                             counts.as<uint32_t>());
  SNARKPIPE_CUDA_CHECK_LAUNCH();
  // The most pieces any bucket has (into the unused end[B]), read back below.
  SNARKPIPE_CUDA_CHECK(
      cub::DeviceReduce::Max(temp.data(), max_bytes, counts.as<uint32_t>(), end.as<uint32_t>() + B, int(B + 1), st));
  uint32_t max_pieces = 0;
  SNARKPIPE_CUDA_CHECK(
      cudaMemcpyAsync(&max_pieces, end.as<uint32_t>() + B, sizeof max_pieces, cudaMemcpyDeviceToHost, st));
  SNARKPIPE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.data(), scan_bytes, counts.as<uint32_t>(),
                                                     offsets.as<uint32_t>(), int(B + 1), st));
  DeviceBuffer partials = m.pool.acquire(max_segments * sizeof(P));
  accumulate_kernel<F><<<blocks_for(blocks_for(total, SEGMENT), POINT_THREADS), POINT_THREADS, 0, st>>>(
      keys.Current(), vals.Current(), total, B, start.as<uint32_t>(), offsets.as<uint32_t>(),
      static_cast<const affine_t<F>*>(shared ? m.copies.data() : m.base_ptr()) + base_offset, partials.as<P>());
  SNARKPIPE_CUDA_CHECK_LAUNCH();
  timer.mark();

  // Levels of FAN_IN-way sums while some bucket has more than FAN_IN pieces (rare for random
  // scalars: only repeated scalars or the top window's few buckets make long ones), then one
  // thread per bucket sums what is left.
  SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(st));  // for max_pieces (the accumulation was queued first)
  const std::size_t level_segments = max_segments / FAN_IN + 2 * (std::size_t(B) + 1);
  DeviceBuffer level, offsets2 = m.pool.acquire((B + 1) * sizeof(uint32_t));
  if (max_pieces > FAN_IN) level = m.pool.acquire(level_segments * sizeof(P));
  P* cur = partials.as<P>();
  P* next = level.as<P>();
  uint32_t* offs_cur = offsets.as<uint32_t>();
  uint32_t* offs_next = offsets2.as<uint32_t>();
  for (std::size_t per_bucket = max_pieces; per_bucket > FAN_IN; per_bucket = (per_bucket + FAN_IN - 1) / FAN_IN) {
    regroup_count_kernel<<<blocks_for(B + 1, 256), 256, 0, st>>>(offs_cur, B, counts.as<uint32_t>());
    SNARKPIPE_CUDA_CHECK_LAUNCH();
    SNARKPIPE_CUDA_CHECK(
        cub::DeviceScan::ExclusiveSum(temp.data(), scan_bytes, counts.as<uint32_t>(), offs_next, int(B + 1), st));
    regroup_kernel<F>
        <<<blocks_for(level_segments, POINT_THREADS), POINT_THREADS, 0, st>>>(offs_cur, offs_next, B, cur, next);
    SNARKPIPE_CUDA_CHECK_LAUNCH();
    std::swap(cur, next);
    std::swap(offs_cur, offs_next);
  }
  DeviceBuffer buckets = m.pool.acquire(std::size_t(B) * sizeof(P));
  bucket_sum_kernel<F><<<blocks_for(B, POINT_THREADS), POINT_THREADS, 0, st>>>(offs_cur, B, cur, buckets.as<P>());
  SNARKPIPE_CUDA_CHECK_LAUNCH();
  timer.mark();

  // Σ_b (b+1)·B_b per window, level by level (slice_kernel): level L leaves Σ_j Z_j per
  // window in sums[L]; the host adds them up as Σ_L S^L·sums[L] (Horner).
  std::vector<unsigned> slice_per_level;
  for (uint32_t count = half;;) {
    const uint32_t slice = std::min(SLICE, count);
    slice_per_level.push_back(slice);
    if (count == slice) break;
    count /= slice;
  }
  const std::size_t levels = slice_per_level.size();
  const uint32_t first_slices = half / slice_per_level[0];
  DeviceBuffer zbuf = m.pool.acquire(std::size_t(sets) * first_slices * sizeof(P));
  DeviceBuffer tbuf[2] = {m.pool.acquire(std::size_t(sets) * first_slices * sizeof(P)),
                          m.pool.acquire(std::size_t(sets) * std::max<uint32_t>(first_slices / SLICE, 1) * sizeof(P))};
  DeviceBuffer red = m.pool.acquire(std::size_t(sets) * ((first_slices + GROUP - 1) / GROUP) * sizeof(P));
  DeviceBuffer red2 = m.pool.acquire(std::size_t(sets) * ((first_slices + GROUP - 1) / GROUP) * sizeof(P));
  DeviceBuffer sums = m.pool.acquire(levels * sets * sizeof(P));
  {
    const P* x = buckets.as<P>();
    uint32_t count = half;
    for (std::size_t level = 0; level < levels; ++level) {
      const uint32_t slice = slice_per_level[level], slices = count / slice;
      P* t_out = tbuf[level % 2].as<P>();
      slice_kernel<F><<<blocks_for(std::size_t(sets) * slices, POINT_THREADS), POINT_THREADS, 0, st>>>(
          x, count, sets, slice, level == 0 ? 1u : 0u, zbuf.as<P>(), t_out);
      SNARKPIPE_CUDA_CHECK_LAUNCH();
      P* in = zbuf.as<P>();
      P* out = red.as<P>();
      P* spare = red2.as<P>();
      for (uint32_t c2 = slices; c2 > 1;) {
        const uint32_t groups = (c2 + GROUP - 1) / GROUP;
        group_sum_kernel<F>
            <<<blocks_for(std::size_t(sets) * groups, POINT_THREADS), POINT_THREADS, 0, st>>>(in, c2, sets, out);
        SNARKPIPE_CUDA_CHECK_LAUNCH();
        in = out;
        std::swap(out, spare);
        c2 = groups;
      }
      SNARKPIPE_CUDA_CHECK(
          cudaMemcpyAsync(sums.as<P>() + level * sets, in, sets * sizeof(P), cudaMemcpyDeviceToDevice, st));
      x = t_out;
      count = slices;
    }
  }
  timer.mark();

  std::vector<ec::XYZZ<C>> level_sums(levels * sets);
  static_assert(sizeof(ec::XYZZ<C>) == sizeof(P));
  SNARKPIPE_CUDA_CHECK(
      cudaMemcpyAsync(level_sums.data(), sums.data(), levels * sets * sizeof(P), cudaMemcpyDeviceToHost, st));
  SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(st));

  const auto t0 = std::chrono::steady_clock::now();
  std::vector<Jacobian> set_sums(sets, Jacobian::identity());
  for (unsigned w = 0; w < sets; ++w) {
    Jacobian acc = Jacobian::identity();
    for (std::size_t level = levels; level-- > 0;) {
      if (level + 1 < levels)
        for (uint32_t k = slice_per_level[level]; k > 1; k /= 2) acc = acc.dbl();
      acc += level_sums[level * sets + w].to_jacobian();
    }
    set_sums[w] = acc;
  }
  // Per vector: its one set (precomputed copies) or Σ_w 2^offset(w)·(window w's sum).
  std::vector<Jacobian> results(vectors, Jacobian::identity());
  for (unsigned v = 0; v < vectors; ++v) {
    if (shared) {
      results[v] = set_sums[v];
      continue;
    }
    Jacobian acc = Jacobian::identity();
    for (unsigned w = w_end; w-- > 0;) {  // windows below w_begin are this pass's zeros
      for (unsigned i = 0; i < layout.width(w); ++i) acc = acc.dbl();
      if (w >= w_begin) acc += set_sums[v * W + (w - w_begin)];
    }
    results[v] = acc;
  }
  const auto t1 = std::chrono::steady_clock::now();

  if (cfg.timings) {
    GpuMsmTimings& t = m.timings;  // summed over the passes
    t.digits += timer.span(0);
    t.sort += timer.span(1);
    t.accumulate += timer.span(2);
    t.bucket_sums += timer.span(3);
    t.reduce += timer.span(4);
    t.host_combine += std::chrono::duration<double, std::milli>(t1 - t0).count();
    t.window_bits = layout.bits;
    t.windows = w_end;
  }
  return results;
}

}  // namespace snarkpipe::cuda
