#include "circom/zkey_write.hpp"

#include <cstring>
#include <fstream>
#include <stdexcept>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace snarkpipe::circom {

namespace {

using ec::G1Affine;
using ec::G2Affine;
using ff::Fp;
using ff::Fr;

constexpr std::size_t G1_BYTES = 96, G2_BYTES = 192, COEFFICIENT_BYTES = 12 + 32;
// Points encoded per parallel batch before it is written out (6 MB of G1).
constexpr std::size_t POINTS_PER_BATCH = std::size_t(1) << 16;

void put_u32(std::uint8_t* out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out[i] = std::uint8_t(v >> (8 * i));
}

template <std::size_t N>
void put_limbs(std::uint8_t* out, const ff::Limbs<N>& limbs) {
  for (std::size_t i = 0; i < 8 * N; ++i) out[i] = std::uint8_t(limbs[i / 8] >> (8 * (i % 8)));
}

// LEM: the reduced Montgomery limbs (Fp keeps results below 2p, so reduce first).
void put_fp(std::uint8_t* out, const Fp& x) { put_limbs(out, x.montgomery()); }

void put_point(std::uint8_t* out, const G1Affine& p) {
  put_fp(out, p.x);
  put_fp(out + 48, p.y);
}

void put_point(std::uint8_t* out, const G2Affine& p) {
  put_fp(out, p.x.c0);
  put_fp(out + 48, p.x.c1);
  put_fp(out + 96, p.y.c0);
  put_fp(out + 144, p.y.c1);
}

class ZkeyFileWriter {
 public:
  explicit ZkeyFileWriter(const std::string& path) : path_(path), out_(path, std::ios::binary | std::ios::trunc) {
    if (!out_) throw std::runtime_error("cannot create " + path);
  }

  void bytes(const void* data, std::size_t n) {
    out_.write(static_cast<const char*>(data), std::streamsize(n));
    if (!out_) throw std::runtime_error("cannot write " + path_ + " (disk full?)");
  }
  void u32(std::uint32_t v) {
    std::uint8_t b[4];
    put_u32(b, v);
    bytes(b, 4);
  }
  void u64(std::uint64_t v) {
    std::uint8_t b[8];
    for (int i = 0; i < 8; ++i) b[i] = std::uint8_t(v >> (8 * i));
    bytes(b, 8);
  }
  void section(std::uint32_t type, std::uint64_t size) {
    u32(type);
    u64(size);
  }

  template <class Aff>
  void points(const std::vector<Aff>& pts) {
    constexpr std::size_t bytes_per = std::is_same_v<Aff, G1Affine> ? G1_BYTES : G2_BYTES;
    std::vector<std::uint8_t> buf;
    for (std::size_t start = 0; start < pts.size(); start += POINTS_PER_BATCH) {
      const std::size_t n = std::min(POINTS_PER_BATCH, pts.size() - start);
      buf.resize(n * bytes_per);
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 1024), [&](const auto& r) {
        for (std::size_t i = r.begin(); i < r.end(); ++i) put_point(buf.data() + i * bytes_per, pts[start + i]);
      });
      bytes(buf.data(), buf.size());
    }
  }

  void close() {
    out_.close();
    if (!out_) throw std::runtime_error("cannot write " + path_ + " (disk full?)");
  }

 private:
  std::string path_;
  std::ofstream out_;
};

void expect_count(const char* section, std::size_t have, std::uint64_t want) {
  if (have != want)
    throw std::invalid_argument(std::string("write_zkey: section ") + section + " has " + std::to_string(have) +
                                " points; the key's counts need " + std::to_string(want));
}

}  // namespace

void write_zkey(const std::string& path, const Zkey& z) {
  const std::uint64_t num_private = std::uint64_t(z.num_vars) - z.num_public - 1;
  if (std::uint64_t(z.num_public) + 1 > z.num_vars)
    throw std::invalid_argument("write_zkey: nPublic = " + std::to_string(z.num_public) +
                                " does not fit nVars = " + std::to_string(z.num_vars));
  expect_count("IC", z.vk.ic.size(), std::uint64_t(z.num_public) + 1);
  expect_count("A", z.a.size(), z.num_vars);
  expect_count("B1", z.b1.size(), z.num_vars);
  expect_count("B2", z.b2.size(), z.num_vars);
  expect_count("C", z.c.size(), num_private);
  expect_count("H", z.h.size(), z.domain_size);
  for (const auto& c : z.coefficients)
    if (c.matrix > 1 || c.constraint >= z.domain_size || c.signal >= z.num_vars)
      throw std::invalid_argument("write_zkey: a coefficient (matrix " + std::to_string(c.matrix) + ", constraint " +
                                  std::to_string(c.constraint) + ", signal " + std::to_string(c.signal) +
                                  ") is out of range");

  ZkeyFileWriter w(path);
  w.bytes("zkey", 4);
  w.u32(1);   // version
  w.u32(10);  // sections

  w.section(1, 4);
  w.u32(1);  // Groth16

  w.section(2, 4 + 48 + 4 + 32 + 3 * 4 + 3 * G1_BYTES + 3 * G2_BYTES);
  std::uint8_t prime[48];
  w.u32(48);
  put_limbs(prime, ff::FpParams::modulus);
  w.bytes(prime, 48);
  w.u32(32);
  put_limbs(prime, ff::FrParams::modulus);
  w.bytes(prime, 32);
  w.u32(z.num_vars);
  w.u32(z.num_public);
  w.u32(z.domain_size);
  w.points(std::vector<G1Affine>{z.vk.alpha_g1, z.vk.beta_g1});
  w.points(std::vector<G2Affine>{z.vk.beta_g2, z.vk.gamma_g2});
  w.points(std::vector<G1Affine>{z.vk.delta_g1});
  w.points(std::vector<G2Affine>{z.vk.delta_g2});

  // Coefficients: snarkjs stores the integer v·R² mod r (zkey.hpp), the canonical value of v
  // times the element whose canonical value is R² mod r.
  const Fr r_squared = Fr::from_canonical_unchecked(Fr::R2);
  w.section(4, 4 + std::uint64_t(z.coefficients.size()) * COEFFICIENT_BYTES);
  w.u32(std::uint32_t(z.coefficients.size()));
  {
    std::vector<std::uint8_t> buf;
    const std::size_t total = z.coefficients.size();
    for (std::size_t start = 0; start < total; start += POINTS_PER_BATCH) {
      const std::size_t n = std::min(POINTS_PER_BATCH, total - start);
      buf.resize(n * COEFFICIENT_BYTES);
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 4096), [&](const auto& r) {
        for (std::size_t i = r.begin(); i < r.end(); ++i) {
          const ZkeyCoefficient& c = z.coefficients[start + i];
          std::uint8_t* e = buf.data() + i * COEFFICIENT_BYTES;
          put_u32(e, c.matrix);
          put_u32(e + 4, c.constraint);
          put_u32(e + 8, c.signal);
          (c.value * r_squared).to_bytes_le(e + 12);
        }
      });
      w.bytes(buf.data(), buf.size());
    }
  }

  w.section(3, z.vk.ic.size() * G1_BYTES);
  w.points(z.vk.ic);
  w.section(9, z.h.size() * G1_BYTES);
  w.points(z.h);
  w.section(8, z.c.size() * G1_BYTES);
  w.points(z.c);
  w.section(5, z.a.size() * G1_BYTES);
  w.points(z.a);
  w.section(6, z.b1.size() * G1_BYTES);
  w.points(z.b1);
  w.section(7, z.b2.size() * G2_BYTES);
  w.points(z.b2);

  w.section(10, 64 + 4);
  const std::uint8_t no_hash[64] = {};
  w.bytes(no_hash, 64);
  w.u32(0);
  w.close();
}

}  // namespace snarkpipe::circom
