// SHA-256: the native implementation against OpenSSL, the compression gadget against the
// native compression, the padded hash gadget against OpenSSL; corrupted witnesses caught;
// constraint counts printed.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <cstdio>
#include <string>

#include "gadget_test_util.hpp"
#include "gadgets/sha256.hpp"
#include "test_seed.hpp"

using namespace snarkpipe::gadgets;
using namespace gadget_test;
using snarkpipe::circuit::Variable;

namespace {

Sha256Digest openssl_sha256(std::span<const std::uint8_t> msg) {
  Sha256Digest out;
  unsigned int len = 0;
  const int ok = EVP_Digest(msg.data(), msg.size(), out.data(), &len, EVP_sha256(), nullptr);
  EXPECT_EQ(ok, 1);
  EXPECT_EQ(len, 32u);
  return out;
}

std::array<UInt32, 8> alloc_state(TestConstraintSystem& cs, const std::array<std::uint32_t, 8>& s) {
  std::array<UInt32, 8> out;
  for (int i = 0; i < 8; ++i) out[i] = UInt32::alloc(cs, "state " + std::to_string(i), s[i]);
  return out;
}

}  // namespace

TEST(Sha256Native, KnownAnswers) {
  const std::string abc = "abc";
  EXPECT_EQ(hex_of(native::sha256({reinterpret_cast<const std::uint8_t*>(abc.data()), abc.size()})),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hex_of(native::sha256({})), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256Native, MatchesOpenSSL) {
  SeededRng rng(test_seed("Sha256Native.MatchesOpenSSL"));
  for (std::size_t len = 0; len <= 300; ++len) {
    const auto msg = random_bytes(rng, len);
    ASSERT_EQ(native::sha256(msg), openssl_sha256(msg)) << "length " << len;
  }
}

TEST(Sha256Gadget, CompressionMatchesNative) {
  SeededRng rng(test_seed("Sha256Gadget.CompressionMatchesNative"));
  const auto block = random_bytes(rng, 64);
  std::array<std::uint32_t, 8> state;
  for (auto& w : state) w = std::uint32_t(rng.next_u64());

  // Block and state allocated.
  {
    TestConstraintSystem cs;
    const auto bits = alloc_bits_be(cs, "block", 64, block);
    const auto st = alloc_state(cs, state);
    const std::size_t before = cs.num_constraints();
    const auto out = sha256_compression(cs, "compression", bits, st);
    std::printf("[count] sha256 compression, allocated block and state: %zu constraints\n",
                cs.num_constraints() - before);
    auto want = state;
    native::sha256_compress(want, std::span<const std::uint8_t, 64>(block.data(), 64));
    for (int i = 0; i < 8; ++i) {
      EXPECT_EQ(*out[i].value(), want[i]) << i;
      EXPECT_EQ(word_in(cs, out[i]), want[i]) << i;
    }
    EXPECT_TRUE(cs.is_satisfied()) << *cs.which_is_unsatisfied();
  }
  // Block allocated, constant IV (bellperson's sha256 full-block test shape).
  {
    TestConstraintSystem cs;
    const auto bits = alloc_bits_be(cs, "block", 64, block);
    const std::size_t before = cs.num_constraints();
    const auto out = sha256_compression(cs, "compression", bits, sha256_iv());
    std::printf("[count] sha256 compression, allocated block and constant IV: %zu constraints\n",
                cs.num_constraints() - before);
    auto want = SHA256_IV;
    native::sha256_compress(want, std::span<const std::uint8_t, 64>(block.data(), 64));
    for (int i = 0; i < 8; ++i) EXPECT_EQ(word_in(cs, out[i]), want[i]) << i;
    EXPECT_TRUE(cs.is_satisfied());
  }
  // Constant block, allocated state (the padding block of a 64-byte message).
  {
    TestConstraintSystem cs;
    const auto st = alloc_state(cs, state);
    const std::size_t before = cs.num_constraints();
    const auto out = sha256_compression(cs, "compression", constant_bits_be(block), st);
    std::printf("[count] sha256 compression, constant block and allocated state: %zu constraints\n",
                cs.num_constraints() - before);
    auto want = state;
    native::sha256_compress(want, std::span<const std::uint8_t, 64>(block.data(), 64));
    for (int i = 0; i < 8; ++i) EXPECT_EQ(word_in(cs, out[i]), want[i]) << i;
    EXPECT_TRUE(cs.is_satisfied());
  }
  // Everything constant: no constraint at all.
  {
    TestConstraintSystem cs;
    const auto out = sha256_compression(cs, "compression", constant_bits_be(block), sha256_iv());
    EXPECT_EQ(cs.num_constraints(), 0u);
    auto want = SHA256_IV;
    native::sha256_compress(want, std::span<const std::uint8_t, 64>(block.data(), 64));
    for (int i = 0; i < 8; ++i) EXPECT_EQ(*out[i].value(), want[i]);
  }
}

TEST(Sha256Gadget, HashMatchesOpenSSL) {
  SeededRng rng(test_seed("Sha256Gadget.HashMatchesOpenSSL"));
  for (std::size_t len : {0u, 1u, 55u, 56u, 64u, 100u}) {
    SCOPED_TRACE("length " + std::to_string(len));
    const auto msg = random_bytes(rng, len);
    TestConstraintSystem cs;
    const auto bits = alloc_bits_be(cs, "message", len, msg);
    const auto digest = sha256(cs, "sha256", bits);
    ASSERT_EQ(digest.size(), 256u);
    const Sha256Digest want = openssl_sha256(msg);
    EXPECT_EQ(hex_of(bytes_in(cs, digest)), hex_of(want));
    EXPECT_EQ(hex_of(*bits_to_bytes_be(digest)), hex_of(want));
    EXPECT_TRUE(cs.is_satisfied()) << *cs.which_is_unsatisfied();
    std::printf("[count] sha256 of %zu bytes (%zu blocks): %zu constraints (%zu for the message bits)\n", len,
                sha256_pad(bits).size() / 512, cs.num_constraints(), 8 * len);

    if (len == 0) {  // nothing but constants: the digest folds to a constant
      EXPECT_EQ(cs.num_constraints(), 0u);
      continue;
    }
    // Corrupt one message bit: a named constraint fails; restore, and it passes again.
    const Variable victim = *bits[rng.next_u64() % bits.size()].variable();
    flip(cs, victim);
    const auto bad = cs.which_is_unsatisfied();
    ASSERT_TRUE(bad.has_value());
    EXPECT_FALSE(bad->empty());
    flip(cs, victim);
    EXPECT_TRUE(cs.is_satisfied());
  }
}

TEST(Sha256Gadget, AnyInternalBitFlipIsCaught) {
  SeededRng rng(test_seed("Sha256Gadget.AnyInternalBitFlipIsCaught"));
  const auto msg = random_bytes(rng, 32);
  TestConstraintSystem cs;
  const auto bits = alloc_bits_be(cs, "message", msg.size(), msg);
  sha256(cs, "sha256", bits);
  ASSERT_TRUE(cs.is_satisfied());
  for (int k = 0; k < 8; ++k) {
    const Variable v = Variable::aux(std::uint32_t(rng.next_u64() % cs.num_aux()));
    flip(cs, v);
    const auto bad = cs.which_is_unsatisfied();
    EXPECT_TRUE(bad.has_value()) << "aux " << v.index;
    flip(cs, v);
  }
}

TEST(Sha256Gadget, DigestPublicInputs) {
  SeededRng rng(test_seed("Sha256Gadget.DigestPublicInputs"));
  const auto msg = random_bytes(rng, 40);
  TestConstraintSystem cs;
  const auto bits = alloc_bits_be(cs, "message", msg.size(), msg);
  const auto digest = sha256(cs, "sha256", bits);
  const auto inputs = sha256_digest_into_inputs(cs, "digest", digest);
  const Sha256Digest want = openssl_sha256(msg);
  const auto native_inputs = sha256_digest_public_inputs(want);
  ASSERT_EQ(cs.num_inputs(), 3u);
  EXPECT_EQ(cs.inputs()[1], native_inputs[0]);
  EXPECT_EQ(cs.inputs()[2], native_inputs[1]);
  // Input 0 is the big-endian integer of digest bytes 0..15: its 32-byte big-endian form
  // is 16 zero bytes, then those bytes.
  std::uint8_t be[32];
  native_inputs[0].to_bytes_be(be);
  EXPECT_EQ(hex_of({be + 16, 16}), hex_of({want.data(), 16}));
  native_inputs[1].to_bytes_be(be);
  EXPECT_EQ(hex_of({be + 16, 16}), hex_of({want.data() + 16, 16}));
  EXPECT_TRUE(cs.is_satisfied());
}
