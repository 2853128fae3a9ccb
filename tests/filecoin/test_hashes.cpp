// BLAKE2b and ChaCha against published known answers: RFC 7693 Appendix A, the BLAKE2 reference
// KAT (blake2b-kat.txt, keyed), RFC 8439 §2.3.2, rand_chacha's "true values" (ChaCha20, zero
// key), draft-strombergson-chacha-test-vectors TC1 (ChaCha8, zero key and IV). The streaming
// cases' digests were computed with CPython's hashlib.blake2b.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "filecoin/blake2b.hpp"
#include "filecoin/chacha.hpp"
#include "filecoin/commitment.hpp"

using namespace snarkpipe::filecoin;

namespace {

std::vector<std::uint8_t> bytes_of(std::string_view s) { return {s.begin(), s.end()}; }

std::string blake2b_hex(std::span<const std::uint8_t> m, std::size_t n = 64, std::span<const std::uint8_t> key = {}) {
  std::vector<std::uint8_t> out(n);
  Blake2b(n, key).update(m).finalize(out);
  return to_hex(out);
}

std::vector<std::uint8_t> counting(std::size_t n, unsigned mod = 256) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = std::uint8_t(i % mod);
  return v;
}

std::string block_hex(const ChaChaState& s) {
  std::vector<std::uint8_t> b;
  for (std::uint32_t w : s)
    for (int i = 0; i < 4; ++i) b.push_back(std::uint8_t(w >> (8 * i)));
  return to_hex(b);
}

}  // namespace

TEST(Blake2b, Rfc7693AppendixA) {
  EXPECT_EQ(to_hex(blake2b_512(bytes_of("abc"))),
            "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
            "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923");
}

TEST(Blake2b, ReferenceKeyedKat) {
  const auto key = counting(64);
  EXPECT_EQ(blake2b_hex({}, 64, key),
            "10ebb67700b1868efb4417987acf4690ae9d972fb7a590c2f02871799aaa4786"
            "b5e996e8f0f4eb981fc214b005f42d2ff4233499391653df7aefcbc13fc51568");
  EXPECT_EQ(blake2b_hex(counting(255), 64, key),
            "142709d62e28fcccd0af97fad0f8465b971e82201dc51070faa0372aa43e9248"
            "4be1c1e73ba10906d5d1853db6a4106e0a7bf9800d373d6dee2d46d62ef2a461");
}

TEST(Blake2b, BlockBoundariesAndStreaming) {
  const auto m = counting(300, 251);
  const std::pair<std::size_t, const char*> cases[] = {
      {0,
       "786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce"},
      {1,
       "2fa3f686df876995167e7c2e5d74c4c7b6e48f8068fe0e44208344d480f7904c36963e44115fe3eb2a3ac8694c28bcb4f5a0f3276f2e79487d8219057a506e4b"},
      {127,
       "b6292669ccd38d5f01caae96ba272c76a879a45743afa0725d83b9ebb26665b731f1848c52f11972b6644f554c064fa90780dbbbf3a89d4fc31f67df3e5857ef"},
      {128,
       "2319e3789c47e2daa5fe807f61bec2a1a6537fa03f19ff32e87eecbfd64b7e0e8ccff439ac333b040f19b0c4ddd11a61e24ac1fe0f10a039806c5dcc0da3d115"},
      {129,
       "f59711d44a031d5f97a9413c065d1e614c417ede998590325f49bad2fd444d3e4418be19aec4e11449ac1a57207898bc57d76a1bcf3566292c20c683a5c4648f"},
      {256,
       "93463ac058b6163eb43be3f5bb32b28541498f4e3366f1effe253ad44e1e076e41c3616046027c82a7124f8f4746668ad10b12e8e25a95ac8f3151df01cd5a93"},
      {300,
       "3a482b7748b0bdc43c3d00c080890c10e57a9aa5618f78b86067eb7eaae4942acd96d827accbc16958364ae5b0df6105bbd3b15445092eba1137b5f69c1070f1"},
  };
  for (const auto& [len, expected] : cases) {
    const std::span<const std::uint8_t> msg(m.data(), len);
    EXPECT_EQ(blake2b_hex(msg), expected) << len << " bytes";
    for (std::size_t cut : {std::size_t(1), std::size_t(64), std::size_t(128)}) {
      if (cut > len) continue;
      std::vector<std::uint8_t> out(64);
      Blake2b(64).update(msg.first(cut)).update(msg.subspan(cut)).finalize(out);
      EXPECT_EQ(to_hex(out), expected) << len << " bytes cut at " << cut;
    }
  }
  const std::string_view key = "filecoin.io|PoRep|1|Synthetic|1|Generation";
  const std::span<const std::uint8_t> k(reinterpret_cast<const std::uint8_t*>(key.data()), key.size());
  EXPECT_EQ(blake2b_hex({}, 32, k), "0364e533861079b5fcfa8c364d75dfed9288d3bebdb5f8c67b7c09079342fc77");
  EXPECT_EQ(blake2b_hex({m.data(), 128}, 32, k), "81efb955432087fa49e87280c496e34cbeaeb7b3f234da8a9a8a787ba3f3e6c3");
  EXPECT_EQ(blake2b_hex({m.data(), 129}, 32, k), "d9cfe49fb0b53352de646438ae3266b2279b49a4c61cd67472e94bdf3088934e");
}

TEST(Blake2b, RejectsBadParameters) {
  EXPECT_THROW(Blake2b(0), std::invalid_argument);
  EXPECT_THROW(Blake2b(65), std::invalid_argument);
  const auto long_key = counting(65);
  EXPECT_THROW(Blake2b(64, long_key), std::invalid_argument);
}

TEST(ChaCha, TwentyRoundsZeroKey) {
  // rand_chacha test_chacha_true_values_a (draft-nir-cfrg-chacha20-poly1305-04 vectors 1, 2).
  const std::array<std::uint8_t, 32> key{};
  const std::array<std::uint32_t, 16> block0 = {0xade0b876, 0x903df1a0, 0xe56a5d40, 0x28bd8653, 0xb819d2bd, 0x1aed8da0,
                                                0xccef36a8, 0xc70d778b, 0x7c5941da, 0x8d485751, 0x3fe02477, 0x374ad8b8,
                                                0xf4b8436a, 0x1ca11815, 0x69b687c3, 0x8665eeb2};
  const std::array<std::uint32_t, 16> block1 = {0xbee7079f, 0x7a385155, 0x7c97ba98, 0x0d082d73, 0xa0290fcb, 0x6965e348,
                                                0x3e53c612, 0xed7aee32, 0x7621b729, 0x434ee69c, 0xb03371d5, 0xd539d874,
                                                0x281fed31, 0x45fb0a51, 0x1f0ae1ac, 0x6f4d794b};
  EXPECT_EQ(chacha_block(chacha_initial_state(key, 0, 0, 0, 0), 20), block0);
  EXPECT_EQ(chacha_block(chacha_initial_state(key, 1, 0, 0, 0), 20), block1);
}

TEST(ChaCha, Rfc8439BlockFunction) {
  // §2.3.2: key 00..1f, nonce 00:00:00:09:00:00:00:4a:00:00:00:00, block counter 1.
  const auto key_bytes = counting(32);
  std::array<std::uint8_t, 32> key;
  std::copy(key_bytes.begin(), key_bytes.end(), key.begin());
  const std::array<std::uint8_t, 12> nonce = {0, 0, 0, 9, 0, 0, 0, 0x4a, 0, 0, 0, 0};
  const std::string expected =
      "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
      "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e";
  std::array<std::uint8_t, 64> ks;
  chacha20_keystream(key, nonce, 64, ks);
  EXPECT_EQ(to_hex(ks), expected);
  // Seeking into the middle of a block gives the same bytes.
  std::array<std::uint8_t, 40> part;
  chacha20_keystream(key, nonce, 64 + 13, part);
  EXPECT_EQ(to_hex(part), expected.substr(26, 80));
}

TEST(ChaCha, EightRoundsStrombergsonTc1) {
  const std::array<std::uint8_t, 32> key{};
  EXPECT_EQ(block_hex(chacha_block(chacha_initial_state(key, 0, 0, 0, 0), 8)),
            "3e00ef2f895f40d67f5bb8e81f09a5a12c840ec3ce9a7f3b181be188ef711a1e"
            "984ce172b9216f419f445367456d5619314a42a3da86b001387bfdb80e0cfe42");
  EXPECT_EQ(block_hex(chacha_block(chacha_initial_state(key, 1, 0, 0, 0), 8)),
            "d2aefa0deaa5c151bf0adb6c01f2a5adc0fd581259f9a2aadcf20f8fd566a26b"
            "5032ec38bbc5da98ee0c6f568b872a65a08abf251deb21bb4b56e5d8821e68aa");
  // The generator hands out the keystream words in order, two per u64 (low first), across blocks.
  ChaCha8Rng rng(key);
  const ChaChaState b0 = chacha_block(chacha_initial_state(key, 0, 0, 0, 0), 8);
  const ChaChaState b1 = chacha_block(chacha_initial_state(key, 1, 0, 0, 0), 8);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(rng.next_u64(), std::uint64_t(b0[2 * i + 1]) << 32 | b0[2 * i]);
  EXPECT_EQ(rng.next_u32(), b1[0]);
  EXPECT_EQ(rng.next_u64(), std::uint64_t(b1[2]) << 32 | b1[1]);
}
