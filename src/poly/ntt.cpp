// Radix-2 transforms, cache-blocked (see NttConfig in ntt.hpp) and multi-threaded.
//
// A transform of n = 2^k elements views the data as an R × C row-major matrix, C = 2^b. The
// stages whose butterflies span h ≥ C elements pair rows: they run on groups of w columns,
// gathered into a per-thread scratch buffer (rows C·32 bytes apart would all fall into the
// same cache sets), all such stages at once. The stages with h < C run inside each row, a
// contiguous block that stays in L2, finishing sub-blocks of 1024 elements in L1. Twiddle
// factors are read from StageTables (the row-pairing stages form theirs with one multiplication
// per distinct factor, about n in all); the butterflies are in butterfly.hpp.
//
// The coset shift is folded into the twiddles (no pass of its own). Decimation in time
// with the twiddles of stage h multiplied by γ_h = s^(n/2h) computes Σ_i a_i·s^i·ω^(ij): each
// level halves the problem and squares the shift. Its transpose, decimation in frequency with
// the same twiddles, computes s^j·Σ_i a_i·ω^(ij). So coset_ntt runs DIT with s = g, and
// icoset_ntt runs DIF with ω^-1 and s = g^-1.
#include "poly/ntt.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstdint>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "poly/butterfly.hpp"

namespace snarkpipe::poly {
namespace {

// Stage tables keep at most 2^TABLE_CAP_LOG twiddles: enough for the column twiddles
// (c < C ≤ 2^14) and the row twiddles (r < R/2 ≤ 2^14, as b ≥ k - 1 - TABLE_CAP_LOG).
constexpr unsigned TABLE_CAP_LOG = 14;
// Contiguous runs of up to 2^10 elements (32 KiB) finish all their stages in L1.
constexpr std::size_t L1_ELEMENTS = std::size_t(1) << 10;
// The bit-reversal permutation moves tiles of 2^TILE_LOG rows of 2^TILE_LOG elements.
constexpr unsigned TILE_LOG = 4;

std::atomic<unsigned> g_block_log{NttConfig{}.block_log};
std::atomic<std::size_t> g_group_elements{NttConfig{}.group_elements};

// The twiddles of the stage with half-span h = 2^t: ω_2h^j (ω_2h^-j when inverse) for
// j < min(h, 2^TABLE_CAP_LOG). ω_2h depends on h alone, so one table serves every domain.
class StageTables {
 public:
  const Fr* get(bool inverse, unsigned t) {
    std::call_once(once_[inverse][t], [&] { build(inverse, t); });
    return tables_[inverse][t].data();
  }

 private:
  void build(bool inverse, unsigned t) {
    const EvaluationDomain d(t + 1);
    const Fr w = inverse ? d.omega_inv() : d.omega();
    std::vector<Fr> v(std::size_t(1) << std::min(t, TABLE_CAP_LOG));
    Fr x = Fr::one();
    for (Fr& e : v) {
      e = x;
      x *= w;
    }
    tables_[inverse][t] = std::move(v);
  }

  std::once_flag once_[2][EvaluationDomain::MAX_LOG_SIZE];
  std::vector<Fr> tables_[2][EvaluationDomain::MAX_LOG_SIZE];
};

StageTables& stage_tables() {
  static StageTables tables;
  return tables;
}

// One transform of n = 2^k elements as R rows of C = 2^b; stage t has half-span 2^t.
struct Plan {
  std::size_t n = 0, C = 0, R = 0, w = 0;  // w: columns per group
  unsigned k = 0, b = 0;
  bool unit_first = true;             // twiddle 0 of every stage is exactly one (no shift)
  std::array<const Fr*, 32> stage{};  // t < b: the 2^t twiddles of stage t
  std::array<const Fr*, 32> row{};    // t ≥ b: ω_2^(t+1)^(r·C) for r < 2^(t-b), times γ_t
  std::array<const Fr*, 32> col{};    // t ≥ b: ω_2^(t+1)^c for c < C
  std::optional<Fr> scale;            // multiplies every output
  std::vector<Fr> shifted;            // the γ-multiplied tables of a coset transform
};

// shift: s with γ_t = s^(n / 2^(t+1)) (see the top of this file); scale: a factor for every output.
Plan make_plan(std::size_t n, bool inverse, const std::optional<Fr>& shift, const std::optional<Fr>& scale) {
  Plan p;
  p.n = n;
  p.k = unsigned(std::countr_zero(n));
  const unsigned block_log = std::clamp(g_block_log.load(std::memory_order_relaxed), 1u, TABLE_CAP_LOG);
  const unsigned table_bound = p.k > TABLE_CAP_LOG + 1 ? p.k - 1 - TABLE_CAP_LOG : 0;
  p.b = p.k <= block_log ? p.k : std::max(block_log, table_bound);
  p.C = std::size_t(1) << p.b;
  p.R = n >> p.b;
  const std::size_t group = g_group_elements.load(std::memory_order_relaxed);
  p.w = std::clamp(std::bit_floor(std::max<std::size_t>(group / p.R, 1)), std::min<std::size_t>(4, p.C), p.C);
  p.unit_first = !shift.has_value();
  p.scale = scale;

  StageTables& tables = stage_tables();
  for (unsigned t = 0; t < p.b; ++t) p.stage[t] = tables.get(inverse, t);
  for (unsigned t = p.b; t < p.k; ++t) {
    p.row[t] = tables.get(inverse, t - p.b);
    p.col[t] = tables.get(inverse, t);
  }
  if (shift) {
    std::array<Fr, 32> gamma;
    Fr x = *shift;
    for (unsigned t = p.k; t-- > 0;) {
      gamma[t] = x;
      x = x.square();
    }
    p.shifted.resize((p.C - 1) + (p.R - 1));
    Fr* dst = p.shifted.data();
    for (unsigned t = 0; t < p.b; ++t) {
      const std::size_t len = std::size_t(1) << t;
      for (std::size_t j = 0; j < len; ++j) dst[j] = gamma[t] * p.stage[t][j];
      p.stage[t] = dst;
      dst += len;
    }
    for (unsigned t = p.b; t < p.k; ++t) {
      const std::size_t len = std::size_t(1) << (t - p.b);
      for (std::size_t r = 0; r < len; ++r) dst[r] = gamma[t] * p.row[t][r];
      p.row[t] = dst;
      dst += len;
    }
  }
  return p;
}

Fr* thread_scratch(std::size_t len) {
  thread_local std::vector<Fr> buffer;
  if (buffer.size() < len) buffer.resize(len);
  return buffer.data();
}

void scale_run(Fr* x, std::size_t len, const std::optional<Fr>& scale) {
  if (!scale) return;
  for (std::size_t i = 0; i < len; ++i) x[i] *= *scale;
}

// One butterfly run: x[j] with x[j + h] for j < h; twiddle 0 is skipped when it is one.
inline void dif_run(Fr* x, std::size_t h, const Fr* tw, bool unit_first) {
  const std::size_t j = unit_first ? 1 : 0;
  if (unit_first) add_sub(x[0], x[h]);
  dif_butterflies(x + j, x + h + j, tw + j, h - j);
}
inline void dit_run(Fr* x, std::size_t h, const Fr* tw, bool unit_first) {
  const std::size_t j = unit_first ? 1 : 0;
  if (unit_first) add_sub(x[0], x[h]);
  dit_butterflies(x + j, x + h + j, tw + j, h - j);
}

// DIF stages with half-spans len/2, ..., 1 on the contiguous run x[0, len), len ≤ C.
void dif_block(Fr* x, std::size_t len, const Plan& p) {
  if (len > L1_ELEMENTS) {
    const std::size_t h = len / 2;
    dif_run(x, h, p.stage[std::countr_zero(h)], p.unit_first);
    dif_block(x, h, p);
    dif_block(x + h, h, p);
    return;
  }
  for (std::size_t h = len / 2; h >= 1; h /= 2) {
    const Fr* tw = p.stage[std::countr_zero(h)];
    for (std::size_t base = 0; base < len; base += 2 * h) dif_run(x + base, h, tw, p.unit_first);
  }
}

// DIT stages with half-spans 1, ..., len/2 on the contiguous run x[0, len), len ≤ C.
void dit_block(Fr* x, std::size_t len, const Plan& p) {
  if (len > L1_ELEMENTS) {
    const std::size_t h = len / 2;
    dit_block(x, h, p);
    dit_block(x + h, h, p);
    dit_run(x, h, p.stage[std::countr_zero(h)], p.unit_first);
    return;
  }
  for (std::size_t h = 1; h < len; h *= 2) {
    const Fr* tw = p.stage[std::countr_zero(h)];
    for (std::size_t base = 0; base < len; base += 2 * h) dit_run(x + base, h, tw, p.unit_first);
  }
}

// The twiddles of row pair offset r in stage t for the group's w columns: tw[c] =
// row[t][r]·col[t][c0 + c], where row[t][0] is exactly one for a transform without shift.
inline const Fr* group_twiddles(const Plan& p, unsigned t, std::size_t r, std::size_t c0, Fr* tw) {
  const Fr* cols = p.col[t] + c0;
  if (r == 0 && p.unit_first) return cols;
  const Fr f = p.row[t][r];
  for (std::size_t c = 0; c < p.w; ++c) tw[c] = f * cols[c];
  return tw;
}

// The DIF stages with half-span ≥ C (t = k-1 down to b) on columns c0 .. c0 + w.
void dif_columns(Fr* x, std::size_t c0, const Plan& p) {
  const std::size_t R = p.R, C = p.C, w = p.w;
  Fr* s = thread_scratch(R * w + w);
  Fr* tw = s + R * w;
  for (std::size_t r = 0; r < R; ++r) std::copy_n(x + r * C + c0, w, s + r * w);
  for (unsigned t = p.k; t-- > p.b;) {
    const std::size_t hr = std::size_t(1) << (t - p.b);  // the half-span in rows
    for (std::size_t r = 0; r < hr; ++r) {
      const Fr* twr = group_twiddles(p, t, r, c0, tw);
      for (std::size_t base = r; base < R; base += 2 * hr) {
        Fr* a = s + base * w;
        Fr* b = a + hr * w;
        dif_butterflies(a, b, twr, w);
      }
    }
  }
  for (std::size_t r = 0; r < R; ++r) std::copy_n(s + r * w, w, x + r * C + c0);
}

// The DIT stages with half-span ≥ C (t = b up to k-1) on columns c0 .. c0 + w, then the scale.
void dit_columns(Fr* x, std::size_t c0, const Plan& p) {
  const std::size_t R = p.R, C = p.C, w = p.w;
  Fr* s = thread_scratch(R * w + w);
  Fr* tw = s + R * w;
  for (std::size_t r = 0; r < R; ++r) std::copy_n(x + r * C + c0, w, s + r * w);
  for (unsigned t = p.b; t < p.k; ++t) {
    const std::size_t hr = std::size_t(1) << (t - p.b);
    for (std::size_t r = 0; r < hr; ++r) {
      const Fr* twr = group_twiddles(p, t, r, c0, tw);
      for (std::size_t base = r; base < R; base += 2 * hr) {
        Fr* a = s + base * w;
        Fr* b = a + hr * w;
        dit_butterflies(a, b, twr, w);
      }
    }
  }
  scale_run(s, R * w, p.scale);
  for (std::size_t r = 0; r < R; ++r) std::copy_n(s + r * w, w, x + r * C + c0);
}

using Range = tbb::blocked_range<std::size_t>;

// Natural order in, bit-reversed order out.
void dif(Fr* x, const Plan& p) {
  if (p.R == 1) {
    dif_block(x, p.n, p);
    scale_run(x, p.n, p.scale);
    return;
  }
  tbb::parallel_for(Range(0, p.C / p.w), [&](const Range& r) {
    for (std::size_t g = r.begin(); g < r.end(); ++g) dif_columns(x, g * p.w, p);
  });
  tbb::parallel_for(Range(0, p.R), [&](const Range& r) {
    for (std::size_t i = r.begin(); i < r.end(); ++i) {
      dif_block(x + i * p.C, p.C, p);
      scale_run(x + i * p.C, p.C, p.scale);
    }
  });
}

// Bit-reversed order in, natural order out.
void dit(Fr* x, const Plan& p) {
  if (p.R == 1) {
    dit_block(x, p.n, p);
    scale_run(x, p.n, p.scale);
    return;
  }
  tbb::parallel_for(Range(0, p.R), [&](const Range& r) {
    for (std::size_t i = r.begin(); i < r.end(); ++i) dit_block(x + i * p.C, p.C, p);
  });
  tbb::parallel_for(Range(0, p.C / p.w), [&](const Range& r) {
    for (std::size_t g = r.begin(); g < r.end(); ++g) dit_columns(x, g * p.w, p);
  });
}

inline std::uint64_t reverse64(std::uint64_t x) {
  x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
  x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
  x = ((x >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((x & 0x0f0f0f0f0f0f0f0fULL) << 4);
  return __builtin_bswap64(x);
}
inline std::size_t bitrev(std::size_t i, unsigned bits) { return bits == 0 ? 0 : reverse64(i) >> (64 - bits); }

// Index i = (a, m, z) with a and z of TILE_LOG bits each maps to (rev z, rev m, rev a): the tile
// of all (a, ·, z) for one m is exchanged, transposed and bit-reversed, with the tile of rev m.
void permute(Fr* x, unsigned k) {
  const std::size_t n = std::size_t(1) << k;
  if (k < 2 * TILE_LOG) {
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t j = bitrev(i, k);
      if (i < j) std::swap(x[i], x[j]);
    }
    return;
  }
  constexpr std::size_t T = std::size_t(1) << TILE_LOG;
  const unsigned mid = k - 2 * TILE_LOG;
  const unsigned row_shift = k - TILE_LOG;
  std::array<std::size_t, T> rev{};
  for (std::size_t i = 0; i < T; ++i) rev[i] = bitrev(i, TILE_LOG);
  auto load = [&](Fr* buf, std::size_t m) {
    for (std::size_t a = 0; a < T; ++a) std::copy_n(x + ((a << row_shift) | (m << TILE_LOG)), T, buf + a * T);
  };
  auto store = [&](std::size_t m, const Fr* buf) {
    for (std::size_t a = 0; a < T; ++a) {
      Fr* dst = x + ((a << row_shift) | (m << TILE_LOG));
      for (std::size_t z = 0; z < T; ++z) dst[z] = buf[rev[z] * T + rev[a]];
    }
  };
  tbb::parallel_for(Range(0, std::size_t(1) << mid, 16), [&](const Range& r) {
    std::array<Fr, T * T> mine, theirs;
    for (std::size_t m = r.begin(); m < r.end(); ++m) {
      const std::size_t mr = bitrev(m, mid);
      if (mr < m) continue;
      load(mine.data(), m);
      if (mr == m) {
        store(m, mine.data());
      } else {
        load(theirs.data(), mr);
        store(m, theirs.data());
        store(mr, mine.data());
      }
    }
  });
}

void check_size(std::span<Fr> values, const EvaluationDomain& domain, const char* what) {
  if (values.size() != domain.m()) {
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(values.size()) +
                                " values for a domain of size " + std::to_string(domain.m()));
  }
}

}  // namespace

void ntt(std::span<Fr> values, const EvaluationDomain& domain, Order in, Order out) {
  check_size(values, domain, "ntt");
  if (domain.m() == 1) return;
  const Plan p = make_plan(domain.m(), false, std::nullopt, std::nullopt);
  if (in == Order::Natural) {
    dif(values.data(), p);
    if (out == Order::Natural) permute(values.data(), p.k);
  } else {
    dit(values.data(), p);
    if (out == Order::BitReversed) permute(values.data(), p.k);
  }
}

void intt(std::span<Fr> values, const EvaluationDomain& domain, Order in, Order out) {
  check_size(values, domain, "intt");
  if (domain.m() == 1) return;
  const Plan p = make_plan(domain.m(), true, std::nullopt, domain.m_inv());
  if (in == Order::Natural) {
    dif(values.data(), p);
    if (out == Order::Natural) permute(values.data(), p.k);
  } else {
    dit(values.data(), p);
    if (out == Order::BitReversed) permute(values.data(), p.k);
  }
}

void coset_ntt(std::span<Fr> values, const EvaluationDomain& domain, Order in, Order out) {
  check_size(values, domain, "coset_ntt");
  if (domain.m() == 1) return;
  const Plan p = make_plan(domain.m(), false, domain.g(), std::nullopt);
  if (in == Order::Natural) permute(values.data(), p.k);
  dit(values.data(), p);
  if (out == Order::BitReversed) permute(values.data(), p.k);
}

void icoset_ntt(std::span<Fr> values, const EvaluationDomain& domain, Order in, Order out) {
  check_size(values, domain, "icoset_ntt");
  if (domain.m() == 1) return;
  const Plan p = make_plan(domain.m(), true, domain.g_inv(), domain.m_inv());
  if (in == Order::BitReversed) permute(values.data(), p.k);
  dif(values.data(), p);
  if (out == Order::Natural) permute(values.data(), p.k);
}

void bit_reverse_permute(std::span<Fr> values) {
  if (!std::has_single_bit(values.size())) {
    throw std::invalid_argument("bit_reverse_permute: size " + std::to_string(values.size()) +
                                " is not a power of two");
  }
  permute(values.data(), unsigned(std::countr_zero(values.size())));
}

void set_ntt_config(const NttConfig& config) {
  g_block_log.store(config.block_log, std::memory_order_relaxed);
  g_group_elements.store(config.group_elements, std::memory_order_relaxed);
}

NttConfig ntt_config() {
  return {g_block_log.load(std::memory_order_relaxed), g_group_elements.load(std::memory_order_relaxed)};
}

}  // namespace snarkpipe::poly
