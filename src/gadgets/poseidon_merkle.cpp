#include "gadgets/poseidon_merkle.hpp"

#include <algorithm>
#include <array>
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

// The bits of each level (log2 of its arity), from its siblings.
std::vector<unsigned> level_bits(std::span<const std::size_t> sibling_counts) {
  std::vector<unsigned> k;
  for (std::size_t n : sibling_counts) k.push_back(poseidon_tree_bits(n + 1));
  return k;
}

std::vector<unsigned> level_bits_of(const PoseidonPath& path) {
  std::vector<std::size_t> n;
  for (const auto& s : path.siblings) n.push_back(s.size());
  return level_bits(n);
}

std::size_t slot_at(std::uint64_t index, unsigned shift, unsigned bits) {
  return shift >= 64 ? 0 : std::size_t((index >> shift) & ((std::uint64_t(1) << bits) - 1));
}

void check_uniform(std::size_t arity, std::span<const std::size_t> sibling_counts, const char* what) {
  poseidon_tree_bits(arity);
  for (std::size_t n : sibling_counts) {
    if (n != arity - 1) throw std::invalid_argument(std::string(what) + ": a level without arity − 1 siblings");
  }
}

std::vector<std::size_t> counts_of(const PoseidonPath& path) {
  std::vector<std::size_t> n;
  for (const auto& s : path.siblings) n.push_back(s.size());
  return n;
}

// rust-fil-proofs' insertion (storage-proofs-core gadgets/insertion.rs), over an Ops type
// that either builds the circuit (Num, Boolean) or replays its allocations natively (Fr,
// bool), so that the gadget and its trace allocate the same values in the same order.
// ops.pick(cond, a, b) is `cond ? a : b`.
template <class Ops>
std::vector<typename Ops::Elt> insert_children(Ops& ops, const typename Ops::Elt& node,
                                               std::span<const typename Ops::Elt> sib,
                                               std::span<const typename Ops::Bit> bits) {
  using Elt = typename Ops::Elt;
  const std::size_t size = sib.size() + 1;
  const Elt& a = node;
  if (size == 2) {
    const auto& b0 = bits[0];
    Elt p0 = ops.pick("binary insert 0", b0, sib[0], a);
    Elt p1 = ops.pick("binary insert 1", b0, a, sib[0]);
    return {p0, p1};
  }
  if (size == 4) {
    const auto &b0 = bits[0], &b1 = bits[1];
    const Elt &b = sib[0], &c = sib[1], &d = sib[2];
    const Elt p0_x0 = ops.pick("p0_x0", b0, b, a);
    Elt p0 = ops.pick("p0", b1, b, p0_x0);
    const Elt p1_x0 = ops.pick("p1_x0", b0, a, b);
    Elt p1 = ops.pick("p1", b1, c, p1_x0);
    const Elt p2_x1 = ops.pick("p2_x1", b0, d, a);
    Elt p2 = ops.pick("p2", b1, p2_x1, c);
    const Elt p3_x1 = ops.pick("p3_x1", b0, a, d);
    Elt p3 = ops.pick("p3", b1, p3_x1, d);
    return {p0, p1, p2, p3};
  }
  if (size == 8) {
    const auto &b0 = bits[0], &b1 = bits[1], &b2 = bits[2];
    const Elt &b = sib[0], &c = sib[1], &d = sib[2], &e = sib[3], &f = sib[4], &g = sib[5], &h = sib[6];
    const auto nor = ops.nor("b0 nor b1", b0, b1);
    const auto both = ops.and_("b0 and b1", b0, b1);
    const Elt p0_xx0 = ops.pick("p0_xx0", nor, a, b);
    Elt p0 = ops.pick("p0", b2, b, p0_xx0);
    const Elt p1_x00 = ops.pick("p1_x00", b0, a, b);
    const Elt p1_xx0 = ops.pick("p1_xx0", b1, c, p1_x00);
    Elt p1 = ops.pick("p1", b2, c, p1_xx0);
    const Elt p2_x10 = ops.pick("p2_x10", b0, d, a);
    const Elt p2_xx0 = ops.pick("p2_xx0", b1, p2_x10, c);
    Elt p2 = ops.pick("p2", b2, d, p2_xx0);
    const Elt p3_xx0 = ops.pick("p3_xx0", both, a, d);
    Elt p3 = ops.pick("p3", b2, e, p3_xx0);
    const Elt p4_xx1 = ops.pick("p4_xx1", nor, a, f);
    Elt p4 = ops.pick("p4", b2, p4_xx1, e);
    const Elt p5_x01 = ops.pick("p5_x01", b0, a, f);
    const Elt p5_xx1 = ops.pick("p5_xx1", b1, g, p5_x01);
    Elt p5 = ops.pick("p5", b2, p5_xx1, f);
    const Elt p6_x11 = ops.pick("p6_x11", b0, h, a);
    const Elt p6_xx1 = ops.pick("p6_xx1", b1, p6_x11, g);
    Elt p6 = ops.pick("p6", b2, p6_xx1, g);
    const Elt p7_xx1 = ops.pick("p7_xx1", both, a, h);
    Elt p7 = ops.pick("p7", b2, p7_xx1, h);
    return {p0, p1, p2, p3, p4, p5, p6, p7};
  }
  // The general algorithm: per slot, a select tree over what the slot holds for each index
  // (sibling pos for pos < index, the node at pos = index, sibling pos − 1 after).
  std::vector<Elt> out;
  for (std::size_t pos = 0; pos < size; ++pos) {
    std::vector<Elt> state;
    for (std::size_t index = 0; index < size; ++index)
      state.push_back(pos < index ? sib[pos] : pos == index ? a : sib[pos - 1]);
    std::size_t half = size / 2;
    for (std::size_t i = bits.size(); i-- > 0;) {  // most significant bit first
      std::vector<Elt> next;
      for (std::size_t j = 0; j < half; ++j) {
        const std::string name = "choice at " + std::to_string(pos) + ", pick " + std::to_string(bits.size() - 1 - i) +
                                 ", " + std::to_string(j);
        next.push_back(ops.pick(name, bits[i], state[half + j], state[j]));
      }
      state = std::move(next);
      half /= 2;
    }
    out.push_back(state[0]);
  }
  return out;
}

struct CircuitOps {
  using Elt = Num;
  using Bit = Boolean;
  ConstraintSystem& cs;

  // c = cond ? a : b, with (b − a)·cond = b − c.
  Num pick(std::string_view name, const Boolean& cond, const Num& a, const Num& b) {
    std::optional<Fr> v;
    if (const auto c = cond.value()) v = *c ? a.value() : b.value();
    const AllocatedNum c = AllocatedNum::alloc(cs, name, v);
    cs.enforce(std::string(name) + " pick", b.lc() - a.lc(), cond.lc(), b.lc() - c.lc());
    return Num::of(c);
  }
  Boolean nor(std::string_view name, const Boolean& x, const Boolean& y) {
    return Boolean::and_(cs, name, x.not_(), y.not_());
  }
  Boolean and_(std::string_view name, const Boolean& x, const Boolean& y) { return Boolean::and_(cs, name, x, y); }
};

struct TraceOps {
  using Elt = Fr;
  using Bit = bool;
  AuxWriter& out;

  Fr pick(std::string_view, bool cond, const Fr& a, const Fr& b) {
    const Fr c = cond ? a : b;
    out.push(c);
    return c;
  }
  bool nor(std::string_view, bool x, bool y) {
    out.push_bit(!x && !y);
    return !x && !y;
  }
  bool and_(std::string_view, bool x, bool y) {
    out.push_bit(x && y);
    return x && y;
  }
};

// PoRCircuit's tail after the computed root: the packed path bits as inputs, the root
// allocated and equal to the computed one, exposed unless private.
AllocatedNum por_tail(ConstraintSystem& cs, const Num& computed, std::span<const Boolean> bits,
                      const std::optional<Fr>& root, bool private_root) {
  constexpr std::size_t CAPACITY = Fr::BITS - 1;
  {
    Namespace ns(cs, "path");
    for (std::size_t start = 0, k = 0; start < bits.size(); start += CAPACITY, ++k) {
      const std::size_t n = std::min(CAPACITY, bits.size() - start);
      Num::from_bits_le(bits.subspan(start, n)).inputize(cs, "packing " + std::to_string(k));
    }
  }
  const AllocatedNum rt = AllocatedNum::alloc(cs, "root_value", root ? root : computed.value());
  cs.enforce("enforce root is correct", computed.lc(), Variable::one(), rt.lc());
  if (!private_root) rt.inputize(cs, "root");
  return rt;
}

}  // namespace

unsigned poseidon_tree_bits(std::size_t arity) {
  for (unsigned k = 1; k <= 4; ++k) {
    if (arity == (std::size_t(1) << k)) return k;
  }
  throw std::invalid_argument("Poseidon tree: arity " + std::to_string(arity) + " is not 2, 4, 8 or 16");
}

Fr poseidon_root_from_path(const Fr& leaf, const PoseidonPath& path) {
  const std::vector<unsigned> k = level_bits_of(path);
  Fr node = leaf;
  unsigned shift = 0;
  for (std::size_t l = 0; l < path.siblings.size(); ++l) {
    const PoseidonParams& p = poseidon_params(path.siblings[l].size() + 1);
    node = native::poseidon_hash(p, children_of(node, path.siblings[l], slot_at(path.index, shift, k[l])));
    shift += k[l];
  }
  return node;
}

Fr poseidon_root_from_path(std::size_t arity, const Fr& leaf, const PoseidonPath& path) {
  check_uniform(arity, counts_of(path), "poseidon_root_from_path");
  return poseidon_root_from_path(leaf, path);
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
  if (index >= num_leaves())
    throw std::out_of_range("PoseidonTree::path: leaf index " + std::to_string(index) + " out of range");
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

std::vector<Num> poseidon_insert(ConstraintSystem& cs, std::string_view name, const Num& node,
                                 std::span<const AllocatedNum> siblings, std::span<const Boolean> bits) {
  const unsigned k = poseidon_tree_bits(siblings.size() + 1);
  if (bits.size() != k)
    throw std::invalid_argument("poseidon_insert: " + std::to_string(bits.size()) + " bits for arity " +
                                std::to_string(siblings.size() + 1));
  if (k == 3 && (bits[0].is_constant() || bits[1].is_constant())) {
    throw std::invalid_argument("poseidon_insert: arity 8 needs allocated index bits");
  }
  Namespace ns(cs, name);
  std::vector<Num> sib;
  for (const AllocatedNum& s : siblings) sib.push_back(Num::of(s));
  CircuitOps ops{cs};
  return insert_children<CircuitOps>(ops, node, sib, bits);
}

Num poseidon_merkle_root_gadget(ConstraintSystem& cs, std::string_view name, const Num& leaf,
                                std::span<const std::vector<AllocatedNum>> siblings,
                                std::span<const Boolean> index_bits) {
  std::vector<std::size_t> counts;
  for (const auto& s : siblings) counts.push_back(s.size());
  const std::vector<unsigned> k = level_bits(counts);
  std::size_t total = 0;
  for (unsigned b : k) total += b;
  if (index_bits.size() != total) {
    throw std::invalid_argument("poseidon_merkle_root_gadget: " + std::to_string(index_bits.size()) +
                                " index bits for " + std::to_string(siblings.size()) + " levels needing " +
                                std::to_string(total));
  }
  Namespace ns(cs, name);
  Num node = leaf;
  std::size_t shift = 0;
  for (std::size_t l = 0; l < siblings.size(); ++l) {
    Namespace lns(cs, "level " + std::to_string(l));
    const std::vector<Num> children = poseidon_insert(cs, "insert", node, siblings[l], index_bits.subspan(shift, k[l]));
    node = poseidon_hash_gadget(cs, "hash", poseidon_params(siblings[l].size() + 1), children);
    shift += k[l];
  }
  return node;
}

Num poseidon_merkle_root_gadget(ConstraintSystem& cs, std::string_view name, std::size_t arity, const Num& leaf,
                                std::span<const std::vector<AllocatedNum>> siblings,
                                std::span<const Boolean> index_bits) {
  std::vector<std::size_t> counts;
  for (const auto& s : siblings) counts.push_back(s.size());
  check_uniform(arity, counts, "poseidon_merkle_root_gadget");
  return poseidon_merkle_root_gadget(cs, name, leaf, siblings, index_bits);
}

AllocatedNum poseidon_merkle_inclusion(ConstraintSystem& cs, std::string_view name, const Num& leaf,
                                       std::span<const std::vector<AllocatedNum>> siblings,
                                       std::span<const Boolean> index_bits, const std::optional<Fr>& root,
                                       bool private_root) {
  if (index_bits.size() > (Fr::BITS - 1) * 8)
    throw std::invalid_argument("poseidon_merkle_inclusion: too many index bits");
  Namespace ns(cs, name);
  const Num computed = poseidon_merkle_root_gadget(cs, "computed root", leaf, siblings, index_bits);
  return por_tail(cs, computed, index_bits, root, private_root);
}

AllocatedNum poseidon_por_circuit(ConstraintSystem& cs, std::string_view name, std::span<const std::size_t> arities,
                                  const std::optional<Fr>& leaf, const std::optional<PoseidonPath>& path,
                                  const std::optional<Fr>& root, bool private_root) {
  std::vector<std::size_t> counts;
  for (std::size_t a : arities) counts.push_back(a - 1);
  const std::vector<unsigned> k = level_bits(counts);
  if (path) {
    if (path->siblings.size() != arities.size())
      throw std::invalid_argument("poseidon_por_circuit: path of the wrong depth");
    for (std::size_t l = 0; l < arities.size(); ++l) {
      if (path->siblings[l].size() + 1 != arities[l])
        throw std::invalid_argument("poseidon_por_circuit: path level of the wrong arity");
    }
  }
  Namespace ns(cs, name);
  const AllocatedNum value = AllocatedNum::alloc(cs, "value", leaf);
  Num cur = Num::of(value);
  std::vector<Boolean> bits;
  unsigned shift = 0;
  for (std::size_t l = 0; l < arities.size(); ++l) {
    Namespace lns(cs, "merkle tree hash " + std::to_string(l));
    std::vector<Boolean> level;
    for (unsigned i = 0; i < k[l]; ++i) {
      std::optional<bool> b;
      if (path) b = ((path->index >> (shift + i)) & 1) != 0;
      level.emplace_back(AllocatedBit::alloc(cs, "index bit " + std::to_string(i), b));
    }
    std::vector<AllocatedNum> sib;
    for (std::size_t i = 0; i + 1 < arities[l]; ++i) {
      std::optional<Fr> v;
      if (path) v = path->siblings[l][i];
      sib.push_back(AllocatedNum::alloc(cs, "path element " + std::to_string(i), v));
    }
    const std::vector<Num> children = poseidon_insert(cs, "insert", cur, sib, level);
    cur = poseidon_hash_gadget(cs, "computation of commitment hash", poseidon_params(arities[l]), children);
    bits.insert(bits.end(), level.begin(), level.end());
    shift += k[l];
  }
  return por_tail(cs, cur, bits, root, private_root);
}

std::vector<Fr> poseidon_por_public_inputs(std::span<const std::size_t> arities, std::uint64_t index, const Fr& root,
                                           bool private_root) {
  std::size_t total = 0;
  for (std::size_t a : arities) total += poseidon_tree_bits(a);
  if (total > 64) throw std::invalid_argument("poseidon_por_public_inputs: more than 64 index bits");
  const std::uint64_t mask = total == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << total) - 1;
  std::vector<Fr> out = {Fr::from_u64(index & mask)};
  if (!private_root) out.push_back(root);
  return out;
}

namespace native {

Fr poseidon_merkle_root_trace(const Fr& leaf, const PoseidonPath& path, AuxWriter& out) {
  const std::vector<unsigned> k = level_bits_of(path);
  Fr node = leaf;
  unsigned shift = 0;
  TraceOps ops{out};
  for (std::size_t l = 0; l < path.siblings.size(); ++l) {
    const std::size_t pos = slot_at(path.index, shift, k[l]);
    std::array<bool, 4> bits{};
    for (unsigned j = 0; j < k[l]; ++j) bits[j] = ((pos >> j) & 1) != 0;
    const std::vector<Fr> children =
        insert_children<TraceOps>(ops, node, path.siblings[l], std::span<const bool>(bits.data(), k[l]));
    node = poseidon_hash_trace(poseidon_params(children.size()), children, out);
    shift += k[l];
  }
  return node;
}

Fr poseidon_merkle_root_trace(std::size_t arity, const Fr& leaf, const PoseidonPath& path, AuxWriter& out) {
  check_uniform(arity, counts_of(path), "poseidon_merkle_root_trace");
  return poseidon_merkle_root_trace(leaf, path, out);
}

}  // namespace native

}  // namespace snarkpipe::gadgets
