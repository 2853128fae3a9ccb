#include "cli/selftest.hpp"

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>

#include "base/clock.hpp"
#include "base/hex.hpp"
#include "ec/encoding.hpp"
#include "ff/random.hpp"
#include "pairing/pairing.hpp"

namespace snarkpipe::cli {

using base::hex;

namespace {

using ec::G1Affine;
using ec::G1Jacobian;
using ec::G2Affine;
using ec::G2Jacobian;
using ff::Fp;
using ff::Fp12;
using ff::Fr;

// e(G1, G2): the value blst, zkcrypto/bls12_381 and @noble/curves agree on (coefficients in
// the order c0.c0.c0, c0.c0.c1, ..., c1.c2.c1).
constexpr const char* PAIRING_OF_GENERATORS[12] = {
    "1250ebd871fc0a92a7b2d83168d0d727272d441befa15c503dd8e90ce98db3e7b6d194f60839c508a84305aaca1789b6",
    "089a1c5b46e5110b86750ec6a532348868a84045483c92b7af5af689452eafabf1a8943e50439f1d59882a98eaa0170f",
    "1368bb445c7c2d209703f239689ce34c0378a68e72a6b3b216da0e22a5031b54ddff57309396b38c881c4c849ec23e87",
    "193502b86edb8857c273fa075a50512937e0794e1e65a7617c90d8bd66065b1fffe51d7a579973b1315021ec3c19934f",
    "01b2f522473d171391125ba84dc4007cfbf2f8da752f7c74185203fcca589ac719c34dffbbaad8431dad1c1fb597aaa5",
    "018107154f25a764bd3c79937a45b84546da634b8f6be14a8061e55cceba478b23f7dacaa35c8ca78beae9624045b4b6",
    "19f26337d205fb469cd6bd15c3d5a04dc88784fbb3d0b2dbdea54d43b2b73f2cbb12d58386a8703e0f948226e47ee89d",
    "06fba23eb7c5af0d9f80940ca771b6ffd5857baaf222eb95a7d2809d61bfe02e1bfd1b68ff02f0b8102ae1c2d5d5ab1a",
    "11b8b424cd48bf38fcef68083b0b0ec5c81a93b330ee1a677d0d15ff7b984e8978ef48881e32fac91b93b47333e2ba57",
    "03350f55a7aefcd3c31b4fcb6ce5771cc6a0e9786ab5973320c806ad360829107ba810c5a09ffdd9be2291a0c25a99a2",
    "04c581234d086a9902249b64728ffd21a189e87935a954051c7cdba7b3872629a4fafc05066245cb9108f0242d0fe3ef",
    "0f41e58663bf08cf068672cbd01a7ec73baca4d72ca93544deff686bfd6df543d48eaa24afe47e1efde449383b676631",
};
constexpr const char* G1_GENERATOR_COMPRESSED =
    "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb";
constexpr const char* G2_GENERATOR_COMPRESSED =
    "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8";

class Report {
 public:
  void check(const char* name, const std::function<bool()>& body) {
    const auto t0 = base::Clock::now();
    bool ok = false;
    std::string err;
    try {
      ok = body();
    } catch (const std::exception& e) {
      err = e.what();
    }
    const double ms = base::ms_since(t0);
    std::printf("  %-60s %s  %8.2f ms%s%s\n", name, ok ? "ok  " : "FAIL", ms, err.empty() ? "" : "  ", err.c_str());
    failures_ += ok ? 0 : 1;
    ++total_;
  }
  int failures() const { return failures_; }
  int total() const { return total_; }

 private:
  int failures_ = 0, total_ = 0;
};

}  // namespace

int run_selftest(bool verbose) {
  const std::uint64_t seed = ff::fresh_seed();
  ff::SeededRng rng(seed);
  std::printf("snarkpipe selftest (seed %llu; field multiplication: %s)\n", static_cast<unsigned long long>(seed),
              Fp::uses_asm() ? "x86-64 MULX/ADX assembly" : "portable C++");
  Report r;
  const auto t0 = base::Clock::now();

  std::printf("fields\n");
  r.check("Fp: ring laws and inverses on 1000 random elements", [&] {
    for (int i = 0; i < 1000; ++i) {
      const Fp a = Fp::random(rng), b = Fp::random(rng), c = Fp::random(rng);
      if (a * (b + c) != a * b + a * c || (a - b) + b != a || (!a.is_zero() && a * a.inverse() != Fp::one()))
        return false;
      if (a * b != Fp::mul_portable(a, b) || a.square() != Fp::mul_portable(a, a)) return false;
    }
    return true;
  });
  r.check("Fr: ring laws; 2^32-th root of unity has order 2^32", [&] {
    for (int i = 0; i < 1000; ++i) {
      const Fr a = Fr::random(rng), b = Fr::random(rng);
      if ((a + b) * (a - b) != a.square() - b.square() || a * b != Fr::mul_portable(a, b)) return false;
    }
    Fr w = ff::FR_ROOT_OF_UNITY;
    for (int i = 0; i < 31; ++i) w = w.square();
    return w == -Fr::one();
  });
  r.check("Fp, Fp2: square roots of random squares", [&] {
    for (int i = 0; i < 20; ++i) {
      const ff::Fp2 a = ff::Fp2::random(rng);
      const auto s = a.square().sqrt();
      if (!s || (*s != a && *s != -a)) return false;
    }
    return true;
  });

  std::printf("curves\n");
  r.check("generators encode to their known compressed bytes", [&] {
    return hex(ec::g1_to_compressed(G1Affine::generator())) == G1_GENERATOR_COMPRESSED &&
           hex(ec::g2_to_compressed(G2Affine::generator())) == G2_GENERATOR_COMPRESSED;
  });
  r.check("[r]G = O for G1 and G2", [&] {
    return ec::mul_bigint(G1Jacobian::generator(), ec::GROUP_ORDER).is_identity() &&
           ec::mul_bigint(G2Jacobian::generator(), ec::GROUP_ORDER).is_identity();
  });
  r.check("[a]P + [b]P = [a+b]P, encode/decode round trip", [&] {
    for (int i = 0; i < 5; ++i) {
      const Fr a = Fr::random(rng), b = Fr::random(rng);
      const G1Jacobian p = G1Jacobian::generator() * Fr::random(rng);
      const G2Jacobian q = G2Jacobian::generator() * Fr::random(rng);
      if (p * a + p * b != p * (a + b) || q * a + q * b != q * (a + b)) return false;
      const G1Affine pa = p.to_affine();
      const G2Affine qa = q.to_affine();
      if (ec::g1_from_bytes(ec::g1_to_compressed(pa)).value() != pa) return false;
      if (ec::g2_from_bytes(ec::g2_to_compressed(qa)).value() != qa) return false;
    }
    return true;
  });
  r.check("subgroup checks: k·G accepted, random curve points rejected", [&] {
    for (int i = 0; i < 5; ++i) {
      if (!ec::is_in_subgroup((G2Jacobian::generator() * Fr::random(rng)).to_affine())) return false;
      for (;;) {
        if (auto q = ec::point_with_x<ec::G1Curve>(Fp::random(rng))) {
          if (ec::is_in_subgroup(*q)) return false;
          break;
        }
      }
    }
    return true;
  });

  std::printf("pairing\n");
  const Fp12 e = pairing::pairing(G1Affine::generator(), G2Affine::generator());
  r.check("e(G1, G2) equals the known value (blst / zkcrypto / noble)", [&] {
    const auto c = e.coefficients();
    for (int i = 0; i < 12; ++i)
      if (c[i].to_hex() != PAIRING_OF_GENERATORS[i]) return false;
    return true;
  });
  r.check("bilinearity: e(aP, bQ) = e(P, Q)^(ab)", [&] {
    const Fr a = Fr::random(rng), b = Fr::random(rng);
    const Fp12 lhs =
        pairing::pairing((G1Jacobian::generator() * a).to_affine(), (G2Jacobian::generator() * b).to_affine());
    return lhs == e.pow((a * b).to_repr());
  });
  r.check("non-degeneracy and e^r = 1", [&] { return !e.is_one() && e.pow(ec::GROUP_ORDER).is_one(); });

  const double total_ms = base::ms_since(t0);
  std::printf("%d of %d checks passed in %.1f ms%s\n", r.total() - r.failures(), r.total(), total_ms,
              r.failures() ? "  -- FAILURES ABOVE" : "");
  (void)verbose;
  return r.failures();
}

}  // namespace snarkpipe::cli
