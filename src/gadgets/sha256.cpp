#include "gadgets/sha256.hpp"

#include <stdexcept>
#include <string>

namespace snarkpipe::gadgets {

namespace {

// A word kept as the summands whose sum mod 2^32 it is, when only additions consume it.
using Summands = std::vector<UInt32>;

Summands concat(Summands a, const Summands& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

UInt32 xor3(ConstraintSystem& cs, std::string_view name, const UInt32& a, const UInt32& b, const UInt32& c) {
  Namespace ns(cs, name);
  return a.xor_(cs, "first xor", b).xor_(cs, "second xor", c);
}

UInt32 small_sigma0(ConstraintSystem& cs, const UInt32& x) {
  return xor3(cs, "sigma0", x.rotr(7), x.rotr(18), x.shr(3));
}
UInt32 small_sigma1(ConstraintSystem& cs, const UInt32& x) {
  return xor3(cs, "sigma1", x.rotr(17), x.rotr(19), x.shr(10));
}
UInt32 big_sigma0(ConstraintSystem& cs, const UInt32& x) {
  return xor3(cs, "Sigma0", x.rotr(2), x.rotr(13), x.rotr(22));
}
UInt32 big_sigma1(ConstraintSystem& cs, const UInt32& x) {
  return xor3(cs, "Sigma1", x.rotr(6), x.rotr(11), x.rotr(25));
}

}  // namespace

std::array<UInt32, 8> sha256_iv() {
  std::array<UInt32, 8> iv;
  for (int i = 0; i < 8; ++i) iv[i] = UInt32::constant(SHA256_IV[i]);
  return iv;
}

std::array<UInt32, 8> sha256_compression(ConstraintSystem& cs, std::string_view name, std::span<const Boolean> block,
                                         std::span<const UInt32> state) {
  if (block.size() != 512)
    throw std::invalid_argument("sha256_compression: block of " + std::to_string(block.size()) + " bits, 512 expected");
  if (state.size() != 8)
    throw std::invalid_argument("sha256_compression: state of " + std::to_string(state.size()) + " words, 8 expected");
  Namespace ns(cs, name);
  // The packing equalities of all additions share constraints (multi_eq.hpp).
  MultiEq eq(cs);

  // Message schedule. W[62] and W[63] feed only the round additions, so they stay summands.
  std::vector<Summands> w(64);
  for (int i = 0; i < 16; ++i) w[i] = {UInt32::from_bits_be(block.subspan(32 * i, 32))};
  for (int i = 16; i < 64; ++i) {
    Namespace wns(cs, "w " + std::to_string(i));
    Summands terms = {w[i - 16][0], small_sigma0(cs, w[i - 15][0]), w[i - 7][0], small_sigma1(cs, w[i - 2][0])};
    w[i] = i < 62 ? Summands{UInt32::addmany(eq, "sum", terms)} : terms;
  }

  UInt32 a = state[0], b = state[1], c = state[2], d = state[3];
  UInt32 e = state[4], f = state[5], g = state[6], h = state[7];
  Summands last_a, last_e;  // the last round's new a and e, as summands
  for (int t = 0; t < 64; ++t) {
    Namespace rns(cs, "round " + std::to_string(t));
    const UInt32 s1 = big_sigma1(cs, e);
    const UInt32 ch = UInt32::sha256_ch(cs, "ch", e, f, g);
    const Summands t1 = concat({h, s1, ch, UInt32::constant(SHA256_K[t])}, w[t]);
    const UInt32 s0 = big_sigma0(cs, a);
    const UInt32 maj = UInt32::sha256_maj(cs, "maj", a, b, c);
    Summands new_e = concat({d}, t1);
    Summands new_a = concat(t1, {s0, maj});
    h = g;
    g = f;
    f = e;
    d = c;
    c = b;
    b = a;
    if (t == 63) {
      last_a = std::move(new_a);
      last_e = std::move(new_e);
    } else {
      e = UInt32::addmany(eq, "new e", new_e);
      a = UInt32::addmany(eq, "new a", new_a);
    }
  }

  Namespace fns(cs, "final additions");
  const std::array<UInt32, 8> out = {
      UInt32::addmany(eq, "h0", concat({state[0]}, last_a)), UInt32::addmany(eq, "h1", Summands{state[1], b}),
      UInt32::addmany(eq, "h2", Summands{state[2], c}),      UInt32::addmany(eq, "h3", Summands{state[3], d}),
      UInt32::addmany(eq, "h4", concat({state[4]}, last_e)), UInt32::addmany(eq, "h5", Summands{state[5], f}),
      UInt32::addmany(eq, "h6", Summands{state[6], g}),      UInt32::addmany(eq, "h7", Summands{state[7], h})};
  eq.finish();
  return out;
}

std::vector<Boolean> sha256_pad(std::span<const Boolean> message) {
  std::vector<Boolean> padded(message.begin(), message.end());
  const std::uint64_t bit_len = message.size();
  padded.push_back(Boolean::constant(true));
  while (padded.size() % 512 != 448) padded.push_back(Boolean::constant(false));
  for (int i = 63; i >= 0; --i) padded.push_back(Boolean::constant(((bit_len >> i) & 1) != 0));
  return padded;
}

std::vector<Boolean> sha256(ConstraintSystem& cs, std::string_view name, std::span<const Boolean> message) {
  Namespace ns(cs, name);
  const std::vector<Boolean> padded = sha256_pad(message);
  std::array<UInt32, 8> state = sha256_iv();
  for (std::size_t i = 0; i < padded.size() / 512; ++i) {
    state = sha256_compression(cs, "block " + std::to_string(i), std::span(padded).subspan(512 * i, 512), state);
  }
  std::vector<Boolean> digest;
  digest.reserve(256);
  for (const UInt32& word : state) {
    const auto bits = word.to_bits_be();
    digest.insert(digest.end(), bits.begin(), bits.end());
  }
  return digest;
}

std::vector<AllocatedNum> sha256_digest_into_inputs(ConstraintSystem& cs, std::string_view name,
                                                    std::span<const Boolean> digest) {
  if (digest.size() != 256)
    throw std::invalid_argument("sha256_digest_into_inputs: digest of " + std::to_string(digest.size()) +
                                " bits, 256 expected");
  return pack_bits_be_into_inputs(cs, name, digest, 128);
}

std::array<Fr, 2> sha256_digest_public_inputs(const Sha256Digest& digest) {
  const std::vector<Fr> packed = pack_bits_be(bytes_to_bits_be(digest), 128);
  return {packed[0], packed[1]};
}

}  // namespace snarkpipe::gadgets
