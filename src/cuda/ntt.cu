#include <bit>
#include <map>
#include <mutex>
#include <utility>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "cuda/check.cuh"
#include "cuda/launch.hpp"
#include "cuda/fields.cuh"
#include "cuda/ntt.hpp"
#include "cuda/stream.hpp"
#include "poly/domain.hpp"

#include "cuda/ntt_kernels.cuh"

namespace snarkpipe::cuda {

namespace {

using ff::Fr;

// Stages per launch: tiles of 2^TILE_LOG elements (32 KiB of shared memory) hold up to
// TILE_LOG stages of the first group; later groups keep at least 2^MIN_LANE_LOG consecutive
// elements per tile row (64 bytes: neighbouring blocks read the rest of each line, which L2
// then serves). 1 rather than 2 lets 2^27 run in three passes instead of four: 46.1 → 42.6 ms
// with the fused bit reversal (gpu-notes item 31).
constexpr unsigned TILE_LOG = 10;
constexpr unsigned MIN_LANE_LOG = 1;

fr_t to_device(const Fr& x) {
  fr_t r;
  static_assert(sizeof(fr_t) == sizeof(Fr));
  std::memcpy(&r, &x, sizeof r);
  return r;
}

// A launch with programmatic dependent launch allowed (see wait_for_predecessor, ntt_kernels.cuh).
template <class... Params, class... Args>
void launch(void (*kernel)(Params...), unsigned blocks, unsigned threads, std::size_t smem, cudaStream_t stream,
            Args&&... args) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(blocks);
  cfg.blockDim = dim3(threads);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  SNARKPIPE_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...));
}

struct StageGroup {
  unsigned t0, s, log_L;
};

// Groups in ascending stage order: the first up to TILE_LOG stages on contiguous tiles, the
// rest split evenly into groups of at most TILE_LOG - MIN_LANE_LOG stages, where two odd
// groups then trade a stage (5 + 5 → 6 + 4): run_stages takes stages two at a time, and an odd
// group's last single stage costs a whole shared-memory round trip and barrier.
std::vector<StageGroup> plan_groups(unsigned log_n) {
  std::vector<StageGroup> g;
  const unsigned s1 = std::min(log_n, TILE_LOG);
  g.push_back({0, s1, 0});
  const unsigned rest = log_n - s1;
  if (rest == 0) return g;
  const unsigned per = TILE_LOG - MIN_LANE_LOG;
  const unsigned count = (rest + per - 1) / per;
  std::vector<unsigned> sizes(count);
  for (unsigned i = 0; i < count; ++i) sizes[i] = rest / count + (i < rest % count ? 1 : 0);
  for (unsigned i = 0; i < count; ++i) {
    if (sizes[i] % 2 == 0 || sizes[i] + 1 > per) continue;
    for (unsigned j = i + 1; j < count; ++j)
      if (sizes[j] % 2 == 1) {
        ++sizes[i], --sizes[j];
        break;
      }
  }
  unsigned t0 = s1;
  for (unsigned s : sizes) {
    g.push_back({t0, s, TILE_LOG - s});
    t0 += s;
  }
  return g;
}

// Threads for a tile of tile_n elements: one per radix-4 butterfly, at most 256.
unsigned threads_for_tile(unsigned tile_n) { return std::max(1u, std::min(tile_n / 4, 256u)); }

}  // namespace

struct GpuNtt::Impl {
  int device;
  unsigned max_log;
  BufferPool pool;            // declared before the buffers it hands out
  Stream stream;              // the default stream of the engine's transforms
  bool compact;               // CompactTwiddles (two small tables per direction) or dense
  DeviceBuffer w_fwd, w_inv;  // dense: every stage's twiddles (ω or ω^-1), N entries (see run_stages)
  DeviceBuffer c_fwd_lo, c_fwd_hi, c_inv_lo, c_inv_hi;  // compact: ω^e, ω^-e in two factors
  DeviceBuffer g_lo, g_hi, gi_lo, gi_hi;                // coset powers g^i, g^-i in two factors
  std::vector<Fr> m_inv;                                // m^-1 for m = 2^k, k <= max_log
  // The out-of-place half of each transform, one per stream that has run one (a transform
  // uses its stream's scratch only, so transforms on different streams can be in flight
  // together; they share the twiddle tables).
  std::mutex scratch_mu;
  std::map<cudaStream_t, DeviceBuffer> scratch, hi_tables;
  PinnedBuffer staging;

  Impl(unsigned max_log_n, int dev, bool compact_tables)
      : device(dev), max_log(max_log_n), compact(compact_tables), pool(dev) {}

  // f(forward, inverse): the twiddle sources of both directions, of the engine's kind.
  template <class F>
  void with_twiddles(F&& f) {
    if (compact)
      f(CompactTwiddles{c_fwd_lo.as<fr_t>(), c_fwd_hi.as<fr_t>(), max_log},
        CompactTwiddles{c_inv_lo.as<fr_t>(), c_inv_hi.as<fr_t>(), max_log});
    else f(DenseTwiddles{w_fwd.as<fr_t>()}, DenseTwiddles{w_inv.as<fr_t>()});
  }

  // st's buffer in `per_stream` with room for `count` elements, grown when a larger size comes
  // (after the stream's queued work, which may still read the old one).
  fr_t* stream_buffer(std::map<cudaStream_t, DeviceBuffer>& per_stream, std::size_t count, cudaStream_t st) {
    std::lock_guard lock(scratch_mu);
    DeviceBuffer& b = per_stream[st];
    if (b.capacity() < count * sizeof(Fr)) {
      SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(st));
      b.reset();
      b = pool.acquire(count * sizeof(Fr));
    }
    return b.as<fr_t>();
  }

  // hi[i]·c for the high coset factors of an n-element transform, in st's own table: folding a
  // constant (m^-1, or m^-1 times the caller's) into the table saves each element one
  // multiplication. Rebuilt per call (2^(log n − 12) entries: a few microseconds); the calls
  // on one stream are ordered, so one table per stream serves them all.
  const fr_t* scaled_hi(const fr_t* hi, std::size_t n, fr_t c, cudaStream_t st) {
    const std::size_t count = std::max<std::size_t>(1, n >> COSET_LO_BITS);
    fr_t* out = stream_buffer(hi_tables, count, st);
    scale_table_kernel<<<blocks_for(count, 256), 256, 0, st>>>(out, hi, count, c);
    SNARKPIPE_CUDA_CHECK_LAUNCH();
    return out;
  }

  // st's scratch for an n-element transform.
  fr_t* scratch_for(std::size_t n, cudaStream_t st) { return stream_buffer(scratch, n, st); }

  // One group of stages of an n-element transform, src → dst, on st: DIT (ascending
  // stages) or DIF (descending), with the twiddles W (ω or ω^-1).
  template <class Twiddles>
  void launch_group(bool dit, const Twiddles& W, const StageGroup& g, std::size_t n, const fr_t* src, fr_t* dst,
                    cudaStream_t st) {
    const unsigned tile_n = 1u << (g.s + g.log_L);
    const unsigned blocks = unsigned(n / tile_n), threads = threads_for_tile(tile_n);
    const std::size_t smem = std::size_t(tile_n) * sizeof(fr_t);
    launch(dit ? stages_kernel<true, Twiddles> : stages_kernel<false, Twiddles>, blocks, threads, smem, st, src, dst,
           g.t0, g.s, g.log_L, W);
  }
};

GpuNtt::GpuNtt(unsigned max_log_n, int device, Twiddles twiddles) {
  if (max_log_n > MAX_LOG_N) throw std::invalid_argument("GpuNtt: max_log_n > 28");
  if (max_log_n == 0) max_log_n = 1;
  impl_ = std::make_unique<Impl>(max_log_n, device, twiddles == Twiddles::compact);
  Impl& m = *impl_;
  SNARKPIPE_CUDA_CHECK(cudaSetDevice(device));
  m.stream = Stream(cudaStreamNonBlocking);

  const poly::EvaluationDomain big(max_log_n);
  m.m_inv.resize(max_log_n + 1);
  for (unsigned k = 0; k <= max_log_n; ++k) m.m_inv[k] = poly::EvaluationDomain(k).m_inv();

  // A table of count powers of x, built on the device from 2^lo_bits low and the matching
  // high powers computed here.
  auto power_table = [&](DeviceBuffer& out, const Fr& x, std::size_t count) {
    const unsigned lo_bits = std::min<unsigned>(COSET_LO_BITS, max_log_n);
    const std::size_t lo_n = std::size_t(1) << lo_bits;
    const std::size_t hi_n = (count + lo_n - 1) / lo_n;
    std::vector<Fr> lo(lo_n), hi(hi_n);
    Fr p = Fr::one();
    for (auto& v : lo) v = p, p *= x;
    const Fr step = p;  // x^lo_n
    p = Fr::one();
    for (auto& v : hi) v = p, p *= step;
    DeviceBuffer dlo = m.pool.acquire(lo_n * sizeof(Fr)), dhi = m.pool.acquire(hi_n * sizeof(Fr));
    SNARKPIPE_CUDA_CHECK(cudaMemcpyAsync(dlo.data(), lo.data(), lo_n * sizeof(Fr), cudaMemcpyHostToDevice, m.stream));
    SNARKPIPE_CUDA_CHECK(cudaMemcpyAsync(dhi.data(), hi.data(), hi_n * sizeof(Fr), cudaMemcpyHostToDevice, m.stream));
    out = m.pool.acquire(count * sizeof(Fr));
    product_table_kernel<<<blocks_for(count, 256), 256, 0, m.stream>>>(out.as<fr_t>(), count, dlo.as<fr_t>(),
                                                                       dhi.as<fr_t>(), lo_bits);
    SNARKPIPE_CUDA_CHECK_LAUNCH();
    SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(m.stream));  // lo/hi go back to the pool
  };
  // ω_N^i for i < N/2, then every stage's table (N entries in all) gathered from it.
  const std::size_t half = std::size_t(1) << (max_log_n - 1);
  auto stage_tables = [&](DeviceBuffer& out, const Fr& omega) {
    DeviceBuffer powers;
    power_table(powers, omega, half);
    const std::size_t n = std::size_t(1) << max_log_n;
    out = m.pool.acquire(n * sizeof(Fr));
    stage_twiddles_kernel<<<blocks_for(n, 256), 256, 0, m.stream>>>(powers.as<fr_t>(), max_log_n, out.as<fr_t>());
    SNARKPIPE_CUDA_CHECK_LAUNCH();
    SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(m.stream));  // `powers` goes back to the pool
  };
  // x^i = lo[i mod 2^lo_bits]·hi[i >> lo_bits] for i < 2^lo_bits·hi_n, both factors computed
  // here: the compact twiddles (x = ω, i < N/2) and the coset powers (x = g, i < N).
  auto factor_tables = [&](DeviceBuffer& lo_out, DeviceBuffer& hi_out, const Fr& x, unsigned lo_bits,
                           std::size_t hi_n) {
    const std::size_t lo_n = std::size_t(1) << lo_bits;
    std::vector<Fr> lo(lo_n), hi(hi_n);
    Fr p = Fr::one();
    for (auto& v : lo) v = p, p *= x;
    const Fr step = p;  // x^(2^lo_bits)
    p = Fr::one();
    for (auto& v : hi) v = p, p *= step;
    lo_out = m.pool.acquire(lo_n * sizeof(Fr));
    hi_out = m.pool.acquire(hi_n * sizeof(Fr));
    SNARKPIPE_CUDA_CHECK(
        cudaMemcpyAsync(lo_out.data(), lo.data(), lo_n * sizeof(Fr), cudaMemcpyHostToDevice, m.stream));
    SNARKPIPE_CUDA_CHECK(
        cudaMemcpyAsync(hi_out.data(), hi.data(), hi_n * sizeof(Fr), cudaMemcpyHostToDevice, m.stream));
    SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(m.stream));
  };
  if (m.compact) {
    const std::size_t hi_n = std::max<std::size_t>(1, half >> TWIDDLE_LO_BITS);
    factor_tables(m.c_fwd_lo, m.c_fwd_hi, big.omega(), TWIDDLE_LO_BITS, hi_n);
    factor_tables(m.c_inv_lo, m.c_inv_hi, big.omega_inv(), TWIDDLE_LO_BITS, hi_n);
  } else {
    stage_tables(m.w_fwd, big.omega());
    stage_tables(m.w_inv, big.omega_inv());
  }

  // Coset factors: 2^COSET_LO_BITS low powers and enough high powers for 2^max_log_n.
  const std::size_t coset_hi_n = std::max<std::size_t>(1, (std::size_t(1) << max_log_n) >> COSET_LO_BITS);
  factor_tables(m.g_lo, m.g_hi, big.g(), COSET_LO_BITS, coset_hi_n);
  factor_tables(m.gi_lo, m.gi_hi, big.g_inv(), COSET_LO_BITS, coset_hi_n);
}

GpuNtt::~GpuNtt() = default;

unsigned GpuNtt::max_log_n() const { return impl_->max_log; }
void* GpuNtt::stream() const { return impl_->stream; }
BufferPool& GpuNtt::pool() { return impl_->pool; }
void GpuNtt::synchronize() { SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(impl_->stream)); }
void GpuNtt::release_scratch() {
  Impl& m = *impl_;
  std::lock_guard lock(m.scratch_mu);
  for (auto& [st, buffer] : m.scratch) {
    SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(st));
    buffer.reset();
  }
  m.pool.release_free();
}

void GpuNtt::run(Kind kind, Fr* d_values, unsigned log_n, Order in, Order out, void* stream, const Fr* extra) {
  Impl& m = *impl_;
  if (log_n > m.max_log) throw std::invalid_argument("GpuNtt: size above the engine's max_log_n");
  const cudaStream_t st = stream ? cudaStream_t(stream) : m.stream;
  if (log_n == 0) {
    // One element: every transform is the identity (m^-1 = g^0 = 1), in either order.
    if (extra && (kind == Kind::Inverse || kind == Kind::CosetInverse)) {
      scale_kernel<<<1, 1, 0, st>>>(reinterpret_cast<fr_t*>(d_values), 1, Scale::Constant, to_device(*extra), nullptr,
                                    nullptr);
      SNARKPIPE_CUDA_CHECK_LAUNCH();
    }
    return;
  }
  if (kind == Kind::ToCoset) return coset_from_evaluations(d_values, log_n, st);  // natural order only
  SNARKPIPE_CUDA_CHECK(cudaSetDevice(m.device));
  const std::size_t n = std::size_t(1) << log_n;
  fr_t* x = reinterpret_cast<fr_t*>(d_values);
  fr_t* t = m.scratch_for(n, st);
  const std::vector<StageGroup> groups = plan_groups(log_n);
  const bool forward = kind == Kind::Forward || kind == Kind::CosetForward;
  const bool coset = kind == Kind::CosetForward || kind == Kind::CosetInverse;
  const fr_t* glo = (forward ? m.g_lo : m.gi_lo).as<fr_t>();
  const fr_t one = to_device(Fr::one()), m_inv = to_device(extra ? m.m_inv[log_n] * *extra : m.m_inv[log_n]);
  // An inverse coset transform's factors c·g^-i take c in their high table.
  const fr_t* ghi = forward ? m.g_hi.as<fr_t>() : coset ? m.scaled_hi(m.gi_hi.as<fr_t>(), n, m_inv, st) : nullptr;
  auto scale = [&](Scale mode, fr_t c) {
    scale_kernel<<<blocks_for(n, 256), 256, 0, st>>>(x, n, mode, c, glo, ghi);
    SNARKPIPE_CUDA_CHECK_LAUNCH();
  };
  if (in == Order::BitReversed && out == Order::BitReversed) {
    // Back to natural order, then the natural-in, bit-reversed-out transform.
    bit_reverse_kernel<<<blocks_for(n, 256), 256, 0, st>>>(x, n, log_n);
    SNARKPIPE_CUDA_CHECK_LAUNCH();
    in = Order::Natural;
  }

  // Decimation in time wants bit-reversed input and gives natural output; in frequency the
  // reverse. Natural in and out folds the permutation into the first group's memory side
  // (first_stages_kernel), so the only extra passes are the bit-reversed-in-and-out
  // permutation above and, where the ordering puts the scaled end on a later group, one
  // scaling pass (forward coset into DIF, inverse out of DIT).
  const unsigned tile_n = 1u << groups[0].s;
  const unsigned blocks = unsigned(n / tile_n), threads = threads_for_tile(tile_n);
  const std::size_t smem = std::size_t(tile_n) * sizeof(fr_t);
  const bool one_group = groups.size() == 1;
  const bool dit = forward ? out == Order::Natural : in == Order::BitReversed;
  m.with_twiddles([&](auto w_fwd, auto w_inv) {
    using Tw = decltype(w_fwd);
    const Tw W = forward ? w_fwd : w_inv;
    if (dit) {
      // Forward (N, N) or (R, N); inverse (R, N), scaled afterwards.
      const Scale mode = forward && coset ? Scale::CosetForward : Scale::None;
      launch(first_stages_kernel<true, Tw>, blocks, threads, smem, st, x, one_group ? x : t, log_n, groups[0].s, W,
             mode, one, glo, ghi, in == Order::Natural);
      for (std::size_t i = 1; i < groups.size(); ++i) m.launch_group(true, W, groups[i], n, i == 1 ? t : x, x, st);
      if (!forward) scale(coset ? Scale::CosetInverse : Scale::Constant, m_inv);
    } else {
      // Inverse (N, N) or (N, R); forward (N, R), its coset factors applied first.
      if (forward && coset) scale(Scale::CosetForward, one);
      for (std::size_t i = groups.size(); i-- > 1;)
        m.launch_group(false, W, groups[i], n, i + 1 == groups.size() ? x : t, t, st);
      const Scale mode = forward ? Scale::None : coset ? Scale::CosetInverse : Scale::Constant;
      launch(first_stages_kernel<false, Tw>, blocks, threads, smem, st, one_group ? x : t, x, log_n, groups[0].s, W,
             mode, m_inv, glo, ghi, out == Order::Natural);
    }
  });
}

void GpuNtt::coset_from_evaluations(Fr* d_values, unsigned log_n, void* stream) {
  Impl& m = *impl_;
  const cudaStream_t st = stream ? cudaStream_t(stream) : m.stream;
  if (log_n > m.max_log) throw std::invalid_argument("GpuNtt: size above the engine's max_log_n");
  if (log_n == 0) return;  // m^-1 = g^0 = 1
  SNARKPIPE_CUDA_CHECK(cudaSetDevice(m.device));
  const std::size_t n = std::size_t(1) << log_n;
  fr_t* x = reinterpret_cast<fr_t*>(d_values);
  fr_t* t = m.scratch_for(n, st);
  const std::vector<StageGroup> groups = plan_groups(log_n);
  const fr_t* ghi = m.scaled_hi(m.g_hi.as<fr_t>(), n, to_device(m.m_inv[log_n]), st);
  m.with_twiddles([&](auto w_fwd, auto w_inv) {
    // The inverse's groups above the first (x → t), the middle (t → x), the forward's (x → x).
    for (std::size_t i = groups.size(); i-- > 1;)
      m.launch_group(false, w_inv, groups[i], n, i + 1 == groups.size() ? x : t, t, st);
    const unsigned tile_n = 1u << groups[0].s;
    launch(to_coset_middle_kernel<decltype(w_fwd)>, unsigned(n / tile_n), threads_for_tile(tile_n),
           std::size_t(tile_n) * sizeof(fr_t), st, groups.size() == 1 ? x : t, x, log_n, groups[0].s, w_inv, w_fwd,
           m.g_lo.as<fr_t>(), ghi);
    for (std::size_t i = 1; i < groups.size(); ++i) m.launch_group(true, w_fwd, groups[i], n, x, x, st);
  });
}

void GpuNtt::quotient_coefficients(Fr* d_a, Fr* d_b, Fr* d_c, unsigned log_n, const Fr& z_inv, void* stream) {
  Impl& m = *impl_;
  const cudaStream_t st = stream ? cudaStream_t(stream) : m.stream;
  if (log_n > m.max_log) throw std::invalid_argument("GpuNtt: size above the engine's max_log_n");
  SNARKPIPE_CUDA_CHECK(cudaSetDevice(m.device));
  const std::size_t n = std::size_t(1) << log_n;
  fr_t* a = reinterpret_cast<fr_t*>(d_a);
  coset_from_evaluations(d_a, log_n, st);
  coset_from_evaluations(d_b, log_n, st);
  pointwise_mul_kernel<<<blocks_for(n, 256), 256, 0, st>>>(a, reinterpret_cast<const fr_t*>(d_b), n);
  SNARKPIPE_CUDA_CHECK_LAUNCH();
  // Both inverse transforms take z^-1 into their m^-1.
  run(Kind::CosetInverse, d_a, log_n, Order::Natural, Order::Natural, st, &z_inv);
  run(Kind::Inverse, d_c, log_n, Order::Natural, Order::Natural, st, &z_inv);
  sub_kernel<<<blocks_for(n, 256), 256, 0, st>>>(a, reinterpret_cast<const fr_t*>(d_c), n);
  SNARKPIPE_CUDA_CHECK_LAUNCH();
}

void GpuNtt::run_host(Kind kind, std::span<Fr> values, Order in, Order out) {
  Impl& m = *impl_;
  const std::size_t n = values.size();
  if (n == 0 || (n & (n - 1)) != 0) throw std::invalid_argument("GpuNtt: size must be a power of two");
  const unsigned log_n = unsigned(std::countr_zero(n));
  if (log_n > m.max_log) throw std::invalid_argument("GpuNtt: size above the engine's max_log_n");
  SNARKPIPE_CUDA_CHECK(cudaSetDevice(m.device));
  const std::size_t bytes = n * sizeof(Fr);
  DeviceBuffer d = m.pool.acquire(bytes);
  m.staging.reserve(bytes);
  std::memcpy(m.staging.data(), values.data(), bytes);
  SNARKPIPE_CUDA_CHECK(cudaMemcpyAsync(d.data(), m.staging.data(), bytes, cudaMemcpyHostToDevice, m.stream));
  run(kind, d.as<Fr>(), log_n, in, out, nullptr);
  SNARKPIPE_CUDA_CHECK(cudaMemcpyAsync(m.staging.data(), d.data(), bytes, cudaMemcpyDeviceToHost, m.stream));
  SNARKPIPE_CUDA_CHECK(cudaStreamSynchronize(m.stream));
  std::memcpy(values.data(), m.staging.data(), bytes);
}

void GpuNtt::ntt(Fr* d, unsigned log_n, Order in, Order out, void* st) { run(Kind::Forward, d, log_n, in, out, st); }
void GpuNtt::intt_times(Fr* d, unsigned log_n, const Fr& c, void* st) {
  run(Kind::Inverse, d, log_n, Order::Natural, Order::Natural, st, &c);
}
void GpuNtt::icoset_ntt_times(Fr* d, unsigned log_n, const Fr& c, void* st) {
  run(Kind::CosetInverse, d, log_n, Order::Natural, Order::Natural, st, &c);
}
void GpuNtt::intt(Fr* d, unsigned log_n, Order in, Order out, void* st) { run(Kind::Inverse, d, log_n, in, out, st); }
void GpuNtt::coset_ntt(Fr* d, unsigned log_n, Order in, Order out, void* st) {
  run(Kind::CosetForward, d, log_n, in, out, st);
}
void GpuNtt::icoset_ntt(Fr* d, unsigned log_n, Order in, Order out, void* st) {
  run(Kind::CosetInverse, d, log_n, in, out, st);
}
void GpuNtt::ntt(std::span<Fr> v, Order in, Order out) { run_host(Kind::Forward, v, in, out); }
void GpuNtt::intt(std::span<Fr> v, Order in, Order out) { run_host(Kind::Inverse, v, in, out); }
void GpuNtt::coset_ntt(std::span<Fr> v, Order in, Order out) { run_host(Kind::CosetForward, v, in, out); }
void GpuNtt::icoset_ntt(std::span<Fr> v, Order in, Order out) { run_host(Kind::CosetInverse, v, in, out); }
void GpuNtt::coset_from_evaluations(std::span<Fr> v) { run_host(Kind::ToCoset, v, Order::Natural, Order::Natural); }

}  // namespace snarkpipe::cuda
