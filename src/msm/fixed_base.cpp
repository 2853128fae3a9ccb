#include "msm/fixed_base.hpp"

#include <tbb/blocked_range.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "ec/scalar_mul.hpp"
#include "msm/batch_affine.hpp"

namespace snarkpipe::msm {

namespace {

template <class Fn>
void run_in_arena(const MsmConfig& cfg, Fn&& fn) {
  if (cfg.threads == 0) return fn();
  // More threads than the machine has would only oversubscribe it (DESIGN.md §1, lesson 7).
  tbb::task_arena arena(int(std::min<std::size_t>(cfg.threads, std::size_t(tbb::info::default_concurrency()))));
  arena.execute(fn);
}

// Scalars per batch_mul chunk: enough additions per window to amortize the inversion.
constexpr std::size_t CHUNK = 1024;

}  // namespace

template <class C>
FixedBaseTable<C>::FixedBaseTable(const Affine<C>& base, unsigned window, const MsmConfig& cfg)
    : base_(base), sw_(window) {
  const unsigned W = sw_.windows();
  start_.resize(W + 1, 0);
  for (unsigned j = 0; j < W; ++j) start_[j + 1] = start_[j] + sw_.max_digit(j);
  points_.resize(start_[W]);
  // 2^(w·j)·base for each window, then each window's multiples in parallel.
  std::vector<Jacobian<C>> window_base(W);
  Jacobian<C> b = Jacobian<C>::from_affine(base);
  for (unsigned j = 0; j < W; ++j) {
    window_base[j] = b;
    for (unsigned k = 0; k < sw_.bits(); ++k) b = b.dbl();
  }
  const std::vector<Affine<C>> window_base_affine = ec::batch_to_affine<C>(window_base);
  run_in_arena(cfg, [&] {
    tbb::parallel_for(tbb::blocked_range<unsigned>(0, W, 1), [&](const tbb::blocked_range<unsigned>& r) {
      for (unsigned j = r.begin(); j != r.end(); ++j) {
        const std::uint32_t m = sw_.max_digit(j);
        std::vector<Jacobian<C>> multiples(m);
        Jacobian<C> acc = Jacobian<C>::identity();
        for (std::uint32_t d = 0; d < m; ++d) multiples[d] = acc = acc.add_affine(window_base_affine[j]);
        const std::vector<Affine<C>> aff = ec::batch_to_affine<C>(multiples);
        std::copy(aff.begin(), aff.end(), points_.begin() + std::ptrdiff_t(start_[j]));
      }
    });
  });
}

template <class C>
Jacobian<C> FixedBaseTable<C>::mul(const Fr& k) const {
  const ScalarLimbs kp = sw_.prepare(k);
  ec::XYZZ<C> acc = ec::XYZZ<C>::identity();
  for (unsigned j = 0; j < sw_.windows(); ++j) {
    const std::int32_t d = sw_.digit(kp, j);
    if (d > 0) acc = acc.add_affine(entry(j, std::uint32_t(d)));
    if (d < 0) acc = acc.add_affine(-entry(j, std::uint32_t(-d)));
  }
  return acc.to_jacobian();
}

template <class C>
std::vector<Affine<C>> batch_mul(const FixedBaseTable<C>& table, std::span<const Fr> scalars, const MsmConfig& cfg) {
  using F = typename C::F;
  using Add = detail::AffineAddition<C>;
  const SignedWindows& sw = table.digits();
  std::vector<Affine<C>> out(scalars.size());
  const std::size_t chunks = (scalars.size() + CHUNK - 1) / CHUNK;
  run_in_arena(cfg, [&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, chunks, 1), [&](const tbb::blocked_range<std::size_t>& r) {
      std::vector<ScalarLimbs> kp(CHUNK);
      std::vector<Add> batch;
      batch.reserve(CHUNK);
      std::vector<F> scratch(CHUNK);
      for (std::size_t c = r.begin(); c != r.end(); ++c) {
        const std::size_t lo = c * CHUNK, hi = std::min(scalars.size(), lo + CHUNK);
        Affine<C>* acc = out.data() + lo;  // starts as identities
        for (std::size_t i = lo; i < hi; ++i) kp[i - lo] = sw.prepare(scalars[i]);
        for (unsigned j = 0; j < sw.windows(); ++j) {
          batch.clear();
          for (std::size_t i = 0; i < hi - lo; ++i) {
            const std::int32_t d = sw.digit(kp[i], j);
            if (d == 0) continue;
            const Affine<C>& e = table.entry(j, std::uint32_t(d > 0 ? d : -d));
            if (e.is_identity()) continue;
            if (acc[i].is_identity()) {
              acc[i] = d > 0 ? e : -e;
            } else {
              batch.push_back({&e, std::uint32_t(i), d < 0});
            }
          }
          detail::batch_add_affine<C>(acc, std::span<const Add>(batch), scratch.data());
        }
      }
    });
  });
  return out;
}

template <class C>
unsigned fixed_base_window(std::size_t count) {
  // Building costs ~2.7 batched additions per entry (a Jacobian addition plus its share of
  // the conversion to affine); each multiplication one batched addition per window.
  unsigned best = 2;
  double best_cost = std::numeric_limits<double>::infinity();
  for (unsigned w = 2; w <= 16; ++w) {
    const SignedWindows sw(w);
    double entries = 0;
    for (unsigned j = 0; j < sw.windows(); ++j) entries += sw.max_digit(j);
    const double cost = 2.7 * entries + double(count) * sw.windows();
    if (cost < best_cost) best_cost = cost, best = w;
  }
  return best;
}

#define SNARKPIPE_FIXED_BASE_INSTANTIATE(C)                                                                      \
  template class FixedBaseTable<C>;                                                                              \
  template std::vector<Affine<C>> batch_mul<C>(const FixedBaseTable<C>&, std::span<const Fr>, const MsmConfig&); \
  template unsigned fixed_base_window<C>(std::size_t);

SNARKPIPE_FIXED_BASE_INSTANTIATE(ec::G1Curve)
SNARKPIPE_FIXED_BASE_INSTANTIATE(ec::G2Curve)

}  // namespace snarkpipe::msm
