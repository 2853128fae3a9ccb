// Groth16 end to end on the CPU: setup, prove, verify, batch verify, the H polynomial, and the
// bellperson file formats, on random circuits from fresh seeds.
#include <gtest/gtest.h>

#include <random>

#include "circuit/spmv.hpp"
#include "groth16/backend.hpp"
#include "groth16/packed_witness.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory_resource>

#include "groth16/params_file.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "poly/ntt.hpp"
#include "random_circuit.hpp"
#include "test_seed.hpp"

using namespace snarkpipe;
using namespace snarkpipe::groth16;
using snarkpipe::testing::RandomCircuit;

namespace {

std::vector<Fr> publics(const Witness& w) { return {w.inputs.begin() + 1, w.inputs.end()}; }

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("snarkpipe-test-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

}  // namespace

TEST(Groth16, ProveAndVerifyRandomCircuits) {
  const std::uint64_t seed = test_seed("Groth16.ProveAndVerify");
  for (auto [n, inputs] : {std::pair{1, 0}, {2, 1}, {17, 3}, {300, 5}, {1000, 2}}) {
    const RandomCircuit circuit(n, inputs, seed + n);
    const circuit::R1cs r1cs = circuit.record();
    const Witness w = circuit.witness();
    const ProvingKey pk = setup(r1cs);
    const PreparedVerifyingKey pvk = PreparedVerifyingKey::from(pk.vk);
    const Proof proof = prove(pk, r1cs, w, ProverRandomness::random());
    EXPECT_TRUE(verify(pvk, proof, publics(w))) << "constraints " << n;
    // The 192-byte encoding round-trips.
    EXPECT_EQ(Proof::from_bytes(proof.to_bytes()), proof);
  }
}

TEST(Groth16, RejectsWhatIsWrong) {
  const std::uint64_t seed = test_seed("Groth16.Rejects");
  const RandomCircuit circuit(200, 3, seed);
  const circuit::R1cs r1cs = circuit.record();
  const Witness w = circuit.witness();
  const ProvingKey pk = setup(r1cs);
  const PreparedVerifyingKey pvk = PreparedVerifyingKey::from(pk.vk);
  const Proof proof = prove_checked(pk, r1cs, w, ProverRandomness::random());
  ASSERT_TRUE(verify(pvk, proof, publics(w)));

  // A changed public input.
  auto bad_inputs = publics(w);
  bad_inputs[1] += Fr::one();
  EXPECT_FALSE(verify(pvk, proof, bad_inputs));
  // Wrong number of inputs: an error, not a verdict.
  EXPECT_THROW(verify(pvk, proof, std::vector<Fr>(2)), VerificationError);
  // Changed proof bytes: either undecodable or not verifying.
  ff::SeededRng rng(seed);
  for (int i = 0; i < 8; ++i) {
    auto bytes = proof.to_bytes();
    bytes[rng.next_u64() % bytes.size()] ^= std::uint8_t(1 + rng.next_u64() % 255);
    try {
      EXPECT_FALSE(verify(pvk, Proof::from_bytes(bytes), publics(w)));
    } catch (const ProofFormatError&) {}
  }
  // A proof for another circuit (same shape, another key).
  const ProvingKey other = setup(r1cs);
  const Proof foreign = prove(other, r1cs, w, ProverRandomness::random());
  EXPECT_FALSE(verify(pvk, foreign, publics(w)));
  // Swapped A and C.
  Proof swapped = proof;
  std::swap(swapped.a, swapped.c);
  EXPECT_FALSE(verify(pvk, swapped, publics(w)));
}

TEST(Groth16, UnsatisfiedWitnessIsRefused) {
  const RandomCircuit circuit(50, 2, test_seed("Groth16.Unsatisfied"));
  const circuit::R1cs r1cs = circuit.record();
  Witness w = circuit.witness();
  const ProvingKey pk = setup(r1cs);
  // Corrupt an aux value some constraint pins (adding 1 to a value no constraint reads, or
  // one a constraint's other terms can absorb, leaves the witness valid).
  bool broken = false;
  for (std::size_t j = w.aux.size(); j-- > 0 && !broken;) {
    w.aux[j] += Fr::one();
    broken = !circuit::is_satisfied(r1cs, w.inputs, w.aux);
    if (!broken) w.aux[j] -= Fr::one();
  }
  ASSERT_TRUE(broken) << "no aux value of the circuit is pinned by a constraint";
  EXPECT_THROW(prove_checked(pk, r1cs, w, ProverRandomness::random()), ProverError);
  // And a key for another shape is refused with a message.
  const RandomCircuit bigger(80, 2, 1);
  EXPECT_THROW(prove(pk, bigger.record(), bigger.witness(), ProverRandomness::random()), ProverError);
}

TEST(Groth16, HPolynomialDividesExactly) {
  // h(ζ)·t(ζ) = a(ζ)·b(ζ) − c(ζ) at a random point ζ, with a, b, c interpolated independently.
  const std::uint64_t seed = test_seed("Groth16.H");
  const RandomCircuit circuit(100, 2, seed);
  const circuit::R1cs r1cs = circuit.record();
  const Witness w = circuit.witness();
  const std::vector<Fr> h = compute_h(r1cs, w);
  const poly::EvaluationDomain domain = poly::EvaluationDomain::for_size(r1cs.num_constraints);
  ff::SeededRng rng(seed);
  const Fr zeta = Fr::random(rng);
  const std::vector<Fr> lag = domain.lagrange_at(zeta);
  // a(ζ) = Σ L_k(ζ)·⟨A_k, z⟩
  std::vector<Fr> z(w.inputs);
  z.insert(z.end(), w.aux.begin(), w.aux.end());
  auto eval = [&](const circuit::CsrMatrix& m) {
    Fr acc = Fr::zero();
    for (std::size_t k = 0; k < m.num_rows(); ++k) {
      Fr row = Fr::zero();
      for (std::size_t e = m.row_ptr[k]; e < m.row_ptr[k + 1]; ++e) row += m.val[e] * z[m.col[e]];
      acc += lag[k] * row;
    }
    return acc;
  };
  Fr h_at = Fr::zero();
  for (std::size_t i = h.size(); i-- > 0;) h_at = h_at * zeta + h[i];
  EXPECT_EQ(h_at * domain.vanishing_at(zeta), eval(r1cs.a) * eval(r1cs.b) - eval(r1cs.c));
}

TEST(Groth16, SetupMatchesToxicWaste) {
  const RandomCircuit circuit(20, 1, test_seed("Groth16.SetupToxic"));
  const ToxicWaste tw = ToxicWaste::random();
  const ProvingKey pk = generate_parameters(circuit.record(), tw);
  using ec::G1Jacobian;
  using ec::G2Jacobian;
  EXPECT_EQ(pk.vk.alpha_g1, (G1Jacobian::generator() * tw.alpha).to_affine());
  EXPECT_EQ(pk.vk.beta_g2, (G2Jacobian::generator() * tw.beta).to_affine());
  EXPECT_EQ(pk.vk.delta_g2, (G2Jacobian::generator() * tw.delta).to_affine());
  // h_0 = t(τ)/δ
  const poly::EvaluationDomain d = poly::EvaluationDomain::for_size(circuit.record().num_constraints);
  EXPECT_EQ(pk.h[0], (G1Jacobian::generator() * (d.vanishing_at(tw.tau) * tw.delta.inverse())).to_affine());
}

TEST(Groth16, BatchVerification) {
  const std::uint64_t seed = test_seed("Groth16.Batch");
  const RandomCircuit circuit(100, 3, seed);
  const circuit::R1cs r1cs = circuit.record();
  const ProvingKey pk = setup(r1cs);
  const PreparedVerifyingKey pvk = PreparedVerifyingKey::from(pk.vk);
  const Witness w = circuit.witness();
  std::vector<Proof> proofs;
  for (int i = 0; i < 4; ++i) proofs.push_back(prove(pk, r1cs, w, ProverRandomness::random()));
  const auto x = publics(w);
  std::vector<ProofWithInputs> items;
  for (const auto& p : proofs) items.push_back({&p, x});
  EXPECT_TRUE(verify_batch(pvk, items));
  auto bad_x = x;
  bad_x[0] += Fr::one();
  items[2].public_inputs = bad_x;
  EXPECT_FALSE(verify_batch(pvk, items));
}

TEST(ParamsFile, RoundTripAndProve) {
  const std::uint64_t seed = test_seed("ParamsFile.RoundTrip");
  const RandomCircuit circuit(150, 2, seed);
  const circuit::R1cs r1cs = circuit.record();
  const ProvingKey pk = setup(r1cs);
  const std::string params = temp_path("rt.params"), vk = temp_path("rt.vk");
  write_params(params, pk);
  write_vk(vk, pk.vk);
  ParamsReadOptions full;
  full.check_subgroup = true;
  const ProvingKey back = read_params(params, full);
  EXPECT_EQ(back, pk);
  EXPECT_EQ(read_vk(vk), pk.vk);
  const auto summary = summarize_params_file(params);
  EXPECT_EQ(summary.h, pk.h.size());
  EXPECT_EQ(summary.l, pk.l.size());
  EXPECT_EQ(summary.b_g2, pk.b_g2.size());
  EXPECT_EQ(summarize_params_file(vk).kind, ParamsSummary::Kind::VerifyingKey);
  // The .vk file is the .params file's prefix.
  EXPECT_EQ(std::filesystem::file_size(vk), 864 + 4 + 96 * pk.vk.ic.size());
  const Witness w = circuit.witness();
  EXPECT_TRUE(
      verify(PreparedVerifyingKey::from(read_vk(vk)), prove(back, r1cs, w, ProverRandomness::random()), publics(w)));
  std::filesystem::remove(params);
  std::filesystem::remove(vk);
}

// A key opened with its queries left in the file (for a GPU backend): its sizes and vk are
// the file's, any piece read back equals read_params's points, a corrupted point is named with
// its offset when its piece is read, and the CPU prover refuses the key with words.
TEST(ParamsFile, DeferredQueriesReadInPieces) {
  const std::uint64_t seed = test_seed("ParamsFile.Deferred");
  std::mt19937_64 rng(seed);
  const RandomCircuit circuit(300 + rng() % 200, 3, seed);
  const circuit::R1cs r1cs = circuit.record();
  const ProvingKey pk = setup(r1cs);
  const std::string path = temp_path("deferred.params");
  write_params(path, pk);
  const ProvingKey d = open_params_deferred(path);
  ASSERT_TRUE(d.deferred);
  EXPECT_FALSE(d.queries_on_host());
  EXPECT_EQ(d.vk, pk.vk);
  EXPECT_EQ(d.h.size(), pk.h.size());
  EXPECT_EQ(d.l.size(), pk.l.size());
  EXPECT_EQ(d.a.size(), pk.a.size());
  EXPECT_EQ(d.b_g1.size(), pk.b_g1.size());
  EXPECT_EQ(d.b_g2.size(), pk.b_g2.size());
  EXPECT_EQ(d.h.data(), nullptr);
  using Q = ParamsQueries::Query;
  const std::pair<Q, const base::HostArray<ec::G1Affine>*> g1s[] = {
      {Q::h, &pk.h}, {Q::l, &pk.l}, {Q::a, &pk.a}, {Q::b_g1, &pk.b_g1}};
  for (const auto& [q, want] : g1s) {
    const std::size_t first = rng() % want->size(), n = 1 + rng() % (want->size() - first);
    std::vector<ec::G1Affine> got(n);
    d.deferred->read_g1(q, first, n, got.data());
    EXPECT_TRUE(std::equal(got.begin(), got.end(), want->begin() + first)) << int(q);
  }
  std::vector<ec::G2Affine> g2(pk.b_g2.size());
  d.deferred->read_g2(0, g2.size(), g2.data());
  EXPECT_TRUE(std::equal(g2.begin(), g2.end(), pk.b_g2.begin()));
  std::vector<ec::G1Affine> one(1);
  EXPECT_THROW(d.deferred->read_g1(Q::l, pk.l.size(), 1, one.data()), std::out_of_range);
  // The CPU prover needs the points in memory.
  try {
    prove(d, r1cs, circuit.witness(), ProverRandomness::random());
    ADD_FAILURE() << "the CPU prover took a deferred key";
  } catch (const ProverError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_THROW(write_params(temp_path("copy.params"), d), std::invalid_argument);
  // A point of l made invalid (its y changed) is found when its piece is read, and named.
  const std::size_t bad = rng() % pk.l.size();
  const std::uint64_t off = d.deferred->offset(Q::l) + bad * 96 + 95;
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(std::streamoff(off));
    char c = 0;
    f.seekg(std::streamoff(off));
    f.read(&c, 1);
    c ^= 1;
    f.seekp(std::streamoff(off));
    f.write(&c, 1);
  }
  const ProvingKey d2 = open_params_deferred(path);
  std::vector<ec::G1Affine> all(pk.l.size());
  try {
    d2.deferred->read_g1(Q::l, 0, all.size(), all.data());
    ADD_FAILURE() << "a corrupted point was read";
  } catch (const ParamsFileError& e) {
    EXPECT_EQ(e.field(), "l[" + std::to_string(bad) + "]");
    EXPECT_EQ(e.offset(), off - 95);
  }
  std::filesystem::remove(path);
}

// Every point of a key stores reduced coordinates (limbs < p), as read from a file and as made
// by the setup (batched affine additions, fixed-base tables): the GPU backends copy the
// key's point arrays to the device as raw limbs, and its arithmetic expects them reduced,
// while the CPU's Fp keeps its results in [0, 2p).
TEST(Groth16, KeyPointsAreStoredReduced) {
  const RandomCircuit circuit(600, 3, test_seed("Groth16.KeyReduced"));
  const ProvingKey pk = setup(circuit.record());
  std::size_t points = 0;
  auto reduced = [&](const auto& p) {
    ++points;
    const ff::Fp* c = reinterpret_cast<const ff::Fp*>(&p);
    for (std::size_t k = 0; k < sizeof(p) / sizeof(ff::Fp); ++k)
      if (!c[k].is_reduced()) return false;
    return true;
  };
  for (const auto* v : {&pk.h, &pk.l, &pk.a, &pk.b_g1})
    for (const auto& p : *v) ASSERT_TRUE(reduced(p)) << points;
  for (const auto& p : pk.vk.ic) ASSERT_TRUE(reduced(p)) << points;
  for (const auto& p : pk.b_g2) ASSERT_TRUE(reduced(p)) << points;
  for (const auto& p : {pk.vk.alpha_g1, pk.vk.beta_g1, pk.vk.delta_g1}) EXPECT_TRUE(reduced(p));
  for (const auto& p : {pk.vk.beta_g2, pk.vk.gamma_g2, pk.vk.delta_g2}) EXPECT_TRUE(reduced(p));
  EXPECT_GT(points, 2000u);
}

TEST(ParamsFile, MalformedFilesAreRejected) {
  const std::uint64_t seed = test_seed("ParamsFile.Malformed");
  const RandomCircuit circuit(40, 1, seed);
  const ProvingKey pk = setup(circuit.record());
  const std::string path = temp_path("bad.params");
  write_params(path, pk);
  std::vector<char> bytes(std::filesystem::file_size(path));
  std::ifstream(path, std::ios::binary).read(bytes.data(), std::streamsize(bytes.size()));
  auto write = [&](const std::vector<char>& b) {
    std::ofstream(path, std::ios::binary).write(b.data(), std::streamsize(b.size()));
  };
  ff::SeededRng rng(seed);
  // Truncations anywhere: always an error naming a field and an offset.
  for (int i = 0; i < 20; ++i) {
    auto t = bytes;
    t.resize(rng.next_u64() % bytes.size());
    write(t);
    EXPECT_THROW(read_params(path), ParamsFileError) << "truncated at " << t.size();
  }
  // Trailing garbage.
  auto t = bytes;
  t.push_back(0);
  write(t);
  EXPECT_THROW(read_params(path), ParamsFileError);
  // A huge count.
  t = bytes;
  t[864] = char(0x7f);
  write(t);
  try {
    read_params(path);
    ADD_FAILURE() << "huge count accepted";
  } catch (const ParamsFileError& e) {
    EXPECT_EQ(e.field(), "ic.count");
    EXPECT_EQ(e.offset(), 864u);
  }
  // A corrupted coordinate: an error, or (if it still decodes) a different key.
  for (int i = 0; i < 10; ++i) {
    t = bytes;
    t[868 + rng.next_u64() % (bytes.size() - 868)] ^= char(1 << (rng.next_u64() % 8));
    write(t);
    try {
      EXPECT_NE(read_params(path), pk);
    } catch (const ParamsFileError&) {}
  }
  std::filesystem::remove(path);
}

// bellperson never has α, β, γ or δ at infinity (one that is there makes its pairing term 1:
// with γ or δ there, anyone can forge proofs): the readers refuse each, naming it.
TEST(ParamsFile, VerifyingKeyPointsAtInfinityAreRefused) {
  const RandomCircuit circuit(40, 1, test_seed("ParamsFile.Infinity"));
  const ProvingKey pk = setup(circuit.record());
  const std::string vk_path = temp_path("inf.vk"), params_path = temp_path("inf.params");
  struct Case {
    const char* field;
    std::uint64_t offset;
    std::function<void(VerifyingKey&)> clear;
  };
  const Case cases[] = {
      {"alpha_g1", 0, [](VerifyingKey& k) { k.alpha_g1 = G1Affine::identity(); }},
      {"beta_g1", 96, [](VerifyingKey& k) { k.beta_g1 = G1Affine::identity(); }},
      {"beta_g2", 192, [](VerifyingKey& k) { k.beta_g2 = ec::G2Affine::identity(); }},
      {"gamma_g2", 384, [](VerifyingKey& k) { k.gamma_g2 = ec::G2Affine::identity(); }},
      {"delta_g1", 576, [](VerifyingKey& k) { k.delta_g1 = G1Affine::identity(); }},
      {"delta_g2", 672, [](VerifyingKey& k) { k.delta_g2 = ec::G2Affine::identity(); }},
  };
  for (const Case& c : cases) {
    ProvingKey bad = pk;
    c.clear(bad.vk);
    write_vk(vk_path, bad.vk);
    write_params(params_path, bad);
    for (const auto& read :
         {std::function<void()>([&] { read_vk(vk_path); }), std::function<void()>([&] { read_params_vk(params_path); }),
          std::function<void()>([&] { read_params(params_path); })}) {
      try {
        read();
        ADD_FAILURE() << c.field << " at infinity accepted";
      } catch (const ParamsFileError& e) {
        EXPECT_EQ(e.field(), c.field);
        EXPECT_EQ(e.offset(), c.offset) << c.field;
        EXPECT_NE(std::string(e.what()).find("point at infinity"), std::string::npos) << e.what();
      }
    }
  }
  write_vk(vk_path, pk.vk);
  EXPECT_EQ(read_vk(vk_path), pk.vk);
  std::filesystem::remove(vk_path);
  std::filesystem::remove(params_path);
}

namespace snarkpipe::groth16 {
namespace {

// pack_witness / unpack_witness: 0, 1 and general values in every mix, word boundaries, reuse.
TEST(PackedWitness, RoundTripsAndCountsTheGeneralValues) {
  ff::SeededRng rng(test_seed("PackedWitness"));
  PackedWitness p;
  for (std::size_t n : {0, 1, 63, 64, 65, 1000, 200003}) {
    std::vector<Fr> inputs = {Fr::one(), Fr::random(rng)};
    std::vector<Fr> aux(n);
    std::size_t general = 0;
    for (auto& x : aux) {
      const auto kind = rng.next_u64() % 10;
      x = kind < 4 ? Fr::zero() : kind < 8 ? Fr::one() : Fr::random(rng);
      general += !x.is_zero() && !(x == Fr::one());
    }
    pack_witness(inputs, aux, p);
    EXPECT_EQ(p.num_aux, n);
    EXPECT_EQ(p.values.size(), general);
    const Witness w = unpack_witness(p);
    EXPECT_EQ(w.inputs, inputs);
    EXPECT_EQ(w.aux, aux) << "n = " << n;
  }
}

// PackedWitnessWriter: a witness in pieces of random lengths (word-aligned or not, empty ones
// too) packs to exactly what pack_witness makes of the whole; a wrong count is refused.
TEST(PackedWitness, WriterInPiecesEqualsPackingTheWhole) {
  ff::SeededRng rng(test_seed("PackedWitness.Writer"));
  for (std::size_t n : {0, 1, 63, 64, 129, 5000, 300007}) {
    std::vector<Fr> inputs = {Fr::one(), Fr::random(rng), Fr::random(rng)};
    std::vector<Fr> aux(n);
    for (auto& x : aux) {
      const auto kind = rng.next_u64() % 10;
      x = kind < 5 ? Fr::zero() : kind < 8 ? Fr::one() : Fr::random(rng);
    }
    PackedWitness whole, pieces;
    pack_witness(inputs, aux, whole);
    PackedWitnessWriter writer(pieces, inputs, n);
    for (std::size_t at = 0; at < n;) {
      const std::size_t len =
          std::min<std::size_t>(n - at, rng.next_u64() % 3 == 0 ? rng.next_u64() % 70 : rng.next_u64() % 9000);
      writer.append(std::span<const Fr>(aux).subspan(at, len));
      at += len;
    }
    writer.finish();
    EXPECT_EQ(pieces.inputs, whole.inputs);
    EXPECT_EQ(pieces.num_aux, whole.num_aux);
    EXPECT_TRUE(std::equal(pieces.general.begin(), pieces.general.end(), whole.general.begin(), whole.general.end()))
        << n;
    EXPECT_TRUE(std::equal(pieces.ones.begin(), pieces.ones.end(), whole.ones.begin(), whole.ones.end())) << n;
    EXPECT_TRUE(std::equal(pieces.rank.begin(), pieces.rank.end(), whole.rank.begin(), whole.rank.end())) << n;
    EXPECT_TRUE(std::equal(pieces.values.begin(), pieces.values.end(), whole.values.begin(), whole.values.end())) << n;
    EXPECT_EQ(unpack_witness(pieces).aux, aux);
  }
  PackedWitness p;
  const std::vector<Fr> inputs = {Fr::one()}, three(3, Fr::one());
  PackedWitnessWriter short_one(p, inputs, 4);
  short_one.append(three);
  EXPECT_THROW(short_one.finish(), std::invalid_argument);
  PackedWitnessWriter long_one(p, inputs, 2);
  EXPECT_THROW(long_one.append(three), std::invalid_argument);
}

// A packed witness in a backend's memory (ProverBackend::witness_memory: page-locked for a
// GPU): the bitmaps and values come from that resource, the round trip is unchanged, and a
// reused one allocates nothing more for a witness no larger than the last.
class CountingResource final : public std::pmr::memory_resource {
 public:
  std::size_t allocations = 0, live_bytes = 0;

 private:
  void* do_allocate(std::size_t bytes, std::size_t align) override {
    ++allocations;
    live_bytes += bytes;
    return std::pmr::new_delete_resource()->allocate(bytes, align);
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t align) override {
    live_bytes -= bytes;
    std::pmr::new_delete_resource()->deallocate(p, bytes, align);
  }
  bool do_is_equal(const std::pmr::memory_resource& o) const noexcept override { return this == &o; }
};

TEST(PackedWitness, LivesInTheMemoryItIsGiven) {
  ff::SeededRng rng(test_seed("PackedWitnessMemory"));
  CountingResource memory;
  {
    PackedWitness p(&memory);
    std::size_t after_first = 0;
    for (std::size_t n : {5000, 3000}) {  // the second fits the first's capacity
      std::vector<Fr> inputs = {Fr::one()};
      std::vector<Fr> aux(n);
      for (auto& x : aux) x = rng.next_u64() % 2 ? Fr::one() : Fr::random(rng);
      pack_witness(inputs, aux, p);
      EXPECT_EQ(unpack_witness(p).aux, aux);
      const std::size_t words = (n + 63) / 64;
      EXPECT_GE(memory.live_bytes, words * (8 + 8 + 4) + p.values.size() * sizeof(Fr));
      if (after_first == 0) after_first = memory.allocations;
      else EXPECT_EQ(memory.allocations, after_first) << "a smaller witness allocated again";
    }
    EXPECT_EQ(p.general.get_allocator().resource(), &memory);
    EXPECT_EQ(p.values.get_allocator().resource(), &memory);
    EXPECT_EQ(CpuBackend().witness_memory(), std::pmr::get_default_resource());
  }
  EXPECT_EQ(memory.live_bytes, 0u);
}

}  // namespace
}  // namespace snarkpipe::groth16
