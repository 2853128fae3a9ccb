// The SHA-256 gadgets replayed natively for the fast witness path: the same decisions the
// Boolean / UInt32 / SHA-256 / Merkle gadgets take (which bits are constant, which operations
// fold away, which allocate), made on plain integers, with each value the gadget would
// allocate written to an AuxWriter in the gadget's order. No linear combinations, names,
// closures or optionals: a compression costs a few microseconds instead of milliseconds.
//
// A bit carries what the gadget's Boolean carries: its value, whether it is a constant, and
// for a variable whether it is the negation of the allocated bit (the allocated value is
// then the opposite of the bit's value, which matters when an XOR allocates from it).
// A word holds 32 such bits as masks, bit i the 2^i bit (UInt32's little-endian order).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "gadgets/aux_writer.hpp"
#include "gadgets/sha256_native.hpp"

namespace snarkpipe::gadgets::trace {

struct Bit {
  bool value = false;
  bool constant = true;
  bool negated = false;

  static Bit constant_bit(bool v) { return {v, true, false}; }
  Bit not_() const { return {!value, constant, constant ? negated : !negated}; }
};

struct Word {
  std::uint32_t value = 0;
  std::uint32_t constant = ~std::uint32_t(0);  // bit i set: bit i is a constant
  std::uint32_t negated = 0;                   // for variable bits: the negation flag

  static Word of_constant(std::uint32_t v) { return {v, ~std::uint32_t(0), 0}; }
  Bit bit(unsigned i) const { return {((value >> i) & 1) != 0, ((constant >> i) & 1) != 0, ((negated >> i) & 1) != 0}; }
};

// An allocated bit (AllocatedBit::alloc / Boolean::alloc): writes its value.
inline Bit alloc_bit(bool v, AuxWriter& out) {
  out.push_bit(v);
  return {v, false, false};
}
// alloc_bits_be over bytes: 8 bits per byte, most significant first.
std::vector<Bit> alloc_bits_be(std::span<const std::uint8_t> bytes, AuxWriter& out);
std::vector<Bit> constant_bits_be(std::span<const std::uint8_t> bytes);
// The bytes the bits' values spell (bits.size() a multiple of 8).
std::vector<std::uint8_t> bytes_of(std::span<const Bit> bits);

Bit select(const Bit& cond, const Bit& if_true, const Bit& if_false, AuxWriter& out);

// sha256_compression / sha256 (sha256.hpp).
std::array<Word, 8> sha256_compression(std::span<const Bit> block, std::span<const Word> state, AuxWriter& out);
std::vector<Bit> sha256(std::span<const Bit> message, AuxWriter& out);

// merkle_root_gadget (merkle.hpp): leaf and siblings 256 bits each, one index bit per level.
std::vector<Bit> merkle_root(std::span<const Bit> leaf, std::span<const std::vector<Bit>> siblings,
                             std::span<const Bit> index_bits, AuxWriter& out);

}  // namespace snarkpipe::gadgets::trace
