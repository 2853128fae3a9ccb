#include "cli/bench_prove.hpp"
#include "cli/measure.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <memory>

#include "circuit/synthetic_shape.hpp"
#include "cli/backend_choice.hpp"
#include "cli/ballast.hpp"
#include "cli/bench_record.hpp"
#include "cuda/device_info.hpp"
#include "cuda/memory.hpp"
#include "cuda/prover.hpp"
#include "ff/random.hpp"
#include "groth16/backend.hpp"
#include "groth16/params_file.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "poly/domain.hpp"

namespace snarkpipe::cli {

namespace {

void say(const char* fmt, auto... args) {
  std::fprintf(stderr, fmt, args...);
  std::fflush(stderr);
}

// One card size: a fresh backend (it plans its memory from what is free now), a warm-up proof
// and `runs` timed ones, each verified (and compared with the CPU backend's when asked).
nlohmann::json prove_on_card(const ProveBenchOptions& opt, const std::string& backend_name, const circuit::R1cs& r1cs,
                             const groth16::ProvingKey& pk, const groth16::PreparedVerifyingKey& pvk,
                             const circuit::SyntheticShape& shape, bool& all_verified, bool& all_equal) {
  auto t0 = Clock::now();
  // The GPU memory free when the run starts (another process may hold the rest: a ballast).
  const std::size_t device_free = backend_name == "cuda" ? cuda::device_free_memory(0) : 0;
  const std::unique_ptr<groth16::ProverBackend> backend =
      make_prover_backend({backend_name, opt.srs_residency, opt.serial_msms});
  auto* gpu = dynamic_cast<cuda::CudaBackend*>(backend.get());
  groth16::CpuBackend cpu;

  bool verified = true, equal = true;
  std::map<std::string, std::vector<double>> phases;
  std::vector<double> totals;
  std::size_t packed_bytes = 0;
  const std::uint64_t seed0 = ff::fresh_seed();
  const int runs = std::max(1, opt.runs);
  // A backend that takes packed witnesses (the GPU) gets what the engine's synthesis pool
  // hands it: the 0/1 values as bits, the rest as field elements, in the memory the backend
  // asks for (page-locked for the GPU, which copies it without staging), one buffer reused
  // across the runs (packing is timed apart, as the engine does it on the synthesis side).
  std::optional<groth16::PackedWitness> packed;
  if (backend->takes_packed()) packed.emplace(backend->witness_memory());
  for (int r = 0; r <= runs; ++r) {  // run 0 is the warm-up (it uploads the key and circuit)
    t0 = Clock::now();
    const circuit::SyntheticWitness sw = circuit::generate_synthetic_witness(shape, seed0 + r);
    const double witness_ms = ms_since(t0);
    groth16::Witness w{sw.inputs, sw.aux};
    const groth16::ProverRandomness rs = groth16::ProverRandomness::random();
    groth16::ProverTimings t;
    double pack_ms = 0;
    if (packed) {
      t0 = Clock::now();
      groth16::pack_witness(w.inputs, w.aux, *packed);
      pack_ms = ms_since(t0);
    }
    t0 = Clock::now();
    const groth16::ProofParts parts =
        packed ? backend->start_packed(pk, r1cs, *packed, &t) : backend->start(pk, r1cs, w, &t);
    const double start_ms = ms_since(t0);
    t0 = Clock::now();
    const groth16::Proof proof = backend->finish(pk.vk, parts, rs);
    const double finish_ms = ms_since(t0);
    t0 = Clock::now();
    const std::vector<ff::Fr> xs(w.inputs.begin() + 1, w.inputs.end());
    const bool ok = groth16::verify(pvk, proof, xs);
    const double verify_ms = ms_since(t0);
    verified = verified && ok;
    if (opt.compare_cpu) {
      const groth16::Proof want = cpu.finish(pk.vk, cpu.start(pk, r1cs, w), rs);
      equal = equal && want.to_bytes() == proof.to_bytes();
    }
    say("  proof %d%s: %.1f ms (start %.1f, finish %.1f), %s\n", r, r == 0 ? " (warm-up)" : "", start_ms + finish_ms,
        start_ms, finish_ms, ok ? "verified" : "DOES NOT VERIFY");
    if (r == 0) {
      if (gpu) say("  %s\n", gpu->memory_plan().c_str());
      continue;
    }
    totals.push_back(start_ms + finish_ms);
    phases["witness_generation"].push_back(witness_ms);
    if (packed) {
      phases["witness_packing"].push_back(pack_ms);
      packed_bytes = packed->capacity_bytes();
    }
    if (gpu) {
      const cuda::CudaProverPhases& p = gpu->last_phases();
      phases["witness_upload"].push_back(p.upload);
      phases["abc_spmv"].push_back(p.abc);
      phases["h_ntt"].push_back(p.ntt);
      phases["h_msm"].push_back(p.h_msm);
      phases["l_msm"].push_back(p.l_msm);
      phases["a_msm"].push_back(p.a_msm);
      phases["b_g1_msm"].push_back(p.b_g1_msm);
      phases["b_g2_msm"].push_back(p.b_g2_msm);
      // The L, A and B spans overlap the H chain's when they ran beside it.
      phases["device_total"].push_back(p.device_total);
      phases["host_overhead"].push_back(start_ms - p.device_total);
      phases["host_before_device"].push_back(p.host_before);
      phases["host_after_device"].push_back(p.host_after);
      phases["host_checks"].push_back(p.host_checks);
    } else {
      phases["abc_spmv"].push_back(t.abc_ms);
      phases["h_ntt"].push_back(t.ntt_ms);
      phases["h_msm"].push_back(t.h_msm_ms);
      phases["l_msm"].push_back(t.l_msm_ms);
      phases["a_msm"].push_back(t.a_msm_ms);
      phases["b_g1_msm"].push_back(t.b_g1_msm_ms);
      phases["b_g2_msm"].push_back(t.b_g2_msm_ms);
    }
    phases["assembly"].push_back(finish_ms);
    phases["verify"].push_back(verify_ms);
  }

  nlohmann::json ph = nlohmann::json::object();
  for (const auto& [k, v] : phases) ph[k] = median(v);
  nlohmann::json res = {{"constraints", r1cs.num_constraints},
                        {"inputs", r1cs.num_inputs},
                        {"aux", r1cs.num_aux},
                        {"domain_log2", poly::EvaluationDomain::for_size(r1cs.num_constraints).log_m()},
                        {"scale", opt.scale},
                        {"backend", backend->name()},
                        {"device", gpu ? backend->name() : std::string("cpu")},
                        {"runs", runs},
                        {"total_ms", median(totals)},
                        {"total_ms_all", totals},
                        {"phases", ph},
                        {"device_mem_bytes", gpu ? gpu->device_bytes_held() : 0},
                        {"host_mem_bytes", peak_rss_bytes()},
                        {"verified", verified}};
  if (packed_bytes) res["packed_witness_bytes"] = packed_bytes;
  if (opt.compare_cpu) res["equal_to_cpu_backend"] = equal;
  if (gpu) {
    res["srs_residency"] = cuda::to_string(gpu->residency_used());
    res["memory_plan"] = gpu->memory_plan();
    res["memory_tier"] = gpu->memory_tier();
    res["device_free_gib"] = double(device_free) / double(std::size_t(1) << 30);
    res["host_rss_bytes_now"] = current_rss_bytes();
    res["concurrent_msms"] = gpu->last_phases().concurrent;
  }
  all_verified = all_verified && verified;
  all_equal = all_equal && equal;
  return res;
}

}  // namespace

nlohmann::json run_prove_bench(const ProveBenchOptions& opt, const std::string& command) {
  const circuit::SyntheticShape shape = circuit::SyntheticShape{}.scaled(circuit::parse_scale(opt.scale));
  const bool gpu_present = cuda::usable_device_count() > 0;
  std::string backend_name = opt.backend == "auto" ? (gpu_present ? "cuda" : "cpu") : opt.backend;
  if (backend_name != "cpu" && backend_name != "cuda")
    throw std::invalid_argument("--backend must be cpu, cuda or auto (got '" + opt.backend + "')");
  if (backend_name == "cuda" && !gpu_present)
    throw std::invalid_argument("--backend cuda: " + cuda::why_no_devices() + " (use --backend cpu)");

  if (!opt.free_gib.empty() && backend_name != "cuda") throw std::invalid_argument("--free-gib needs --backend cuda");
  if (!opt.free_gib.empty() && opt.ballast.empty()) throw std::invalid_argument("--free-gib needs --ballast PROGRAM");
  if (!opt.ballast.empty() && access(opt.ballast.c_str(), X_OK) != 0)
    throw std::invalid_argument("--ballast " + opt.ballast + ": not an executable program");
  nlohmann::json rec = bench_record(command);
  say("synthetic partition: %s\n", shape.describe().c_str());

  auto t0 = Clock::now();
  const circuit::R1cs r1cs = circuit::generate_synthetic_r1cs(shape);
  const double generate_ms = ms_since(t0);
  say("  circuit generated in %.0f ms\n", generate_ms);

  t0 = Clock::now();
  groth16::ProvingKey pk;
  bool key_from_file = false;
  if (!opt.params.empty() && std::filesystem::exists(opt.params)) {
    pk = groth16::read_params(opt.params);
    key_from_file = true;
    say("  key read from %s in %.0f ms\n", opt.params.c_str(), ms_since(t0));
  } else {
    // On a GPU backend the fixed-base multiplications (setup's bulk) run on the GPU too.
    const SetupMultiplierChoice mult(backend_name == "cuda");
    auto ts = Clock::now();
    pk = groth16::setup(
        r1cs,
        [&](std::string_view phase) {
          say("  setup: %.*s (%.1f s)\n", int(phase.size()), phase.data(), ms_since(ts) / 1e3);
        },
        mult.get());
    say("  setup in %.0f ms\n", ms_since(t0));
    if (!opt.params.empty()) groth16::write_params(opt.params, pk);
  }
  const double key_ms = ms_since(t0);
  const auto pvk = groth16::PreparedVerifyingKey::from(pk.vk);

  const std::vector<double> cards = opt.free_gib.empty() ? std::vector<double>{-1} : opt.free_gib;
  bool all_verified = true, all_equal = true;
  nlohmann::json results = nlohmann::json::array();
  for (const double n : cards) {
    std::optional<Ballast> ballast;
    if (n > 0) {
      try {
        ballast.emplace(opt.ballast, n);
      } catch (const std::exception& e) {
        say("  %s\n", e.what());
        results.push_back({{"free_gib_asked", n}, {"skipped", e.what()}});
        continue;
      }
      say("=== %g GiB free: %s\n", n, ballast->said().c_str());
    } else if (n == 0) {
      say("=== no ballast\n");
    }
    nlohmann::json res;
    try {
      res = prove_on_card(opt, backend_name, r1cs, pk, pvk, shape, all_verified, all_equal);
    } catch (const std::exception& e) {
      if (n < 0) throw;  // one run: its failure is the command's
      say("  refused or failed: %s\n", e.what());
      res = {{"device_free_gib", double(cuda::device_free_memory(0)) / double(std::size_t(1) << 30)},
             {"error", e.what()}};
    }
    if (n >= 0) res["free_gib_asked"] = n;
    if (ballast) res["ballast"] = ballast->said();
    res["circuit_generation_ms"] = generate_ms;
    res["key_ms"] = key_ms;
    res["key_from_file"] = key_from_file;
    say("  result: %s\n", res.dump().c_str());  // in the log too, should the run be cut short
    results.push_back(std::move(res));
  }
  rec["results"] = std::move(results);
  rec["host_peak_rss_bytes"] = peak_rss_bytes();
  if (!all_verified) throw std::runtime_error("a benchmark proof did not verify");
  if (!all_equal) throw std::runtime_error("the backend's proof bytes differ from the CPU backend's");
  return rec;
}

}  // namespace snarkpipe::cli
