#include "msm/pippenger.hpp"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "msm/affine_sum.hpp"
#include "msm/batch_affine.hpp"
#include "msm/scalar_split.hpp"
#include "msm/signed_digits.hpp"

namespace snarkpipe::msm {

namespace {

using ec::XYZZ;

// Per-curve costs in nanoseconds on the development machine (AMD EPYC, MULX/ADX field
// assembly at ~37 ns per Fp multiplication under load); only their ratios steer the plan.
template <class C>
struct Costs;
template <>
struct Costs<ec::G1Curve> {
  static constexpr double batch_add = 270;  // one point into a bucket, batched affine
  static constexpr double xyzz_add = 350;   // one point into a bucket, mixed XYZZ addition
  static constexpr double reduce = 810;     // one bucket of the running-sum reduction
  static constexpr double inversion = 22500;
  static constexpr double split = 90;  // one scalar split plus the endomorphism images
};
template <>
struct Costs<ec::G2Curve> {
  static constexpr double batch_add = 840;
  static constexpr double xyzz_add = 1190;
  static constexpr double reduce = 3030;
  static constexpr double inversion = 22500;
  static constexpr double split = 900;
};

// Parts per scalar in the endomorphism split (scalar_split.hpp).
template <class C>
constexpr std::size_t SPLIT_PARTS = std::is_same_v<C, ec::G1Curve> ? 2 : 4;
template <class C>
constexpr const ScalarLimbs& split_max_part() {
  if constexpr (std::is_same_v<C, ec::G1Curve>) {
    return detail::GLV_MAX_PART;
  } else {
    return detail::GLS_MAX_PART;
  }
}
// The split keeps D - 1 endomorphism images and D prepared parts per point; past this much
// memory it is not worth its speed (a later version could split block by block instead).
constexpr std::size_t SPLIT_MAX_BYTES = std::size_t(1) << 30;
template <class C>
constexpr std::size_t split_max_points() {
  return SPLIT_MAX_BYTES / ((SPLIT_PARTS<C> - 1) * sizeof(Affine<C>) + SPLIT_PARTS<C> * sizeof(ScalarLimbs));
}

constexpr unsigned MIN_WINDOW = 2;
constexpr unsigned MAX_WINDOW = 20;

// Past a few MB of buckets per window the random bucket accesses fall out of the caches
// and each addition slows down more than the larger window saves (measured: 2^20 points,
// c = 17 with 6 MB of G1 buckets is 4 % slower than c = 16 with 3 MB).
constexpr std::size_t MAX_BUCKET_BYTES = std::size_t(4) << 20;
template <class C>
constexpr unsigned max_window() {
  unsigned c = MIN_WINDOW;
  // Window c + 1 has 2^c buckets.
  while (c < MAX_WINDOW && (std::size_t(1) << c) * sizeof(Affine<C>) <= MAX_BUCKET_BYTES) ++c;
  return c;
}

// Window layouts for full scalars (< r) and for the parts of split scalars.
template <class C>
const SignedWindows& windows_of(unsigned c, bool split) {
  static const auto table = [] {
    std::vector<SignedWindows> t;
    for (unsigned b = MIN_WINDOW; b <= MAX_WINDOW; ++b) t.emplace_back(b);
    for (unsigned b = MIN_WINDOW; b <= MAX_WINDOW; ++b) t.emplace_back(b, split_max_part<C>());
    return t;
  }();
  return table[(split ? MAX_WINDOW - MIN_WINDOW + 1 : 0) + c - MIN_WINDOW];
}

// Batch of affine additions in flight per bucket set: large enough to amortize the
// inversion, small enough that few points find their bucket already in the batch.
std::size_t batch_size(std::uint32_t buckets) { return std::clamp<std::size_t>(buckets / 2, 64, 2048); }

// Points per chunk below which splitting a window across threads does not pay.
constexpr std::size_t MIN_CHUNK = 1 << 12;

struct Plan {
  const SignedWindows* sw;
  bool batch_affine;   // affine buckets with batched additions, else XYZZ buckets
  bool split;          // D·n points with the parts of endomorphism-split scalars
  std::size_t chunks;  // chunks of points per window
};

// Finishing time of `full` tasks of length t_full then `top` of length t_top on `threads`
// threads, each task going to the least loaded thread (what oneTBB's work stealing
// approximates).
double schedule(std::size_t full, double t_full, std::size_t top, double t_top, std::size_t threads) {
  if (threads == 1) return double(full) * t_full + double(top) * t_top;
  std::vector<double> load(std::min(threads, full + top), 0.0);
  for (std::size_t k = 0; k < full + top; ++k) *std::min_element(load.begin(), load.end()) += k < full ? t_full : t_top;
  return *std::max_element(load.begin(), load.end());
}

// The fastest plan by the cost model in pippenger.hpp: over window sizes, with and without
// the split, affine or XYZZ buckets, and chunks of points per window when windows alone
// would leave threads idle, the modelled finishing time on `threads` threads.
template <class C>
Plan make_plan(std::size_t n, std::size_t threads, bool allow_split) {
  using K = Costs<C>;
  Plan best{nullptr, false, false, 1};
  double best_time = std::numeric_limits<double>::infinity();
  for (bool split : {false, true}) {
    if (split && (!allow_split || n > split_max_points<C>())) continue;
    const std::size_t points = split ? SPLIT_PARTS<C> * n : n;
    const double prep = split ? double(n) * K::split / double(threads) : 0;
    for (unsigned c = MIN_WINDOW; c <= max_window<C>(); ++c) {
      const SignedWindows& sw = windows_of<C>(c, split);
      const std::size_t W = sw.windows();
      const double per_batch = double(batch_size(std::uint32_t(1) << (c - 1)));
      const std::size_t max_chunks =
          threads == 1
              ? 1
              : std::clamp<std::size_t>((4 * threads + W - 1) / W, 1, std::max<std::size_t>(1, points / MIN_CHUNK));
      for (std::size_t chunks = 1; chunks <= max_chunks; ++chunks) {
        const double per = double(points) / double(chunks);
        for (bool affine : {true, false}) {
          const double add = affine ? K::batch_add + K::inversion / per_batch : K::xyzz_add;
          const double task = affine ? K::inversion : 0;
          const double t_full = per * add + task + double(sw.max_digit(0)) * K::reduce;
          const double t_top = per * sw.top_density() * add + task + double(sw.max_digit(W - 1)) * K::reduce;
          const double time = prep + schedule((W - 1) * chunks, t_full, chunks, t_top, threads);
          if (time < best_time) best_time = time, best = Plan{&sw, affine, split, chunks};
        }
      }
    }
  }
  return best;
}

std::size_t arena_threads() { return std::size_t(std::max(1, tbb::this_task_arena::max_concurrency())); }

template <class Fn>
auto with_threads(const MsmConfig& cfg, Fn&& fn) {
  if (cfg.threads == 0) return fn();
  // More threads than the machine has would only oversubscribe it (DESIGN.md §1, lesson 7).
  tbb::task_arena arena(int(std::min<std::size_t>(cfg.threads, std::size_t(tbb::info::default_concurrency()))));
  return arena.execute(fn);
}

// Σ_b (b+1)·B_b by the running sum: ~2 XYZZ additions per bucket.
template <class C, class BucketAt>
XYZZ<C> reduce_buckets(std::uint32_t nb, const BucketAt& bucket_at) {
  XYZZ<C> running = XYZZ<C>::identity(), sum = XYZZ<C>::identity();
  for (std::uint32_t b = nb; b-- > 0;) {
    bucket_at(b, running);
    if (!running.is_identity()) sum += running;
  }
  return sum;
}

// One window over points [lo, hi) with XYZZ buckets and mixed additions.
template <class C, class BaseAt>
XYZZ<C> window_sum_xyzz(const BaseAt& base_at, const ScalarLimbs* kp, std::size_t lo, std::size_t hi,
                        const SignedWindows& sw, unsigned w) {
  const std::uint32_t nb = sw.max_digit(w);
  if (nb == 0) return XYZZ<C>::identity();
  std::vector<XYZZ<C>> buckets(nb, XYZZ<C>::identity());
  for (std::size_t i = lo; i < hi; ++i) {
    const std::int32_t d = sw.digit(kp[i], w);
    if (d == 0) continue;
    const Affine<C>& p = base_at(i);
    if (d > 0) {
      buckets[d - 1] = buckets[d - 1].add_affine(p);
    } else {
      buckets[-d - 1] = buckets[-d - 1].add_affine(-p);
    }
  }
  return reduce_buckets<C>(nb, [&](std::uint32_t b, XYZZ<C>& running) { running += buckets[b]; });
}

// One window over points [lo, hi) with affine buckets and batched affine additions.
//
// A point whose bucket already has an addition in the current batch waits in `pending`
// and joins a later batch. Buckets that many points hit (repeated bases, small repeated
// scalars) would make `pending` grow and batches shrink, so past a bound the waiting
// points go into per-bucket XYZZ accumulators instead (`overflow`, allocated on first use).
template <class C, class BaseAt>
XYZZ<C> window_sum_batch(const BaseAt& base_at, const ScalarLimbs* kp, std::size_t lo, std::size_t hi,
                         const SignedWindows& sw, unsigned w) {
  using F = typename C::F;
  using Add = detail::AffineAddition<C>;
  const std::uint32_t nb = sw.max_digit(w);
  if (nb == 0) return XYZZ<C>::identity();
  const std::size_t cap = batch_size(std::uint32_t(1) << (sw.bits() - 1));
  constexpr std::uint8_t FILLED = 1, BUSY = 2, OVERFLOW = 4;

  std::vector<Affine<C>> buckets(nb);
  std::vector<std::uint8_t> state(nb, 0);
  std::vector<XYZZ<C>> overflow;
  std::vector<Add> batch(cap), pending(cap);
  std::size_t in_batch = 0, waiting = 0;
  std::vector<F> scratch(cap);

  auto to_overflow = [&](const Add& e) {
    if (overflow.empty()) overflow.assign(nb, XYZZ<C>::identity());
    overflow[e.slot] = overflow[e.slot].add_affine(e.negate ? -*e.p : *e.p);
    state[e.slot] |= OVERFLOW;
  };
  // Precondition: the bucket has no addition in the batch.
  auto place = [&](const Add& e) {
    if (!(state[e.slot] & FILLED)) {
      buckets[e.slot] = e.negate ? -*e.p : *e.p;
      state[e.slot] |= FILLED;
    } else {
      state[e.slot] |= BUSY;
      batch[in_batch++] = e;
      __builtin_prefetch(&buckets[e.slot]);
    }
  };
  auto flush = [&] {
    detail::batch_add_affine<C>(buckets.data(), std::span<const Add>(batch.data(), in_batch), scratch.data());
    for (std::size_t k = 0; k < in_batch; ++k) {
      const std::uint32_t b = batch[k].slot;
      state[b] &= std::uint8_t(~BUSY);
      if (buckets[b].is_identity()) state[b] &= std::uint8_t(~FILLED);
    }
    in_batch = 0;
    std::size_t keep = 0;
    for (std::size_t k = 0; k < waiting; ++k) {
      if (!(state[pending[k].slot] & BUSY)) {
        place(pending[k]);
      } else {
        pending[keep++] = pending[k];
      }
    }
    waiting = keep;
  };

  for (std::size_t i = lo; i < hi; ++i) {
    const std::int32_t d = sw.digit(kp[i], w);
    if (d == 0) continue;
    const Affine<C>& p = base_at(i);
    if (p.is_identity()) continue;
    const Add e{&p, std::uint32_t(d > 0 ? d : -d) - 1, d < 0};
    if (state[e.slot] & BUSY) {
      if (waiting == cap) {
        for (std::size_t k = 0; k < waiting; ++k) to_overflow(pending[k]);
        waiting = 0;
      }
      pending[waiting++] = e;
      continue;
    }
    place(e);
    if (in_batch == cap) flush();
  }
  // Drain; a tiny batch with points still waiting means a few hot buckets: finish those in XYZZ.
  while (in_batch > 0 && (waiting == 0 || in_batch >= 32)) flush();
  for (std::size_t k = 0; k < in_batch; ++k) to_overflow(batch[k]);
  for (std::size_t k = 0; k < waiting; ++k) to_overflow(pending[k]);

  return reduce_buckets<C>(nb, [&](std::uint32_t b, XYZZ<C>& running) {
    if (state[b] & FILLED) running = running.add_affine(buckets[b]);
    if (state[b] & OVERFLOW) running += overflow[b];
  });
}

// Σ kp[i]·base_at(i) for prepared scalars (sw.prepare) over n points.
template <class C, class BaseAt>
XYZZ<C> pippenger(std::size_t n, const BaseAt& base_at, const ScalarLimbs* kp, const Plan& plan) {
  const SignedWindows& sw = *plan.sw;
  const unsigned W = sw.windows();
  const std::size_t chunks = plan.chunks;
  std::vector<XYZZ<C>> partial(W * chunks, XYZZ<C>::identity());
  auto task = [&](std::size_t t) {
    const unsigned w = unsigned(t / chunks);
    const std::size_t j = t % chunks;
    const std::size_t lo = n * j / chunks, hi = n * (j + 1) / chunks;
    partial[t] = plan.batch_affine ? window_sum_batch<C>(base_at, kp, lo, hi, sw, w)
                                   : window_sum_xyzz<C>(base_at, kp, lo, hi, sw, w);
  };
  if (W * chunks == 1 || arena_threads() == 1) {
    for (std::size_t t = 0; t < W * chunks; ++t) task(t);
  } else {
    tbb::parallel_for(
        tbb::blocked_range<std::size_t>(0, W * chunks, 1),
        [&](const auto& r) {
          for (std::size_t t = r.begin(); t != r.end(); ++t) task(t);
        },
        tbb::simple_partitioner());
  }
  XYZZ<C> acc = XYZZ<C>::identity();
  for (unsigned w = W; w-- > 0;) {
    for (unsigned k = 0; k < sw.bits() && !acc.is_identity(); ++k) acc = acc.dbl();
    for (std::size_t j = 0; j < chunks; ++j) acc += partial[w * chunks + j];
  }
  return acc;
}

// Runs fn(begin, end) over [0, n) in blocks of `grain`, in parallel when worth it.
template <class Fn>
void parallel_blocks(std::size_t n, std::size_t grain, const Fn& fn) {
  if (n <= grain || arena_threads() == 1) {
    if (n > 0) fn(std::size_t(0), n);
    return;
  }
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, grain),
                    [&](const tbb::blocked_range<std::size_t>& r) { fn(r.begin(), r.end()); });
}

// ω with ψ(x, y) = (ω·x, y) = λ·(x, y) on G1. ec::endomorphism_phi is (β·x, y) with
// eigenvalue -z² = λ²; its square (β²·x, y) has eigenvalue λ⁴ = λ. Checked on the generator.
const ec::Fp& glv_omega() {
  static const ec::Fp omega = [] {
    using ec::G1Affine;
    using ec::G1Jacobian;
    const G1Affine g = G1Affine::generator();
    const ec::Fp beta = ec::endomorphism_phi(G1Jacobian::generator()).to_affine().x * g.x.inverse();
    const G1Affine want = (G1Jacobian::generator() * *Fr::from_repr(detail::GLV_LAMBDA)).to_affine();
    for (const ec::Fp& w : {beta.square(), beta}) {
      if (G1Affine{w * g.x, g.y} == want) return w;
    }
    throw std::logic_error("msm: no cube root of unity acts as the GLV eigenvalue");
  }();
  return omega;
}

// The scalar's parts and the points they multiply: part j goes with images[j - 1].
std::array<ScalarLimbs, 2> split_scalar(ec::G1Curve, const ScalarLimbs& k) {
  const detail::GlvParts p = detail::glv_split(k);
  return {p.k1, p.k2};
}
std::array<ScalarLimbs, 4> split_scalar(ec::G2Curve, const ScalarLimbs& k) { return detail::gls_split(k); }

// G1: λ·P = (ω·x, y).
void split_images(const ec::G1Affine& p, ec::G1Affine* out, std::size_t) {
  static const ec::Fp& omega = glv_omega();
  out[0] = {p.x * omega, p.y};
}

// G2: |z|^j·P = (-ψ)^j(P), since ψ acts as multiplication by z < 0 (checked once).
void split_images(const ec::G2Affine& p, ec::G2Affine* out, std::size_t stride) {
  static const bool checked = [] {
    const ec::G2Jacobian g = ec::G2Jacobian::generator();
    if (!(ec::endomorphism_psi(g) == ec::mul_by_z(g)) || !ec::BLS_Z_IS_NEGATIVE || ec::BLS_Z_ABS != detail::Z_ABS) {
      throw std::logic_error("msm: G2's endomorphism is not multiplication by z = -|z|");
    }
    return true;
  }();
  (void)checked;
  if (p.is_identity()) {
    for (std::size_t j = 0; j < 3; ++j) out[j * stride] = ec::G2Affine::identity();
    return;
  }
  ec::G2Jacobian q = ec::G2Jacobian::from_affine(p);
  for (std::size_t j = 0; j < 3; ++j) {
    q = ec::endomorphism_psi(q);  // Z stays 1 (ψ maps Z to its conjugate)
    const ec::G2Affine a = q.Z.is_one() ? ec::G2Affine{q.X, q.Y} : q.to_affine();
    out[j * stride] = j % 2 == 0 ? -a : a;
  }
}

// Σ scalars[i]·base_at(i) over n points, n >= 1, by the plan's method.
template <class C, class BaseAt>
XYZZ<C> msm_core(std::size_t n, const BaseAt& base_at, std::span<const Fr> scalars, const MsmConfig& cfg) {
  const Plan plan = make_plan<C>(n, arena_threads(), cfg.split);
  const SignedWindows& sw = *plan.sw;
  if (plan.split) {
    // Point j·n + i is base i's image for part j (j = 0: the base itself).
    constexpr std::size_t D = SPLIT_PARTS<C>;
    std::vector<ScalarLimbs> kp(D * n);
    std::vector<Affine<C>> images((D - 1) * n);
    parallel_blocks(n, 1 << 12, [&](std::size_t lo, std::size_t hi) {
      for (std::size_t i = lo; i < hi; ++i) {
        const auto parts = split_scalar(C{}, scalars[i].to_repr());
        for (std::size_t j = 0; j < D; ++j) kp[j * n + i] = sw.prepare_canonical(parts[j]);
        split_images(base_at(i), images.data() + i, n);
      }
    });
    auto at = [&](std::size_t i) -> const Affine<C>& { return i < n ? base_at(i) : images[i - n]; };
    return pippenger<C>(D * n, at, kp.data(), plan);
  }
  std::vector<ScalarLimbs> kp(n);
  parallel_blocks(n, 1 << 14, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t i = lo; i < hi; ++i) kp[i] = sw.prepare(scalars[i]);
  });
  return pippenger<C>(n, base_at, kp.data(), plan);
}

// Density blocks of this many 64-bit words (16384 variables) are the unit of parallel
// gathering and of the split's sums of ones.
constexpr std::size_t DENSITY_BLOCK_WORDS = 1 << 8;

void check_density(std::size_t bases, std::size_t scalars, const DensityView& density) {
  if (density.size != scalars) {
    throw std::invalid_argument("msm: density covers " + std::to_string(density.size) + " variables but there are " +
                                std::to_string(scalars) + " scalars");
  }
  const std::size_t ones = density.count();
  if (ones != bases) {
    throw std::invalid_argument("msm: density selects " + std::to_string(ones) + " variables but there are " +
                                std::to_string(bases) + " bases");
  }
}

// For each block of density words: the index in `bases` of its first set bit.
std::vector<std::size_t> block_offsets(const DensityView& density) {
  const std::size_t blocks = (density.words.size() + DENSITY_BLOCK_WORDS - 1) / DENSITY_BLOCK_WORDS;
  std::vector<std::size_t> off(blocks + 1, 0);
  for (std::size_t b = 0; b < blocks; ++b) {
    std::size_t c = 0;
    const std::size_t end = std::min(density.words.size(), (b + 1) * DENSITY_BLOCK_WORDS);
    for (std::size_t w = b * DENSITY_BLOCK_WORDS; w < end; ++w) c += std::size_t(std::popcount(density.words[w]));
    off[b + 1] = off[b] + c;
  }
  return off;
}

// Calls fn(variable, base_index) for every set bit of the words of block b.
template <class Fn>
void for_each_in_block(const DensityView& density, std::size_t b, std::size_t first_base, const Fn& fn) {
  std::size_t k = first_base;
  const std::size_t end = std::min(density.words.size(), (b + 1) * DENSITY_BLOCK_WORDS);
  for (std::size_t w = b * DENSITY_BLOCK_WORDS; w < end; ++w) {
    for (std::uint64_t bits = density.words[w]; bits != 0; bits &= bits - 1) {
      fn(w * 64 + std::size_t(std::countr_zero(bits)), k++);
    }
  }
}

// Lanes of the split's sums of ones: each full round of additions shares one inversion
// (~22 µs, so 11 ns per addition here), and each thread folds its lanes once at the end.
constexpr std::size_t ONES_LANES = 2048;

bool is_one(const Fr& k) {
  static constexpr ScalarLimbs one = Fr::one().montgomery();
  return k.montgomery() == one;
}

}  // namespace

template <class C>
MsmPlan msm_plan(std::size_t n, std::size_t threads, bool allow_split) {
  const Plan p = make_plan<C>(n, std::max<std::size_t>(1, threads), allow_split);
  return {p.sw->bits(), p.sw->windows(), unsigned(p.split ? SPLIT_PARTS<C> : 1), p.batch_affine, p.chunks};
}

template <class C>
Jacobian<C> msm(std::span<const Affine<C>> bases, std::span<const Fr> scalars, const MsmConfig& cfg) {
  if (bases.size() != scalars.size()) {
    throw std::invalid_argument("msm: " + std::to_string(bases.size()) + " bases but " +
                                std::to_string(scalars.size()) + " scalars");
  }
  const std::size_t n = bases.size();
  if (n == 0) return Jacobian<C>::identity();
  if (n == 1) return Jacobian<C>::from_affine(bases[0]) * scalars[0];
  return with_threads(cfg, [&] {
    auto base_at = [&](std::size_t i) -> const Affine<C>& { return bases[i]; };
    return msm_core<C>(n, base_at, scalars, cfg).to_jacobian();
  });
}

template <class C>
Jacobian<C> msm_with_density(std::span<const Affine<C>> bases, std::span<const Fr> scalars, DensityView density,
                             const MsmConfig& cfg) {
  check_density(bases.size(), scalars.size(), density);
  const std::size_t n = bases.size();
  if (n == 0) return Jacobian<C>::identity();
  return with_threads(cfg, [&] {
    const std::vector<std::size_t> off = block_offsets(density);
    std::vector<Fr> selected(n);
    parallel_blocks(off.size() - 1, 1, [&](std::size_t lo, std::size_t hi) {
      for (std::size_t b = lo; b < hi; ++b) {
        for_each_in_block(density, b, off[b], [&](std::size_t v, std::size_t k) { selected[k] = scalars[v]; });
      }
    });
    auto base_at = [&](std::size_t i) -> const Affine<C>& { return bases[i]; };
    return msm_core<C>(n, base_at, selected, cfg).to_jacobian();
  });
}

template <class C>
Jacobian<C> msm_split(std::span<const Affine<C>> bases, std::span<const Fr> scalars, DensityView density,
                      const MsmConfig& cfg) {
  check_density(bases.size(), scalars.size(), density);
  if (bases.empty()) return Jacobian<C>::identity();
  return with_threads(cfg, [&] {
    const std::vector<std::size_t> off = block_offsets(density);
    const std::size_t blocks = off.size() - 1;
    // Pass 1, per block: sum the bases whose scalar is one (into one running sum per
    // thread, so its lanes fold once per thread), count the others that are not zero.
    tbb::enumerable_thread_specific<detail::AffineSum<C>> ones([] { return detail::AffineSum<C>(ONES_LANES); });
    std::vector<std::size_t> rest_off(blocks + 1, 0);
    parallel_blocks(blocks, 1, [&](std::size_t lo, std::size_t hi) {
      detail::AffineSum<C>& sum = ones.local();
      for (std::size_t b = lo; b < hi; ++b) {
        std::size_t rest = 0;
        for_each_in_block(density, b, off[b], [&](std::size_t v, std::size_t k) {
          const Fr& s = scalars[v];
          if (is_one(s)) {
            sum.add(bases[k]);
          } else if (!s.is_zero()) {
            ++rest;
          }
        });
        rest_off[b + 1] = rest;
      }
    });
    for (std::size_t b = 0; b < blocks; ++b) rest_off[b + 1] += rest_off[b];
    const std::size_t m = rest_off[blocks];

    XYZZ<C> total = XYZZ<C>::identity();
    for (detail::AffineSum<C>& o : ones) total += o.finish();
    if (m == 0) return total.to_jacobian();

    // Pass 2: the remaining pairs, as base indices and scalars.
    std::vector<std::size_t> idx(m);
    std::vector<Fr> rest(m);
    parallel_blocks(blocks, 1, [&](std::size_t lo, std::size_t hi) {
      for (std::size_t b = lo; b < hi; ++b) {
        std::size_t j = rest_off[b];
        for_each_in_block(density, b, off[b], [&](std::size_t v, std::size_t k) {
          const Fr& s = scalars[v];
          if (is_one(s) || s.is_zero()) return;
          idx[j] = k;
          rest[j] = s;
          ++j;
        });
      }
    });
    auto base_at = [&](std::size_t i) -> const Affine<C>& { return bases[idx[i]]; };
    total += msm_core<C>(m, base_at, rest, cfg);
    return total.to_jacobian();
  });
}

#define SNARKPIPE_MSM_INSTANTIATE(C)                                                                     \
  template MsmPlan msm_plan<C>(std::size_t, std::size_t, bool);                                          \
  template Jacobian<C> msm<C>(std::span<const Affine<C>>, std::span<const Fr>, const MsmConfig&);        \
  template Jacobian<C> msm_with_density<C>(std::span<const Affine<C>>, std::span<const Fr>, DensityView, \
                                           const MsmConfig&);                                            \
  template Jacobian<C> msm_split<C>(std::span<const Affine<C>>, std::span<const Fr>, DensityView, const MsmConfig&);

SNARKPIPE_MSM_INSTANTIATE(ec::G1Curve)
SNARKPIPE_MSM_INSTANTIATE(ec::G2Curve)

}  // namespace snarkpipe::msm
