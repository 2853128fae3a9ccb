#include "gadgets/porep_like.hpp"

#include <tbb/parallel_for.h>

#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>

#include "ff/random.hpp"
#include "gadgets/sha256_trace.hpp"

namespace snarkpipe::gadgets {

namespace {

constexpr std::size_t TREE_ARITY = 8;
// The data leaf's bits that are constant 0 (bits 7 and 6 of byte 31, in SHA-256 bit order).
constexpr std::size_t FR32_TOP_BIT_0 = 248, FR32_TOP_BIT_1 = 249;

bool is_fr32_top_bit(std::size_t i) { return i == FR32_TOP_BIT_0 || i == FR32_TOP_BIT_1; }

void fill_random(ff::SeededRng& rng, std::span<std::uint8_t> out) {
  for (std::size_t i = 0; i < out.size(); i += 8) {
    const std::uint64_t word = rng.next_u64();
    for (std::size_t k = 0; k < 8 && i + k < out.size(); ++k) out[i + k] = std::uint8_t(word >> (8 * k));
  }
}

Sha256Digest random_digest(ff::SeededRng& rng) {
  Sha256Digest d;
  fill_random(rng, d);
  return d;
}

std::optional<std::vector<std::uint8_t>> bytes_of(const Sha256Digest& d) {
  return std::vector<std::uint8_t>(d.begin(), d.end());
}

// The labelling message of a layer: replica id, the previous label (from layer 1 on), the
// allocated parents.
std::vector<std::uint8_t> label_message(const Sha256Digest& replica_id, const Sha256Digest* previous,
                                        std::span<const Sha256Digest> parents) {
  std::vector<std::uint8_t> m(replica_id.begin(), replica_id.end());
  if (previous) m.insert(m.end(), previous->begin(), previous->end());
  for (const Sha256Digest& p : parents) m.insert(m.end(), p.begin(), p.end());
  return m;
}

// A Merkle tree known only along some paths: per level, the nodes by index, where every
// child of a parent on a path is present (random when not itself on a path).
template <class T, class Hash, class Random>
std::vector<std::map<std::uint64_t, T>> sparse_tree(std::size_t arity, std::size_t depth,
                                                    std::map<std::uint64_t, T> leaves, const Hash& hash,
                                                    const Random& random) {
  std::vector<std::map<std::uint64_t, T>> levels;
  levels.push_back(std::move(leaves));
  for (std::size_t l = 0; l < depth; ++l) {
    std::map<std::uint64_t, T>& below = levels.back();
    std::set<std::uint64_t> parents;
    for (const auto& [i, v] : below) parents.insert(i / arity);
    std::map<std::uint64_t, T> above;
    std::vector<T> children(arity);
    for (std::uint64_t p : parents) {
      for (std::size_t c = 0; c < arity; ++c) {
        const std::uint64_t i = p * arity + c;
        auto it = below.find(i);
        if (it == below.end()) it = below.emplace(i, random()).first;
        children[c] = it->second;
      }
      above.emplace(p, hash(children));
    }
    levels.push_back(std::move(above));
  }
  return levels;
}

PoseidonPath poseidon_path_of(const std::vector<std::map<std::uint64_t, Fr>>& levels, std::uint64_t index) {
  PoseidonPath path;
  path.index = index;
  std::uint64_t at = index;
  for (std::size_t l = 0; l + 1 < levels.size(); ++l) {
    const std::uint64_t first = at / TREE_ARITY * TREE_ARITY;
    std::vector<Fr> s;
    for (std::uint64_t c = first; c < first + TREE_ARITY; ++c) {
      if (c != at) s.push_back(levels[l].at(c));
    }
    path.siblings.push_back(std::move(s));
    at /= TREE_ARITY;
  }
  return path;
}

// fr32 of a 256-bit string in SHA-256 bit order (byte j's bits most significant first):
// Σ bit(8j + 7 − b) · 2^(8j + b), the top two bits left out.
Num fr32_num(std::span<const Boolean> bits) {
  Num n;
  for (std::size_t j = 0; j < 32; ++j) {
    for (unsigned b = 0; b < 8; ++b) {
      const std::size_t i = 8 * j + 7 - b;
      if (!is_fr32_top_bit(i)) n.add_bool_with_coeff(bits[i], pow2(unsigned(8 * j + b)));
    }
  }
  return n;
}

void enforce_equal(ConstraintSystem& cs, std::string_view name, const LinearCombination& a,
                   const LinearCombination& b) {
  cs.enforce(name, a - b, Variable::one(), LinearCombination::zero());
}

// The witness has the shape the parameters give (else std::invalid_argument).
void check_witness(const PorepLikeParams& P, const PorepLikeWitness& w) {
  if (w.challenges.size() != P.challenges)
    throw std::invalid_argument("porep-like: witness has the wrong challenge count");
  for (const PorepLikeChallenge& ch : w.challenges) {
    bool ok = ch.data_path.siblings.size() == P.log2_nodes && ch.data_path.index == ch.index &&
              ch.parent_labels.size() == P.layers;
    for (const PoseidonPath* path : {&ch.column_path, &ch.replica_path}) {
      ok = ok && path->siblings.size() == P.tree_depth() && path->index == ch.index;
      for (const auto& level : path->siblings) ok = ok && level.size() == TREE_ARITY - 1;
    }
    for (std::size_t l = 0; ok && l < P.layers; ++l)
      ok = ch.parent_labels[l].size() == (l == 0 ? P.parents : P.parents - 1);
    if (!ok) throw std::invalid_argument("porep-like: a challenge's witness does not match the parameters");
  }
}

}  // namespace

PorepLikeParams PorepLikeParams::preset(std::string_view name) {
  if (name == "full") return PorepLikeParams{};
  if (name == "ci") return PorepLikeParams{2, 4, 12, 14};
  if (name == "tiny") return PorepLikeParams{2, 2, 3, 2};
  throw std::invalid_argument("porep-like: unknown scale '" + std::string(name) + "' (try tiny, ci, full)");
}

void PorepLikeParams::validate() const {
  if (log2_nodes == 0 || log2_nodes % 3 != 0 || log2_nodes > 63) {
    throw std::invalid_argument("porep-like: log2 of the node count must be a positive multiple of 3 up to 63, not " +
                                std::to_string(log2_nodes));
  }
  if (challenges == 0 || (log2_nodes < 63 && challenges > (std::size_t(1) << log2_nodes))) {
    throw std::invalid_argument("porep-like: " + std::to_string(challenges) + " challenges for 2^" +
                                std::to_string(log2_nodes) + " nodes");
  }
  if (layers == 0 || layers > POSEIDON_MAX_ARITY) {
    throw std::invalid_argument("porep-like: layers must be in 1.." + std::to_string(POSEIDON_MAX_ARITY));
  }
  if (parents == 0) throw std::invalid_argument("porep-like: at least one parent");
}

std::string PorepLikeParams::describe() const {
  return std::to_string(challenges) + " challenges, " + std::to_string(layers) + " layers, 2^" +
         std::to_string(log2_nodes) + " nodes, " + std::to_string(parents) + " parents";
}

Fr fr32_of(const Sha256Digest& bytes) {
  ff::Limbs<4> r{};
  for (std::size_t i = 0; i < 32; ++i) r[i / 8] |= std::uint64_t(bytes[i]) << (8 * (i % 8));
  r[3] &= ~(std::uint64_t(3) << 62);
  return Fr::from_canonical_unchecked(r);
}

PorepLikeWitness PorepLikeWitness::random(const PorepLikeParams& params, std::uint64_t seed) {
  params.validate();
  ff::SeededRng rng(seed);
  PorepLikeWitness w;
  w.replica_id = random_digest(rng);
  std::set<std::uint64_t> indices;
  const std::uint64_t mask = (std::uint64_t(1) << params.log2_nodes) - 1;
  while (indices.size() < params.challenges) indices.insert(rng.next_u64() & mask);
  std::vector<std::uint64_t> order(indices.begin(), indices.end());
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.next_u64() % i]);

  std::map<std::uint64_t, Sha256Digest> data_leaves;
  std::map<std::uint64_t, Fr> column_leaves, replica_leaves;
  for (std::uint64_t index : order) {
    PorepLikeChallenge ch;
    ch.index = index;
    ch.data_leaf = random_digest(rng);
    ch.data_leaf[31] &= 0x3f;
    std::vector<Fr> labels;
    Sha256Digest previous{};
    for (std::size_t l = 0; l < params.layers; ++l) {
      std::vector<Sha256Digest> parents(l == 0 ? params.parents : params.parents - 1);
      for (Sha256Digest& p : parents) p = random_digest(rng);
      previous = native::sha256(label_message(w.replica_id, l == 0 ? nullptr : &previous, parents));
      labels.push_back(fr32_of(previous));
      ch.parent_labels.push_back(std::move(parents));
    }
    data_leaves.emplace(index, ch.data_leaf);
    column_leaves.emplace(index, native::poseidon_hash(poseidon_params(params.layers), labels));
    replica_leaves.emplace(index, fr32_of(ch.data_leaf) + labels.back());
    w.challenges.push_back(std::move(ch));
  }

  const auto data = sparse_tree(
      2, params.log2_nodes, std::move(data_leaves),
      [](const std::vector<Sha256Digest>& c) { return merkle_node(c[0], c[1]); },
      [&rng] { return random_digest(rng); });
  const PoseidonParams& p8 = poseidon_params(TREE_ARITY);
  const auto poseidon_node = [&p8](const std::vector<Fr>& c) { return native::poseidon_hash(p8, c); };
  const auto random_fr = [&rng] { return Fr::random(rng); };
  const auto column = sparse_tree(TREE_ARITY, params.tree_depth(), std::move(column_leaves), poseidon_node, random_fr);
  const auto replica =
      sparse_tree(TREE_ARITY, params.tree_depth(), std::move(replica_leaves), poseidon_node, random_fr);
  w.comm_c = column.back().at(0);
  w.comm_r_last = replica.back().at(0);
  for (PorepLikeChallenge& ch : w.challenges) {
    ch.data_path.index = ch.index;
    for (std::size_t j = 0; j < params.log2_nodes; ++j)
      ch.data_path.siblings.push_back(data[j].at((ch.index >> j) ^ 1));
    ch.column_path = poseidon_path_of(column, ch.index);
    ch.replica_path = poseidon_path_of(replica, ch.index);
  }
  return w;
}

std::vector<Fr> porep_like_public_inputs(const PorepLikeParams& params, const PorepLikeWitness& witness) {
  check_witness(params, witness);
  const PorepLikeChallenge& first = witness.challenges.front();
  const std::array<Fr, 2> comm_d = sha256_digest_public_inputs(merkle_root_from_path(first.data_leaf, first.data_path));
  const std::array<Fr, 2> pair = {witness.comm_c, witness.comm_r_last};
  std::vector<Fr> out = {comm_d[0], comm_d[1], native::poseidon_hash(poseidon_params(2), pair)};
  for (const PorepLikeChallenge& ch : witness.challenges) out.push_back(Fr::from_u64(ch.index));
  return out;
}

PorepLikeCircuit::PorepLikeCircuit(PorepLikeParams params, std::optional<PorepLikeWitness> witness)
    : params_(params), witness_(std::move(witness)) {
  params_.validate();
  if (witness_) check_witness(params_, *witness_);
}

void PorepLikeCircuit::synthesize(ConstraintSystem& cs) const {
  const PorepLikeParams& P = params_;
  const PorepLikeWitness* w = witness_ ? &*witness_ : nullptr;
  std::optional<std::vector<Fr>> pub;
  if (w) pub = porep_like_public_inputs(P, *w);
  const auto pub_at = [&pub](std::size_t i) -> std::optional<Fr> {
    if (pub) return (*pub)[i];
    return std::nullopt;
  };

  const AllocatedNum comm_d_hi = AllocatedNum::alloc_input(cs, "comm_d high", pub_at(0));
  const AllocatedNum comm_d_lo = AllocatedNum::alloc_input(cs, "comm_d low", pub_at(1));
  const AllocatedNum comm_r = AllocatedNum::alloc_input(cs, "comm_r", pub_at(2));
  std::vector<AllocatedNum> index_inputs;
  for (std::size_t c = 0; c < P.challenges; ++c) {
    index_inputs.push_back(AllocatedNum::alloc_input(cs, "challenge " + std::to_string(c) + " index", pub_at(3 + c)));
  }

  const std::vector<Boolean> replica_id =
      alloc_bits_be(cs, "replica id", 32, w ? bytes_of(w->replica_id) : std::nullopt);
  const AllocatedNum comm_c = AllocatedNum::alloc(cs, "comm_c", w ? std::optional<Fr>(w->comm_c) : std::nullopt);
  const AllocatedNum comm_r_last =
      AllocatedNum::alloc(cs, "comm_r_last", w ? std::optional<Fr>(w->comm_r_last) : std::nullopt);
  {
    const std::vector<Num> pair = {Num::of(comm_c), Num::of(comm_r_last)};
    const Num h = poseidon_hash_gadget(cs, "comm_r", poseidon_params(2), pair);
    enforce_equal(cs, "comm_r equals input", h.lc(), comm_r.lc());
  }

  const std::size_t depth = P.tree_depth();
  for (std::size_t c = 0; c < P.challenges; ++c) {
    Namespace ns(cs, "challenge " + std::to_string(c));
    const PorepLikeChallenge* ch = w ? &w->challenges[c] : nullptr;

    std::vector<Boolean> index_bits;
    {
      Namespace ins(cs, "index");
      LinearCombination packed;
      for (std::size_t j = 0; j < P.log2_nodes; ++j) {
        std::optional<bool> b;
        if (ch) b = ((ch->index >> j) & 1) != 0;
        const AllocatedBit bit = AllocatedBit::alloc(cs, "bit " + std::to_string(j), b);
        packed.add(pow2(unsigned(j)), bit.variable());
        index_bits.emplace_back(bit);
      }
      cs.enforce("index equals input", packed, Variable::one(), index_inputs[c].variable());
    }

    std::vector<Boolean> data_leaf(256);
    {
      Namespace lns(cs, "data leaf");
      for (std::size_t i = 0; i < 256; ++i) {
        if (is_fr32_top_bit(i)) continue;  // constant false
        std::optional<bool> b;
        if (ch) b = ((ch->data_leaf[i / 8] >> (7 - i % 8)) & 1) != 0;
        data_leaf[i] = AllocatedBit::alloc(cs, "bit " + std::to_string(i), b);
      }
    }
    std::vector<std::vector<Boolean>> data_siblings;
    for (std::size_t j = 0; j < P.log2_nodes; ++j) {
      data_siblings.push_back(alloc_bits_be(cs, "data sibling " + std::to_string(j), 32,
                                            ch ? bytes_of(ch->data_path.siblings[j]) : std::nullopt));
    }
    const std::vector<Boolean> data_root = merkle_root_gadget(cs, "data path", data_leaf, data_siblings, index_bits);
    enforce_equal(cs, "comm_d high", Num::from_bits_be(std::span(data_root).first(128)).lc(), comm_d_hi.lc());
    enforce_equal(cs, "comm_d low", Num::from_bits_be(std::span(data_root).subspan(128)).lc(), comm_d_lo.lc());

    std::vector<Num> labels;
    std::vector<Boolean> label;
    for (std::size_t l = 0; l < P.layers; ++l) {
      Namespace lns(cs, "layer " + std::to_string(l));
      std::vector<Boolean> message = replica_id;
      message.insert(message.end(), label.begin(), label.end());
      const std::size_t n = l == 0 ? P.parents : P.parents - 1;
      for (std::size_t k = 0; k < n; ++k) {
        const auto bits =
            alloc_bits_be(cs, "parent " + std::to_string(k), 32, ch ? bytes_of(ch->parent_labels[l][k]) : std::nullopt);
        message.insert(message.end(), bits.begin(), bits.end());
      }
      label = sha256(cs, "label", message);
      labels.push_back(fr32_num(label));
    }
    const Num column = poseidon_hash_gadget(cs, "column hash", poseidon_params(P.layers), labels);

    const auto alloc_siblings = [&](std::string_view what, const PoseidonPath* path) {
      std::vector<std::vector<AllocatedNum>> s(depth);
      for (std::size_t l = 0; l < depth; ++l) {
        for (std::size_t k = 0; k + 1 < TREE_ARITY; ++k) {
          std::optional<Fr> v;
          if (path) v = path->siblings[l][k];
          s[l].push_back(AllocatedNum::alloc(
              cs, std::string(what) + " sibling " + std::to_string(l) + "." + std::to_string(k), v));
        }
      }
      return s;
    };
    const auto column_siblings = alloc_siblings("column", ch ? &ch->column_path : nullptr);
    const Num column_root =
        poseidon_merkle_root_gadget(cs, "column path", TREE_ARITY, column, column_siblings, index_bits);
    enforce_equal(cs, "comm_c", column_root.lc(), comm_c.lc());

    // The encoding: replica = data + key.
    const Num data = fr32_num(data_leaf);
    const Num& key = labels.back();
    std::optional<Fr> replica_value;
    if (data.value() && key.value()) replica_value = *data.value() + *key.value();
    const AllocatedNum replica = AllocatedNum::alloc(cs, "replica leaf", replica_value);
    cs.enforce("encoding", data.lc() + key.lc(), Variable::one(), replica.lc());

    const auto replica_siblings = alloc_siblings("replica", ch ? &ch->replica_path : nullptr);
    const Num replica_root =
        poseidon_merkle_root_gadget(cs, "replica path", TREE_ARITY, Num::of(replica), replica_siblings, index_bits);
    enforce_equal(cs, "comm_r_last", replica_root.lc(), comm_r_last.lc());
  }
}

namespace {

// The aux values before the first challenge; returns the replica id's bits.
std::vector<trace::Bit> head_trace(const PorepLikeWitness& w, AuxWriter& out) {
  std::vector<trace::Bit> replica_id = trace::alloc_bits_be(w.replica_id, out);
  out.push(w.comm_c);
  out.push(w.comm_r_last);
  const std::array<Fr, 2> pair = {w.comm_c, w.comm_r_last};
  native::poseidon_hash_trace(poseidon_params(2), pair, out);
  return replica_id;
}

// One challenge's aux values, in synthesize()'s order.
void challenge_trace(const PorepLikeParams& P, std::span<const trace::Bit> replica_id, const PorepLikeChallenge& ch,
                     AuxWriter& out) {
  std::vector<trace::Bit> index_bits;
  for (std::size_t j = 0; j < P.log2_nodes; ++j)
    index_bits.push_back(trace::alloc_bit(((ch.index >> j) & 1) != 0, out));

  std::vector<trace::Bit> leaf(256);
  for (std::size_t i = 0; i < 256; ++i) {
    if (is_fr32_top_bit(i)) continue;
    leaf[i] = trace::alloc_bit(((ch.data_leaf[i / 8] >> (7 - i % 8)) & 1) != 0, out);
  }
  std::vector<std::vector<trace::Bit>> siblings;
  for (const Sha256Digest& s : ch.data_path.siblings) siblings.push_back(trace::alloc_bits_be(s, out));
  trace::merkle_root(leaf, siblings, index_bits, out);

  std::vector<Fr> labels;
  std::vector<trace::Bit> label;
  std::vector<trace::Bit> message;
  for (std::size_t l = 0; l < P.layers; ++l) {
    message.assign(replica_id.begin(), replica_id.end());
    message.insert(message.end(), label.begin(), label.end());
    for (const Sha256Digest& p : ch.parent_labels[l]) {
      const auto bits = trace::alloc_bits_be(p, out);
      message.insert(message.end(), bits.begin(), bits.end());
    }
    label = trace::sha256(message, out);
    Sha256Digest bytes;
    const auto b = trace::bytes_of(label);
    std::copy(b.begin(), b.end(), bytes.begin());
    labels.push_back(fr32_of(bytes));
  }
  const Fr column = native::poseidon_hash_trace(poseidon_params(P.layers), labels, out);

  for (const auto& level : ch.column_path.siblings) {
    for (const Fr& s : level) out.push(s);
  }
  native::poseidon_merkle_root_trace(TREE_ARITY, column, ch.column_path, out);

  const Fr replica = fr32_of(ch.data_leaf) + labels.back();
  out.push(replica);
  for (const auto& level : ch.replica_path.siblings) {
    for (const Fr& s : level) out.push(s);
  }
  native::poseidon_merkle_root_trace(TREE_ARITY, replica, ch.replica_path, out);
}

// A witness of the right shape with every value zero: the replay's decisions do not depend
// on values, so it counts the layout.
PorepLikeWitness blank_witness(const PorepLikeParams& P) {
  PorepLikeWitness w;
  PorepLikeChallenge ch;
  ch.data_path.siblings.resize(P.log2_nodes);
  for (std::size_t l = 0; l < P.layers; ++l) ch.parent_labels.emplace_back(l == 0 ? P.parents : P.parents - 1);
  ch.column_path.siblings.assign(P.tree_depth(), std::vector<Fr>(TREE_ARITY - 1));
  ch.replica_path = ch.column_path;
  w.challenges.assign(1, ch);
  return w;
}

}  // namespace

PorepLikeLayout porep_like_layout(const PorepLikeParams& params) {
  params.validate();
  static std::mutex mu;
  static std::map<std::array<std::size_t, 3>, std::pair<std::size_t, std::size_t>> cache;
  const std::array<std::size_t, 3> key = {params.layers, params.log2_nodes, params.parents};
  std::pair<std::size_t, std::size_t> counts;
  {
    std::lock_guard lock(mu);
    if (auto it = cache.find(key); it != cache.end()) counts = it->second;
  }
  if (counts.first == 0) {
    const PorepLikeWitness blank = blank_witness(params);
    AuxWriter head;
    const auto replica_id = head_trace(blank, head);
    AuxWriter one;
    challenge_trace(params, replica_id, blank.challenges[0], one);
    counts = {head.size(), one.size()};
    std::lock_guard lock(mu);
    cache.emplace(key, counts);
  }
  return {4 + params.challenges, params.challenges, counts.first, counts.second};  // ONE, comm_d (2), comm_r, indices
}

void porep_like_fast_witness(const PorepLikeParams& params, const PorepLikeWitness& witness, std::span<Fr> inputs,
                             std::span<Fr> aux) {
  const PorepLikeLayout layout = porep_like_layout(params);
  if (inputs.size() != layout.num_inputs || aux.size() != layout.num_aux()) {
    throw std::invalid_argument("porep_like_fast_witness: buffers of " + std::to_string(inputs.size()) +
                                " inputs and " + std::to_string(aux.size()) + " aux values, the circuit has " +
                                std::to_string(layout.num_inputs) + " and " + std::to_string(layout.num_aux()));
  }
  check_witness(params, witness);
  const std::vector<Fr> pub = porep_like_public_inputs(params, witness);
  inputs[0] = Fr::one();
  std::copy(pub.begin(), pub.end(), inputs.begin() + 1);

  AuxWriter head(aux.data());
  const std::vector<trace::Bit> replica_id = head_trace(witness, head);
  tbb::parallel_for(std::size_t(0), params.challenges, [&](std::size_t c) {
    AuxWriter out(aux.data() + layout.head_aux + c * layout.challenge_aux);
    challenge_trace(params, replica_id, witness.challenges[c], out);
  });
}

}  // namespace snarkpipe::gadgets
