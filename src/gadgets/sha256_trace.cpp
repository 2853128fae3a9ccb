#include "gadgets/sha256_trace.hpp"

#include <bit>
#include <stdexcept>

namespace snarkpipe::gadgets::trace {

namespace {

constexpr std::uint32_t ALL = ~std::uint32_t(0);

// Writes bit i of `values` for each set bit i of `mask`, lowest first (the gadgets' order).
inline void push_masked(std::uint32_t mask, std::uint32_t values, AuxWriter& out) {
  for (; mask != 0; mask &= mask - 1) out.push_bit(((values >> std::countr_zero(mask)) & 1) != 0);
}

Word rotr(const Word& w, unsigned by) {
  return {std::rotr(w.value, int(by)), std::rotr(w.constant, int(by)), std::rotr(w.negated, int(by))};
}

// The vacated high bits are constant false.
Word shr(const Word& w, unsigned by) { return {w.value >> by, (w.constant >> by) | ~(ALL >> by), w.negated >> by}; }

// Boolean::xor_ per bit: allocates where both bits are variables (the XOR of the allocated
// bits); a constant operand passes the other bit through, negated when the constant is 1.
Word xor_(const Word& a, const Word& b, AuxWriter& out) {
  const std::uint32_t both = ~a.constant & ~b.constant;
  push_masked(both, a.value ^ a.negated ^ b.value ^ b.negated, out);
  Word r;
  r.value = a.value ^ b.value;
  r.constant = a.constant & b.constant;
  r.negated = (both & (a.negated ^ b.negated)) | (a.constant & ~b.constant & (b.negated ^ a.value)) |
              (~a.constant & b.constant & (a.negated ^ b.value));
  return r;
}

Word xor3(const Word& a, const Word& b, const Word& c, AuxWriter& out) { return xor_(xor_(a, b, out), c, out); }

// UInt32::sha256_ch: select(e, f, g) per bit. A constant condition picks an operand; two
// constant operands give a constant or the condition (negated when f is 0); else allocates.
Word ch(const Word& e, const Word& f, const Word& g, AuxWriter& out) {
  const std::uint32_t picked = (e.value & f.value) | (~e.value & g.value);
  const std::uint32_t both_const = f.constant & g.constant;
  push_masked(~e.constant & ~both_const, picked, out);
  const std::uint32_t differ = both_const & (f.value ^ g.value);
  Word r;
  r.value = picked;
  r.constant = (e.constant & ((e.value & f.constant) | (~e.value & g.constant))) | (~e.constant & both_const & ~differ);
  r.negated =
      (e.constant & ((e.value & f.negated) | (~e.value & g.negated))) | (~e.constant & differ & (e.negated ^ ~f.value));
  return r;
}

Bit and_(const Bit& a, const Bit& b, AuxWriter& out) {
  if (a.constant) return a.value ? b : Bit::constant_bit(false);
  if (b.constant) return b.value ? a : Bit::constant_bit(false);
  return alloc_bit(a.value && b.value, out);
}

Bit or_(const Bit& a, const Bit& b, AuxWriter& out) { return and_(a.not_(), b.not_(), out).not_(); }

// Boolean::sha256_maj per bit.
Word maj(const Word& a, const Word& b, const Word& c, AuxWriter& out) {
  Word r;
  r.constant = 0;
  for (unsigned i = 0; i < 32; ++i) {
    const Bit x = a.bit(i), y = b.bit(i), z = c.bit(i);
    Bit m;
    if (x.constant) {
      m = x.value ? or_(y, z, out) : and_(y, z, out);
    } else if (y.constant) {
      m = y.value ? or_(x, z, out) : and_(x, z, out);
    } else if (z.constant) {
      m = z.value ? or_(x, y, out) : and_(x, y, out);
    } else {
      out.push_bit(y.value && z.value);
      m = alloc_bit(int(x.value) + int(y.value) + int(z.value) >= 2, out);
    }
    r.value |= std::uint32_t(m.value) << i;
    r.constant |= std::uint32_t(m.constant) << i;
    r.negated |= std::uint32_t(m.negated) << i;
  }
  return r;
}

// UInt32::addmany: constants fold, the result width follows the bound on the sum, every
// result bit is allocated.
Word addmany(std::span<const Word> operands, AuxWriter& out) {
  std::uint64_t constant_sum = 0, bound = 0, value = 0;
  for (const Word& op : operands) {
    value += op.value;
    bound += ~op.constant;
    constant_sum += op.constant & op.value;
  }
  if (bound == 0) return Word::of_constant(std::uint32_t(constant_sum));
  const unsigned width = unsigned(std::bit_width(bound + constant_sum));
  for (unsigned i = 0; i < width; ++i) out.push_bit(((value >> i) & 1) != 0);
  const std::uint32_t var = width >= 32 ? ALL : (std::uint32_t(1) << width) - 1;
  return {std::uint32_t(value) & var, ~var, 0};
}

Word word_from_bits_be(std::span<const Bit> bits) {
  Word w{0, 0, 0};
  for (unsigned i = 0; i < 32; ++i) {
    const Bit& b = bits[31 - i];
    w.value |= std::uint32_t(b.value) << i;
    w.constant |= std::uint32_t(b.constant) << i;
    w.negated |= std::uint32_t(b.negated) << i;
  }
  return w;
}

std::vector<Bit> sha256_pad(std::span<const Bit> message) {
  std::vector<Bit> padded(message.begin(), message.end());
  const std::uint64_t bit_len = message.size();
  padded.push_back(Bit::constant_bit(true));
  while (padded.size() % 512 != 448) padded.push_back(Bit::constant_bit(false));
  for (int i = 63; i >= 0; --i) padded.push_back(Bit::constant_bit(((bit_len >> i) & 1) != 0));
  return padded;
}

}  // namespace

std::vector<Bit> alloc_bits_be(std::span<const std::uint8_t> bytes, AuxWriter& out) {
  std::vector<Bit> bits;
  bits.reserve(bytes.size() * 8);
  for (std::uint8_t byte : bytes) {
    for (int i = 7; i >= 0; --i) bits.push_back(alloc_bit(((byte >> i) & 1) != 0, out));
  }
  return bits;
}

std::vector<Bit> constant_bits_be(std::span<const std::uint8_t> bytes) {
  std::vector<Bit> bits;
  bits.reserve(bytes.size() * 8);
  for (std::uint8_t byte : bytes) {
    for (int i = 7; i >= 0; --i) bits.push_back(Bit::constant_bit(((byte >> i) & 1) != 0));
  }
  return bits;
}

std::vector<std::uint8_t> bytes_of(std::span<const Bit> bits) {
  std::vector<std::uint8_t> out(bits.size() / 8, 0);
  for (std::size_t i = 0; i < out.size() * 8; ++i) {
    if (bits[i].value) out[i / 8] |= std::uint8_t(1u << (7 - i % 8));
  }
  return out;
}

Bit select(const Bit& cond, const Bit& if_true, const Bit& if_false, AuxWriter& out) {
  if (cond.constant) return cond.value ? if_true : if_false;
  if (if_true.constant && if_false.constant) {
    if (if_true.value == if_false.value) return if_true;
    return if_true.value ? cond : cond.not_();
  }
  return alloc_bit(cond.value ? if_true.value : if_false.value, out);
}

std::array<Word, 8> sha256_compression(std::span<const Bit> block, std::span<const Word> state, AuxWriter& out) {
  if (block.size() != 512 || state.size() != 8)
    throw std::invalid_argument("trace::sha256_compression: block or state size");
  // The message schedule; W[62], W[63] stay summands, as in the gadget.
  std::array<std::array<Word, 4>, 64> w{};
  std::array<std::size_t, 64> terms{};
  for (int i = 0; i < 16; ++i) {
    w[i][0] = word_from_bits_be(block.subspan(32 * i, 32));
    terms[i] = 1;
  }
  const auto sigma0 = [&](const Word& x) { return xor3(rotr(x, 7), rotr(x, 18), shr(x, 3), out); };
  const auto sigma1 = [&](const Word& x) { return xor3(rotr(x, 17), rotr(x, 19), shr(x, 10), out); };
  for (int i = 16; i < 64; ++i) {
    const Word s0 = sigma0(w[i - 15][0]);
    const Word s1 = sigma1(w[i - 2][0]);
    const std::array<Word, 4> t = {w[i - 16][0], s0, w[i - 7][0], s1};
    if (i < 62) {
      w[i][0] = addmany(t, out);
      terms[i] = 1;
    } else {
      w[i] = t;
      terms[i] = 4;
    }
  }

  Word a = state[0], b = state[1], c = state[2], d = state[3];
  Word e = state[4], f = state[5], g = state[6], h = state[7];
  std::array<Word, 10> new_e{}, new_a{};
  std::size_t ne = 0, na = 0;
  for (int t = 0; t < 64; ++t) {
    const Word s1 = xor3(rotr(e, 6), rotr(e, 11), rotr(e, 25), out);
    const Word chv = ch(e, f, g, out);
    // t1 = h + Σ1 + Ch + K + W[t]
    std::array<Word, 8> t1{h, s1, chv, Word::of_constant(SHA256_K[t])};
    std::size_t nt1 = 4;
    for (std::size_t k = 0; k < terms[t]; ++k) t1[nt1++] = w[t][k];
    const Word s0 = xor3(rotr(a, 2), rotr(a, 13), rotr(a, 22), out);
    const Word mj = maj(a, b, c, out);
    ne = 0;
    new_e[ne++] = d;
    for (std::size_t k = 0; k < nt1; ++k) new_e[ne++] = t1[k];
    na = 0;
    for (std::size_t k = 0; k < nt1; ++k) new_a[na++] = t1[k];
    new_a[na++] = s0;
    new_a[na++] = mj;
    h = g;
    g = f;
    f = e;
    d = c;
    c = b;
    b = a;
    if (t < 63) {
      e = addmany(std::span(new_e.data(), ne), out);
      a = addmany(std::span(new_a.data(), na), out);
    }
  }

  // The final additions; the last round's new a and e enter as their summands.
  std::array<Word, 11> h0{state[0]}, h4{state[4]};
  for (std::size_t k = 0; k < na; ++k) h0[k + 1] = new_a[k];
  for (std::size_t k = 0; k < ne; ++k) h4[k + 1] = new_e[k];
  std::array<Word, 8> result;
  result[0] = addmany(std::span(h0.data(), na + 1), out);
  const std::array<Word, 8> rest = {Word{}, b, c, d, Word{}, f, g, h};
  for (int k = 1; k < 8; ++k) {
    if (k == 4) {
      result[4] = addmany(std::span(h4.data(), ne + 1), out);
    } else {
      const std::array<Word, 2> pair = {state[k], rest[k]};
      result[k] = addmany(pair, out);
    }
  }
  return result;
}

std::vector<Bit> sha256(std::span<const Bit> message, AuxWriter& out) {
  const std::vector<Bit> padded = sha256_pad(message);
  std::array<Word, 8> state;
  for (int i = 0; i < 8; ++i) state[i] = Word::of_constant(SHA256_IV[i]);
  for (std::size_t i = 0; i < padded.size() / 512; ++i) {
    state = sha256_compression(std::span(padded).subspan(512 * i, 512), state, out);
  }
  std::vector<Bit> digest;
  digest.reserve(256);
  for (const Word& word : state) {
    for (int i = 31; i >= 0; --i) digest.push_back(word.bit(unsigned(i)));
  }
  return digest;
}

std::vector<Bit> merkle_root(std::span<const Bit> leaf, std::span<const std::vector<Bit>> siblings,
                             std::span<const Bit> index_bits, AuxWriter& out) {
  if (leaf.size() != 256 || siblings.size() != index_bits.size())
    throw std::invalid_argument("trace::merkle_root: sizes");
  std::vector<Bit> node(leaf.begin(), leaf.end());
  std::vector<Bit> message(512);
  for (std::size_t j = 0; j < siblings.size(); ++j) {
    const Bit& cond = index_bits[j];
    const std::vector<Bit>& sib = siblings[j];
    // conditional_swap: per bit, the left then the right child.
    for (std::size_t i = 0; i < 256; ++i) {
      message[i] = select(cond, sib[i], node[i], out);
      message[256 + i] = select(cond, node[i], sib[i], out);
    }
    node = sha256(message, out);
  }
  return node;
}

}  // namespace snarkpipe::gadgets::trace
