// Poseidon on real Filecoin data: the WindowPoSt vanilla proof of one real 32 GiB sector
// (shared/vectors/filecoin/post.vproof, from filecoin-project/curio's test golden files; its
// README gives the bincode layout). What must hold, as Filecoin's verifier checks it:
// comm_r = Poseidon-2(comm_c, comm_r_last); each of the 10 challenged leaves, hashed up its
// TreeR path (9 levels of 8-ary base tree, then the 8-ary sub level; at each level the
// current hash inserted at `index` among the 7 siblings), reaches comm_r_last; and the sealed
// CID in postpub.json has comm_r as its digest. Any single flipped bit of the proof fails the
// check. The inclusion paths also satisfy the PoR circuit (rust-fil-proofs' shape 8-8, ten
// 8-ary levels) with the index and comm_r_last as public inputs.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "gadget_test_util.hpp"
#include "gadgets/poseidon_merkle.hpp"
#include "test_seed.hpp"

using namespace snarkpipe::gadgets;
using namespace gadget_test;

namespace {

const std::string DIR = SNARKPIPE_FILECOIN_VECTORS;

std::optional<std::vector<std::uint8_t>> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), {});
}

struct Level {
  std::vector<Fr> siblings;
  std::uint64_t index = 0;
};

struct InclusionProof {
  std::uint32_t kind = 0;
  std::vector<Level> base, sub;
  Fr root, leaf;
};

struct VanillaProof {
  std::uint64_t sector_id = 0;
  Fr comm_r;
  std::vector<std::uint8_t> comm_r_bytes;
  std::vector<InclusionProof> proofs;
  Fr comm_c, comm_r_last;
};

// A bincode reader that records every field it reads (offset, size), so that a test can flip
// a bit in each; any malformed input throws.
class Reader {
 public:
  explicit Reader(const std::vector<std::uint8_t>& b) : b_(b) {}
  std::uint64_t u64() { return uint(8); }
  std::uint32_t u32() { return std::uint32_t(uint(4)); }
  Fr fr() {
    const auto bytes = take(32);
    const auto v = Fr::from_bytes_le(bytes);
    if (!v) throw std::runtime_error("non-canonical field element");
    return *v;
  }
  std::vector<std::uint8_t> raw32() {
    const auto bytes = take(32);
    return {bytes.begin(), bytes.end()};
  }
  bool done() const { return at_ == b_.size(); }
  std::vector<std::pair<std::size_t, std::size_t>> fields;

 private:
  std::span<const std::uint8_t> take(std::size_t n) {
    if (b_.size() - at_ < n) throw std::runtime_error("truncated");
    fields.emplace_back(at_, n);
    const auto s = std::span<const std::uint8_t>(b_).subspan(at_, n);
    at_ += n;
    return s;
  }
  std::uint64_t uint(std::size_t n) {
    const auto s = take(n);
    std::uint64_t v = 0;
    for (std::size_t i = n; i-- > 0;) v = v << 8 | s[i];
    return v;
  }
  const std::vector<std::uint8_t>& b_;
  std::size_t at_ = 0;
};

std::vector<Level> read_path(Reader& r) {
  const std::uint64_t levels = r.u64();
  if (levels > 64) throw std::runtime_error("implausible path length");
  std::vector<Level> out(levels);
  for (Level& l : out) {
    const std::uint64_t n = r.u64();
    if (n > 64) throw std::runtime_error("implausible sibling count");
    for (std::uint64_t i = 0; i < n; ++i) l.siblings.push_back(r.fr());
    l.index = r.u64();
  }
  return out;
}

VanillaProof parse(const std::vector<std::uint8_t>& bytes,
                   std::vector<std::pair<std::size_t, std::size_t>>* fields = nullptr) {
  Reader r(bytes);
  VanillaProof v;
  v.sector_id = r.u64();
  v.comm_r_bytes = r.raw32();
  const auto c = Fr::from_bytes_le(v.comm_r_bytes);
  if (!c) throw std::runtime_error("non-canonical comm_r");
  v.comm_r = *c;
  if (r.u64() != 1) throw std::runtime_error("expected one sector");
  const std::uint64_t n = r.u64();
  if (n > 1000) throw std::runtime_error("implausible proof count");
  for (std::uint64_t i = 0; i < n; ++i) {
    InclusionProof p;
    p.kind = r.u32();
    if (p.kind != 1) throw std::runtime_error("not a sub proof");
    p.base = read_path(r);
    p.sub = read_path(r);
    p.root = r.fr();
    p.leaf = r.fr();
    v.proofs.push_back(std::move(p));
  }
  v.comm_c = r.fr();
  v.comm_r_last = r.fr();
  if (!r.done()) throw std::runtime_error("trailing bytes");
  if (fields) *fields = r.fields;
  return v;
}

// The proof as a PoseidonPath: base levels then the sub level, the leaf index from the
// per-level positions (3 bits a level).
PoseidonPath path_of(const InclusionProof& p) {
  PoseidonPath path;
  unsigned shift = 0;
  for (const auto* levels : {&p.base, &p.sub}) {
    for (const Level& l : *levels) {
      if (l.siblings.size() != 7) throw std::runtime_error("not an 8-ary level");
      if (l.index >= 8) throw std::runtime_error("position out of range");
      path.index |= l.index << shift;
      shift += 3;
      path.siblings.push_back(l.siblings);
    }
  }
  return path;
}

// Filecoin's check, directly: insert the current hash at `index` among the siblings, hash.
Fr climb(const InclusionProof& p) {
  Fr cur = p.leaf;
  for (const auto* levels : {&p.base, &p.sub}) {
    for (const Level& l : *levels) {
      if (l.index > l.siblings.size()) throw std::runtime_error("position out of range");
      std::vector<Fr> children = l.siblings;
      children.insert(children.begin() + std::ptrdiff_t(l.index), cur);
      cur = native::poseidon_hash(poseidon_params(children.size()), children);
    }
  }
  return cur;
}

// Everything a verifier checks of the vanilla proof (sector 1 per postpub.json).
bool verifies(const std::vector<std::uint8_t>& bytes) {
  try {
    const VanillaProof v = parse(bytes);
    if (v.sector_id != 1 || v.proofs.size() != 10) return false;
    const std::vector<Fr> pair = {v.comm_c, v.comm_r_last};
    if (native::poseidon_hash(poseidon_params(2), pair) != v.comm_r) return false;
    for (const InclusionProof& p : v.proofs) {
      if (p.base.size() != 9 || p.sub.size() != 1) return false;
      if (p.root != v.comm_r_last || climb(p) != p.root) return false;
    }
    return true;
  } catch (const std::runtime_error&) {
    return false;
  }
}

class PoseidonFilecoin : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto b = read_file(DIR + "/post.vproof");
    if (!b) GTEST_SKIP() << "no Filecoin vectors at " << DIR;
    bytes = *b;
  }
  std::vector<std::uint8_t> bytes;
};

// RFC 4648 base32, lowercase, no padding (multibase 'b').
std::optional<std::vector<std::uint8_t>> base32_decode(std::string_view s) {
  static constexpr char alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
  std::vector<std::uint8_t> out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (char ch : s) {
    const char* at = ch == '\0' ? nullptr : std::strchr(alphabet, ch);
    if (!at) return std::nullopt;
    acc = acc << 5 | std::uint32_t(at - alphabet);
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(std::uint8_t(acc >> bits));
      acc &= (1u << bits) - 1;
    }
  }
  return out;
}

std::uint64_t varint(const std::vector<std::uint8_t>& b, std::size_t& at) {
  std::uint64_t v = 0;
  for (unsigned shift = 0; at < b.size() && shift < 64; shift += 7) {
    const std::uint8_t x = b[at++];
    v |= std::uint64_t(x & 0x7f) << shift;
    if (!(x & 0x80)) return v;
  }
  throw std::runtime_error("bad varint");
}

}  // namespace

TEST_F(PoseidonFilecoin, CommRIsPoseidon2OfCommCAndCommRLast) {
  const VanillaProof v = parse(bytes);
  EXPECT_EQ(v.sector_id, 1u);
  ASSERT_EQ(v.proofs.size(), 10u);
  const std::vector<Fr> pair = {v.comm_c, v.comm_r_last};
  EXPECT_EQ(native::poseidon_hash(poseidon_params(2), pair), v.comm_r);
  EXPECT_EQ(native::poseidon_hash_reference(poseidon_params(2), pair), v.comm_r);
  std::printf("comm_r %s = Poseidon-2(comm_c %s, comm_r_last %s)\n", v.comm_r.to_hex().c_str(),
              v.comm_c.to_hex().c_str(), v.comm_r_last.to_hex().c_str());
}

TEST_F(PoseidonFilecoin, EveryTreeRPathReachesCommRLast) {
  const VanillaProof v = parse(bytes);
  ASSERT_EQ(v.proofs.size(), 10u);
  for (std::size_t i = 0; i < v.proofs.size(); ++i) {
    const InclusionProof& p = v.proofs[i];
    SCOPED_TRACE("proof " + std::to_string(i));
    ASSERT_EQ(p.base.size(), 9u);
    ASSERT_EQ(p.sub.size(), 1u);
    EXPECT_EQ(p.root, v.comm_r_last);
    EXPECT_EQ(climb(p), v.comm_r_last);
    // Through the tree code (index bits, mixed-arity paths) too.
    const PoseidonPath path = path_of(p);
    EXPECT_EQ(poseidon_root_from_path(p.leaf, path), v.comm_r_last);
    EXPECT_EQ(poseidon_root_from_path(8, p.leaf, path), v.comm_r_last);
  }
  EXPECT_TRUE(verifies(bytes));
}

// The same paths in rust-fil-proofs' PoR circuit for the 32 GiB TreeR shape (base 8, sub 8):
// satisfied, with the leaf index and comm_r_last as its public inputs; a wrong root is not.
TEST_F(PoseidonFilecoin, PathsSatisfyThePorCircuit) {
  const VanillaProof v = parse(bytes);
  const std::vector<std::size_t> arities(10, 8);
  for (std::size_t i = 0; i < v.proofs.size(); ++i) {
    SCOPED_TRACE("proof " + std::to_string(i));
    const InclusionProof& p = v.proofs[i];
    const PoseidonPath path = path_of(p);
    TestConstraintSystem cs;
    poseidon_por_circuit(cs, "por", arities, p.leaf, path, v.comm_r_last, false);
    EXPECT_TRUE(cs.is_satisfied()) << *cs.which_is_unsatisfied();
    EXPECT_EQ(cs.num_constraints(), 10 * 530u + 3);
    ASSERT_EQ(cs.num_inputs(), 3u);
    EXPECT_EQ(cs.inputs()[1], Fr::from_u64(path.index));
    EXPECT_EQ(cs.inputs()[2], v.comm_r_last);
    EXPECT_EQ(poseidon_por_public_inputs(arities, path.index, v.comm_r_last, false),
              (std::vector<Fr>{cs.inputs()[1], cs.inputs()[2]}));
    if (i == 0) {
      TestConstraintSystem bad;
      poseidon_por_circuit(bad, "por", arities, p.leaf, path, v.comm_c, false);
      EXPECT_FALSE(bad.is_satisfied());
    }
  }
}

// Flipping any one bit of the proof makes the check fail: one random bit in every field
// (each integer and each field element), and more random bits anywhere.
TEST_F(PoseidonFilecoin, AnySingleFlippedBitFails) {
  SeededRng rng(test_seed("PoseidonFilecoin.AnySingleFlippedBitFails"));
  std::vector<std::pair<std::size_t, std::size_t>> fields;
  parse(bytes, &fields);
  std::size_t covered = 0;
  for (const auto& [at, n] : fields) covered += n;
  EXPECT_EQ(covered, bytes.size());  // the fields tile the file
  std::size_t flips = 0;
  for (const auto& [at, n] : fields) {
    std::vector<std::uint8_t> bad = bytes;
    const std::size_t bit = rng.next_u64() % (8 * n);
    bad[at + bit / 8] ^= std::uint8_t(1u << (bit % 8));
    EXPECT_FALSE(verifies(bad)) << "bit " << bit << " of the field at byte " << at;
    ++flips;
  }
  for (int i = 0; i < 64; ++i) {
    std::vector<std::uint8_t> bad = bytes;
    const std::size_t bit = rng.next_u64() % (8 * bytes.size());
    bad[bit / 8] ^= std::uint8_t(1u << (bit % 8));
    EXPECT_FALSE(verifies(bad)) << "bit " << bit;
    ++flips;
  }
  std::printf("%zu single-bit flips, each rejected\n", flips);
}

// postpub.json's SealedCID: multibase base32 ('b') of CIDv1, codec fil-commitment-sealed
// (0xf102), multihash poseidon-bls12_381-a2-fc1 (0xb401), 32 bytes: the digest is comm_r's
// bytes as the proof stores them.
TEST_F(PoseidonFilecoin, SealedCidDigestIsCommR) {
  const auto json = read_file(DIR + "/postpub.json");
  ASSERT_TRUE(json.has_value());
  const std::string text(json->begin(), json->end());
  const std::string key = "\"SealedCID\":{\"/\":\"";
  const auto at = text.find(key);
  ASSERT_NE(at, std::string::npos);
  const auto end = text.find('"', at + key.size());
  const std::string cid = text.substr(at + key.size(), end - at - key.size());
  ASSERT_EQ(cid.substr(0, 1), "b");
  const auto raw = base32_decode(std::string_view(cid).substr(1));
  ASSERT_TRUE(raw.has_value());
  std::size_t pos = 0;
  EXPECT_EQ(varint(*raw, pos), 1u);       // CID version
  EXPECT_EQ(varint(*raw, pos), 0xf102u);  // fil-commitment-sealed
  EXPECT_EQ(varint(*raw, pos), 0xb401u);  // poseidon-bls12_381-a2-fc1
  ASSERT_EQ(varint(*raw, pos), 32u);
  ASSERT_EQ(raw->size(), pos + 32);
  const VanillaProof v = parse(bytes);
  EXPECT_EQ(std::vector<std::uint8_t>(raw->begin() + std::ptrdiff_t(pos), raw->end()), v.comm_r_bytes);
}
