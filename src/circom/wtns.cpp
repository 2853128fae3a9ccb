#include "circom/wtns.hpp"

#include <fstream>
#include <stdexcept>

namespace snarkpipe::circom {

using ff::Fr;

std::vector<Fr> read_wtns(const std::string& path) {
  const BinFile f(path, "wtns", 2, {{1, "header"}, {2, "witness"}});
  std::uint32_t n8 = 0, count = 0;
  {
    SectionReader rd = f.reader(1);
    const std::uint64_t n8_at = rd.offset();
    n8 = rd.u32();
    if (n8 == 0 || n8 > 64) rd.fail(n8_at, "field size n8 = " + std::to_string(n8) + " bytes is not plausible");
    const std::uint64_t prime_at = rd.offset();
    expect_scalar_prime(rd, prime_at, rd.bytes(n8));
    count = rd.u32();
    rd.expect_end();
  }
  SectionReader rd = f.reader(2);
  if (rd.remaining() != std::uint64_t(count) * n8)
    rd.fail(rd.offset(), "nWitness = " + std::to_string(count) + " values of " + std::to_string(n8) + " bytes need " +
                             std::to_string(std::uint64_t(count) * n8) + " bytes but the section has " +
                             std::to_string(rd.remaining()));
  if (count == 0) rd.fail(rd.offset(), "the witness is empty (it must start with the constant ONE)");
  std::vector<Fr> values(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint64_t at = rd.offset();
    if (!fr_from_le(rd.bytes(n8), values[i]))
      rd.fail(at, "value " + std::to_string(i) + " is not below the field prime");
  }
  if (!values[0].is_one())
    throw FormatError(path, f.section_name(2), f.unique(2).offset, "value 0 (wire 0, the constant ONE) is not 1");
  return values;
}

void write_wtns(const std::string& path, std::span<const Fr> values) {
  std::vector<std::uint8_t> out;
  auto u32 = [&](std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(std::uint8_t(v >> (8 * i)));
  };
  auto u64 = [&](std::uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(std::uint8_t(v >> (8 * i)));
  };
  auto fr = [&](const Fr& x) {
    std::uint8_t b[32];
    x.to_bytes_le(b);
    out.insert(out.end(), b, b + 32);
  };
  out.insert(out.end(), {'w', 't', 'n', 's'});
  u32(2);
  u32(2);
  u32(1);
  u64(4 + 32 + 4);
  u32(32);
  for (std::size_t i = 0; i < 32; ++i) out.push_back(std::uint8_t(ff::FrParams::modulus[i / 8] >> (8 * (i % 8))));
  u32(std::uint32_t(values.size()));
  u32(2);
  u64(std::uint64_t(values.size()) * 32);
  for (const Fr& x : values) fr(x);
  std::ofstream o(path, std::ios::binary);
  o.write(reinterpret_cast<const char*>(out.data()), std::streamsize(out.size()));
  if (!o) throw std::runtime_error("cannot write " + path);
}

groth16::Witness split_witness(std::span<const Fr> values, std::size_t num_public) {
  if (values.size() < num_public + 1)
    throw std::invalid_argument("the witness has " + std::to_string(values.size()) + " values; ONE and " +
                                std::to_string(num_public) + " public values need at least " +
                                std::to_string(num_public + 1));
  groth16::Witness w;
  w.inputs.assign(values.begin(), values.begin() + std::ptrdiff_t(num_public + 1));
  w.aux.assign(values.begin() + std::ptrdiff_t(num_public + 1), values.end());
  return w;
}

}  // namespace snarkpipe::circom
