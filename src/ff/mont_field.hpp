// A prime field in Montgomery form, generic over the modulus (DESIGN.md §2, src/ff).
//
// Elements are kept as x·R mod p with R = 2^(64·N) in little-endian 64-bit limbs: the same
// in-memory layout as blst, blstrs and sppark. Fr's limbs are fully reduced (< p); Fp's are
// below 2p (the redundant form, see MontField), and reduced wherever they are observed. Multiplication goes
// through the x86-64 MULX/ADCX/ADOX assembly when the build has it (SNARKPIPE_HAVE_ASM) and
// through the portable CIOS loop otherwise; the portable loop also serves constexpr
// evaluation, so field constants are computed at compile time from their hex values.
#pragma once

#include <cstring>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "ff/bigint.hpp"
// + and − as x86-64 inline assembly (add_x86_64.hpp), unless the build asks for the portable
// field code (SNARKPIPE_X86_ASM=OFF defines SNARKPIPE_PORTABLE_FIELD): sanitizer builds need
// that, since instrumented code cannot give these chains the registers they take.
#if defined(__x86_64__) && !defined(SNARKPIPE_PORTABLE_FIELD)
#define SNARKPIPE_X86_INLINE_ADD 1
#include "ff/add_x86_64.hpp"
#endif

namespace snarkpipe::ff {

// Portable Montgomery multiplication (CIOS): out = a·b·R^-1 mod p, reduced (< p); inputs
// < p, or < 2p where 4p < R (Fp).
template <std::size_t N>
constexpr void mont_mul_portable(Limbs<N>& out, const Limbs<N>& a, const Limbs<N>& b, const Limbs<N>& p, u64 inv) {
  u64 t[N + 2] = {};
  for (std::size_t i = 0; i < N; ++i) {
    u64 carry = 0;
    for (std::size_t j = 0; j < N; ++j) {
      u128 s = u128(a[j]) * b[i] + t[j] + carry;
      t[j] = u64(s);
      carry = u64(s >> 64);
    }
    u128 s = u128(t[N]) + carry;
    t[N] = u64(s);
    t[N + 1] = u64(s >> 64);

    const u64 m = t[0] * inv;
    s = u128(m) * p[0] + t[0];
    carry = u64(s >> 64);
    for (std::size_t j = 1; j < N; ++j) {
      s = u128(m) * p[j] + t[j] + carry;
      t[j - 1] = u64(s);
      carry = u64(s >> 64);
    }
    s = u128(t[N]) + carry;
    t[N - 1] = u64(s);
    t[N] = t[N + 1] + u64(s >> 64);
  }
  Limbs<N> r{}, d{};
  for (std::size_t i = 0; i < N; ++i) r[i] = t[i];
  const u64 borrow = sub_to(d, r, p);
  // t < 2p: subtract p unless that borrows past the extra word.
  out = (t[N] != 0 || borrow == 0) ? d : r;
}

// R^2 mod p, by doubling 1 modulo p 2·64·N times.
template <std::size_t N>
constexpr Limbs<N> compute_r2(const Limbs<N>& p) {
  Limbs<N> x = from_u64<N>(1);
  for (std::size_t i = 0; i < 2 * 64 * N; ++i) {
    Limbs<N> d{}, s{};
    const u64 carry = add_to(s, x, x);
    const u64 borrow = sub_to(d, s, p);
    x = (carry || !borrow) ? d : s;
  }
  return x;
}

// Params supplies: N, modulus, inv (= -p^-1 mod 2^64), optionally `static constexpr bool
// redundant = true` (see below), and optionally
// `static void asm_mul(u64*, const u64*, const u64*)` / `asm_sqr(u64*, const u64*)` with
// `static constexpr bool has_asm = true`, and the inline forms `inline_mul(Repr&, const
// Repr&, const Repr&)` (`has_inline_asm`) and `inline_sqr(Repr&, const Repr&)` (`has_inline_sqr`).
//
// A redundant field (Fp) keeps its Montgomery limbs anywhere in [0, 2p), not only in [0, p):
// with 4p < R a Montgomery product of two such values is again < 2p without the final
// conditional subtraction (ab/R + p < 4p²/R + p < 2p), so the multiplication and the
// squaring skip it (18 instructions and their latency per product), and the additions
// reduce modulo 2p. Each value then has up to two representations, v and v + p: every
// observer reduces first (montgomery(), ==, is_zero, to_repr and all that builds on it), so
// the redundancy is invisible outside the arithmetic. `montgomery_redundant()` gives the
// stored limbs to kernels that take operands < 2p.
template <class P>
class MontField {
  template <class Q>
  static constexpr bool detect_redundant() {
    if constexpr (requires { Q::redundant; }) return Q::redundant;
    return false;
  }

 public:
  static constexpr std::size_t N = P::N;
  using Repr = Limbs<N>;
  static constexpr Repr MODULUS = P::modulus;
  static constexpr u64 INV = P::inv;
  static constexpr std::size_t BITS = bit_length(P::modulus);
  static constexpr std::size_t BYTES = (BITS + 7) / 8;
  static constexpr Repr R2 = compute_r2(P::modulus);
  static constexpr bool REDUNDANT = detect_redundant<P>();
  // The bound of the stored limbs (2p for a redundant field), and the modulus of its
  // additions and subtractions.
  static constexpr Repr BOUND = [] {
    Repr b = MODULUS;
    if (REDUNDANT) add_to(b, MODULUS, MODULUS);
    return b;
  }();
  static_assert(!REDUNDANT || (MODULUS[N - 1] >> 61) == 0, "a redundant field needs 4p < R");

  constexpr MontField() : v_{} {}

  static constexpr MontField zero() { return MontField(); }
  static constexpr MontField one() { return from_u64(1); }
  static constexpr MontField from_u64(u64 x) { return from_canonical_unchecked(ff::from_u64<N>(x)); }
  // Builds a constant from big-endian hex; a value >= p fails (at compile time when constexpr).
  static constexpr MontField from_hex(std::string_view hex) {
    const Repr r = parse_hex<N>(hex);
    if (compare(r, MODULUS) >= 0) throw std::invalid_argument("field constant >= modulus");
    return from_canonical_unchecked(r);
  }
  // Canonical integer -> element; nullopt when the value is not < p.
  static constexpr std::optional<MontField> from_repr(const Repr& r) {
    if (compare(r, MODULUS) >= 0) return std::nullopt;
    return from_canonical_unchecked(r);
  }
  // Canonical integer -> element, stored reduced (< p) even in a redundant field: decoded
  // values and random samples start canonical.
  static constexpr MontField from_canonical_unchecked(const Repr& r) {
    MontField x;
    mul_raw(x.v_, r, R2);
    x.v_ = reduced(x.v_);
    return x;
  }
  // Montgomery limbs (as stored by blst/sppark); below BOUND (2p for a redundant field).
  static constexpr MontField from_montgomery(const Repr& m) {
    MontField x;
    x.v_ = m;
    return x;
  }
  // The reduced Montgomery limbs (< p): a copy for a redundant field (it may have to
  // subtract p), the stored limbs otherwise.
  constexpr decltype(auto) montgomery() const {
    if constexpr (REDUNDANT) {
      return Repr(reduced(v_));
    } else {
      return static_cast<const Repr&>(v_);
    }
  }
  // The stored limbs, < BOUND: for kernels that take operands < 2p as they are.
  constexpr const Repr& montgomery_redundant() const { return v_; }
  // The same element with its limbs reduced (< p), e.g. before raw copies of points to a GPU.
  constexpr MontField reduce() const { return from_montgomery(reduced(v_)); }
  constexpr bool is_reduced() const { return compare(v_, MODULUS) < 0; }

  // v·R^-1 for v < 2p is at most p (p only for v ≡ 0), so one reduction of the product serves.
  constexpr Repr to_repr() const {
    Repr r{};
    mul_raw(r, v_, ff::from_u64<N>(1));
    return reduced(r);
  }

  constexpr bool is_zero() const {
    if constexpr (REDUNDANT) return ff::is_zero(v_) || v_ == MODULUS;
    return ff::is_zero(v_);
  }
  constexpr bool is_one() const { return *this == one(); }
  friend constexpr bool operator==(const MontField& a, const MontField& b) {
    if constexpr (REDUNDANT) return reduced(a.v_) == reduced(b.v_);
    return a.v_ == b.v_;
  }

  [[gnu::always_inline]] friend constexpr MontField operator+(const MontField& a, const MontField& b) {
    MontField r;
    add_mod(r.v_, a.v_, b.v_);
    return r;
  }
  [[gnu::always_inline]] friend constexpr MontField operator-(const MontField& a, const MontField& b) {
    MontField r;
    sub_mod(r.v_, a.v_, b.v_);
    return r;
  }
  [[gnu::always_inline]] constexpr MontField operator-() const {
    MontField r;
    neg_mod(r.v_, v_);
    return r;
  }
  [[gnu::always_inline]] friend constexpr MontField operator*(const MontField& a, const MontField& b) {
    MontField r;
    mul_raw(r.v_, a.v_, b.v_);
    return r;
  }
  [[gnu::always_inline]] constexpr MontField& operator+=(const MontField& b) { return *this = *this + b; }
  [[gnu::always_inline]] constexpr MontField& operator-=(const MontField& b) { return *this = *this - b; }
  [[gnu::always_inline]] constexpr MontField& operator*=(const MontField& b) { return *this = *this * b; }

  [[gnu::always_inline]] constexpr MontField dbl() const { return *this + *this; }
  [[gnu::always_inline]] constexpr MontField square() const {
    MontField r;
    sqr_raw(r.v_, v_);
    return r;
  }
  // x/2: add p when odd (p is odd), then shift (x < 2p gives (x + p)/2 < 3p/2).
  constexpr MontField half() const {
    Repr s = v_;
    u64 carry = 0;
    if (s[0] & 1) carry = add_to(s, s, MODULUS);
    s = shr1(s);
    s[N - 1] |= carry << 63;
    return from_montgomery(s);
  }

  // Left-to-right with a fixed 4-bit window: about bits squarings and bits/4
  // multiplications (the exponents used here, p - 2, (p + 1)/4, (p - 1)/2 ..., are public).
  template <std::size_t M>
  constexpr MontField pow(const Limbs<M>& e) const {
    const std::size_t bits = bit_length(e);
    if (bits == 0) return one();
    MontField table[16];
    table[0] = one();
    table[1] = *this;
    for (std::size_t k = 2; k < 16; ++k) table[k] = table[k - 1] * *this;
    const std::size_t top = (bits - 1) / 4;  // index of the most significant window
    auto window = [&](std::size_t w) {
      unsigned d = 0;
      for (std::size_t b = 4; b-- > 0;) d = (d << 1) | (test_bit(e, 4 * w + b) ? 1u : 0u);
      return d;
    };
    MontField r = table[window(top)];
    for (std::size_t w = top; w-- > 0;) {
      for (int k = 0; k < 4; ++k) r = r.square();
      if (const unsigned d = window(w); d != 0) r *= table[d];
    }
    return r;
  }
  constexpr MontField pow(u64 e) const { return pow(ff::from_u64<1>(e)); }

  // Multiplicative inverse (Fermat); the inverse of zero is zero.
  constexpr MontField inverse() const {
    Repr e = MODULUS;
    e[0] -= 2;  // p is odd and > 2, no borrow
    return pow(e);
  }

  // Legendre symbol: 1 for a non-zero square, -1 for a non-square, 0 for zero.
  int legendre() const {
    if (is_zero()) return 0;
    return pow(shr1(p_minus_1())).is_one() ? 1 : -1;
  }

  // A square root when one exists (either of the two; callers pick the sign).
  std::optional<MontField> sqrt() const {
    if (is_zero()) return zero();
    if ((MODULUS[0] & 3) == 3) {
      Repr e{};
      add_to(e, MODULUS, ff::from_u64<N>(1));
      const MontField r = pow(shr1(shr1(e)));
      if (r.square() == *this) return r;
      return std::nullopt;
    }
    return tonelli_shanks();
  }

  // True when the canonical value is > (p-1)/2: the "sign" used by point compression.
  bool is_lexicographically_largest() const { return compare(to_repr(), shr1(p_minus_1())) > 0; }

  void to_bytes_be(std::uint8_t* out) const {
    const Repr r = to_repr();
    for (std::size_t i = 0; i < BYTES; ++i) out[BYTES - 1 - i] = std::uint8_t(r[i / 8] >> (8 * (i % 8)));
  }
  void to_bytes_le(std::uint8_t* out) const {
    const Repr r = to_repr();
    for (std::size_t i = 0; i < BYTES; ++i) out[i] = std::uint8_t(r[i / 8] >> (8 * (i % 8)));
  }
  // Canonical bytes (exactly BYTES of them) -> element; nullopt when the value is >= p.
  static std::optional<MontField> from_bytes_be(std::span<const std::uint8_t> in) {
    if (in.size() != BYTES) return std::nullopt;
    Repr r{};
    for (std::size_t i = 0; i < BYTES; ++i) r[i / 8] |= u64(in[BYTES - 1 - i]) << (8 * (i % 8));
    return from_repr(r);
  }
  static std::optional<MontField> from_bytes_le(std::span<const std::uint8_t> in) {
    if (in.size() != BYTES) return std::nullopt;
    Repr r{};
    for (std::size_t i = 0; i < BYTES; ++i) r[i / 8] |= u64(in[i]) << (8 * (i % 8));
    return from_repr(r);
  }
  std::string to_hex() const {
    static constexpr char digits[] = "0123456789abcdef";
    std::uint8_t b[BYTES];
    to_bytes_be(b);
    std::string s;
    for (std::uint8_t x : b) {
      s.push_back(digits[x >> 4]);
      s.push_back(digits[x & 15]);
    }
    return s;
  }

  // The canonical value in decimal (snarkjs's public.json convention).
  std::string to_decimal() const {
    Repr r = to_repr();
    std::string digits;
    constexpr u64 CHUNK = 10000000000000000000ULL;  // 10^19
    do {
      u64 rem = 0;
      r = div_small(r, CHUNK, &rem);
      for (int i = 0; i < 19; ++i) {
        digits.push_back(char('0' + rem % 10));
        rem /= 10;
        if (ff::is_zero(r) && rem == 0) break;
      }
    } while (!ff::is_zero(r));
    return std::string(digits.rbegin(), digits.rend());
  }
  // Parses a non-negative decimal integer; nullopt when it is not one or is >= p.
  static std::optional<MontField> from_decimal(std::string_view s) {
    if (s.empty() || s.size() > 100) return std::nullopt;
    Repr r{};
    for (char ch : s) {
      if (ch < '0' || ch > '9') return std::nullopt;
      u64 carry = u64(ch - '0');
      for (std::size_t i = 0; i < N; ++i) {
        const u128 t = u128(r[i]) * 10 + carry;
        r[i] = u64(t);
        carry = u64(t >> 64);
      }
      if (carry) return std::nullopt;
    }
    return from_repr(r);
  }

  // Uniform sampling by rejection; Rng yields uniform 64-bit words (see ff/random.hpp).
  template <class Rng>
  static MontField random(Rng& rng) {
    constexpr std::size_t top_bits = BITS - 64 * (N - 1);
    constexpr u64 mask = top_bits == 64 ? ~u64(0) : (u64(1) << top_bits) - 1;
    for (;;) {
      Repr r{};
      for (auto& w : r) w = rng.next_u64();
      r[N - 1] &= mask;
      if (compare(r, MODULUS) < 0) return from_canonical_unchecked(r);
    }
  }

  // The portable path, always compiled, so tests can hold the assembly against it.
  static constexpr MontField mul_portable(const MontField& a, const MontField& b) {
    MontField r;
    mont_mul_portable<N>(r.v_, a.v_, b.v_, MODULUS, INV);
    return r;
  }
  static constexpr bool uses_asm() {
#if defined(SNARKPIPE_HAVE_ASM)
    return has_asm_v;
#else
    return false;
#endif
  }

 private:
  template <class Q>
  static constexpr bool detect_asm() {
    if constexpr (requires { Q::has_asm; }) return Q::has_asm;
    return false;
  }
  static constexpr bool has_asm_v = detect_asm<P>();
  template <class Q>
  static constexpr bool detect_inline_asm() {
    if constexpr (requires { Q::has_inline_asm; }) return Q::has_inline_asm;
    return false;
  }
  static constexpr bool has_inline_asm_v = detect_inline_asm<P>();
  template <class Q>
  static constexpr bool detect_inline_sqr() {
    if constexpr (requires { Q::has_inline_sqr; }) return Q::has_inline_sqr;
    return false;
  }
  static constexpr bool has_inline_sqr_v = detect_inline_sqr<P>();

  // (a + b), (a - b) and -a mod p. On x86-64 the 4- and 6-limb cases are inline assembly
  // (add_x86_64.hpp); the loops serve constexpr evaluation, other targets and the portable build.
  [[gnu::always_inline]] static constexpr void add_mod(Repr& r, const Repr& a, const Repr& b) {
#if defined(SNARKPIPE_X86_INLINE_ADD)
    if constexpr (N == 4 || N == 6) {
      if (!std::is_constant_evaluated()) {
        if constexpr (N == 4) {
#if defined(__OPTIMIZE__)
          x86::add_mod_4(r, a, b, BOUND);
#else
          x86::ptr::add_mod_4_ptr(r.data(), a.data(), b.data(), BOUND.data());
#endif
        }
        if constexpr (N == 6) {
#if defined(__OPTIMIZE__)
          x86::add_mod_6(r, a, b, BOUND);
#else
          x86::ptr::add_mod_6_ptr(r.data(), a.data(), b.data(), BOUND.data());
#endif
        }
        return;
      }
    }
#endif
    Repr s{};
    const u64 carry = add_to(s, a, b);
    const u64 borrow = sub_to(r, s, BOUND);
    if (!carry && borrow) r = s;
  }
  [[gnu::always_inline]] static constexpr void neg_mod(Repr& r, const Repr& a) {
#if defined(SNARKPIPE_X86_INLINE_ADD) && defined(__OPTIMIZE__)
    if constexpr (N == 4 || N == 6) {
      if (!std::is_constant_evaluated()) {
        if constexpr (N == 4) x86::neg_mod_4(r, a, BOUND);
        if constexpr (N == 6) x86::neg_mod_6(r, a, BOUND);
        return;
      }
    }
#endif
    if (ff::is_zero(a)) {
      r = a;
    } else {
      sub_to(r, BOUND, a);
    }
  }
  [[gnu::always_inline]] static constexpr void sub_mod(Repr& r, const Repr& a, const Repr& b) {
#if defined(SNARKPIPE_X86_INLINE_ADD)
    if constexpr (N == 4 || N == 6) {
      if (!std::is_constant_evaluated()) {
        if constexpr (N == 4) {
#if defined(__OPTIMIZE__)
          x86::sub_mod_4(r, a, b, BOUND);
#else
          x86::ptr::sub_mod_4_ptr(r.data(), a.data(), b.data(), BOUND.data());
#endif
        }
        if constexpr (N == 6) {
#if defined(__OPTIMIZE__)
          x86::sub_mod_6(r, a, b, BOUND);
#else
          x86::ptr::sub_mod_6_ptr(r.data(), a.data(), b.data(), BOUND.data());
#endif
        }
        return;
      }
    }
#endif
    if (sub_to(r, a, b)) add_to(r, r, BOUND);
  }

  // v mod p for v < BOUND: one conditional subtraction of p (nothing for a canonical field).
  [[gnu::always_inline]] static constexpr Repr reduced(const Repr& v) {
    if constexpr (!REDUNDANT) {
      return v;
    } else {
#if defined(SNARKPIPE_X86_INLINE_ADD) && defined(__OPTIMIZE__)
      if constexpr (N == 6) {
        if (!std::is_constant_evaluated()) {
          Repr r;
          x86::reduce_once_6(r, v, MODULUS);
          return r;
        }
      }
#endif
      Repr d{};
      return sub_to(d, v, MODULUS) ? v : d;
    }
  }

  [[gnu::always_inline]] static constexpr void mul_raw(Repr& out, const Repr& a, const Repr& b) {
#if defined(SNARKPIPE_HAVE_ASM)
    if constexpr (has_inline_asm_v) {
      if (!std::is_constant_evaluated()) {
        P::inline_mul(out, a, b);
        return;
      }
    }
    if constexpr (has_asm_v) {
      if (!std::is_constant_evaluated()) {
        P::asm_mul(out.data(), a.data(), b.data());
        return;
      }
    }
#endif
    mont_mul_portable<N>(out, a, b, MODULUS, INV);
  }
  // Squaring: the inline symmetric squaring where the field has one (Fp), else the inline
  // multiplication a·a (Fr: the symmetric schedule does not fit its modulus), else the
  // called assembly. The inline forms keep the result in registers: the called one stores
  // it word by word, and the caller's 16-byte copy of it then waits on store forwarding.
  [[gnu::always_inline]] static constexpr void sqr_raw(Repr& out, const Repr& a) {
#if defined(SNARKPIPE_HAVE_ASM)
    if constexpr (has_inline_sqr_v) {
      if (!std::is_constant_evaluated()) {
        P::inline_sqr(out, a);
        return;
      }
    }
    if constexpr (has_inline_asm_v) {
      if (!std::is_constant_evaluated()) {
        P::inline_mul(out, a, a);
        return;
      }
    }
    if constexpr (has_asm_v) {
      if (!std::is_constant_evaluated()) {
        P::asm_sqr(out.data(), a.data());
        return;
      }
    }
#endif
    mont_mul_portable<N>(out, a, a, MODULUS, INV);
  }

  static constexpr Repr p_minus_1() {
    Repr e = MODULUS;
    e[0] -= 1;
    return e;
  }

  // Tonelli–Shanks for p ≡ 1 (mod 4) (Fr: two-adicity 32).
  std::optional<MontField> tonelli_shanks() const {
    Repr t = p_minus_1();
    std::size_t s = 0;
    while ((t[0] & 1) == 0) {
      t = shr1(t);
      ++s;
    }
    static const MontField z = [] {
      for (u64 k = 2;; ++k) {
        if (from_u64(k).legendre() == -1) return from_u64(k);
      }
    }();
    if (legendre() != 1) return std::nullopt;
    std::size_t m = s;
    MontField c = z.pow(t);
    Repr t1{};
    add_to(t1, t, ff::from_u64<N>(1));
    MontField r = pow(shr1(t1));
    MontField tt = pow(t);
    while (!tt.is_one()) {
      std::size_t i = 0;
      MontField x = tt;
      while (!x.is_one()) {
        x = x.square();
        ++i;
      }
      MontField b = c;
      for (std::size_t j = 0; j + i + 1 < m; ++j) b = b.square();
      m = i;
      c = b.square();
      tt *= c;
      r *= b;
    }
    return r;
  }

  Repr v_;
};

}  // namespace snarkpipe::ff
