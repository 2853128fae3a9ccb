#include "circom/zkey.hpp"

#include <atomic>
#include <bit>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "poly/domain.hpp"

namespace snarkpipe::circom {

namespace {

using ec::G1Affine;
using ec::G2Affine;
using ff::Fp;
using ff::Fr;

constexpr std::uint32_t HEADER = 1, GROTH_HEADER = 2, IC = 3, COEFFS = 4, POINTS_A = 5, POINTS_B1 = 6, POINTS_B2 = 7,
                        POINTS_C = 8, POINTS_H = 9;
constexpr std::size_t G1_BYTES = 96, G2_BYTES = 192;

const std::map<std::uint32_t, std::string>& section_names() {
  static const std::map<std::uint32_t, std::string> names = {{HEADER, "header"}, {GROTH_HEADER, "Groth16 header"},
                                                             {IC, "IC"},         {COEFFS, "coefficients"},
                                                             {POINTS_A, "A"},    {POINTS_B1, "B1"},
                                                             {POINTS_B2, "B2"},  {POINTS_C, "C"},
                                                             {POINTS_H, "H"},    {10, "contributions"}};
  return names;
}

enum class Defect { None, Range, Curve, Subgroup };

const char* describe(Defect d) {
  switch (d) {
    case Defect::Range:
      return "a coordinate is not below p (not a reduced Montgomery form)";
    case Defect::Curve:
      return "the point is not on the curve";
    case Defect::Subgroup:
      return "the point is not in the prime-order subgroup";
    case Defect::None:
      break;
  }
  return "ok";
}

Defect decode(const std::uint8_t* b, G1Affine& p, bool subgroup) {
  if (!fp_from_lem(b, p.x) || !fp_from_lem(b + 48, p.y)) return Defect::Range;
  if (!p.is_on_curve()) return Defect::Curve;
  if (subgroup && !ec::is_in_subgroup(p)) return Defect::Subgroup;
  return Defect::None;
}

Defect decode(const std::uint8_t* b, G2Affine& p, bool subgroup) {
  if (!fp_from_lem(b, p.x.c0) || !fp_from_lem(b + 48, p.x.c1) || !fp_from_lem(b + 96, p.y.c0) ||
      !fp_from_lem(b + 144, p.y.c1))
    return Defect::Range;
  if (!p.is_on_curve()) return Defect::Curve;
  if (subgroup && !ec::is_in_subgroup(p)) return Defect::Subgroup;
  return Defect::None;
}

template <class Aff>
Aff read_vk_point(SectionReader& rd, const char* name) {
  constexpr std::size_t bytes = std::is_same_v<Aff, G1Affine> ? G1_BYTES : G2_BYTES;
  const std::uint64_t at = rd.offset();
  Aff p;
  const Defect d = decode(rd.bytes(bytes).data(), p, true);
  if (d != Defect::None) rd.fail(at, std::string(name) + ": " + describe(d));
  if (p.is_identity()) rd.fail(at, std::string(name) + " is the point at infinity");
  return p;
}

// `count` points of a section that must hold exactly that many, decoded in parallel; the
// first bad one (lowest index) is reported.
template <class Aff>
std::vector<Aff> read_points(const BinFile& f, std::uint32_t type, std::uint64_t count, bool subgroup) {
  constexpr std::size_t bytes = std::is_same_v<Aff, G1Affine> ? G1_BYTES : G2_BYTES;
  const Section& s = f.unique(type);
  if (s.size != count * bytes)
    f.fail(type, s.offset,
           "the section has " + std::to_string(s.size) + " bytes; " + std::to_string(count) + " points of " +
               std::to_string(bytes) + " bytes need " + std::to_string(count * bytes));
  std::vector<Aff> out(count);
  const std::uint8_t* base = f.bytes().data() + s.offset;
  std::atomic<std::uint64_t> first_bad{~std::uint64_t(0)};
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, count, 2048), [&](const auto& r) {
    for (std::uint64_t i = r.begin(); i < r.end(); ++i) {
      if (i >= first_bad.load(std::memory_order_relaxed)) return;
      if (decode(base + i * bytes, out[i], subgroup) != Defect::None) {
        std::uint64_t cur = first_bad.load();
        while (i < cur && !first_bad.compare_exchange_weak(cur, i)) {}
        return;
      }
    }
  });
  if (const std::uint64_t i = first_bad.load(); i != ~std::uint64_t(0)) {
    Aff p;
    f.fail(type, s.offset + i * bytes,
           "point " + std::to_string(i) + ": " + describe(decode(base + i * bytes, p, subgroup)));
  }
  return out;
}

// Sections 1-3 into `z` (counts and the verifying key).
void read_header(const BinFile& f, Zkey& z) {
  {
    SectionReader rd = f.reader(HEADER);
    const std::uint64_t at = rd.offset();
    const std::uint32_t protocol = rd.u32();
    if (protocol != 1)
      rd.fail(at, "protocol " + std::to_string(protocol) + " is not Groth16 (1)" +
                      (protocol == 2    ? ": this is a PLONK key"
                       : protocol == 10 ? ": this is an FFLONK key"
                                        : ""));
    rd.expect_end();
  }
  SectionReader rd = f.reader(GROTH_HEADER);
  std::uint64_t at = rd.offset();
  const std::uint32_t n8q = rd.u32();
  if (n8q == 0 || n8q > 128) rd.fail(at, "field size n8q = " + std::to_string(n8q) + " bytes is not plausible");
  at = rd.offset();
  expect_base_prime(rd, at, rd.bytes(n8q));
  at = rd.offset();
  const std::uint32_t n8r = rd.u32();
  if (n8r == 0 || n8r > 128) rd.fail(at, "field size n8r = " + std::to_string(n8r) + " bytes is not plausible");
  at = rd.offset();
  expect_scalar_prime(rd, at, rd.bytes(n8r));
  const std::uint64_t vars_at = rd.offset();
  z.num_vars = rd.u32();
  z.num_public = rd.u32();
  const std::uint64_t domain_at = rd.offset();
  z.domain_size = rd.u32();
  if (std::uint64_t(z.num_public) + 1 > z.num_vars)
    rd.fail(vars_at, "nPublic = " + std::to_string(z.num_public) +
                         " leaves no room for ONE in nVars = " + std::to_string(z.num_vars));
  if (!std::has_single_bit(z.domain_size) || z.domain_size < 2 ||
      z.domain_size > (std::uint64_t(1) << poly::EvaluationDomain::MAX_LOG_SIZE))
    rd.fail(domain_at, "domainSize = " + std::to_string(z.domain_size) + " is not a power of two in 2..2^" +
                           std::to_string(poly::EvaluationDomain::MAX_LOG_SIZE));
  if (z.domain_size < std::uint64_t(z.num_public) + 1)
    rd.fail(domain_at, "domainSize = " + std::to_string(z.domain_size) + " cannot hold the " +
                           std::to_string(z.num_public + 1) + " input rows");
  auto& vk = z.vk;
  vk.alpha_g1 = read_vk_point<G1Affine>(rd, "alpha_1");
  vk.beta_g1 = read_vk_point<G1Affine>(rd, "beta_1");
  vk.beta_g2 = read_vk_point<G2Affine>(rd, "beta_2");
  vk.gamma_g2 = read_vk_point<G2Affine>(rd, "gamma_2");
  vk.delta_g1 = read_vk_point<G1Affine>(rd, "delta_1");
  vk.delta_g2 = read_vk_point<G2Affine>(rd, "delta_2");
  rd.expect_end();
  vk.ic = read_points<G1Affine>(f, IC, std::uint64_t(z.num_public) + 1, true);
}

BinFile open_zkey(const std::string& path) { return BinFile(path, "zkey", 2, section_names()); }

}  // namespace

bool fp_from_lem(const std::uint8_t* b, Fp& out) {
  ff::Limbs<6> m{};
  for (std::size_t i = 0; i < 48; ++i) m[i / 8] |= std::uint64_t(b[i]) << (8 * (i % 8));
  if (ff::compare(m, ff::FpParams::modulus) >= 0) return false;
  out = Fp::from_montgomery(m);
  return true;
}

groth16::VerifyingKey read_zkey_vk(const std::string& path) {
  const BinFile f = open_zkey(path);
  Zkey z;
  read_header(f, z);
  return z.vk;
}

Zkey read_zkey(const std::string& path, const ZkeyReadOptions& opts) {
  const BinFile f = open_zkey(path);
  Zkey z;
  read_header(f, z);

  {
    SectionReader rd = f.reader(COEFFS);
    const std::uint64_t at = rd.offset();
    const std::uint32_t n = rd.u32();
    if (std::uint64_t(n) * 44 != rd.remaining())
      rd.fail(at, "nCoef = " + std::to_string(n) + " entries of 44 bytes need " +
                      std::to_string(std::uint64_t(n) * 44) + " bytes but the section has " +
                      std::to_string(rd.remaining()) + " after the count");
    // stored = v·R² mod r, so v = stored·R⁻²; R⁻¹ is the element whose Montgomery form is 1.
    const Fr r_inv = Fr::from_montgomery({1, 0, 0, 0});
    const Fr r_inv2 = r_inv * r_inv;
    z.coefficients.resize(n);
    for (auto& c : z.coefficients) {
      const std::uint64_t e = rd.offset();
      c.matrix = rd.u32();
      c.constraint = rd.u32();
      c.signal = rd.u32();
      Fr stored;
      if (!fr_from_le(rd.bytes(32), stored)) rd.fail(e + 12, "a coefficient value is not below r");
      c.value = stored * r_inv2;
      if (c.matrix > 1) rd.fail(e, "matrix " + std::to_string(c.matrix) + " is neither A (0) nor B (1)");
      if (c.constraint >= z.domain_size)
        rd.fail(e + 4, "constraint " + std::to_string(c.constraint) +
                           " is not below domainSize = " + std::to_string(z.domain_size));
      if (c.signal >= z.num_vars)
        rd.fail(e + 8, "signal " + std::to_string(c.signal) + " is not below nVars = " + std::to_string(z.num_vars));
    }
  }
  const bool sg = opts.check_subgroup;
  z.a = read_points<G1Affine>(f, POINTS_A, z.num_vars, sg);
  z.b1 = read_points<G1Affine>(f, POINTS_B1, z.num_vars, sg);
  z.b2 = read_points<G2Affine>(f, POINTS_B2, z.num_vars, sg);
  z.c = read_points<G1Affine>(f, POINTS_C, std::uint64_t(z.num_vars) - z.num_public - 1, sg);
  z.h = read_points<G1Affine>(f, POINTS_H, z.domain_size, sg);
  return z;
}

}  // namespace snarkpipe::circom
