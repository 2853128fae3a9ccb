// The program's two spellings of a size, parsed in one place: counts ("4096", "2^12") for
// constraints and rows, and byte amounts ("4096", "512MiB", "1.5GiB", "2GB") for memory and
// limits. Both throw std::invalid_argument naming the text and the expected form.
#pragma once

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace snarkpipe::base {

inline constexpr std::uint64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

// A count: decimal, or 2^k with k at most 40.
inline std::uint64_t parse_count(std::string_view text) {
  const std::string s(text);
  try {
    if (s.rfind("2^", 0) == 0) {
      std::size_t pos = 0;
      const unsigned long k = std::stoul(s.substr(2), &pos);
      if (k > 40 || pos + 2 != s.size()) throw std::invalid_argument("");
      return std::uint64_t(1) << k;
    }
    if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0]))) throw std::invalid_argument("");
    std::size_t pos = 0;
    const unsigned long long n = std::stoull(s, &pos);
    if (pos != s.size()) throw std::invalid_argument("");
    return n;
  } catch (const std::exception&) {
    throw std::invalid_argument("bad size '" + s + "': expected a number like 4096 or 2^12");
  }
}

// Bytes: a number with an optional unit, binary (K/KiB, M/MiB, G/GiB, T/TiB) or decimal (KB,
// MB, GB, TB), case and spaces ignored.
inline std::uint64_t parse_bytes(std::string_view text) {
  std::string s(text);
  s.erase(std::remove_if(s.begin(), s.end(), [](unsigned char c) { return std::isspace(c); }), s.end());
  const auto bad = [&] {
    return std::invalid_argument("bad size '" + std::string(text) + "': expected bytes like 4096, 512MiB or 1.5GiB");
  };
  std::size_t pos = 0;
  double v = 0;
  try {
    v = std::stod(s, &pos);
  } catch (const std::exception&) {
    throw bad();
  }
  std::string unit = s.substr(pos);
  std::transform(unit.begin(), unit.end(), unit.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  double mult = 0;
  if (unit.empty() || unit == "b") mult = 1;
  else if (unit == "k" || unit == "kib") mult = double(KiB);
  else if (unit == "m" || unit == "mib") mult = double(MiB);
  else if (unit == "g" || unit == "gib") mult = double(GiB);
  else if (unit == "t" || unit == "tib") mult = double(GiB) * 1024;
  else if (unit == "kb") mult = 1e3;
  else if (unit == "mb") mult = 1e6;
  else if (unit == "gb") mult = 1e9;
  else if (unit == "tb") mult = 1e12;
  if (mult == 0 || !(v >= 0) || v * mult >= 1.8e19) throw bad();
  return std::uint64_t(std::llround(v * mult));
}

}  // namespace snarkpipe::base
