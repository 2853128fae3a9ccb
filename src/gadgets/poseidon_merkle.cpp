#include "gadgets/poseidon_merkle.hpp"

#include <stdexcept>
#include <string>

namespace snarkpipe::gadgets {

namespace {

// The children of a node in order: the siblings with `node` put in slot `pos`.
std::vector<Fr> children_of(const Fr& node, std::span<const Fr> siblings, std::size_t pos) {
  std::vector<Fr> c(siblings.begin(), siblings.end());
  c.insert(c.begin() + std::ptrdiff_t(pos), node);
  return c;
}

std::size_t slot_at(std::uint64_t index, unsigned bits, std::size_t level) {
  const std::size_t shift = bits * level;
  return shift >= 64 ? 0 : std::size_t((index >> shift) & ((std::uint64_t(1) << bits) - 1));
}

void check_path(std::size_t arity, const PoseidonPath& path) {
  for (const auto& s : path.siblings) {
    if (s.size() != arity - 1) throw std::invalid_argument("Poseidon path: a level without arity − 1 siblings");
  }
}

}  // namespace

unsigned poseidon_tree_bits(std::size_t arity) {
  for (unsigned k = 1; k <= 4; ++k) {
    if (arity == (std::size_t(1) << k)) return k;
  }
  throw std::invalid_argument("Poseidon tree: arity " + std::to_string(arity) + " is not 2, 4, 8 or 16");
}

Fr poseidon_root_from_path(std::size_t arity, const Fr& leaf, const PoseidonPath& path) {
  const unsigned k = poseidon_tree_bits(arity);
  check_path(arity, path);
  const PoseidonParams& p = poseidon_params(arity);
  Fr node = leaf;
  for (std::size_t l = 0; l < path.siblings.size(); ++l) {
    node = native::poseidon_hash(p, children_of(node, path.siblings[l], slot_at(path.index, k, l)));
  }
  return node;
}

PoseidonTree::PoseidonTree(std::size_t arity, std::vector<Fr> leaves) : arity_(arity) {
  poseidon_tree_bits(arity);
  std::size_t n = leaves.size();
  std::size_t depth = 0;
  while (n > 1 && n % arity == 0) {
    n /= arity;
    ++depth;
  }
  if (n != 1 || depth == 0 || leaves.size() > (std::size_t(1) << 32)) {
    throw std::invalid_argument("PoseidonTree: " + std::to_string(leaves.size()) + " leaves is not a power >= 1 of " +
                                std::to_string(arity) + " (up to 2^32)");
  }
  const PoseidonParams& p = poseidon_params(arity);
  levels_.push_back(std::move(leaves));
  while (levels_.back().size() > 1) {
    const std::vector<Fr>& below = levels_.back();
    std::vector<Fr> above(below.size() / arity);
    for (std::size_t i = 0; i < above.size(); ++i) {
      above[i] = native::poseidon_hash(p, std::span(below).subspan(i * arity, arity));
    }
    levels_.push_back(std::move(above));
  }
}

PoseidonPath PoseidonTree::path(std::uint64_t index) const {
  if (index >= num_leaves()) throw std::out_of_range("PoseidonTree::path: leaf index " + std::to_string(index) + " out of range");
  PoseidonPath path;
  path.index = index;
  std::uint64_t at = index;
  for (std::size_t l = 0; l < depth(); ++l) {
    const std::uint64_t first = at / arity_ * arity_;
    std::vector<Fr> s;
    for (std::uint64_t c = first; c < first + arity_; ++c) {
      if (c != at) s.push_back(levels_[l][c]);
    }
    path.siblings.push_back(std::move(s));
    at /= arity_;
  }
  return path;
}

namespace {

std::optional<Fr> sum_of(const std::optional<Fr>& a, const Fr& ca, const std::optional<Fr>& b, const Fr& cb) {
  if (!a || !b) return std::nullopt;
  return ca * *a + cb * *b;
}

std::optional<Fr> product_of(const std::optional<Fr>& a, const std::optional<Fr>& b) {
  if (!a || !b) return std::nullopt;
  return *a * *b;
}

// The one-hot selector of the slot the bits spell (little-endian): per bit, the products of
// all indicators but the last with the bit are allocated; the last follows linearly, as the
// indicators sum to 1.
std::vector<Num> one_hot(ConstraintSystem& cs, std::span<const Boolean> bits) {
  std::vector<Num> ind = {Num(LinearCombination::constant(FR_ONE), FR_ONE)};
  for (std::size_t j = 0; j < bits.size(); ++j) {
    const Boolean& b = bits[j];
    const std::size_t n = ind.size();
    std::vector<Num> prod(n);
    LinearCombination rest = b.lc();
    std::optional<Fr> rest_value;
    if (const auto v = b.value()) rest_value = bit_to_field(*v);
    for (std::size_t m = 0; m + 1 < n; ++m) {
      std::optional<Fr> bv;
      if (const auto v = b.value()) bv = bit_to_field(*v);
      const std::optional<Fr> pv = product_of(ind[m].value(), bv);
      const Variable p = cs.alloc("selector " + std::to_string(j) + "." + std::to_string(m), value_fn(pv));
      cs.enforce("selector " + std::to_string(j) + "." + std::to_string(m) + " product", ind[m].lc(), b.lc(), p);
      prod[m] = Num(LinearCombination(p), pv);
      rest.add(FR_MINUS_ONE, p);
      rest_value = sum_of(rest_value, FR_ONE, pv, FR_MINUS_ONE);
    }
    prod[n - 1] = Num(rest, rest_value);
    std::vector<Num> next(2 * n);
    for (std::size_t m = 0; m < n; ++m) {
      LinearCombination off = ind[m].lc();
      off -= prod[m].lc();
      next[m] = Num(off, sum_of(ind[m].value(), FR_ONE, prod[m].value(), FR_MINUS_ONE));
      next[m + n] = prod[m];
    }
    ind = std::move(next);
  }
  return ind;
}

// A new variable out = base + sel·(x − base) + extra: sel·(x − base) = out − base − extra.
AllocatedNum select_into(ConstraintSystem& cs, std::string_view name, const Num& sel, const Num& x, const Num& base,
                         const Num* extra) {
  std::optional<Fr> v = sum_of(base.value(), FR_ONE, product_of(sel.value(), sum_of(x.value(), FR_ONE, base.value(), FR_MINUS_ONE)), FR_ONE);
  if (extra) v = sum_of(v, FR_ONE, extra->value(), FR_ONE);
  const AllocatedNum out = AllocatedNum::alloc(cs, name, v);
  LinearCombination diff = x.lc();
  diff -= base.lc();
  LinearCombination rhs = out.lc();
  rhs -= base.lc();
  if (extra) rhs -= extra->lc();
  cs.enforce(std::string(name) + " selection", sel.lc(), diff, rhs);
  return out;
}

// The children in order, the node in the slot its bits select.
std::vector<Num> ordered_children(ConstraintSystem& cs, const Num& node, std::span<const AllocatedNum> siblings,
                                  std::span<const Boolean> bits) {
  const std::vector<Num> eq = one_hot(cs, bits);
  const std::size_t a = eq.size();
  std::vector<Num> sib;
  for (const AllocatedNum& s : siblings) sib.push_back(Num::of(s));
  std::vector<Num> out(a);
  out[0] = Num::of(select_into(cs, "child 0", eq[0], node, sib[0], nullptr));
  for (std::size_t k = 1; k + 1 < a; ++k) {
    // Slots before the node's hold sibling k, slots after it sibling k − 1.
    LinearCombination before;
    std::optional<Fr> before_value = Fr::zero();
    for (std::size_t j = k + 1; j < a; ++j) {
      before += eq[j].lc();
      before_value = sum_of(before_value, FR_ONE, eq[j].value(), FR_ONE);
    }
    const Num lt(before, before_value);
    const std::string ks = std::to_string(k);
    const AllocatedNum shift = select_into(cs, "shift " + ks, lt, sib[k], sib[k - 1], nullptr);
    // shift = sib[k−1] + lt·(sib[k] − sib[k−1]); the child adds the node's selection.
    LinearCombination shift_delta = shift.lc();
    shift_delta -= sib[k - 1].lc();
    const Num extra(shift_delta, sum_of(shift.value(), FR_ONE, sib[k - 1].value(), FR_MINUS_ONE));
    out[k] = Num::of(select_into(cs, "child " + ks, eq[k], node, sib[k - 1], &extra));
  }
  out[a - 1] = Num::of(select_into(cs, "child " + std::to_string(a - 1), eq[a - 1], node, sib[a - 2], nullptr));
  return out;
}

}  // namespace

Num poseidon_merkle_root_gadget(ConstraintSystem& cs, std::string_view name, std::size_t arity, const Num& leaf,
                                std::span<const std::vector<AllocatedNum>> siblings,
                                std::span<const Boolean> index_bits) {
  const unsigned k = poseidon_tree_bits(arity);
  if (index_bits.size() != k * siblings.size()) {
    throw std::invalid_argument("poseidon_merkle_root_gadget: " + std::to_string(index_bits.size()) + " index bits for " +
                                std::to_string(siblings.size()) + " levels of arity " + std::to_string(arity));
  }
  const PoseidonParams& p = poseidon_params(arity);
  Namespace ns(cs, name);
  Num node = leaf;
  for (std::size_t l = 0; l < siblings.size(); ++l) {
    if (siblings[l].size() != arity - 1) throw std::invalid_argument("poseidon_merkle_root_gadget: a level without arity − 1 siblings");
    Namespace lns(cs, "level " + std::to_string(l));
    const std::vector<Num> children = ordered_children(cs, node, siblings[l], index_bits.subspan(k * l, k));
    node = poseidon_hash_gadget(cs, "hash", p, children);
  }
  return node;
}

Num poseidon_merkle_inclusion(ConstraintSystem& cs, std::string_view name, std::size_t arity, const Num& leaf,
                              std::span<const std::vector<AllocatedNum>> siblings,
                              std::span<const Boolean> index_bits) {
  if (index_bits.size() > Fr::BITS - 1) throw std::invalid_argument("poseidon_merkle_inclusion: more than 254 index bits");
  Namespace ns(cs, name);
  const Num root = poseidon_merkle_root_gadget(cs, "root", arity, leaf, siblings, index_bits);
  root.inputize(cs, "root input");
  Num::from_bits_le(index_bits).inputize(cs, "index input");
  return root;
}

namespace native {

Fr poseidon_merkle_root_trace(std::size_t arity, const Fr& leaf, const PoseidonPath& path, AuxWriter& out) {
  const unsigned k = poseidon_tree_bits(arity);
  check_path(arity, path);
  const PoseidonParams& p = poseidon_params(arity);
  Fr node = leaf;
  std::vector<bool> ind;
  for (std::size_t l = 0; l < path.siblings.size(); ++l) {
    const std::size_t pos = slot_at(path.index, k, l);
    // The selector products, as one_hot allocates them.
    ind.assign(1, true);
    for (unsigned j = 0; j < k; ++j) {
      const bool b = ((pos >> j) & 1) != 0;
      const std::size_t n = ind.size();
      for (std::size_t m = 0; m + 1 < n; ++m) out.push_bit(ind[m] && b);
      std::vector<bool> next(2 * n);
      for (std::size_t m = 0; m < n; ++m) {
        next[m] = ind[m] && !b;
        next[m + n] = ind[m] && b;
      }
      ind = std::move(next);
    }
    // The ordered children: child 0, then (shift k, child k) for the middle slots, then the last.
    const std::vector<Fr>& sib = path.siblings[l];
    const std::vector<Fr> children = children_of(node, sib, pos);
    out.push(children[0]);
    for (std::size_t c = 1; c + 1 < arity; ++c) {
      out.push(c < pos ? sib[c] : sib[c - 1]);
      out.push(children[c]);
    }
    out.push(children[arity - 1]);
    node = poseidon_hash_trace(p, children, out);
  }
  return node;
}

}  // namespace native

}  // namespace snarkpipe::gadgets
