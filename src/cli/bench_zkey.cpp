#include "cli/bench_zkey.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <unistd.h>

#include "base/clock.hpp"
#include "circom/prover.hpp"
#include "circom/wtns.hpp"
#include "circom/zkey.hpp"
#include "circom/zkey_witness.hpp"
#include "cli/backend_choice.hpp"
#include "cli/bench_record.hpp"
#include "cli/measure.hpp"
#include "cuda/zkey_prover.hpp"

namespace snarkpipe::cli {

namespace {

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The medians of a prover's phases over its timed proofs, under keys PREFIX_abc_ms, ...
struct PhaseSamples {
  std::vector<double> abc, ntt, c_h, a, b1, b2, total;
  void add(const circom::ZkeyProverTimings& t) {
    abc.push_back(t.abc_ms), ntt.push_back(t.ntt_ms), c_h.push_back(t.c_h_msm_ms), a.push_back(t.a_msm_ms);
    b1.push_back(t.b1_msm_ms), b2.push_back(t.b2_msm_ms), total.push_back(t.total_ms);
  }
  void write(nlohmann::json& res, const std::string& prefix) const {
    res[prefix + "_abc_ms"] = median(abc);
    res[prefix + "_ntt_ms"] = median(ntt);
    res[prefix + "_c_and_h_msm_ms"] = median(c_h);
    res[prefix + "_a_msm_ms"] = median(a);
    res[prefix + "_b1_msm_ms"] = median(b1);
    res[prefix + "_b2_msm_ms"] = median(b2);
    res[prefix + "_prove_ms"] = median(total);
    res[prefix + "_prove_ms_all"] = total;
  }
};

// `runs` verified proofs after one untimed warm-up proof.
template <class Prover>
PhaseSamples time_proofs(Prover& prover, const std::vector<ff::Fr>& w, int runs, const char* name) {
  PhaseSamples s;
  prover.prove_checked(w, groth16::ProverRandomness::random(), nullptr);
  for (int r = 0; r < runs; ++r) {
    circom::ZkeyProverTimings t;
    prover.prove_checked(w, groth16::ProverRandomness::random(), &t);
    s.add(t);
    std::fprintf(stderr, "  %s proof %d: %.1f ms\n", name, r + 1, t.total_ms);
  }
  return s;
}

}  // namespace

nlohmann::json run_zkey_bench(const ZkeyBenchOptions& o, const std::string& command) {
  BackendOptions bo;
  bo.backend = o.backend;
  const bool on_gpu = resolve_backend_kind(bo) == "cuda";
  nlohmann::json rec = bench_record(command);
  rec["load_average_1min_start"] = load_average();
  auto t0 = base::Clock::now();
  circom::Zkey z = circom::read_zkey(o.zkey);
  const double read_ms = base::ms_since(t0);
  const std::uint32_t nvars = z.num_vars, npub = z.num_public, m = z.domain_size;
  const std::size_t ncoef = z.coefficients.size();
  t0 = base::Clock::now();
  const circom::ZkeyProver cpu(std::move(z));
  const double prepare_ms = base::ms_since(t0);
  t0 = base::Clock::now();
  const std::vector<ff::Fr> w = circom::read_wtns_for_zkey(o.wtns, o.zkey, nvars);
  const double wtns_ms = base::ms_since(t0);
  const double loading_ms = read_ms + prepare_ms + wtns_ms;
  nlohmann::json res = {{"signals", nvars},
                        {"public", npub},
                        {"domain_size", m},
                        {"coefficients", ncoef},
                        {"snarkpipe_zkey_read_ms", read_ms},
                        {"snarkpipe_key_prepare_ms", prepare_ms},
                        {"snarkpipe_wtns_read_ms", wtns_ms}};

  const int cpu_runs = on_gpu && o.cpu_runs >= 0 ? o.cpu_runs : std::max(1, o.runs);
  double cpu_ms = 0;
  if (cpu_runs > 0) {
    const PhaseSamples s = time_proofs(cpu, w, cpu_runs, "cpu");
    s.write(res, "snarkpipe");  // the CPU prover's, under the keys earlier records use
    cpu_ms = median(s.total);
    res["snarkpipe_prove_with_loading_ms"] = cpu_ms + loading_ms;
  }
  if (on_gpu) {
    t0 = base::Clock::now();
    cuda::GpuZkeyProver gpu(cpu);
    res["gpu_key_upload_ms"] = base::ms_since(t0);
    res["gpu_device_bytes"] = gpu.device_bytes();
    // The same r, s on both provers: the GPU's proof must be the CPU's, byte for byte.
    const groth16::ProverRandomness rs = groth16::ProverRandomness::random();
    const bool equal = gpu.prove_checked(w, rs).to_bytes() == cpu.prove_checked(w, rs).to_bytes();
    res["gpu_bytes_equal_cpu"] = equal;
    if (!equal) throw std::runtime_error("the GPU's proof differs from the CPU prover's for the same r, s");
    const PhaseSamples s = time_proofs(gpu, w, std::max(1, o.runs), "gpu");
    s.write(res, "gpu");
    if (cpu_ms > 0) res["gpu_speedup_over_cpu"] = cpu_ms / median(s.total);
  }
  if (!o.snarkjs.empty()) {
    const std::string tmp = std::filesystem::temp_directory_path() / ("snarkpipe-bench-" + std::to_string(::getpid()));
    const std::string cmd = shell_quote(o.snarkjs) + " groth16 prove " + shell_quote(o.zkey) + " " +
                            shell_quote(o.wtns) + " " + tmp + "-proof.json " + tmp + "-public.json > /dev/null 2>&1";
    std::vector<double> sj;
    for (int r = 0; r < std::max(1, o.snarkjs_runs); ++r) {
      t0 = base::Clock::now();
      const int rc = std::system(cmd.c_str());
      sj.push_back(base::ms_since(t0));
      if (rc != 0) throw std::runtime_error("snarkjs failed: " + cmd);
      std::fprintf(stderr, "  snarkjs proof %d: %.1f ms\n", r + 1, sj.back());
    }
    std::remove((tmp + "-proof.json").c_str());
    std::remove((tmp + "-public.json").c_str());
    res["snarkjs_prove_wall_ms"] = median(sj);
    res["snarkjs_prove_wall_ms_all"] = sj;
    if (cpu_ms > 0) {
      res["speedup_prove"] = median(sj) / cpu_ms;
      res["speedup_with_loading"] = median(sj) / (cpu_ms + loading_ms);
    }
    if (res.contains("gpu_prove_ms")) res["gpu_speedup_over_snarkjs"] = median(sj) / res["gpu_prove_ms"].get<double>();
  }
  rec["load_average_1min_end"] = load_average();
  rec["results"] = nlohmann::json::array({res});
  return rec;
}

}  // namespace snarkpipe::cli
