// The SHA-256 gadget: the compression function over 512 message bits and an 8-word state,
// and the padded hash of a bit string. Bits are in SHA-256's order: message byte 0 first,
// each byte most significant bit first; the digest likewise (state word 0 first, big-endian).
//
// Cost of one compression with all 512 block bits non-constant and a non-constant state,
// not counting the block bits' own booleanity: 26,128 constraints; with the constant IV
// (bellperson's full-block test) 25,773, against bellperson's 25,840; a constant block (the
// padding) after a non-constant state about 19,040.
//   per round: Σ0, Σ1 64 each (two XORs per bit), Ch 32, Maj 64, two additions of 35-36
//              result bits;
//   per scheduled word: σ0 61, σ1 54 (the shifted-in bits are constant), one 34-bit addition.
// Savings over the textbook layout: constant bits fold (constant IV words make the first
// rounds cheaper, a constant padding block makes the whole message schedule free, constant
// summands fold into one term); the packing equalities of all additions are stacked, seven
// to a constraint (multi_eq.hpp); W[62], W[63] and the last round's new a and e are never
// materialized, their summands go straight into the additions that consume them.
#pragma once

#include <array>
#include <span>
#include <string_view>
#include <vector>

#include "gadgets/num.hpp"
#include "gadgets/sha256_native.hpp"
#include "gadgets/uint32.hpp"

namespace snarkpipe::gadgets {

// The initial hash value as constant words.
std::array<UInt32, 8> sha256_iv();

// One compression: block is 512 bits, state 8 words (else std::invalid_argument).
std::array<UInt32, 8> sha256_compression(ConstraintSystem& cs, std::string_view name, std::span<const Boolean> block,
                                         std::span<const UInt32> state);

// The SHA-256 digest (256 bits) of a message of any bit length; the padding is constant.
std::vector<Boolean> sha256(ConstraintSystem& cs, std::string_view name, std::span<const Boolean> message);

// The 512-bit padded form of a message: message ‖ 1 ‖ 0* ‖ 64-bit length (constants added).
std::vector<Boolean> sha256_pad(std::span<const Boolean> message);

// The digest as public inputs: two elements, each the big-endian integer of 16 digest bytes
// (input 0 = bytes 0..15, input 1 = bytes 16..31). 2 constraints.
std::vector<AllocatedNum> sha256_digest_into_inputs(ConstraintSystem& cs, std::string_view name,
                                                    std::span<const Boolean> digest);
// The same two elements from a known digest (what a verifier supplies).
std::array<Fr, 2> sha256_digest_public_inputs(const Sha256Digest& digest);

}  // namespace snarkpipe::gadgets
