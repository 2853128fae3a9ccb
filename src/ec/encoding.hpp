// The Zcash BLS12-381 point encoding (REFERENCE.md §2), as blst, bellperson and
// noble-curves speak it. Flags live in the top three bits of byte 0: 0x80 compressed,
// 0x40 point at infinity, 0x20 sign of y (compressed only). Coordinates are big-endian;
// G2 puts the imaginary part (c1) first.
//
// Decoders never abort on bad bytes: they return a DecodeResult that names the check that
// failed. Anything that comes from outside must be decoded with Validation::Full.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <variant>

#include "ec/curves.hpp"

namespace snarkpipe::ec {

enum class DecodeError {
  Length,           // not 48/96 (G1) or 96/192 (G2) bytes, or length disagrees with the form
  Flags,            // a flag combination the format forbids
  CoordinateRange,  // a coordinate is not a canonical integer < p
  NotOnCurve,       // the equation fails, or (compressed) x^3 + b has no square root
  NotInSubgroup,    // on the curve but outside the prime-order subgroup
};

const char* describe(DecodeError e);

template <class T>
class DecodeResult {
 public:
  DecodeResult(const T& v) : v_(v) {}     // NOLINT: implicit by design
  DecodeResult(DecodeError e) : v_(e) {}  // NOLINT
  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }
  const T& value() const;  // throws DecodeFailure when !ok()
  DecodeError error() const { return std::get<DecodeError>(v_); }

 private:
  std::variant<T, DecodeError> v_;
};

class DecodeFailure : public std::runtime_error {
 public:
  DecodeFailure(const std::string& what_point, DecodeError e)
      : std::runtime_error(what_point + ": " + describe(e)), error_(e) {}
  DecodeError error() const { return error_; }

 private:
  DecodeError error_;
};

template <class T>
const T& DecodeResult<T>::value() const {
  if (!ok()) throw DecodeFailure("point decoding failed", error());
  return std::get<T>(v_);
}

enum class Validation { Full, SkipSubgroup };

inline constexpr std::size_t G1_COMPRESSED_BYTES = 48;
inline constexpr std::size_t G1_UNCOMPRESSED_BYTES = 96;
inline constexpr std::size_t G2_COMPRESSED_BYTES = 96;
inline constexpr std::size_t G2_UNCOMPRESSED_BYTES = 192;

std::array<std::uint8_t, G1_COMPRESSED_BYTES> g1_to_compressed(const G1Affine& p);
std::array<std::uint8_t, G1_UNCOMPRESSED_BYTES> g1_to_uncompressed(const G1Affine& p);
std::array<std::uint8_t, G2_COMPRESSED_BYTES> g2_to_compressed(const G2Affine& p);
std::array<std::uint8_t, G2_UNCOMPRESSED_BYTES> g2_to_uncompressed(const G2Affine& p);

// Accepts either form; the length and the compression flag must agree.
DecodeResult<G1Affine> g1_from_bytes(std::span<const std::uint8_t> in, Validation v = Validation::Full);
DecodeResult<G2Affine> g2_from_bytes(std::span<const std::uint8_t> in, Validation v = Validation::Full);

}  // namespace snarkpipe::ec
