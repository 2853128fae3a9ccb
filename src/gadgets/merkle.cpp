#include "gadgets/merkle.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

namespace snarkpipe::gadgets {

Sha256Digest merkle_node(const Sha256Digest& left, const Sha256Digest& right) {
  std::uint8_t buf[64];
  std::memcpy(buf, left.data(), 32);
  std::memcpy(buf + 32, right.data(), 32);
  return native::sha256(buf);
}

Sha256Digest merkle_root_from_path(const Sha256Digest& leaf, const MerklePath& path) {
  Sha256Digest node = leaf;
  for (std::size_t j = 0; j < path.siblings.size(); ++j) {
    const bool is_right = j < 64 && ((path.index >> j) & 1) != 0;
    node = is_right ? merkle_node(path.siblings[j], node) : merkle_node(node, path.siblings[j]);
  }
  return node;
}

MerkleTree::MerkleTree(std::vector<Sha256Digest> leaves) {
  const std::size_t n = leaves.size();
  if (n < 2 || n > (std::size_t(1) << 30) || (n & (n - 1)) != 0) {
    throw std::invalid_argument("MerkleTree: " + std::to_string(n) + " leaves; need 2^depth with depth in 1..30");
  }
  levels_.push_back(std::move(leaves));
  while (levels_.back().size() > 1) {
    const std::vector<Sha256Digest>& below = levels_.back();
    std::vector<Sha256Digest> above(below.size() / 2);
    for (std::size_t i = 0; i < above.size(); ++i) above[i] = merkle_node(below[2 * i], below[2 * i + 1]);
    levels_.push_back(std::move(above));
  }
}

MerklePath MerkleTree::path(std::uint64_t index) const {
  if (index >= num_leaves())
    throw std::out_of_range("MerkleTree::path: leaf index " + std::to_string(index) + " out of range");
  MerklePath p;
  p.index = index;
  for (std::size_t j = 0; j < depth(); ++j) p.siblings.push_back(levels_[j][(index >> j) ^ 1]);
  return p;
}

std::vector<Boolean> merkle_node_gadget(ConstraintSystem& cs, std::string_view name, std::span<const Boolean> left,
                                        std::span<const Boolean> right) {
  if (left.size() != 256 || right.size() != 256)
    throw std::invalid_argument("merkle_node_gadget: children must be 256 bits");
  std::vector<Boolean> message(left.begin(), left.end());
  message.insert(message.end(), right.begin(), right.end());
  return sha256(cs, name, message);
}

std::vector<Boolean> merkle_root_gadget(ConstraintSystem& cs, std::string_view name, std::span<const Boolean> leaf,
                                        std::span<const std::vector<Boolean>> siblings,
                                        std::span<const Boolean> index_bits) {
  if (leaf.size() != 256) throw std::invalid_argument("merkle_root_gadget: leaf must be 256 bits");
  if (siblings.size() != index_bits.size()) {
    throw std::invalid_argument("merkle_root_gadget: " + std::to_string(siblings.size()) + " siblings but " +
                                std::to_string(index_bits.size()) + " index bits");
  }
  Namespace ns(cs, name);
  std::vector<Boolean> node(leaf.begin(), leaf.end());
  for (std::size_t j = 0; j < siblings.size(); ++j) {
    if (siblings[j].size() != 256) throw std::invalid_argument("merkle_root_gadget: sibling must be 256 bits");
    Namespace lns(cs, "level " + std::to_string(j));
    // Index bit 1: the node is the right child, so the pair is (sibling, node).
    auto [left, right] = conditional_swap(cs, "order", index_bits[j], node, siblings[j]);
    node = merkle_node_gadget(cs, "hash", left, right);
  }
  return node;
}

std::vector<Boolean> merkle_inclusion(ConstraintSystem& cs, std::string_view name, std::span<const Boolean> leaf,
                                      std::span<const std::vector<Boolean>> siblings,
                                      std::span<const Boolean> index_bits) {
  if (index_bits.size() > Fr::BITS - 1) throw std::invalid_argument("merkle_inclusion: depth above 254");
  Namespace ns(cs, name);
  std::vector<Boolean> root = merkle_root_gadget(cs, "root", leaf, siblings, index_bits);
  sha256_digest_into_inputs(cs, "root input", root);
  Num::from_bits_le(index_bits).inputize(cs, "index input");
  return root;
}

std::vector<Fr> merkle_public_inputs(const Sha256Digest& root, std::uint64_t index) {
  const std::array<Fr, 2> r = sha256_digest_public_inputs(root);
  return {r[0], r[1], Fr::from_u64(index)};
}

}  // namespace snarkpipe::gadgets
