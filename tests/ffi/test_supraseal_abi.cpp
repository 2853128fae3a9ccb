// supraseal-c2's C ABI as the two shared libraries export it (src/ffi), loaded with dlopen the
// way a Rust program links them: proofs equal to the CPU backend's for fixed r and s, the
// SRS's reference counting and cache, the errors each bad input gets, and the split
// start / finalize pair from two threads sharing one GPU mutex. On a machine with a GPU the
// libraries prove there, so the byte equality is the GPU path's against the CPU's.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "circuit/spmv.hpp"
#include "ffi/blst_layout.hpp"
#include "ffi/supraseal_c2.h"
#include "groth16/params_file.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/random_circuit.hpp"
#include "test_seed.hpp"

namespace {

using namespace snarkpipe;
using ff::Fr;

// The ABI's functions from one library (the cuzk forms only in libsnarkpipe_cuzk).
struct Library {
  void* handle = nullptr;
  RustError (*create_srs)(SRS&, const char*, bool) = nullptr;
  SRS (*clone_srs)(const SRS&) = nullptr;
  void (*drop_srs)(SRS&) = nullptr;
  void (*evict_srs)(const SRS&) = nullptr;
  RustError (*prove)(const Assignment*, size_t, const fr_t*, const fr_t*, groth16_proof*, SRS&) = nullptr;
  RustError (*prove_cuzk)(const Assignment*, size_t, const fr_t*, const fr_t*, groth16_proof*, SRS&, void*,
                          int) = nullptr;
  RustError (*start)(const Assignment*, size_t, const fr_t*, const fr_t*, SRS&, void*, int, void**) = nullptr;
  RustError (*finalize)(void*, groth16_proof*) = nullptr;
  void (*destroy_pending)(void*) = nullptr;
  void* (*create_mutex)() = nullptr;
  void (*destroy_mutex)(void*) = nullptr;

  explicit Library(const char* path, bool cuzk) {
    handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) throw std::runtime_error(std::string("dlopen: ") + dlerror());
    load(create_srs, "create_SRS");
    load(clone_srs, "clone_SRS");
    load(drop_srs, "drop_SRS");
    load(evict_srs, "evict_SRS");
    if (cuzk) {
      load(prove_cuzk, "generate_groth16_proofs_c");
      load(start, "generate_groth16_proofs_start_c");
      load(finalize, "finalize_groth16_proof_c");
      load(destroy_pending, "destroy_pending_proof");
      load(create_mutex, "create_gpu_mutex");
      load(destroy_mutex, "destroy_gpu_mutex");
    } else {
      load(prove, "generate_groth16_proofs_c");
      if (dlsym(handle, "generate_groth16_proofs_start_c"))
        throw std::runtime_error("the upstream library exports the fork's start function");
    }
  }
  template <class F>
  void load(F& f, const char* name) {
    f = reinterpret_cast<F>(dlsym(handle, name));
    if (!f) throw std::runtime_error(std::string("missing symbol ") + name);
  }
  RustError generate(const Assignment* p, size_t n, const fr_t* r, const fr_t* s, groth16_proof* out, SRS& srs) const {
    return prove ? prove(p, n, r, s, out, srs) : prove_cuzk(p, n, r, s, out, srs, nullptr, -1);
  }
};

// The libraries of this build, or (SNARKPIPE_SUPRASEAL_LIB / SNARKPIPE_CUZK_LIB) copies
// carried elsewhere, as on the GPU machine.
const char* library_path(const char* variable, const char* built) {
  const char* p = std::getenv(variable);
  return p && *p ? p : built;
}
Library& upstream() {
  static Library lib(library_path("SNARKPIPE_SUPRASEAL_LIB", SNARKPIPE_SUPRASEAL_LIB), false);
  return lib;
}
Library& cuzk() {
  static Library lib(library_path("SNARKPIPE_CUZK_LIB", SNARKPIPE_CUZK_LIB), true);
  return lib;
}

// The error's code and message (freed here, as the caller of the ABI must).
struct Outcome {
  int code;
  std::string message;
};
Outcome take(RustError e) {
  Outcome o{e.code, e.message ? e.message : ""};
  std::free(e.message);
  return o;
}

// A circuit, its key in a .params file, and one witness as bellperson would pass it.
struct Fixture {
  circuit::R1cs r1cs;
  groth16::ProvingKey pk;
  groth16::Witness w;
  circuit::Evaluations abc;
  std::filesystem::path dir, params;

  explicit Fixture(std::uint64_t seed, std::size_t constraints = 300, std::size_t inputs = 3) {
    snarkpipe::testing::RandomCircuit rc(constraints, inputs, seed);
    r1cs = rc.record();
    w = rc.witness();
    abc = circuit::evaluate(r1cs, w.inputs, w.aux);
    pk = groth16::setup(r1cs);
    dir = std::filesystem::temp_directory_path() /
          ("snarkpipe-abi-" + std::to_string(seed) + "-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    params = dir / "key.params";
    groth16::write_params(params.string(), pk);
  }
  ~Fixture() { std::filesystem::remove_all(dir); }

  Assignment assignment() const {
    Assignment a{};
    a.a_aux_density = r1cs.a_aux_density.words().data();
    a.a_aux_bit_len = r1cs.num_aux;
    a.a_aux_popcount = r1cs.a_aux_density.count();
    a.b_inp_density = r1cs.b_input_density.words().data();
    a.b_inp_bit_len = r1cs.num_inputs;
    a.b_inp_popcount = r1cs.b_input_density.count();
    a.b_aux_density = r1cs.b_aux_density.words().data();
    a.b_aux_bit_len = r1cs.num_aux;
    a.b_aux_popcount = r1cs.b_aux_density.count();
    a.a = reinterpret_cast<const fr_t*>(abc.a.data());
    a.b = reinterpret_cast<const fr_t*>(abc.b.data());
    a.c = reinterpret_cast<const fr_t*>(abc.c.data());
    a.abc_size = abc.a.size();
    a.inp_assignment_data = reinterpret_cast<const fr_t*>(w.inputs.data());
    a.inp_assignment_size = w.inputs.size();
    a.aux_assignment_data = reinterpret_cast<const fr_t*>(w.aux.data());
    a.aux_assignment_size = w.aux.size();
    return a;
  }

  // The CPU backend's proof for r, s: what the ABI's must equal.
  groth16::Proof expected(const groth16::ProverRandomness& rs) const { return groth16::prove(pk, r1cs, w, rs); }
};

std::vector<groth16::ProverRandomness> randomness(std::size_t n) {
  std::vector<groth16::ProverRandomness> rs;
  for (std::size_t i = 0; i < n; ++i) rs.push_back(groth16::ProverRandomness::random());
  return rs;
}

class SrsHandle {
 public:
  SrsHandle(const Library& lib, const std::filesystem::path& p, bool cache = false) : lib_(lib) {
    const Outcome o = take(lib.create_srs(srs_, p.c_str(), cache));
    if (o.code != 0) throw std::runtime_error("create_SRS: " + o.message);
  }
  ~SrsHandle() {
    if (srs_.ptr) lib_.drop_srs(srs_);
  }
  SRS& get() { return srs_; }

 private:
  const Library& lib_;
  SRS srs_{nullptr};
};

// Proves n circuits (all the fixture's witness) with fresh r, s and checks each against the CPU.
void expect_equal_to_cpu(const Library& lib, Fixture& f, SRS& srs, std::size_t n) {
  const auto rs = randomness(n);
  std::vector<Assignment> batch(n, f.assignment());
  std::vector<fr_t> r, s;
  for (const auto& x : rs) r.push_back(ffi::fr_to_blst(x.r)), s.push_back(ffi::fr_to_blst(x.s));
  std::vector<groth16_proof> out(n);
  const Outcome o = take(lib.generate(batch.data(), n, r.data(), s.data(), out.data(), srs));
  ASSERT_EQ(o.code, 0) << o.message;
  for (std::size_t i = 0; i < n; ++i)
    EXPECT_EQ(ffi::proof_from_blst(out[i]).to_bytes(), f.expected(rs[i]).to_bytes()) << "circuit " << i << " of " << n;
}

TEST(SuprasealAbi, ProofsEqualTheCpuBackendsForFixedRandomizers) {
  Fixture f(test_seed("SuprasealAbi.Equal"));
  for (Library* lib : {&upstream(), &cuzk()}) {
    SrsHandle srs(*lib, f.params);
    expect_equal_to_cpu(*lib, f, srs.get(), 1);
    expect_equal_to_cpu(*lib, f, srs.get(), 3);
  }
}

TEST(SuprasealAbi, ProofsAreWrittenInBlstsReducedMontgomeryLayout) {
  Fixture f(test_seed("SuprasealAbi.Layout"));
  SrsHandle srs(upstream(), f.params);
  const auto rs = randomness(1);
  const Assignment a = f.assignment();
  const fr_t r = ffi::fr_to_blst(rs[0].r), s = ffi::fr_to_blst(rs[0].s);
  groth16_proof out;
  std::memset(&out, 0xa5, sizeof out);  // bellperson passes uninitialised memory
  ASSERT_EQ(take(upstream().prove(&a, 1, &r, &s, &out, srs.get())).code, 0);
  const groth16::Proof want = f.expected(rs[0]);
  const auto limbs = want.a.x.montgomery();
  EXPECT_EQ(std::memcmp(&out.a.x, &limbs, sizeof limbs), 0);
  const auto b_y_c1 = want.b.y.c1.montgomery();
  EXPECT_EQ(std::memcmp(&out.b.y_c1, &b_y_c1, sizeof b_y_c1), 0);
}

TEST(SuprasealAbi, CloneDropAndEvictKeepTheKeyWhileReferenced) {
  Fixture f(test_seed("SuprasealAbi.References"));
  for (Library* lib : {&upstream(), &cuzk()}) {
    SRS first{nullptr};
    ASSERT_EQ(take(lib->create_srs(first, f.params.c_str(), false)).code, 0);
    SRS second = lib->clone_srs(first);
    EXPECT_EQ(second.ptr, first.ptr);
    lib->drop_srs(first);
    EXPECT_EQ(first.ptr, nullptr);
    expect_equal_to_cpu(*lib, f, second, 1);  // the clone still holds the key
    lib->evict_srs(second);
    expect_equal_to_cpu(*lib, f, second, 1);  // evicted: loaded onto the device again
    lib->drop_srs(second);

    // With cache, the same path gives the same key until it is evicted.
    SRS c1{nullptr}, c2{nullptr}, c3{nullptr};
    ASSERT_EQ(take(lib->create_srs(c1, f.params.c_str(), true)).code, 0);
    ASSERT_EQ(take(lib->create_srs(c2, f.params.c_str(), true)).code, 0);
    EXPECT_EQ(c1.ptr, c2.ptr);
    lib->evict_srs(c1);
    ASSERT_EQ(take(lib->create_srs(c3, f.params.c_str(), true)).code, 0);
    EXPECT_NE(c3.ptr, c1.ptr) << "an evicted key is loaded again";
    lib->drop_srs(c1);
    expect_equal_to_cpu(*lib, f, c2, 1);  // c1's drop left c2's reference
    lib->drop_srs(c2);
    lib->drop_srs(c3);
    lib->drop_srs(c3);  // a dropped (null) handle is harmless
  }
}

void expect_error(const Outcome& o, int code, const std::string& words) {
  EXPECT_EQ(o.code, code) << o.message;
  EXPECT_NE(o.message.find(words), std::string::npos) << "message: " << o.message;
}

TEST(SuprasealAbi, BadParamsFilesGetTheirCodeAndANamingMessage) {
  Fixture f(test_seed("SuprasealAbi.BadParams"));
  const Library& lib = upstream();
  SRS srs{reinterpret_cast<void*>(1)};
  const auto missing = f.dir / "missing.params";
  expect_error(take(lib.create_srs(srs, missing.c_str(), false)), SNARKPIPE_ABI_PARAMS_FILE, missing.string());
  EXPECT_EQ(srs.ptr, nullptr);

  const auto truncated = f.dir / "truncated.params";
  std::filesystem::copy_file(f.params, truncated);
  std::filesystem::resize_file(truncated, std::filesystem::file_size(f.params) - 100);
  expect_error(take(lib.create_srs(srs, truncated.c_str(), false)), SNARKPIPE_ABI_PARAMS_FILE, "truncated.params");
  EXPECT_EQ(srs.ptr, nullptr);

  const auto garbage = f.dir / "garbage.params";
  std::ofstream(garbage) << std::string(5000, 'x');
  expect_error(take(lib.create_srs(srs, garbage.c_str(), false)), SNARKPIPE_ABI_PARAMS_FILE, "garbage.params");
  expect_error(take(lib.create_srs(srs, nullptr, false)), SNARKPIPE_ABI_INVALID_ARGUMENT, "path");
}

TEST(SuprasealAbi, BadAssignmentsGetTheirCodeAndANamingMessage) {
  Fixture f(test_seed("SuprasealAbi.BadAssignments"));
  for (Library* lib : {&upstream(), &cuzk()}) {
    SrsHandle srs(*lib, f.params);
    const auto rs = randomness(1);
    const fr_t r = ffi::fr_to_blst(rs[0].r), s = ffi::fr_to_blst(rs[0].s);
    groth16_proof out;
    auto run = [&](const Assignment& a) { return take(lib->generate(&a, 1, &r, &s, &out, srs.get())); };

    Assignment a = f.assignment();
    a.abc_size = f.abc.a.size() * 2 + 7;  // a larger domain than the key's
    expect_error(run(a), SNARKPIPE_ABI_SHAPE_MISMATCH, "domain");
    a = f.assignment();
    a.aux_assignment_size -= 1;
    expect_error(run(a), SNARKPIPE_ABI_SHAPE_MISMATCH, "aux");
    a = f.assignment();
    a.inp_assignment_size += 1;
    expect_error(run(a), SNARKPIPE_ABI_SHAPE_MISMATCH, "inputs");

    // A density that disagrees with its own popcount, or (consistently) with the key.
    a = f.assignment();
    a.a_aux_popcount += 1;
    expect_error(run(a), SNARKPIPE_ABI_DENSITY_MISMATCH, "a_aux_density");
    a = f.assignment();
    std::vector<std::uint64_t> flipped(f.r1cs.b_aux_density.words().begin(), f.r1cs.b_aux_density.words().end());
    std::size_t bit = 0;
    while (bit < f.r1cs.num_aux && ((flipped[bit / 64] >> (bit % 64)) & 1)) ++bit;  // a clear bit: set it
    ASSERT_LT(bit, f.r1cs.num_aux);
    flipped[bit / 64] |= std::uint64_t(1) << (bit % 64);
    a.b_aux_density = flipped.data();
    a.b_aux_popcount += 1;
    expect_error(run(a), SNARKPIPE_ABI_DENSITY_MISMATCH, "the key's B queries");

    // Garbage past the last density bit is ignored (bellperson's bitvec leaves it unspecified).
    std::vector<std::uint64_t> tail(f.r1cs.b_aux_density.words().begin(), f.r1cs.b_aux_density.words().end());
    if (f.r1cs.num_aux % 64) {
      tail.back() |= ~std::uint64_t(0) << (f.r1cs.num_aux % 64);
      a = f.assignment();
      a.b_aux_density = tail.data();
      EXPECT_EQ(run(a).code, 0);
    }

    // A witness that does not satisfy the circuit, and values that do not match a, b, c.
    std::vector<Fr> c(f.abc.c);
    const std::size_t k = c.size() / 2;
    c[k] += Fr::one();
    a = f.assignment();
    a.c = reinterpret_cast<const fr_t*>(c.data());
    expect_error(run(a), SNARKPIPE_ABI_UNSATISFIED, "constraint " + std::to_string(k));
    std::vector<Fr> aux(f.w.aux);
    aux[0] += Fr::one();
    a = f.assignment();
    a.aux_assignment_data = reinterpret_cast<const fr_t*>(aux.data());
    expect_error(run(a), SNARKPIPE_ABI_NOT_VERIFIED, "does not verify");

    a = f.assignment();
    a.b = nullptr;
    expect_error(run(a), SNARKPIPE_ABI_INVALID_ARGUMENT, "b is null");
    EXPECT_EQ(take(lib->generate(&a, 0, &r, &s, &out, srs.get())).code, 0);  // an empty batch, as supraseal takes it
    SRS empty{nullptr};
    a = f.assignment();
    expect_error(take(lib->generate(&a, 1, &r, &s, &out, empty)), SNARKPIPE_ABI_INVALID_ARGUMENT, "SRS");
  }
  // The fork's gpu_index must name a device (or be -1).
  SrsHandle srs(cuzk(), f.params);
  const Assignment a = f.assignment();
  const fr_t r = ffi::fr_to_blst(Fr::one()), s = r;
  groth16_proof out;
  expect_error(take(cuzk().prove_cuzk(&a, 1, &r, &s, &out, srs.get(), nullptr, 4096)), SNARKPIPE_ABI_INVALID_ARGUMENT,
               "gpu_index 4096");
}

TEST(SuprasealAbi, SplitStartAndFinalizeFromTwoThreadsSharingOneGpuMutex) {
  Fixture f(test_seed("SuprasealAbi.Split"));
  const Library& lib = cuzk();
  SrsHandle srs(lib, f.params);
  void* mutex = lib.create_mutex();
  ASSERT_NE(mutex, nullptr);
  const Assignment a = f.assignment();
  const auto rs = randomness(2);
  groth16::Proof got[2];
  Outcome outcome[2];
  auto worker = [&](int t) {
    const fr_t r = ffi::fr_to_blst(rs[t].r), s = ffi::fr_to_blst(rs[t].s);
    void* pending = nullptr;
    outcome[t] = take(lib.start(&a, 1, &r, &s, srs.get(), mutex, -1, &pending));
    if (outcome[t].code != 0) return;
    groth16_proof out;
    outcome[t] = take(lib.finalize(pending, &out));
    got[t] = ffi::proof_from_blst(out);
  };
  std::thread t0(worker, 0), t1(worker, 1);
  t0.join();
  t1.join();
  for (int t = 0; t < 2; ++t) {
    ASSERT_EQ(outcome[t].code, 0) << outcome[t].message;
    EXPECT_EQ(got[t].to_bytes(), f.expected(rs[t]).to_bytes()) << "thread " << t;
  }
  // Abandoning a started proof frees it; a failed start leaves no handle.
  const fr_t r = ffi::fr_to_blst(rs[0].r), s = ffi::fr_to_blst(rs[0].s);
  void* pending = nullptr;
  ASSERT_EQ(take(lib.start(&a, 1, &r, &s, srs.get(), mutex, -1, &pending)).code, 0);
  ASSERT_NE(pending, nullptr);
  lib.destroy_pending(pending);
  Assignment bad = a;
  bad.aux_assignment_size = 0;
  pending = reinterpret_cast<void*>(1);
  EXPECT_EQ(take(lib.start(&bad, 1, &r, &s, srs.get(), mutex, -1, &pending)).code, SNARKPIPE_ABI_SHAPE_MISMATCH);
  EXPECT_EQ(pending, nullptr);
  EXPECT_EQ(take(lib.finalize(nullptr, nullptr)).code, SNARKPIPE_ABI_INVALID_ARGUMENT);
  lib.destroy_mutex(mutex);
}

}  // namespace
