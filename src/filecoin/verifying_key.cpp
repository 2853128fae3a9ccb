#include "filecoin/verifying_key.hpp"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>

#include "ec/encoding.hpp"
#include "groth16/params_file.hpp"

namespace snarkpipe::filecoin {
namespace {

constexpr std::size_t HEX_FILE_LIMIT = 1 << 20;  // anything larger is a binary .params

class CompressedReader {
 public:
  CompressedReader(std::span<const std::uint8_t> b, const std::string& where) : b_(b), where_(where) {}

  [[noreturn]] void fail(const std::string& field, const std::string& why) const {
    throw groth16::ParamsFileError(where_, field, off_, why);
  }
  std::span<const std::uint8_t> take(std::size_t n, const std::string& field) {
    if (b_.size() - off_ < n)
      fail(field, "needs " + std::to_string(n) + " bytes, " + std::to_string(b_.size() - off_) + " remain");
    auto s = b_.subspan(off_, n);
    off_ += n;
    return s;
  }
  ec::G1Affine g1(const std::string& field) {
    const std::size_t at = off_;
    const auto r = ec::g1_from_bytes(take(ec::G1_COMPRESSED_BYTES, field));
    if (!r) {
      off_ = at;
      fail(field, std::string("not a valid compressed G1 point: ") + ec::describe(r.error()));
    }
    if (r.value().is_identity()) {
      off_ = at;
      fail(field, "is the point at infinity");
    }
    return r.value();
  }
  ec::G2Affine g2(const std::string& field) {
    const std::size_t at = off_;
    const auto r = ec::g2_from_bytes(take(ec::G2_COMPRESSED_BYTES, field));
    if (!r) {
      off_ = at;
      fail(field, std::string("not a valid compressed G2 point: ") + ec::describe(r.error()));
    }
    if (r.value().is_identity()) {
      off_ = at;
      fail(field, "is the point at infinity");
    }
    return r.value();
  }
  std::uint32_t u32_be(const std::string& field) {
    const auto s = take(4, field);
    return std::uint32_t(s[0]) << 24 | std::uint32_t(s[1]) << 16 | std::uint32_t(s[2]) << 8 | s[3];
  }
  std::size_t remaining() const { return b_.size() - off_; }

 private:
  std::span<const std::uint8_t> b_;
  std::string where_;
  std::size_t off_ = 0;
};

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The bytes a hex text spells, or nothing when it is not hex text.
std::optional<std::vector<std::uint8_t>> decode_hex_text(const std::vector<char>& text) {
  std::string digits;
  std::size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  if (i + 1 < text.size() && text[i] == '0' && (text[i + 1] == 'x' || text[i + 1] == 'X')) i += 2;
  for (; i < text.size(); ++i) {
    if (std::isspace(static_cast<unsigned char>(text[i]))) continue;
    if (hex_value(text[i]) < 0) return std::nullopt;
    digits.push_back(text[i]);
  }
  if (digits.empty() || digits.size() % 2 != 0) return std::nullopt;
  std::vector<std::uint8_t> out(digits.size() / 2);
  for (std::size_t k = 0; k < out.size(); ++k)
    out[k] = std::uint8_t(hex_value(digits[2 * k]) << 4 | hex_value(digits[2 * k + 1]));
  return out;
}

}  // namespace

groth16::VerifyingKey read_compressed_vk(std::span<const std::uint8_t> bytes, const std::string& where) {
  CompressedReader r(bytes, where);
  groth16::VerifyingKey vk;
  vk.alpha_g1 = r.g1("alpha_g1");
  vk.beta_g1 = r.g1("beta_g1");
  vk.beta_g2 = r.g2("beta_g2");
  vk.gamma_g2 = r.g2("gamma_g2");
  vk.delta_g1 = r.g1("delta_g1");
  vk.delta_g2 = r.g2("delta_g2");
  const std::uint32_t n = r.u32_be("ic.count");
  if (n == 0) r.fail("ic.count", "a verifying key needs at least one ic point (the constant ONE)");
  if (std::uint64_t(n) * ec::G1_COMPRESSED_BYTES != r.remaining())
    r.fail("ic.count", std::to_string(n) + " points need " +
                           std::to_string(std::uint64_t(n) * ec::G1_COMPRESSED_BYTES) + " bytes, " +
                           std::to_string(r.remaining()) + " follow");
  vk.ic.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i) vk.ic.push_back(r.g1("ic[" + std::to_string(i) + "]"));
  return vk;
}

std::vector<std::uint8_t> read_bytes_or_hex(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
  std::vector<char> raw((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (raw.size() <= 2 * HEX_FILE_LIMIT)
    if (auto hex = decode_hex_text(raw)) return *hex;
  return {raw.begin(), raw.end()};
}

groth16::VerifyingKey load_verifying_key(const std::string& path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
  const auto size = static_cast<std::uint64_t>(f.tellg());
  f.seekg(0);
  char first[2] = {0, 0};
  f.read(first, 2);
  const bool maybe_hex =
      size <= 2 * HEX_FILE_LIMIT && hex_value(first[0]) >= 0 && (hex_value(first[1]) >= 0 || first[1] == 'x');
  if (maybe_hex || (static_cast<std::uint8_t>(first[0]) & 0x80)) {
    const std::vector<std::uint8_t> bytes = read_bytes_or_hex(path);
    if (!bytes.empty() && (bytes[0] & 0x80)) return read_compressed_vk(bytes, path);
    if (maybe_hex)
      throw groth16::ParamsFileError(path, "alpha_g1", 0,
                                     "hex text of an uncompressed key; give bellperson's .vk as the binary file");
  }
  groth16::ParamsReadOptions opts;
  opts.check_subgroup = true;
  const groth16::ParamsSummary summary = groth16::summarize_params_file(path);
  return summary.kind == groth16::ParamsSummary::Kind::Parameters ? groth16::read_params_vk(path, opts)
                                                                  : groth16::read_vk(path, opts);
}

}  // namespace snarkpipe::filecoin
