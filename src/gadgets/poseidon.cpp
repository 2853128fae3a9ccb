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
  Grain(std::size_t field_bits, std::size_t t, std::size_t rf, std::size_t rp) {
    state_.fill(1);
    std::size_t at = 0;
    const auto write = [&](std::size_t value, int bits) {
      for (int i = bits - 1; i >= 0; --i) state_[at++] = std::uint8_t((value >> i) & 1);
    };
    write(1, 2);  // a prime field
    write(0, 4);  // the x^alpha S-box
    write(field_bits, 12);
    write(t, 12);
    write(rf, 10);
    write(rp, 10);
    for (int i = 0; i < 160; ++i) step();
  }

  // The next output bit of the shrinking generator: of each pair, the second bit when the
  // first is 1.
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

inline Fr sbox(const Fr& x) { return x.square().square() * x; }

// One layer of the linear map: state ← M·state.
void apply_mds(const PoseidonParams& p, std::span<Fr> state) {
  std::array<Fr, POSEIDON_MAX_ARITY + 1> tmp;
  for (std::size_t i = 0; i < p.width; ++i) {
    Fr acc = Fr::zero();
    for (std::size_t j = 0; j < p.width; ++j) acc += p.m(i, j) * state[j];
    tmp[i] = acc;
  }
  std::copy_n(tmp.begin(), p.width, state.begin());
}

}  // namespace

PoseidonRoundNumbers poseidon_round_numbers(std::size_t width) {
  if (width < 2) throw std::invalid_argument("poseidon_round_numbers: width must be at least 2");
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
    throw std::invalid_argument("Poseidon: arity " + std::to_string(arity) + " not in 1.." + std::to_string(POSEIDON_MAX_ARITY));
  }
  if (rounds.full == 0 || rounds.full % 2 != 0 || rounds.partial == 0) {
    throw std::invalid_argument("Poseidon: full rounds must be even and both round numbers positive");
  }
  PoseidonParams p;
  p.arity = arity;
  p.width = arity + 1;
  p.full_rounds = rounds.full;
  p.partial_rounds = rounds.partial;
  p.domain_tag = Fr::from_u64((std::uint64_t(1) << arity) - 1);

  Grain grain(Fr::BITS, p.width, p.full_rounds, p.partial_rounds);
  p.round_constants.reserve(p.rounds() * p.width);
  while (p.round_constants.size() < p.rounds() * p.width) {
    if (const auto c = Fr::from_repr(grain.draw())) p.round_constants.push_back(*c);
  }
  // The matrix points are reduced, not rejected: a 255-bit draw is below 2r.
  const auto reduced = [&] {
    ff::Limbs<4> v = grain.draw();
    if (ff::compare(v, Fr::MODULUS) >= 0) ff::sub_to(v, v, Fr::MODULUS);
    return Fr::from_canonical_unchecked(v);
  };
  std::vector<Fr> xs(p.width), ys(p.width);
  for (Fr& x : xs) x = reduced();
  for (Fr& y : ys) y = reduced();
  p.mds.resize(p.width * p.width);
  for (std::size_t i = 0; i < p.width; ++i) {
    for (std::size_t j = 0; j < p.width; ++j) {
      const Fr sum = xs[i] + ys[j];
      if (sum.is_zero()) throw std::runtime_error("Poseidon: MDS points collide (x_i + y_j = 0)");
      p.mds[i * p.width + j] = sum.inverse();
    }
  }
  return p;
}

const PoseidonParams& poseidon_params(std::size_t arity) {
  if (arity < 1 || arity > POSEIDON_MAX_ARITY) {
    throw std::invalid_argument("Poseidon: arity " + std::to_string(arity) + " not in 1.." + std::to_string(POSEIDON_MAX_ARITY));
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
  if (state.size() != p.width) throw std::invalid_argument("poseidon_permute: state of the wrong width");
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
    apply_mds(p, state);
  }
}

Fr poseidon_hash(const PoseidonParams& p, std::span<const Fr> inputs) {
  if (inputs.size() != p.arity) throw std::invalid_argument("poseidon_hash: wrong number of inputs");
  std::array<Fr, POSEIDON_MAX_ARITY + 1> state;
  state[0] = p.domain_tag;
  std::copy(inputs.begin(), inputs.end(), state.begin() + 1);
  poseidon_permute(p, std::span(state.data(), p.width));
  return state[1];
}

Fr poseidon_hash_trace(const PoseidonParams& p, std::span<const Fr> inputs, AuxWriter& out) {
  if (inputs.size() != p.arity) throw std::invalid_argument("poseidon_hash_trace: wrong number of inputs");
  std::array<Fr, POSEIDON_MAX_ARITY + 1> state;
  state[0] = p.domain_tag;
  std::copy(inputs.begin(), inputs.end(), state.begin() + 1);
  const auto traced_sbox = [&out](Fr& x) {
    const Fr x2 = x.square();
    const Fr x4 = x2.square();
    x = x4 * x;
    out.push(x2);
    out.push(x4);
    out.push(x);
  };
  const std::size_t half = p.full_rounds / 2;
  for (std::size_t r = 0; r < p.rounds(); ++r) {
    const Fr* c = p.round_constants_of(r);
    const bool full = r < half || r >= half + p.partial_rounds;
    for (std::size_t i = 0; i < p.width; ++i) state[i] += c[i];
    if (full) {
      for (std::size_t i = 0; i < p.width; ++i) {
        if (r == 0 && i == 0) {
          state[0] = sbox(state[0]);  // the constant tag: folded, nothing allocated
        } else {
          traced_sbox(state[i]);
        }
      }
    } else {
      traced_sbox(state[0]);
    }
    apply_mds(p, std::span(state.data(), p.width));
  }
  return state[1];
}

}  // namespace native

namespace {

// The constant an LC stands for, when all its terms are on ONE.
std::optional<Fr> constant_of(const LinearCombination& lc) {
  Fr k = Fr::zero();
  for (const auto& t : lc.terms()) {
    if (!(t.var == Variable::one())) return std::nullopt;
    k += t.coeff;
  }
  return k;
}

// An affine form k + Σ coeff[b]·basis[b] over the gadget's current basis of variables.
struct Form {
  Fr k;
  std::vector<Fr> coeff;

  bool is_constant() const {
    for (const Fr& c : coeff) {
      if (!c.is_zero()) return false;
    }
    return true;
  }
  LinearCombination lc(std::span<const Variable> basis) const {
    LinearCombination out;
    if (!k.is_zero()) out.add(k, Variable::one());
    for (std::size_t b = 0; b < coeff.size(); ++b) {
      if (!coeff[b].is_zero()) out.add(coeff[b], basis[b]);
    }
    return out;
  }
};

struct SboxOut {
  std::optional<Variable> var;  // absent: the input was constant
  Fr constant;                  // the output when constant
};

// The permutation over affine forms: each S-box input becomes one linear combination, each
// S-box output a basis variable; the linear layers only recombine forms, costing nothing.
class PoseidonCircuit {
 public:
  PoseidonCircuit(ConstraintSystem& cs, const PoseidonParams& p, bool known) : cs_(cs), p_(p), known_(known) {}

  Num hash(std::span<const Num> inputs) {
    const std::size_t t = p_.width;
    const std::size_t half = p_.full_rounds / 2;
    std::vector<Fr> values(t);
    values[0] = p_.domain_tag;
    for (std::size_t i = 0; i < p_.arity && known_; ++i) values[i + 1] = *inputs[i].value();
    for (std::size_t r = 0; r < p_.rounds(); ++r) {
      Namespace ns(cs_, "round " + std::to_string(r));
      const Fr* c = p_.round_constants_of(r);
      const bool full = r < half || r >= half + p_.partial_rounds;
      for (std::size_t i = 0; i < t; ++i) values[i] += c[i];
      std::vector<Form> cols;
      if (r == 0) {
        // The inputs as given; element 0 is the constant tag.
        std::vector<SboxOut> outs(t);
        for (std::size_t i = 0; i < t; ++i) {
          LinearCombination in = i == 0 ? LinearCombination::constant(p_.domain_tag) : inputs[i - 1].lc();
          in.add(c[i], Variable::one());
          outs[i] = sbox_of(i, in, constant_of(in), values[i]);
        }
        for (const SboxOut& o : outs) cols.push_back(column_of(o));
      } else if (full) {
        std::vector<SboxOut> outs(t);
        for (std::size_t i = 0; i < t; ++i) outs[i] = sbox_of_form(i, forms_[i], c[i], values[i]);
        basis_.clear();
        for (const SboxOut& o : outs) cols.push_back(column_of(o));
      } else {
        const SboxOut o = sbox_of_form(0, forms_[0], c[0], values[0]);
        cols = std::move(forms_);
        for (std::size_t i = 1; i < t; ++i) cols[i].k += c[i];
        cols[0] = column_of(o);
      }
      mix(cols);
      if (known_) {
        if (full) {
          for (Fr& v : values) v = sbox(v);
        } else {
          values[0] = sbox(values[0]);
        }
        apply_mds(p_, values);
      }
    }
    std::optional<Fr> out;
    if (known_) out = values[1];
    return {forms_[1].lc(basis_), out};
  }

 private:
  // x^5 of `in` (value `v`, known when the witness is), or its constant when `in` is one.
  SboxOut sbox_of(std::size_t element, const LinearCombination& in, const std::optional<Fr>& constant, const Fr& v) {
    if (constant) return {std::nullopt, sbox(*constant)};
    Namespace ns(cs_, "sbox " + std::to_string(element));
    std::optional<Fr> x2, x4, x5;
    if (known_) {
      x2 = v.square();
      x4 = x2->square();
      x5 = *x4 * v;
    }
    const Variable a = cs_.alloc("x2", value_fn(x2));
    cs_.enforce("x2 = x·x", in, in, a);
    const Variable b = cs_.alloc("x4", value_fn(x4));
    cs_.enforce("x4 = x2·x2", a, a, b);
    const Variable x = cs_.alloc("x5", value_fn(x5));
    cs_.enforce("x5 = x4·x", b, in, x);
    return {x, Fr::zero()};
  }

  SboxOut sbox_of_form(std::size_t element, const Form& f, const Fr& round_constant, const Fr& v) {
    Form in = f;
    in.k += round_constant;
    std::optional<Fr> constant;
    if (in.is_constant()) constant = in.k;
    return sbox_of(element, in.lc(basis_), constant, v);
  }

  // An S-box output as a column of the state: a new basis variable, or a constant.
  Form column_of(const SboxOut& o) {
    Form f;
    if (o.var) {
      basis_.push_back(*o.var);
      f.coeff.assign(basis_.size(), Fr::zero());
      f.coeff.back() = Fr::one();
    } else {
      f.k = o.constant;
    }
    return f;
  }

  // forms ← M·cols.
  void mix(std::vector<Form>& cols) {
    const std::size_t n = basis_.size();
    for (Form& f : cols) f.coeff.resize(n, Fr::zero());
    forms_.assign(p_.width, Form{Fr::zero(), std::vector<Fr>(n, Fr::zero())});
    for (std::size_t i = 0; i < p_.width; ++i) {
      Form& f = forms_[i];
      for (std::size_t j = 0; j < p_.width; ++j) {
        const Fr& m = p_.m(i, j);
        f.k += m * cols[j].k;
        for (std::size_t b = 0; b < n; ++b) {
          if (!cols[j].coeff[b].is_zero()) f.coeff[b] += m * cols[j].coeff[b];
        }
      }
    }
  }

  ConstraintSystem& cs_;
  const PoseidonParams& p_;
  bool known_;
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
  bool known = true;
  for (const Num& n : inputs) known = known && n.value().has_value();
  Namespace ns(cs, name);
  return PoseidonCircuit(cs, p, known).hash(inputs);
}

}  // namespace snarkpipe::gadgets
