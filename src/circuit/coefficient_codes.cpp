#include "circuit/coefficient_codes.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include <stdexcept>

namespace snarkpipe::circuit {

using ff::Fr;

PowerOfTwoCoefficients::PowerOfTwoCoefficients() {
  for (std::uint32_t k = 0; k < COEFF_POWERS; ++k) {
    pow2_[k] = Fr::from_u64(std::uint64_t(1) << k);
    for (const bool negative : {false, true}) {
      const Fr x = negative ? -pow2_[k] : pow2_[k];
      std::size_t h = slot(x);
      while (used_[h]) h = (h + 1) % SLOTS;
      used_[h] = true;
      value_[h] = x;
      code_[h] = k | (negative ? COEFF_NEGATIVE : 0u);
    }
  }
}

std::size_t PowerOfTwoCoefficients::slot(const Fr& x) {
  std::uint64_t v = x.montgomery()[0];  // splitmix64's finalizer
  v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9ull;
  v = (v ^ (v >> 27)) * 0x94d049bb133111ebull;
  return std::size_t((v ^ (v >> 31)) % SLOTS);
}

std::optional<std::uint32_t> PowerOfTwoCoefficients::code(const Fr& x) const {
  for (std::size_t h = slot(x);; h = (h + 1) % SLOTS) {
    if (!used_[h]) return std::nullopt;
    if (value_[h] == x) return code_[h];
  }
}

namespace {

constexpr std::size_t CHUNK = std::size_t(1) << 16;

const PowerOfTwoCoefficients& powers() {
  static const PowerOfTwoCoefficients p;
  return p;
}

}  // namespace

std::size_t count_other_coefficients(std::span<const Fr> values) {
  const PowerOfTwoCoefficients& p = powers();
  return tbb::parallel_reduce(
      tbb::blocked_range<std::size_t>(0, values.size(), CHUNK), std::size_t(0),
      [&](const auto& r, std::size_t acc) {
        for (std::size_t i = r.begin(); i < r.end(); ++i) acc += p.code(values[i]) ? 0 : 1;
        return acc;
      },
      [](std::size_t a, std::size_t b) { return a + b; });
}

CoefficientCodes encode_coefficients(std::span<const Fr> values) {
  const PowerOfTwoCoefficients& p = powers();
  const std::size_t n = values.size(), chunks = (n + CHUNK - 1) / CHUNK;
  CoefficientCodes out;
  out.codes.resize(n);
  // Codes of the powers, and per chunk how many others it holds; then the others' indices.
  std::vector<std::size_t> first_other(chunks + 1, 0);
  tbb::parallel_for(std::size_t(0), chunks, [&](std::size_t c) {
    std::size_t others = 0;
    for (std::size_t i = c * CHUNK; i < std::min(n, (c + 1) * CHUNK); ++i) {
      const auto code = p.code(values[i]);
      out.codes[i] = code ? *code : 0;
      others += code ? 0 : 1;
    }
    first_other[c + 1] = others;
  });
  for (std::size_t c = 0; c < chunks; ++c) first_other[c + 1] += first_other[c];
  if (first_other[chunks] > std::size_t(COEFF_NEGATIVE - COEFF_POWERS))
    throw std::length_error("encode_coefficients: more than 2^31 - 64 coefficients that are not ±2^k");
  out.others.resize(first_other[chunks]);
  tbb::parallel_for(std::size_t(0), chunks, [&](std::size_t c) {
    std::size_t j = first_other[c];
    for (std::size_t i = c * CHUNK; i < std::min(n, (c + 1) * CHUNK); ++i) {
      if (first_other[c + 1] == j) break;  // no others left in this chunk
      if (p.code(values[i])) continue;
      out.others[j] = values[i];
      out.codes[i] = COEFF_POWERS + std::uint32_t(j);
      ++j;
    }
  });
  return out;
}

Fr decode_coefficient(std::uint32_t code, std::span<const Fr> others) {
  const std::uint32_t m = code & ~COEFF_NEGATIVE;
  const Fr x = m < COEFF_POWERS ? powers().powers()[m] : others[m - COEFF_POWERS];
  return code & COEFF_NEGATIVE ? -x : x;
}

}  // namespace snarkpipe::circuit
