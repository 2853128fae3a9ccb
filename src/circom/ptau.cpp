#include "circom/ptau.hpp"

#include <fstream>
#include <stdexcept>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "circom/prover.hpp"
#include "ec/curves.hpp"
#include "ff/batch_invert.hpp"
#include "ff/random.hpp"
#include "msm/fixed_base.hpp"

namespace snarkpipe::circom {

namespace {

using ec::G1Affine;
using ec::G2Affine;
using ff::Fp;
using ff::Fr;

class Writer {
 public:
  explicit Writer(const std::string& path) : path_(path), out_(path, std::ios::binary) {
    if (!out_) throw std::runtime_error("cannot write " + path);
  }
  void raw(const void* p, std::size_t n) { out_.write(static_cast<const char*>(p), std::streamsize(n)); }
  void u32(std::uint32_t v) {
    std::uint8_t b[4];
    for (int i = 0; i < 4; ++i) b[i] = std::uint8_t(v >> (8 * i));
    raw(b, 4);
  }
  void u64(std::uint64_t v) {
    std::uint8_t b[8];
    for (int i = 0; i < 8; ++i) b[i] = std::uint8_t(v >> (8 * i));
    raw(b, 8);
  }
  void limbs(const ff::Limbs<6>& m) {
    std::uint8_t b[48];
    for (std::size_t i = 0; i < 48; ++i) b[i] = std::uint8_t(m[i / 8] >> (8 * (i % 8)));
    raw(b, 48);
  }
  void fp(const Fp& x) { limbs(x.montgomery()); }
  void point(const G1Affine& p) {
    fp(p.x);
    fp(p.y);
  }
  void point(const G2Affine& p) {
    fp(p.x.c0);
    fp(p.x.c1);
    fp(p.y.c0);
    fp(p.y.c1);
  }
  void section(std::uint32_t type, std::uint64_t size) {
    u32(type);
    u64(size);
  }
  void close() {
    out_.close();
    if (!out_) throw std::runtime_error("cannot write " + path_);
  }

 private:
  std::string path_;
  std::ofstream out_;
};

// x^0 .. x^(n-1), each times `scale`.
std::vector<Fr> powers(const Fr& x, std::size_t n, const Fr& scale) {
  std::vector<Fr> v(n);
  Fr acc = scale;
  for (auto& e : v) {
    e = acc;
    acc *= x;
  }
  return v;
}

// L^(n)_j(τ) for j < n over snarkjs's n-th roots; with drop_top, minus τ^(n-1)·ω'^j/n (the
// top level of section 12, see ptau.hpp).
std::vector<Fr> lagrange(const Fr& tau, unsigned log_n, bool drop_top) {
  const std::size_t n = std::size_t(1) << log_n;
  const Fr w = snarkjs_root_of_unity(log_n);
  const Fr n_inv = Fr::from_u64(n).inverse();
  const Fr zn = (tau.pow(std::uint64_t(n)) - Fr::one()) * n_inv;
  const Fr top = tau.pow(std::uint64_t(n - 1)) * n_inv;
  std::vector<Fr> wj(n), den(n);
  Fr acc = Fr::one();
  for (std::size_t j = 0; j < n; ++j) {
    wj[j] = acc;
    den[j] = tau - acc;
    acc *= w;
  }
  ff::batch_invert(std::span<Fr>(den));
  std::vector<Fr> l(n);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 4096), [&](const auto& r) {
    for (std::size_t j = r.begin(); j < r.end(); ++j) {
      l[j] = zn * wj[j] * den[j];
      if (drop_top) l[j] -= top * wj[j];
    }
  });
  return l;
}

template <class C>
void write_points(Writer& w, const msm::FixedBaseTable<C>& table, std::span<const Fr> scalars) {
  constexpr std::size_t chunk = std::size_t(1) << 16;
  for (std::size_t i = 0; i < scalars.size(); i += chunk) {
    const auto pts = msm::batch_mul(table, scalars.subspan(i, std::min(chunk, scalars.size() - i)));
    for (const auto& p : pts) w.point(p);
  }
}

}  // namespace

PtauSecrets PtauSecrets::from_seed(std::uint64_t seed) {
  ff::SeededRng rng(seed);
  PtauSecrets s;
  for (Fr* x : {&s.tau, &s.alpha, &s.beta}) {
    do *x = Fr::random(rng);
    while (x->is_zero());
  }
  return s;
}

void write_insecure_ptau(const std::string& path, unsigned power, const PtauSecrets& s,
                         const std::function<void(std::string_view)>& progress) {
  if (power < 1 || power > 27) throw std::invalid_argument("ptau power must be in 1..27");
  auto phase = [&](std::string_view p) {
    if (progress) progress(p);
  };
  const std::size_t n = std::size_t(1) << power;
  const msm::FixedBaseTable<ec::G1Curve> g1(G1Affine::generator(), msm::fixed_base_window<ec::G1Curve>(12 * n));
  const msm::FixedBaseTable<ec::G2Curve> g2(G2Affine::generator(), msm::fixed_base_window<ec::G2Curve>(3 * n));
  Writer w(path);
  w.raw("ptau", 4);
  w.u32(1);
  w.u32(11);
  w.section(1, 4 + 48 + 4 + 4);
  w.u32(48);
  w.limbs(ff::FpParams::modulus);
  w.u32(power);
  w.u32(power);
  const std::size_t g1b = 96, g2b = 192;
  auto sec = [&](std::uint32_t type, const char* name, auto& table, std::span<const Fr> scalars, std::size_t bytes) {
    phase(name);
    w.section(type, scalars.size() * bytes);
    write_points(w, table, scalars);
  };
  sec(2, "tauG1", g1, powers(s.tau, 2 * n - 1, Fr::one()), g1b);
  sec(3, "tauG2", g2, powers(s.tau, n, Fr::one()), g2b);
  sec(4, "alphaTauG1", g1, powers(s.tau, n, s.alpha), g1b);
  sec(5, "betaTauG1", g1, powers(s.tau, n, s.beta), g1b);
  const std::vector<Fr> beta{s.beta};
  sec(6, "betaG2", g2, beta, g2b);
  w.section(7, 4);
  w.u32(0);
  auto levels = [&](unsigned top, bool drop_top_level, const Fr& scale) {
    std::vector<Fr> all;
    for (unsigned k = 0; k <= top; ++k) {
      auto l = lagrange(s.tau, k, drop_top_level && k == top);
      for (auto& x : l) all.push_back(x * scale);
    }
    return all;
  };
  sec(12, "tauG1 (Lagrange)", g1, levels(power + 1, true, Fr::one()), g1b);
  sec(13, "tauG2 (Lagrange)", g2, levels(power, false, Fr::one()), g2b);
  sec(14, "alphaTauG1 (Lagrange)", g1, levels(power, false, s.alpha), g1b);
  sec(15, "betaTauG1 (Lagrange)", g1, levels(power, false, s.beta), g1b);
  w.close();
}

}  // namespace snarkpipe::circom
