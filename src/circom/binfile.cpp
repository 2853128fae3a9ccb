#include "circom/binfile.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>

namespace snarkpipe::circom {

namespace {

std::string hex_le(std::span<const std::uint8_t> b) {
  static constexpr char d[] = "0123456789abcdef";
  std::string s = "0x";
  bool leading = true;
  for (std::size_t i = b.size(); i-- > 0;) {
    if (leading && b[i] == 0 && i > 0) continue;
    leading = false;
    s.push_back(d[b[i] >> 4]);
    s.push_back(d[b[i] & 15]);
  }
  return s;
}

// Primes of the curves circom compiles for (its --prime option), by their little-endian
// hex as hex_le prints them.
std::string known_prime(const std::string& h) {
  struct Known {
    const char* hex;
    const char* name;
  };
  static constexpr Known known[] = {
      {"0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001",
       "the scalar field of BN254 (circom's bn128)"},
      {"0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47", "the base field of BN254 (bn128)"},
      {"0x12ab655e9a2ca55660b44d1e5c37b00159aa76fed00000010a11800000000001", "the scalar field of BLS12-377"},
      {"0xffffffff00000001", "the Goldilocks field"},
      {"0x40000000000000000000000000000000224698fc094cf91b992d30ed00000001", "the scalar field of Pallas"},
      {"0x40000000000000000000000000000000224698fc0994a8dd8c46eb2100000001", "the scalar field of Vesta"},
      {"0xffffffff00000001000000000000000000000000ffffffffffffffffffffffff", "the base field of secp256r1"},
      {"0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001", "BLS12-381's scalar field r"},
      {"0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab",
       "BLS12-381's base field p"},
  };
  for (const auto& k : known)
    if (h == k.hex) return std::string(" (") + k.name + ")";
  return "";
}

template <std::size_t N>
void expect_prime(const SectionReader& at, std::uint64_t offset, std::span<const std::uint8_t> le,
                  const ff::Limbs<N>& expected, const char* what) {
  std::uint8_t want[8 * N];
  for (std::size_t i = 0; i < 8 * N; ++i) want[i] = std::uint8_t(expected[i / 8] >> (8 * (i % 8)));
  if (le.size() == 8 * N && std::memcmp(le.data(), want, 8 * N) == 0) return;
  const std::string got = hex_le(le);
  throw UnsupportedCurveError(at.path(), at.section_name(), offset,
                              std::string("curve not supported: the field prime is ") + got + known_prime(got) +
                                  "; snarkpipe supports only BLS12-381 (" + what + " " +
                                  hex_le(std::span<const std::uint8_t>(want, 8 * N)) +
                                  "; circom: --prime bls12381, snarkjs: powersoftau new bls12381)");
}

}  // namespace

std::vector<std::uint8_t> read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw std::runtime_error("cannot read " + path);
  const std::streamsize n = in.tellg();
  std::vector<std::uint8_t> data(static_cast<std::size_t>(n));
  in.seekg(0);
  if (n > 0 && !in.read(reinterpret_cast<char*>(data.data()), n)) throw std::runtime_error("cannot read " + path);
  return data;
}

SectionReader::SectionReader(const BinFile& file, const Section& s)
    : file_(&file), name_(file.section_name(s.type)), pos_(s.offset), end_(s.offset + s.size) {}

const std::string& SectionReader::path() const { return file_->path(); }

void SectionReader::fail(std::uint64_t offset, const std::string& problem) const {
  throw FormatError(file_->path(), name_, offset, problem);
}

std::span<const std::uint8_t> SectionReader::bytes(std::uint64_t n) {
  if (n > end_ - pos_)
    fail(pos_, "needs " + std::to_string(n) + " bytes but the section has " + std::to_string(end_ - pos_) + " left");
  const auto s = file_->bytes().subspan(pos_, n);
  pos_ += n;
  return s;
}

std::uint32_t SectionReader::u32() {
  const auto b = bytes(4);
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | b[i];
  return v;
}

std::uint64_t SectionReader::u64() {
  const auto b = bytes(8);
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | b[i];
  return v;
}

void SectionReader::expect_end() const {
  if (pos_ != end_) fail(pos_, std::to_string(end_ - pos_) + " unexpected bytes after the section's contents");
}

BinFile::BinFile(std::string path, std::string_view magic, std::uint32_t max_version,
                 std::map<std::uint32_t, std::string> section_names)
    : path_(std::move(path)), data_(read_whole_file(path_)), names_(std::move(section_names)) {
  auto fail_at = [&](std::uint64_t off, const std::string& why) { throw FormatError(path_, "file header", off, why); };
  auto le = [&](std::uint64_t off, int n) {
    std::uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | data_[off + i];
    return v;
  };
  if (data_.size() < 12)
    fail_at(0, "the file has " + std::to_string(data_.size()) + " bytes, fewer than the 12-byte header");
  if (std::memcmp(data_.data(), magic.data(), 4) != 0)
    fail_at(0, "not a ." + std::string(magic) + " file (the magic bytes are not \"" + std::string(magic) + "\")");
  version_ = std::uint32_t(le(4, 4));
  if (version_ == 0 || version_ > max_version)
    fail_at(4, "version " + std::to_string(version_) + " is not supported (1.." + std::to_string(max_version) + ")");
  const std::uint64_t count = le(8, 4);
  std::uint64_t pos = 12;
  for (std::uint64_t i = 0; i < count; ++i) {
    if (data_.size() - pos < 12)
      fail_at(pos, "section header " + std::to_string(i) + " of " + std::to_string(count) +
                       " is past the end of the file (" + std::to_string(data_.size()) + " bytes)");
    Section s;
    s.type = std::uint32_t(le(pos, 4));
    s.size = le(pos + 4, 8);
    s.offset = pos + 12;
    if (s.size > data_.size() - s.offset)
      throw FormatError(path_, section_name(s.type), pos + 4,
                        "the section claims " + std::to_string(s.size) + " bytes but only " +
                            std::to_string(data_.size() - s.offset) + " remain in the file (truncated?)");
    sections_.push_back(s);
    pos = s.offset + s.size;
  }
  if (pos != data_.size())
    fail_at(pos,
            std::to_string(data_.size() - pos) + " bytes after the last of the " + std::to_string(count) + " sections");
}

std::string BinFile::section_name(std::uint32_t type) const {
  const auto it = names_.find(type);
  return it == names_.end() ? std::to_string(type) : std::to_string(type) + " (" + it->second + ")";
}

const Section* BinFile::find(std::uint32_t type) const {
  const Section* found = nullptr;
  for (const auto& s : sections_) {
    if (s.type != type) continue;
    if (found) throw FormatError(path_, section_name(type), s.offset - 12, "the section appears more than once");
    found = &s;
  }
  return found;
}

const Section& BinFile::unique(std::uint32_t type) const {
  const Section* s = find(type);
  if (!s) throw FormatError(path_, section_name(type), data_.size(), "the section is missing");
  return *s;
}

void BinFile::fail(std::uint32_t type, std::uint64_t offset, const std::string& problem) const {
  throw FormatError(path_, section_name(type), offset, problem);
}

void expect_scalar_prime(const SectionReader& at, std::uint64_t offset, std::span<const std::uint8_t> le) {
  expect_prime(at, offset, le, ff::FrParams::modulus, "r =");
}

void expect_base_prime(const SectionReader& at, std::uint64_t offset, std::span<const std::uint8_t> le) {
  expect_prime(at, offset, le, ff::FpParams::modulus, "p =");
}

bool fr_from_le(std::span<const std::uint8_t> b, ff::Fr& out) {
  const auto x = ff::Fr::from_bytes_le(b);
  if (!x) return false;
  out = *x;
  return true;
}

}  // namespace snarkpipe::circom
