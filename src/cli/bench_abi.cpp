#include "cli/bench_abi.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory_resource>

#include "circuit/spmv.hpp"
#include "circuit/synthetic_shape.hpp"
#include "cli/backend_choice.hpp"
#include "cli/bench_record.hpp"
#include "cli/measure.hpp"
#include "cuda/device_info.hpp"
#include "cuda/memory.hpp"
#include "ff/random.hpp"
#include "ffi/blst_layout.hpp"
#include "ffi/supraseal_c2.h"
#include "groth16/params_file.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "poly/domain.hpp"

namespace snarkpipe::cli {

namespace {

using ff::Fr;

void say(const char* fmt, auto... args) {
  std::fprintf(stderr, fmt, args...);
  std::fflush(stderr);
}

// The library next to this program's build tree (build/snarkpipe → build/src/ffi/).
std::string default_library() {
  char self[4096] = {};
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  const std::filesystem::path dir =
      n > 0 ? std::filesystem::path(std::string(self, std::size_t(n))).parent_path() : std::filesystem::current_path();
  for (const auto& p : {dir / "src/ffi/libsnarkpipe_supraseal.so", dir / "libsnarkpipe_supraseal.so",
                        dir / "lib/libsnarkpipe_supraseal.so"})
    if (std::filesystem::exists(p)) return p.string();
  return "libsnarkpipe_supraseal.so";  // the loader's search path
}

struct Abi {
  void* handle;
  RustError (*create_srs)(SRS&, const char*, bool);
  void (*drop_srs)(SRS&);
  RustError (*prove)(const Assignment*, size_t, const fr_t*, const fr_t*, groth16_proof*, SRS&);

  explicit Abi(const std::string& path) {
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) throw std::runtime_error(std::string("cannot load the Filecoin ABI library: ") + dlerror());
    create_srs = reinterpret_cast<decltype(create_srs)>(dlsym(handle, "create_SRS"));
    drop_srs = reinterpret_cast<decltype(drop_srs)>(dlsym(handle, "drop_SRS"));
    prove = reinterpret_cast<decltype(prove)>(dlsym(handle, "generate_groth16_proofs_c"));
    if (!create_srs || !drop_srs || !prove) throw std::runtime_error(path + " does not export supraseal-c2's ABI");
  }
};

void check(RustError e, const char* what) {
  if (e.code == 0) return;
  const std::string m = e.message ? e.message : "";
  std::free(e.message);
  throw std::runtime_error(std::string(what) + " failed (code " + std::to_string(e.code) + "): " + m);
}

// One circuit's buffers as bellperson holds them, in the memory resource given.
struct Buffers {
  std::pmr::vector<Fr> a, b, c, inputs, aux;
  explicit Buffers(std::pmr::memory_resource* mr) : a(mr), b(mr), c(mr), inputs(mr), aux(mr) {}
  template <class V>
  void assign(const V& a_, const V& b_, const V& c_, const V& in, const V& aux_) {
    a.assign(a_.begin(), a_.end());
    b.assign(b_.begin(), b_.end());
    c.assign(c_.begin(), c_.end());
    inputs.assign(in.begin(), in.end());
    aux.assign(aux_.begin(), aux_.end());
  }
};

struct Densities {
  std::vector<std::uint64_t> a_aux, b_inp, b_aux;
  std::size_t a_aux_pop = 0, b_inp_pop = 0, b_aux_pop = 0;
};

Assignment assignment(const Buffers& buf, const Densities& d) {
  Assignment as{};
  as.a_aux_density = d.a_aux.data();
  as.a_aux_bit_len = buf.aux.size();
  as.a_aux_popcount = d.a_aux_pop;
  as.b_inp_density = d.b_inp.data();
  as.b_inp_bit_len = buf.inputs.size();
  as.b_inp_popcount = d.b_inp_pop;
  as.b_aux_density = d.b_aux.data();
  as.b_aux_bit_len = buf.aux.size();
  as.b_aux_popcount = d.b_aux_pop;
  as.a = reinterpret_cast<const fr_t*>(buf.a.data());
  as.b = reinterpret_cast<const fr_t*>(buf.b.data());
  as.c = reinterpret_cast<const fr_t*>(buf.c.data());
  as.abc_size = buf.a.size();
  as.inp_assignment_data = reinterpret_cast<const fr_t*>(buf.inputs.data());
  as.inp_assignment_size = buf.inputs.size();
  as.aux_assignment_data = reinterpret_cast<const fr_t*>(buf.aux.data());
  as.aux_assignment_size = buf.aux.size();
  return as;
}

fr_t random_fr() { return ffi::fr_to_blst(groth16::ProverRandomness::random().r); }

// The proof from blst's layout, verified here too (the library verified it before returning).
bool verifies(const groth16_proof& p, const groth16::PreparedVerifyingKey& pvk, std::span<const Fr> inputs) {
  return groth16::verify(pvk, ffi::proof_from_blst(p), inputs.subspan(1));
}

}  // namespace

nlohmann::json run_abi_bench(const AbiBenchOptions& opt, const std::string& command) {
  const circuit::SyntheticShape shape = circuit::SyntheticShape{}.scaled(circuit::parse_scale(opt.scale));
  if (opt.params.empty()) throw std::invalid_argument("--params is required (the key file the library reads)");
  nlohmann::json rec = bench_record(command);
  const int gpus = cuda::usable_device_count();
  const std::size_t device_free_at_start = gpus ? cuda::device_free_memory(0) : 0;
  say("synthetic partition: %s\n", shape.describe().c_str());

  auto t0 = Clock::now();
  std::optional<circuit::R1cs> r1cs = circuit::generate_synthetic_r1cs(shape);
  say("  circuit generated in %.0f ms\n", ms_since(t0));
  t0 = Clock::now();
  groth16::VerifyingKey vk;
  if (std::filesystem::exists(opt.params)) {
    vk = groth16::read_params_vk(opt.params);
    say("  key %s exists (not regenerated)\n", opt.params.c_str());
  } else {
    const SetupMultiplierChoice mult(gpus > 0);
    groth16::ProvingKey pk = groth16::setup(*r1cs, {}, mult.get());
    say("  setup in %.0f ms; writing %s\n", ms_since(t0), opt.params.c_str());
    groth16::write_params(opt.params, pk);
    vk = pk.vk;
  }
  const double key_ms = ms_since(t0);
  const auto pvk = groth16::PreparedVerifyingKey::from(vk);

  // bellperson's side: the witness, its a, b, c, the densities (then the circuit is gone).
  t0 = Clock::now();
  const circuit::SyntheticWitness sw = circuit::generate_synthetic_witness(shape, ff::fresh_seed());
  const circuit::Evaluations abc = circuit::evaluate(*r1cs, sw.inputs, sw.aux);
  Densities d;
  auto copy_density = [](const auto& bitmap, std::vector<std::uint64_t>& out, std::size_t& pop) {
    out.assign(bitmap.words().begin(), bitmap.words().end());
    pop = bitmap.count();
  };
  copy_density(r1cs->a_aux_density, d.a_aux, d.a_aux_pop);
  copy_density(r1cs->b_input_density, d.b_inp, d.b_inp_pop);
  copy_density(r1cs->b_aux_density, d.b_aux, d.b_aux_pop);
  const std::size_t constraints = r1cs->num_constraints;
  r1cs.reset();
  say("  witness and a, b, c in %.0f ms\n", ms_since(t0));

  const std::string lib_path = opt.library.empty() ? default_library() : opt.library;
  Abi abi(lib_path);
  SRS srs{nullptr};
  t0 = Clock::now();
  check(abi.create_srs(srs, opt.params.c_str(), false), "create_SRS");
  const double create_srs_ms = ms_since(t0);
  say("  create_SRS in %.0f ms\n", create_srs_ms);

  bool all_verified = true;
  // Times `calls` calls of `n` circuits (after `warmups`), every proof checked.
  auto time_calls = [&](const Buffers& buf, int calls, int warmups, std::size_t n, const char* label) {
    std::vector<Assignment> batch(n, assignment(buf, d));
    std::vector<fr_t> r(n), s(n);
    std::vector<groth16_proof> out(n);
    std::vector<double> ms;
    for (int i = 0; i < warmups + calls; ++i) {
      for (std::size_t k = 0; k < n; ++k) r[k] = random_fr(), s[k] = random_fr();
      const auto c0 = Clock::now();
      check(abi.prove(batch.data(), n, r.data(), s.data(), out.data(), srs), "generate_groth16_proofs_c");
      const double t = ms_since(c0);
      bool ok = true;
      for (std::size_t k = 0; k < n; ++k) ok = ok && verifies(out[k], pvk, buf.inputs);
      all_verified = all_verified && ok;
      say("  %s call %d%s: %.1f ms for %zu circuit(s), %s\n", label, i, i < warmups ? " (warm-up)" : "", t, n,
          ok ? "verified" : "DOES NOT VERIFY");
      if (i >= warmups) ms.push_back(t);
    }
    return ms;
  };

  nlohmann::json res = {
      {"constraints", constraints},
      {"inputs", sw.inputs.size()},
      {"aux", sw.aux.size()},
      {"domain_log2", poly::EvaluationDomain::for_size(constraints).log_m()},
      {"scale", opt.scale},
      {"library", std::filesystem::path(lib_path).filename().string()},
      {"key_ms", key_ms},
      {"create_srs_ms", create_srs_ms},
      {"device_free_gib", double(device_free_at_start) / double(1ull << 30)},
      {"backend", std::getenv("SNARKPIPE_BACKEND") ? std::getenv("SNARKPIPE_BACKEND") : "auto"},
      {"srs_residency", std::getenv("SNARKPIPE_SRS_RESIDENCY") ? std::getenv("SNARKPIPE_SRS_RESIDENCY") : "auto"}};
  {
    Buffers pageable(std::pmr::get_default_resource());
    pageable.assign(abc.a, abc.b, abc.c, sw.inputs, sw.aux);
    const auto first = time_calls(pageable, 1, 0, 1, "first (uploads the key)");
    res["first_call_ms"] = first.front();
    const auto ms = time_calls(pageable, opt.runs, 0, 1, "pageable");
    res["pageable_ms"] = median(ms);
    res["pageable_ms_all"] = ms;
  }
  {
    // Page-locked buffers need a device (without one the batch runs from pageable memory).
    Buffers pinned(gpus ? cuda::pinned_memory() : std::pmr::get_default_resource());
    t0 = Clock::now();
    pinned.assign(abc.a, abc.b, abc.c, sw.inputs, sw.aux);
    res["batch_buffers"] = gpus ? "pinned" : "pageable";
    if (gpus) {
      res["pinning_ms"] = ms_since(t0);
      const auto ms = time_calls(pinned, opt.runs, 0, 1, "pinned");
      res["pinned_ms"] = median(ms);
      res["pinned_ms_all"] = ms;
    }
    if (opt.batch > 0) {
      // One call of `batch` circuits (the same buffers each time: the bus carries every one).
      const auto b = time_calls(pinned, 1, 0, std::size_t(opt.batch), "batch");
      res["batch_circuits"] = opt.batch;
      res["batch_ms"] = b.front();
      res["batch_ms_per_circuit"] = b.front() / opt.batch;
    }
  }
  // What the library holds on the device with the key loaded (its pools and the key).
  if (gpus) res["device_used_bytes"] = device_free_at_start - cuda::device_free_memory(0);
  abi.drop_srs(srs);
  res["peak_rss_bytes"] = peak_rss_bytes();
  res["verified"] = all_verified;
  rec["results"] = nlohmann::json::array({res});
  if (!all_verified) throw std::runtime_error("a proof from the library did not verify");
  return rec;
}

}  // namespace snarkpipe::cli
