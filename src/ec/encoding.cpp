#include "ec/encoding.hpp"

#include <algorithm>

namespace snarkpipe::ec {

namespace {

constexpr std::uint8_t FLAG_COMPRESSED = 0x80;
constexpr std::uint8_t FLAG_INFINITY = 0x40;
constexpr std::uint8_t FLAG_SIGN = 0x20;
constexpr std::uint8_t FLAG_MASK = 0xe0;

void put_fp(std::uint8_t* out, const Fp& x) { x.to_bytes_be(out); }
void put_fp2(std::uint8_t* out, const Fp2& x) {
  x.c1.to_bytes_be(out);
  x.c0.to_bytes_be(out + 48);
}

// Reads a 48-byte big-endian coordinate, ignoring the flag bits when `first` is set.
std::optional<Fp> get_fp(const std::uint8_t* in, bool first) {
  std::uint8_t buf[48];
  std::copy(in, in + 48, buf);
  if (first) buf[0] &= std::uint8_t(~FLAG_MASK);
  return Fp::from_bytes_be(buf);
}
std::optional<Fp2> get_fp2(const std::uint8_t* in, bool first) {
  auto c1 = get_fp(in, first);
  auto c0 = get_fp(in + 48, false);
  if (!c1 || !c0) return std::nullopt;
  return Fp2{*c0, *c1};
}

template <class C>
struct Codec;
template <>
struct Codec<G1Curve> {
  static constexpr std::size_t COORD = 48;
  static void put(std::uint8_t* out, const Fp& x) { put_fp(out, x); }
  static std::optional<Fp> get(const std::uint8_t* in, bool first) { return get_fp(in, first); }
};
template <>
struct Codec<G2Curve> {
  static constexpr std::size_t COORD = 96;
  static void put(std::uint8_t* out, const Fp2& x) { put_fp2(out, x); }
  static std::optional<Fp2> get(const std::uint8_t* in, bool first) { return get_fp2(in, first); }
};

template <class C, std::size_t L>
std::array<std::uint8_t, L> encode(const Affine<C>& p, bool compressed) {
  std::array<std::uint8_t, L> out{};
  if (p.is_identity()) {
    out[0] = FLAG_INFINITY | (compressed ? FLAG_COMPRESSED : 0);
    return out;
  }
  Codec<C>::put(out.data(), p.x);
  if (compressed) {
    out[0] |= FLAG_COMPRESSED;
    if (p.y.is_lexicographically_largest()) out[0] |= FLAG_SIGN;
  } else {
    Codec<C>::put(out.data() + Codec<C>::COORD, p.y);
  }
  return out;
}

template <class C>
DecodeResult<Affine<C>> decode(std::span<const std::uint8_t> in, Validation v) {
  constexpr std::size_t coord = Codec<C>::COORD;
  if (in.size() != coord && in.size() != 2 * coord) return DecodeError::Length;
  const bool compressed = in[0] & FLAG_COMPRESSED;
  const bool infinity = in[0] & FLAG_INFINITY;
  const bool sign = in[0] & FLAG_SIGN;
  if (compressed != (in.size() == coord)) return DecodeError::Flags;
  if (infinity) {
    // The infinity encoding is unique: no sign bit, every other bit zero.
    if (sign) return DecodeError::Flags;
    if ((in[0] & ~FLAG_MASK) != 0 || !std::all_of(in.begin() + 1, in.end(), [](std::uint8_t b) { return b == 0; }))
      return DecodeError::Flags;
    return Affine<C>::identity();
  }
  if (!compressed && sign) return DecodeError::Flags;
  const auto x = Codec<C>::get(in.data(), true);
  if (!x) return DecodeError::CoordinateRange;
  Affine<C> p;
  if (compressed) {
    const auto y = (x->square() * *x + C::b()).sqrt();
    if (!y) return DecodeError::NotOnCurve;
    p = {*x, y->is_lexicographically_largest() == sign ? *y : -*y};
  } else {
    const auto y = Codec<C>::get(in.data() + coord, false);
    if (!y) return DecodeError::CoordinateRange;
    p = {*x, *y};
    if (!p.is_on_curve() || p.is_identity()) return DecodeError::NotOnCurve;
  }
  if (v == Validation::Full && !is_in_subgroup(p)) return DecodeError::NotInSubgroup;
  return p;
}

}  // namespace

const char* describe(DecodeError e) {
  switch (e) {
    case DecodeError::Length:
      return "wrong length for this point encoding";
    case DecodeError::Flags:
      return "invalid flag bits (compression/infinity/sign)";
    case DecodeError::CoordinateRange:
      return "coordinate is not a canonical value below the field modulus";
    case DecodeError::NotOnCurve:
      return "point is not on the curve";
    case DecodeError::NotInSubgroup:
      return "point is not in the prime-order subgroup";
  }
  return "unknown decoding error";
}

std::array<std::uint8_t, G1_COMPRESSED_BYTES> g1_to_compressed(const G1Affine& p) {
  return encode<G1Curve, G1_COMPRESSED_BYTES>(p, true);
}
std::array<std::uint8_t, G1_UNCOMPRESSED_BYTES> g1_to_uncompressed(const G1Affine& p) {
  return encode<G1Curve, G1_UNCOMPRESSED_BYTES>(p, false);
}
std::array<std::uint8_t, G2_COMPRESSED_BYTES> g2_to_compressed(const G2Affine& p) {
  return encode<G2Curve, G2_COMPRESSED_BYTES>(p, true);
}
std::array<std::uint8_t, G2_UNCOMPRESSED_BYTES> g2_to_uncompressed(const G2Affine& p) {
  return encode<G2Curve, G2_UNCOMPRESSED_BYTES>(p, false);
}

DecodeResult<G1Affine> g1_from_bytes(std::span<const std::uint8_t> in, Validation v) { return decode<G1Curve>(in, v); }
DecodeResult<G2Affine> g2_from_bytes(std::span<const std::uint8_t> in, Validation v) { return decode<G2Curve>(in, v); }

}  // namespace snarkpipe::ec
