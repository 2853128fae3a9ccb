#include "filecoin/commitment.hpp"

#include "base/hex.hpp"

#include <algorithm>
#include <charconv>
#include <vector>

#include "filecoin/public_inputs.hpp"

namespace snarkpipe::filecoin {
namespace {

constexpr char BASE32[] = "abcdefghijklmnopqrstuvwxyz234567";
constexpr std::uint64_t CODEC_UNSEALED = 0xf101, CODEC_SEALED = 0xf102;
constexpr std::uint64_t HASH_SHA256_TRUNC254 = 0x1012, HASH_POSEIDON = 0xb401;

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void put_varint(std::vector<std::uint8_t>& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(std::uint8_t(v | 0x80));
    v >>= 7;
  }
  out.push_back(std::uint8_t(v));
}

std::optional<std::uint64_t> get_varint(const std::vector<std::uint8_t>& in, std::size_t& pos) {
  std::uint64_t v = 0;
  for (int shift = 0; shift < 63 && pos < in.size(); shift += 7) {
    const std::uint8_t b = in[pos++];
    v |= std::uint64_t(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
  }
  return std::nullopt;
}

std::string kind_name(CommitmentKind k) {
  return k == CommitmentKind::Unsealed ? "an unsealed (comm_d)" : "a sealed (comm_r)";
}

Bytes32 parse_cid(std::string_view text, CommitmentKind kind, const std::string& field) {
  std::vector<std::uint8_t> bytes;
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : text.substr(1)) {
    const char* p = std::char_traits<char>::find(BASE32, 32, c);
    if (!p) throw SealInputError(field, std::string("CID has a character outside lower-case base32: '") + c + "'");
    acc = (acc << 5) | std::uint32_t(p - BASE32);
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push_back(std::uint8_t(acc >> bits));
    }
  }
  std::size_t pos = 0;
  const auto version = get_varint(bytes, pos);
  const auto codec = get_varint(bytes, pos);
  const auto hash = get_varint(bytes, pos);
  const auto length = get_varint(bytes, pos);
  if (!version || *version != 1) throw SealInputError(field, "not a CIDv1");
  const bool sealed = kind == CommitmentKind::Sealed;
  if (!codec || *codec != (sealed ? CODEC_SEALED : CODEC_UNSEALED))
    throw SealInputError(field, "the CID's codec is not " + kind_name(kind) + " commitment's (0x" +
                                    (sealed ? std::string("f102") : std::string("f101")) + ")");
  if (!hash || *hash != (sealed ? HASH_POSEIDON : HASH_SHA256_TRUNC254))
    throw SealInputError(field, "the CID's multihash is not " + kind_name(kind) + " commitment's");
  if (!length || *length != 32 || bytes.size() - pos != 32)
    throw SealInputError(field, "the CID's digest is not 32 bytes");
  Bytes32 out;
  std::copy(bytes.begin() + pos, bytes.end(), out.begin());
  return out;
}

}  // namespace

Bytes32 parse_bytes32_hex(std::string_view text, const std::string& field) {
  if (text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) text.remove_prefix(2);
  if (text.size() != 64)
    throw SealInputError(field, "needs 64 hex digits (32 bytes), got " + std::to_string(text.size()) + " characters");
  Bytes32 out;
  for (std::size_t i = 0; i < 32; ++i) {
    const int hi = hex_digit(text[2 * i]), lo = hex_digit(text[2 * i + 1]);
    if (hi < 0 || lo < 0) throw SealInputError(field, "is not hex: '" + std::string(text.substr(2 * i, 2)) + "'");
    out[i] = std::uint8_t(hi << 4 | lo);
  }
  return out;
}

Bytes32 parse_commitment(std::string_view text, CommitmentKind kind, const std::string& field) {
  // A CID's base32 always has letters beyond f ("baga6ea4sea…", "bagboea4b5abc…").
  const bool hex =
      std::all_of(text.begin(), text.end(), [](char c) { return hex_digit(c) >= 0 || c == 'x' || c == 'X'; });
  if (!hex && !text.empty() && text[0] == 'b') return parse_cid(text, kind, field);
  return parse_bytes32_hex(text, field);
}

Bytes32 prover_id_from_actor(std::string_view actor, const std::string& field) {
  if (actor.size() > 2 && (actor[0] == 'f' || actor[0] == 't') && actor[1] == '0') actor.remove_prefix(2);
  std::uint64_t id = 0;
  const auto [end, ec] = std::from_chars(actor.data(), actor.data() + actor.size(), id);
  if (ec != std::errc() || end != actor.data() + actor.size() || actor.empty())
    throw SealInputError(field, "a miner actor id is f0<number>, t0<number> or the number itself");
  std::vector<std::uint8_t> payload;
  put_varint(payload, id);
  Bytes32 out{};
  std::copy(payload.begin(), payload.end(), out.begin());
  return out;
}

std::string to_hex(std::span<const std::uint8_t> bytes) { return base::hex(bytes); }

std::string commitment_cid(const Bytes32& commitment, CommitmentKind kind) {
  const bool sealed = kind == CommitmentKind::Sealed;
  std::vector<std::uint8_t> bytes;
  put_varint(bytes, 1);
  put_varint(bytes, sealed ? CODEC_SEALED : CODEC_UNSEALED);
  put_varint(bytes, sealed ? HASH_POSEIDON : HASH_SHA256_TRUNC254);
  put_varint(bytes, 32);
  bytes.insert(bytes.end(), commitment.begin(), commitment.end());
  std::string out = "b";
  std::uint32_t acc = 0;
  int bits = 0;
  for (std::uint8_t b : bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out.push_back(BASE32[(acc >> bits) & 31]);
    }
  }
  if (bits > 0) out.push_back(BASE32[(acc << (5 - bits)) & 31]);
  return out;
}

}  // namespace snarkpipe::filecoin
