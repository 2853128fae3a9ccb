// The native replay of the SHA-256 gadgets (sha256_trace.hpp) must write exactly the aux
// values the gadgets allocate, for messages of random length whose bytes are randomly
// variables or constants (every folding path of XOR, Ch, Maj and the additions is taken),
// and the digest OpenSSL computes; likewise for Merkle roots.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <string>

#include "circuit/witness_cs.hpp"
#include "gadget_test_util.hpp"
#include "gadgets/merkle.hpp"
#include "gadgets/sha256_trace.hpp"
#include "test_seed.hpp"

using namespace snarkpipe::gadgets;
using namespace gadget_test;
using snarkpipe::circuit::WitnessConstraintSystem;

namespace {

Sha256Digest openssl_sha256(std::span<const std::uint8_t> m) {
  Sha256Digest out;
  unsigned int len = 0;
  EXPECT_EQ(EVP_Digest(m.data(), m.size(), out.data(), &len, EVP_sha256(), nullptr), 1);
  return out;
}

}  // namespace

TEST(Sha256Trace, MatchesGadgetWitnessAndOpenSSL) {
  SeededRng rng(test_seed("Sha256Trace.MatchesGadgetWitnessAndOpenSSL"));
  for (int round = 0; round < 12; ++round) {
    const std::size_t len = rng.next_u64() % 200;
    const auto msg = random_bytes(rng, len);
    // Which bytes are variables: all, none, or a random mix.
    const int mode = round % 3;
    std::vector<bool> variable(len);
    for (std::size_t i = 0; i < len; ++i) variable[i] = mode == 0 || (mode == 2 && (rng.next_u64() & 1));
    SCOPED_TRACE("length " + std::to_string(len) + " mode " + std::to_string(mode));

    WitnessConstraintSystem ws;
    std::vector<Boolean> bits;
    for (std::size_t i = 0; i < len; ++i) {
      const std::vector<std::uint8_t> byte = {msg[i]};
      const auto b = variable[i] ? alloc_bits_be(ws, "byte " + std::to_string(i), 1, byte) : constant_bits_be(byte);
      bits.insert(bits.end(), b.begin(), b.end());
    }
    const std::vector<Boolean> digest = sha256(ws, "sha256", bits);

    std::vector<Fr> traced(ws.aux().size());
    AuxWriter w(traced.data());
    std::vector<trace::Bit> tbits;
    for (std::size_t i = 0; i < len; ++i) {
      const std::vector<std::uint8_t> byte = {msg[i]};
      const auto b = variable[i] ? trace::alloc_bits_be(byte, w) : trace::constant_bits_be(byte);
      tbits.insert(tbits.end(), b.begin(), b.end());
    }
    const std::vector<trace::Bit> tdigest = trace::sha256(tbits, w);
    ASSERT_EQ(w.size(), ws.aux().size());
    EXPECT_TRUE(traced == ws.aux());
    const Sha256Digest expected = openssl_sha256(msg);
    EXPECT_EQ(hex_of(trace::bytes_of(tdigest)), hex_of(expected));
    EXPECT_EQ(hex_of(*bits_to_bytes_be(digest)), hex_of(expected));
    for (std::size_t i = 0; i < 256; ++i) {
      ASSERT_EQ(tdigest[i].constant, digest[i].is_constant()) << i;
    }
  }
}

TEST(Sha256Trace, MerkleRootMatchesGadgetWitness) {
  SeededRng rng(test_seed("Sha256Trace.MerkleRootMatchesGadgetWitness"));
  const std::size_t depth = 3;
  const auto leaf = random_bytes(rng, 32);
  std::vector<std::vector<std::uint8_t>> sib;
  for (std::size_t j = 0; j < depth; ++j) sib.push_back(random_bytes(rng, 32));
  const std::uint64_t index = rng.next_u64() % (1u << depth);

  WitnessConstraintSystem ws;
  const auto leaf_bits = alloc_bits_be(ws, "leaf", 32, leaf);
  std::vector<std::vector<Boolean>> sib_bits;
  std::vector<Boolean> index_bits;
  for (std::size_t j = 0; j < depth; ++j) {
    sib_bits.push_back(alloc_bits_be(ws, "sibling " + std::to_string(j), 32, sib[j]));
    index_bits.push_back(Boolean::alloc(ws, "index " + std::to_string(j), ((index >> j) & 1) != 0));
  }
  const auto root = merkle_root_gadget(ws, "root", leaf_bits, sib_bits, index_bits);

  std::vector<Fr> traced(ws.aux().size());
  AuxWriter w(traced.data());
  const auto tleaf = trace::alloc_bits_be(leaf, w);
  std::vector<std::vector<trace::Bit>> tsib;
  std::vector<trace::Bit> tindex;
  for (std::size_t j = 0; j < depth; ++j) {
    tsib.push_back(trace::alloc_bits_be(sib[j], w));
    tindex.push_back(trace::alloc_bit(((index >> j) & 1) != 0, w));
  }
  const auto troot = trace::merkle_root(tleaf, tsib, tindex, w);
  ASSERT_EQ(w.size(), ws.aux().size());
  EXPECT_TRUE(traced == ws.aux());

  MerklePath path;
  path.index = index;
  for (const auto& s : sib) {
    Sha256Digest d;
    std::copy(s.begin(), s.end(), d.begin());
    path.siblings.push_back(d);
  }
  Sha256Digest leaf_digest;
  std::copy(leaf.begin(), leaf.end(), leaf_digest.begin());
  EXPECT_EQ(hex_of(trace::bytes_of(troot)), hex_of(merkle_root_from_path(leaf_digest, path)));
  EXPECT_EQ(hex_of(*bits_to_bytes_be(root)), hex_of(trace::bytes_of(troot)));
}
