#include "gadgets/poseidon.hpp"

#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

namespace snarkpipe::gadgets {

namespace {

constexpr std::size_t MAX_WIDTH = POSEIDON_MAX_ARITY + 1;

// The Poseidon paper's 128-bit inequalities as neptune evaluates them (single precision,
// n = 256): the full rounds R_F must reach every bound.
bool round_numbers_are_secure(std::size_t t, std::size_t rf, std::size_t rp) {
  const float n = 256.0f, m = 128.0f, tf = float(t), rpf = float(rp);
  const float rf_stat = m <= (n - 3.0f) * (tf + 1.0f) ? 6.0f : 10.0f;
  const float rf_interp = 0.43f * m + std::log2(tf) - rpf;
  const float rf_grob_1 = 0.21f * n - rpf;
  const float rf_grob_2 = (0.14f * n - 1.0f - rpf) / (tf - 1.0f);
  float bound = rf_stat;
  for (float b : {rf_interp, rf_grob_1, rf_grob_2}) bound = std::max(bound, std::ceil(b));
  return float(rf) >= bound;
}

// The paper's reference Grain LFSR, seeded with the instance's description.
class Grain {
 public:
  Grain(std::size_t sbox, std::size_t field_bits, std::size_t t, std::size_t rf, std::size_t rp) {
    state_.fill(1);
    std::size_t at = 0;
    const auto write = [&](std::size_t value, int bits) {
      for (int i = bits - 1; i >= 0; --i) state_[at++] = std::uint8_t((value >> i) & 1);
    };
    write(1, 2);  // a prime field
    write(sbox, 4);
    write(field_bits, 12);
    write(t, 12);
    write(rf, 10);
    write(rp, 10);
    for (int i = 0; i < 160; ++i) step();
  }

  // The next output bit: of each pair of LFSR bits, the second when the first is 1.
  bool next() {
    for (;;) {
      const bool keep = step();
      const bool bit = step();
      if (keep) return bit;
    }
  }

  // The next `Fr::BITS` output bits as an integer, most significant first.
  ff::Limbs<4> draw() {
    ff::Limbs<4> r{};
    for (std::size_t i = Fr::BITS; i-- > 0;) {
      if (next()) r[i / 64] |= std::uint64_t(1) << (i % 64);
    }
    return r;
  }

 private:
  bool step() {
    const auto at = [&](std::size_t off) { return state_[(pos_ + off) % 80]; };
    const std::uint8_t bit = at(62) ^ at(51) ^ at(38) ^ at(23) ^ at(13) ^ at(0);
    state_[pos_] = bit;
    pos_ = (pos_ + 1) % 80;
    return bit != 0;
  }

  std::array<std::uint8_t, 80> state_{};
  std::size_t pos_ = 0;
};

// Small dense square matrices over Fr, row-major.
struct Matrix {
  std::size_t n = 0;
  std::vector<Fr> a;

  explicit Matrix(std::size_t size) : n(size), a(size * size, Fr::zero()) {}
  Fr& operator()(std::size_t i, std::size_t j) { return a[i * n + j]; }
  const Fr& operator()(std::size_t i, std::size_t j) const { return a[i * n + j]; }

  static Matrix identity(std::size_t size) {
    Matrix m(size);
    for (std::size_t i = 0; i < size; ++i) m(i, i) = Fr::one();
    return m;
  }
  Matrix transpose() const {
    Matrix t(n);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < n; ++j) t(j, i) = (*this)(i, j);
    }
    return t;
  }
  // The matrix without row 0 and column 0.
  Matrix minor00() const {
    Matrix m(n - 1);
    for (std::size_t i = 1; i < n; ++i) {
      for (std::size_t j = 1; j < n; ++j) m(i - 1, j - 1) = (*this)(i, j);
    }
    return m;
  }
  friend Matrix operator*(const Matrix& x, const Matrix& y) {
    Matrix z(x.n);
    for (std::size_t i = 0; i < x.n; ++i) {
      for (std::size_t k = 0; k < x.n; ++k) {
        const Fr& xik = x(i, k);
        for (std::size_t j = 0; j < x.n; ++j) z(i, j) += xik * y(k, j);
      }
    }
    return z;
  }
  // M·v, v a column.
  std::vector<Fr> apply(std::span<const Fr> v) const {
    std::vector<Fr> out(n, Fr::zero());
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < n; ++j) out[i] += (*this)(i, j) * v[j];
    }
    return out;
  }
  // Gauss-Jordan; std::runtime_error when singular.
  Matrix inverse() const {
    Matrix m = *this;
    Matrix inv = identity(n);
    for (std::size_t c = 0; c < n; ++c) {
      std::size_t piv = c;
      while (piv < n && m(piv, c).is_zero()) ++piv;
      if (piv == n) throw std::runtime_error("Poseidon: singular matrix");
      if (piv != c) {
        for (std::size_t j = 0; j < n; ++j) {
          std::swap(m(c, j), m(piv, j));
          std::swap(inv(c, j), inv(piv, j));
        }
      }
      const Fr s = m(c, c).inverse();
      for (std::size_t j = 0; j < n; ++j) {
        m(c, j) *= s;
        inv(c, j) *= s;
      }
      for (std::size_t i = 0; i < n; ++i) {
        if (i == c || m(i, c).is_zero()) continue;
        const Fr f = m(i, c);
        for (std::size_t j = 0; j < n; ++j) {
          m(i, j) -= f * m(c, j);
          inv(i, j) -= f * inv(c, j);
        }
      }
    }
    return inv;
  }
};

// neptune's constant compression (preprocessing.rs compress_round_constants, fully
// preprocessed): the first round's constants stay before the first S-boxes; every later
// full round's constants become M^-1·c added after the previous round's S-boxes; the partial
// rounds' constants are pushed back from the second half's first constants through M^-1,
// each partial round keeping only the element-0 part, the remainder landing after the last
// first-half full round.
std::vector<Fr> compress_round_constants(const PoseidonParams& p, const Matrix& m_inv) {
  const std::size_t t = p.width, half = p.full_rounds / 2, rp = p.partial_rounds;
  const auto rk = [&](std::size_t r) { return std::span<const Fr>(p.round_constants_of(r), t); };
  std::vector<Fr> out;
  const auto append = [&out](std::span<const Fr> v) { out.insert(out.end(), v.begin(), v.end()); };
  append(rk(0));
  for (std::size_t i = 0; i + 1 < half; ++i) append(m_inv.apply(rk(i + 1)));
  std::vector<Fr> acc(rk(half + rp).begin(), rk(half + rp).end());
  std::vector<Fr> partial_keys;  // last partial round first
  for (std::size_t i = 0; i < rp; ++i) {
    std::vector<Fr> inv = m_inv.apply(acc);
    partial_keys.push_back(inv[0]);
    inv[0] = Fr::zero();
    const auto prev = rk(half + rp - i - 1);
    for (std::size_t j = 0; j < t; ++j) acc[j] = prev[j] + inv[j];
  }
  append(m_inv.apply(acc));
  out.insert(out.end(), partial_keys.rbegin(), partial_keys.rend());
  for (std::size_t i = 1; i < half; ++i) append(m_inv.apply(rk(half + rp + i)));
  return out;
}

// neptune's sparse factorisation (mds.rs factor_to_sparse_matrixes of Mᵀ, R_P deep), in the
// row-vector convention neptune applies it in (state' = state·A): starting from A = Mᵀ,
// each step splits A = A'·A'' with A' = diag(1, Â) (Â = A without row and column 0) and A''
// sparse (row 0 of A; below it column ŵ = Â^-1·w, w the rest of A's column 0, and the
// identity), then continues with Mᵀ·A'. The last A is the pre-sparse matrix; the A'' come
// out last partial round first.
void factor_sparse(PoseidonParams& p, const Matrix& m) {
  const std::size_t t = p.width, rp = p.partial_rounds;
  const Matrix base = m.transpose();
  Matrix curr = base;
  std::vector<std::vector<Fr>> w_hats, v_rests;
  for (std::size_t k = 0; k < rp; ++k) {
    const Matrix hat_inv = curr.minor00().inverse();
    std::vector<Fr> w(t - 1);
    for (std::size_t i = 1; i < t; ++i) w[i - 1] = curr(i, 0);
    const std::vector<Fr> w_sub = hat_inv.apply(w);
    std::vector<Fr> w_hat = {curr(0, 0)};
    w_hat.insert(w_hat.end(), w_sub.begin(), w_sub.end());
    std::vector<Fr> v_rest;
    for (std::size_t j = 1; j < t; ++j) v_rest.push_back(curr(0, j));
    w_hats.push_back(std::move(w_hat));
    v_rests.push_back(std::move(v_rest));
    Matrix prime(t);
    prime(0, 0) = Fr::one();
    for (std::size_t i = 1; i < t; ++i) {
      for (std::size_t j = 1; j < t; ++j) prime(i, j) = curr(i, j);
    }
    curr = base * prime;
  }
  p.pre_sparse = curr.a;
  for (std::size_t k = rp; k-- > 0;) {
    p.sparse_w_hat.insert(p.sparse_w_hat.end(), w_hats[k].begin(), w_hats[k].end());
    p.sparse_v_rest.insert(p.sparse_v_rest.end(), v_rests[k].begin(), v_rests[k].end());
  }
}

inline Fr sbox(const Fr& x) { return x.square().square() * x; }

// state ← M·state (the textbook and full-round layer).
void apply_mds(const PoseidonParams& p, Fr* state) {
  std::array<Fr, MAX_WIDTH> tmp;
  const std::size_t t = p.width;
  for (std::size_t i = 0; i < t; ++i) {
    const Fr* row = p.mds.data() + i * t;
    Fr acc = row[0] * state[0];
    for (std::size_t j = 1; j < t; ++j) acc += row[j] * state[j];
    tmp[i] = acc;
  }
  std::copy_n(tmp.begin(), t, state);
}

// state ← state·P (the pre-sparse matrix, applied as neptune does).
void apply_pre_sparse(const PoseidonParams& p, Fr* state) {
  std::array<Fr, MAX_WIDTH> tmp;
  const std::size_t t = p.width;
  for (std::size_t j = 0; j < t; ++j) tmp[j] = Fr::zero();
  for (std::size_t i = 0; i < t; ++i) {
    const Fr* row = p.pre_sparse.data() + i * t;
    for (std::size_t j = 0; j < t; ++j) tmp[j] += row[j] * state[i];
  }
  std::copy_n(tmp.begin(), t, state);
}

// The sparse layer of partial round k.
void apply_sparse(const PoseidonParams& p, std::size_t k, Fr* state) {
  const std::size_t t = p.width;
  const Fr* w = p.w_hat(k);
  const Fr* v = p.v_rest(k);
  Fr first = w[0] * state[0];
  for (std::size_t i = 1; i < t; ++i) first += w[i] * state[i];
  const Fr s0 = state[0];
  for (std::size_t j = 1; j < t; ++j) state[j] += v[j - 1] * s0;
  state[0] = first;
}

// The linear layer after round r of the optimised schedule.
void optimized_mix(const PoseidonParams& p, std::size_t r, Fr* state) {
  const std::size_t half = p.full_rounds / 2;
  if (r + 1 == half) {
    apply_pre_sparse(p, state);
  } else if (r >= half && r < half + p.partial_rounds) {
    apply_sparse(p, r - half, state);
  } else {
    apply_mds(p, state);
  }
}

// neptune's optimised permutation (hash_optimized_static). With a writer: the values the
// gadget allocates, which assumes element 0 is the constant tag (its first S-box is not
// written) and writes the digest (element 1) at the end.
void permute_optimized(const PoseidonParams& p, Fr* state, AuxWriter* out) {
  const std::size_t t = p.width, half = p.full_rounds / 2, rounds = p.rounds();
  const Fr* c = p.compressed_round_constants.data();
  for (std::size_t i = 0; i < t; ++i) state[i] += c[i];
  c += t;
  for (std::size_t r = 0; r < rounds; ++r) {
    const bool partial = r >= half && r < half + p.partial_rounds;
    const bool last = r + 1 == rounds;
    const std::size_t n = partial ? 1 : t;
    for (std::size_t i = 0; i < n; ++i) {
      Fr& x = state[i];
      if (out && !(r == 0 && i == 0)) {
        if (r != 0) out->push(x);
        const Fr x2 = x.square();
        const Fr x4 = x2.square();
        x *= x4;
        if (!last) x += c[i];
        out->push(x2);
        out->push(x4);
        out->push(x);
      } else {
        x = sbox(x);
        if (!last) x += c[i];
      }
    }
    if (!last) c += n;
    optimized_mix(p, r, state);
  }
  if (out) out->push(state[1]);
}

void check_width(const PoseidonParams& p, std::span<Fr> state) {
  if (state.size() != p.width) throw std::invalid_argument("poseidon_permute: state of the wrong width");
}

void check_arity(const PoseidonParams& p, std::size_t n, const char* what) {
  if (n != p.arity) throw std::invalid_argument(std::string(what) + ": wrong number of inputs");
}

}  // namespace

PoseidonRoundNumbers poseidon_round_numbers(std::size_t width) {
  if (width < 2) throw std::invalid_argument("poseidon_round_numbers: width must be at least 2");
  // neptune's loop adds the margin to its loop variable in place, so later candidates of the
  // same R_F carry a larger R_F; they never cost less than the first secure R_P of that R_F,
  // which this plain search also finds, so the minimum is the same.
  PoseidonRoundNumbers best;
  std::size_t best_cost = std::numeric_limits<std::size_t>::max();
  for (std::size_t rf = 2; rf <= 1000; rf += 2) {
    for (std::size_t rp = 4; rp < 200; ++rp) {
      if (!round_numbers_are_secure(width, rf, rp)) continue;
      const std::size_t rf_m = rf + 2;
      const auto rp_m = std::size_t(std::ceil(1.075f * float(rp)));
      const std::size_t cost = width * rf_m + rp_m;
      if (cost < best_cost || (cost == best_cost && rf_m < best.full)) {
        best = {rf_m, rp_m};
        best_cost = cost;
      }
    }
  }
  return best;
}

PoseidonParams make_poseidon_params(std::size_t arity, PoseidonRoundNumbers rounds) {
  if (arity < 1 || arity > POSEIDON_MAX_ARITY) {
    throw std::invalid_argument("Poseidon: arity " + std::to_string(arity) + " not in 1.." +
                                std::to_string(POSEIDON_MAX_ARITY));
  }
  if (rounds.full < 2 || rounds.full % 2 != 0 || rounds.partial == 0) {
    throw std::invalid_argument("Poseidon: full rounds must be even and >= 2, partial rounds positive");
  }
  PoseidonParams p;
  p.arity = arity;
  p.width = arity + 1;
  p.full_rounds = rounds.full;
  p.partial_rounds = rounds.partial;
  p.domain_tag = Fr::from_u64((std::uint64_t(1) << arity) - 1);
  const std::size_t t = p.width;

  Grain grain(/*sbox x^5*/ 1, Fr::BITS, t, p.full_rounds, p.partial_rounds);
  p.round_constants.reserve(p.rounds() * t);
  while (p.round_constants.size() < p.rounds() * t) {
    if (const auto c = Fr::from_repr(grain.draw())) p.round_constants.push_back(*c);
  }

  Matrix m(t);
  for (std::size_t i = 0; i < t; ++i) {
    for (std::size_t j = 0; j < t; ++j) m(i, j) = Fr::from_u64(i + j + t).inverse();
  }
  p.mds = m.a;

  p.compressed_round_constants = compress_round_constants(p, m.inverse());
  factor_sparse(p, m);
  if (p.compressed_round_constants.size() != t * p.full_rounds + p.partial_rounds) {
    throw std::logic_error("Poseidon: compressed round constants of the wrong length");
  }
  return p;
}

const PoseidonParams& poseidon_params(std::size_t arity) {
  if (arity < 1 || arity > POSEIDON_MAX_ARITY) {
    throw std::invalid_argument("Poseidon: arity " + std::to_string(arity) + " not in 1.." +
                                std::to_string(POSEIDON_MAX_ARITY));
  }
  static std::array<std::unique_ptr<PoseidonParams>, POSEIDON_MAX_ARITY + 1> cache;
  static std::array<std::once_flag, POSEIDON_MAX_ARITY + 1> once;
  std::call_once(once[arity], [arity] {
    cache[arity] = std::make_unique<PoseidonParams>(make_poseidon_params(arity, poseidon_round_numbers(arity + 1)));
  });
  return *cache[arity];
}

std::size_t poseidon_hash_sboxes(const PoseidonParams& p) {
  // Every S-box but the constant tag's in the first round.
  return p.width * p.full_rounds + p.partial_rounds - 1;
}

namespace native {

void poseidon_permute(const PoseidonParams& p, std::span<Fr> state) {
  check_width(p, state);
  permute_optimized(p, state.data(), nullptr);
}

void poseidon_permute_reference(const PoseidonParams& p, std::span<Fr> state) {
  check_width(p, state);
  const std::size_t half = p.full_rounds / 2;
  for (std::size_t r = 0; r < p.rounds(); ++r) {
    const Fr* c = p.round_constants_of(r);
    const bool full = r < half || r >= half + p.partial_rounds;
    for (std::size_t i = 0; i < p.width; ++i) state[i] += c[i];
    if (full) {
      for (std::size_t i = 0; i < p.width; ++i) state[i] = sbox(state[i]);
    } else {
      state[0] = sbox(state[0]);
    }
    apply_mds(p, state.data());
  }
}

Fr poseidon_hash(const PoseidonParams& p, std::span<const Fr> inputs) {
  check_arity(p, inputs.size(), "poseidon_hash");
  std::array<Fr, MAX_WIDTH> state;
  state[0] = p.domain_tag;
  std::copy(inputs.begin(), inputs.end(), state.begin() + 1);
  permute_optimized(p, state.data(), nullptr);
  return state[1];
}

Fr poseidon_hash_reference(const PoseidonParams& p, std::span<const Fr> inputs) {
  check_arity(p, inputs.size(), "poseidon_hash_reference");
  std::array<Fr, MAX_WIDTH> state;
  state[0] = p.domain_tag;
  std::copy(inputs.begin(), inputs.end(), state.begin() + 1);
  poseidon_permute_reference(p, std::span(state.data(), p.width));
  return state[1];
}

Fr poseidon_hash_trace(const PoseidonParams& p, std::span<const Fr> inputs, AuxWriter& out) {
  check_arity(p, inputs.size(), "poseidon_hash_trace");
  std::array<Fr, MAX_WIDTH> state;
  state[0] = p.domain_tag;
  std::copy(inputs.begin(), inputs.end(), state.begin() + 1);
  permute_optimized(p, state.data(), &out);
  return state[1];
}

}  // namespace native

namespace {

// An affine form k + Σ coeff[b]·basis[b] over the gadget's current basis of variables.
struct Form {
  Fr k = Fr::zero();
  std::vector<Fr> coeff;

  LinearCombination lc(std::span<const Variable> basis) const {
    LinearCombination out;
    for (std::size_t b = 0; b < coeff.size(); ++b) {
      if (!coeff[b].is_zero()) out.add(coeff[b], basis[b]);
    }
    if (!k.is_zero()) out.add(k, Variable::one());
    return out;
  }
};

// neptune's circuit.rs over affine forms: the state elements are linear combinations of the
// variables allocated so far in this hash (the basis, reset at every full round, where each
// element becomes one S-box output), and the linear layers only recombine forms.
class PoseidonCircuit {
 public:
  PoseidonCircuit(ConstraintSystem& cs, const PoseidonParams& p, std::span<const Num> inputs)
      : cs_(cs), p_(p), inputs_(inputs) {
    bool known = true;
    for (const Num& n : inputs) known = known && n.value().has_value();
    if (known) {
      // The values to allocate, in order, from the native trace.
      std::vector<Fr> in;
      for (const Num& n : inputs) in.push_back(*n.value());
      values_.resize(poseidon_hash_constraints(p));
      AuxWriter w(values_.data());
      native::poseidon_hash_trace(p, in, w);
      known_ = true;
    }
  }

  Num hash() {
    const std::size_t t = p_.width, half = p_.full_rounds / 2, rounds = p_.rounds();
    const Fr* c = p_.compressed_round_constants.data();
    forms_.assign(t, Form{});
    {
      // The first round: the tag's S-box is a constant, each input's costs 3 constraints
      // with the pre-round key inside and the post-round key folded into the output.
      Namespace ns(cs_, "round 0");
      const Fr* pre = c;
      const Fr* post = c + t;
      c += 2 * t;
      forms_[0].k = sbox(p_.domain_tag + pre[0]) + post[0];
      for (std::size_t i = 1; i < t; ++i) {
        Namespace sns(cs_, "sbox " + std::to_string(i));
        LinearCombination in = inputs_[i - 1].lc();
        in.add(pre[i], Variable::one());
        const Variable l2 = alloc("l2");
        cs_.enforce("(x + c)^2 = l2", in, in, l2);
        const Variable l4 = alloc("l4");
        cs_.enforce("l2^2 = l4", l2, l2, l4);
        const Variable l5 = alloc("l5");
        cs_.enforce("(x + c)·l4 = l5 - c'", in, l4, minus_constant(l5, post[i]));
        set_unit(i, l5);
      }
      mix(0);
    }
    for (std::size_t r = 1; r < rounds; ++r) {
      Namespace ns(cs_, "round " + std::to_string(r));
      const bool partial = r >= half && r < half + p_.partial_rounds;
      const bool last = r + 1 == rounds;
      if (partial) {
        const Variable out = sbox_of(0, last ? nullptr : c);
        basis_.push_back(out);
        for (Form& f : forms_) f.coeff.resize(basis_.size(), Fr::zero());
        forms_[0] = unit(basis_.size() - 1);
        c += 1;
      } else {
        std::vector<Variable> outs(t);
        for (std::size_t i = 0; i < t; ++i) outs[i] = sbox_of(i, last ? nullptr : c + i);
        basis_ = outs;
        for (std::size_t i = 0; i < t; ++i) forms_[i] = unit(i);
        if (!last) c += t;
      }
      mix(r);
    }
    Namespace ns(cs_, "digest");
    const Variable out = alloc("out");
    cs_.enforce("out = element 1", forms_[1].lc(basis_), Variable::one(), out);
    std::optional<Fr> v;
    if (known_) v = values_.back();
    return Num(LinearCombination(out), v);
  }

 private:
  Variable alloc(std::string_view name) {
    std::optional<Fr> v;
    if (known_) v = values_.at(next_++);
    return cs_.alloc(name, value_fn(v));
  }

  static LinearCombination minus_constant(Variable v, const Fr& k) {
    LinearCombination lc(v);
    if (!k.is_zero()) lc.add(-k, Variable::one());
    return lc;
  }

  Form unit(std::size_t b) const {
    Form f;
    f.coeff.assign(basis_.size(), Fr::zero());
    f.coeff[b] = Fr::one();
    return f;
  }

  void set_unit(std::size_t element, Variable v) {
    basis_.push_back(v);
    for (Form& f : forms_) f.coeff.resize(basis_.size(), Fr::zero());
    forms_[element].k = Fr::zero();
    forms_[element].coeff.back() = Fr::one();
  }

  // The S-box of element i after the first round: its input allocated (lc·1 = u), then
  // u·u = l2, l2·l2 = l4, u·l4 = l5 − c' (no c' when `post` is null).
  Variable sbox_of(std::size_t i, const Fr* post) {
    Namespace ns(cs_, "sbox " + std::to_string(i));
    const Variable u = alloc("u");
    cs_.enforce("input", forms_[i].lc(basis_), Variable::one(), u);
    const Variable l2 = alloc("l2");
    cs_.enforce("u^2 = l2", u, u, l2);
    const Variable l4 = alloc("l4");
    cs_.enforce("l2^2 = l4", l2, l2, l4);
    const Variable l5 = alloc("l5");
    cs_.enforce("u·l4 = l5 - c'", u, l4, post ? minus_constant(l5, *post) : LinearCombination(l5));
    return l5;
  }

  // The linear layer after round r, on the forms.
  void mix(std::size_t r) {
    const std::size_t t = p_.width, half = p_.full_rounds / 2, n = basis_.size();
    if (r >= half && r < half + p_.partial_rounds) {
      const std::size_t k = r - half;
      const Fr* w = p_.w_hat(k);
      const Fr* v = p_.v_rest(k);
      Form first{Fr::zero(), std::vector<Fr>(n, Fr::zero())};
      for (std::size_t i = 0; i < t; ++i) accumulate(first, w[i], forms_[i]);
      for (std::size_t j = 1; j < t; ++j) accumulate(forms_[j], v[j - 1], forms_[0]);
      forms_[0] = std::move(first);
      return;
    }
    // state'[j] = Σ_i A[i][j]·state[i], A the pre-sparse matrix or M.
    const Fr* a = r + 1 == half ? p_.pre_sparse.data() : p_.mds.data();
    std::vector<Form> out(t, Form{Fr::zero(), std::vector<Fr>(n, Fr::zero())});
    for (std::size_t j = 0; j < t; ++j) {
      for (std::size_t i = 0; i < t; ++i) accumulate(out[j], a[i * t + j], forms_[i]);
    }
    forms_ = std::move(out);
  }

  static void accumulate(Form& acc, const Fr& s, const Form& f) {
    acc.k += s * f.k;
    for (std::size_t b = 0; b < f.coeff.size(); ++b) {
      if (!f.coeff[b].is_zero()) acc.coeff[b] += s * f.coeff[b];
    }
  }

  ConstraintSystem& cs_;
  const PoseidonParams& p_;
  std::span<const Num> inputs_;
  bool known_ = false;
  std::vector<Fr> values_;
  std::size_t next_ = 0;
  std::vector<Variable> basis_;
  std::vector<Form> forms_;
};

}  // namespace

Num poseidon_hash_gadget(ConstraintSystem& cs, std::string_view name, const PoseidonParams& p,
                         std::span<const Num> inputs) {
  if (inputs.size() != p.arity) {
    throw std::invalid_argument("poseidon_hash_gadget: " + std::to_string(inputs.size()) + " inputs for arity " +
                                std::to_string(p.arity));
  }
  Namespace ns(cs, name);
  return PoseidonCircuit(cs, p, inputs).hash();
}

}  // namespace snarkpipe::gadgets
