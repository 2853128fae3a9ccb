// bench_gpu: the GPU kernels with their inputs already on the device (issue 5's table):
// G1/G2 MSM and the Fr NTT (natural order in and out), timed with CUDA events around each
// call after warm-up; median, min and max of --runs runs on random, never-zero inputs.
// Every size is also checked: the MSM against (Σ k_i·dlog_i)·G computed on the CPU from the
// bases' known discrete logs, the NTT by a device round trip (and against the CPU NTT up
// to 2^22). Prints one JSON object and writes it to --out.
//
//   bench_gpu [--ntt 20,24,27] [--g1 20,22,24] [--g2 20,22] [--runs 5] [--warmup 1]
//             [--out FILE] [--no-verify] [--rates]
#include <cuda_runtime.h>
#include <tbb/combinable.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "bench_inputs.hpp"
#include "cuda/error.hpp"
#include "cuda/memory.hpp"
#include "cuda/msm.hpp"
#include "cuda/ntt.hpp"
#include "ec/scalar_mul.hpp"
#include "ff/random.hpp"
#include "poly/ntt.hpp"

namespace {

using namespace snarkpipe;
using ff::Fr;
using json = nlohmann::json;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw cuda::CudaError(what, int(e), cudaGetErrorString(e), __FILE__, __LINE__);
}

std::vector<unsigned> parse_list(const std::string& s) {
  std::vector<unsigned> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(unsigned(std::stoul(item)));
  return out;
}

// The kernel driver's version ("580.159.04"): the first dotted number in
// /proc/driver/nvidia/version, else the CUDA driver API's version.
std::string driver_version() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (std::getline(in, line)) {
    std::stringstream s(line);
    std::string token;
    while (s >> token)
      if (std::isdigit(static_cast<unsigned char>(token[0])) && token.find('.') != std::string::npos) return token;
  }
  int v = 0;
  cudaDriverGetVersion(&v);
  return "CUDA driver API " + std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return date;
}

struct Stats {
  double median, min, max;
  std::size_t runs;
};

// Event-timed runs of f on `stream` after `warmup` untimed ones.
Stats time_runs(cudaStream_t stream, unsigned warmup, unsigned runs, const std::function<void()>& f) {
  for (unsigned i = 0; i < warmup; ++i) f();
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "cudaEventCreate");
  check(cudaEventCreate(&b), "cudaEventCreate");
  std::vector<double> ms;
  for (unsigned i = 0; i < runs; ++i) {
    check(cudaEventRecord(a, stream), "cudaEventRecord");
    f();
    check(cudaEventRecord(b, stream), "cudaEventRecord");
    check(cudaEventSynchronize(b), "cudaEventSynchronize");
    float t = 0;
    check(cudaEventElapsedTime(&t, a, b), "cudaEventElapsedTime");
    ms.push_back(t);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.front(), ms.back(), ms.size()};
}

json record(const char* op, unsigned log_n, const Stats& s) {
  return {{"op", op},         {"log_n", log_n},  {"inputs", "device"}, {"median_ms", s.median},
          {"min_ms", s.min},  {"max_ms", s.max}, {"runs", s.runs}};
}

json bench_ntt(unsigned log_n, unsigned warmup, unsigned runs, bool verify) {
  const std::size_t n = std::size_t(1) << log_n;
  cuda::GpuNtt ntt(log_n);
  const cudaStream_t st = cudaStream_t(ntt.stream());
  cuda::DeviceBuffer x = ntt.pool().acquire(n * sizeof(Fr)), x0 = ntt.pool().acquire(n * sizeof(Fr));
  cuda::bench::random_scalars(x0.as<Fr>(), n, 0x6e7474 + log_n, st);
  check(cudaMemcpyAsync(x.data(), x0.data(), n * sizeof(Fr), cudaMemcpyDeviceToDevice, st), "cudaMemcpyAsync");
  const Stats s = time_runs(st, warmup, runs, [&] { ntt.ntt(x.as<Fr>(), log_n); });
  json r = record("ntt", log_n, s);
  if (verify) {
    // Fresh input: forward against the CPU (small sizes), then the round trip on the device.
    check(cudaMemcpyAsync(x.data(), x0.data(), n * sizeof(Fr), cudaMemcpyDeviceToDevice, st), "cudaMemcpyAsync");
    ntt.ntt(x.as<Fr>(), log_n);
    bool ok = true;
    if (log_n <= 22) {
      std::vector<Fr> in(n), out(n);
      check(cudaMemcpyAsync(in.data(), x0.data(), n * sizeof(Fr), cudaMemcpyDeviceToHost, st), "cudaMemcpyAsync");
      check(cudaMemcpyAsync(out.data(), x.data(), n * sizeof(Fr), cudaMemcpyDeviceToHost, st), "cudaMemcpyAsync");
      check(cudaStreamSynchronize(st), "cudaStreamSynchronize");
      poly::ntt(in, poly::EvaluationDomain(log_n));
      ok = in == out;
      r["checked_against_cpu"] = true;
    }
    ntt.intt(x.as<Fr>(), log_n);
    const std::size_t bad = cuda::bench::count_mismatches(x.as<Fr>(), x0.as<Fr>(), n, st);
    r["verified"] = ok && bad == 0;
  }
  return r;
}

// Points (s0 + i·step)·G for i < count, affine.
template <class C>
std::vector<ec::Affine<C>> progression(const Fr& s0, const Fr& step, std::size_t count, std::vector<Fr>& dlogs) {
  using J = ec::Jacobian<C>;
  const J g = J::generator();
  const auto step_pt = (g * step).to_affine();
  J p = g * s0;
  Fr d = s0;
  std::vector<J> pts(count);
  dlogs.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    pts[i] = p;
    dlogs[i] = d;
    p = p.add_affine(step_pt);
    d += step;
  }
  return ec::batch_to_affine<C>(pts);
}

template <class C>
json bench_msm(const char* op, unsigned log_n, unsigned warmup, unsigned runs, bool verify) {
  const std::size_t n = std::size_t(1) << log_n;
  ff::SeededRng rng(0x6d736d + log_n);
  const std::size_t lo_n = std::size_t(1) << cuda::bench::TABLE_LO_BITS;
  const std::size_t hi_n = (n + lo_n - 1) / lo_n;
  std::vector<Fr> lo_dlog, hi_dlog;
  const auto lo = progression<C>(Fr::random(rng), Fr::random(rng), lo_n, lo_dlog);
  const auto hi = progression<C>(Fr::random(rng), Fr::random(rng), hi_n, hi_dlog);

  cuda::GpuMsm<C> msm(n, 0);
  const cudaStream_t st = cudaStream_t(msm.stream());
  const auto t0 = std::chrono::steady_clock::now();
  cuda::bench::table_bases<C>(msm.device_bases(), n, lo, hi, st);
  const double bases_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  cuda::DeviceBuffer scalars = msm.pool().acquire(n * sizeof(Fr));
  cuda::bench::random_scalars(scalars.as<Fr>(), n, 0x5ca1a5 + log_n, st);

  ec::Jacobian<C> result;
  const Stats s = time_runs(st, warmup, runs, [&] { result = msm.msm_device(scalars.as<Fr>(), n); });
  json r = record(op, log_n, s);
  r["window_bits"] = cuda::GpuMsm<C>::window_bits_for(n);
  r["bases_generation_s"] = bases_s;

  // One more run with the phases timed (events between the phases).
  cuda::GpuMsmConfig cfg;
  cfg.timings = true;
  msm.msm_device(scalars.as<Fr>(), n, cfg);
  const cuda::GpuMsmTimings& t = msm.last_timings();
  r["phases_ms"] = {{"digits", t.digits},           {"sort", t.sort},     {"accumulate", t.accumulate},
                    {"bucket_sums", t.bucket_sums}, {"reduce", t.reduce}, {"host_combine", t.host_combine}};

  if (verify) {
    std::vector<Fr> k(n);
    check(cudaMemcpyAsync(k.data(), scalars.data(), n * sizeof(Fr), cudaMemcpyDeviceToHost, st), "cudaMemcpyAsync");
    check(cudaStreamSynchronize(st), "cudaStreamSynchronize");
    // Σ k_i·(lo_dlog[i mod 2^12] + hi_dlog[i >> 12]) = Σ_j lo_dlog[j]·(Σ_{i≡j} k_i) + Σ_b hi_dlog[b]·(Σ_{i in b} k_i).
    std::vector<Fr> hi_sum(hi_n);
    tbb::combinable<std::vector<Fr>> lo_sums([&] { return std::vector<Fr>(lo_n); });
    tbb::parallel_for(std::size_t(0), hi_n, [&](std::size_t b) {
      auto& ls = lo_sums.local();
      Fr acc = Fr::zero();
      for (std::size_t i = b * lo_n; i < std::min(n, (b + 1) * lo_n); ++i) {
        acc += k[i];
        ls[i - b * lo_n] += k[i];
      }
      hi_sum[b] = acc;
    });
    std::vector<Fr> lo_sum(lo_n);
    lo_sums.combine_each([&](const std::vector<Fr>& v) {
      for (std::size_t j = 0; j < lo_n; ++j) lo_sum[j] += v[j];
    });
    Fr total = Fr::zero();
    for (std::size_t j = 0; j < lo_n; ++j) total += lo_dlog[j] * lo_sum[j];
    for (std::size_t b = 0; b < hi_n; ++b) total += hi_dlog[b] * hi_sum[b];
    const auto want = (ec::Jacobian<C>::generator() * total).to_affine();
    r["verified"] = result.to_affine() == want;
  }
  return r;
}

// Operations per second of the device arithmetic (--rates): the multiplier's speed, which
// every kernel's floor is counted from.
json bench_rates() {
  using cuda::bench::RateOp;
  cudaStream_t st;
  check(cudaStreamCreate(&st), "cudaStreamCreate");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  const unsigned blocks = unsigned(prop.multiProcessorCount) * 16;
  json out = json::array();
  const struct {
    RateOp op;
    const char* name;
    unsigned iters, per_iter;
  } ops[] = {{RateOp::fr_mul, "fr_mul", 2048, 4},
             {RateOp::fp_mul, "fp_mul", 1024, 4},
             {RateOp::fp_sqr, "fp_sqr", 1024, 4},
             {RateOp::fp2_mul, "fp2_mul", 512, 2},
             {RateOp::g1_add_affine, "g1_add_affine", 128, 1}};
  for (const auto& o : ops) {
    std::vector<double> ms;
    for (int r = 0; r < 5; ++r) ms.push_back(cuda::bench::op_rate_ms(o.op, blocks, o.iters, st));
    std::sort(ms.begin(), ms.end());
    const double count = double(blocks) * 256 * o.iters * o.per_iter;
    out.push_back({{"op", o.name}, {"median_ms", ms[2]}, {"ops_per_s", count / (ms[2] * 1e-3)}, {"runs", 5}});
    std::cerr << out.back().dump() << std::endl;
  }
  cudaStreamDestroy(st);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<unsigned> ntt_logs = {20, 24, 27}, g1_logs = {20, 22, 24}, g2_logs = {20, 22};
  unsigned runs = 5, warmup = 1;
  bool verify = true, rates = false;
  std::string out_path;
  std::string command = argv[0];
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    command += " " + a;
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument("missing value after " + a);
      command += std::string(" ") + argv[i + 1];
      return argv[++i];
    };
    if (a == "--ntt") ntt_logs = parse_list(next());
    else if (a == "--g1") g1_logs = parse_list(next());
    else if (a == "--g2") g2_logs = parse_list(next());
    else if (a == "--runs") runs = std::max(1u, unsigned(std::stoul(next())));
    else if (a == "--warmup") warmup = unsigned(std::stoul(next()));
    else if (a == "--out") out_path = next();
    else if (a == "--no-verify") verify = false;
    else if (a == "--rates") rates = true;
    else {
      std::cerr << "unknown argument " << a << "\n";
      return 2;
    }
  }
  if (cuda::usable_device_count() == 0) {
    std::cerr << "bench_gpu: no CUDA device\n";
    return 2;
  }
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  json doc = {{"device", prop.name},
              {"driver", driver_version()},
              {"cuda_runtime", std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10)},
              {"sm_count", prop.multiProcessorCount},
              {"date", utc_now()},
              {"command", command},
              {"results", json::array()}};
  auto emit = [&](json r) {
    std::cerr << r.dump() << std::endl;
    doc["results"].push_back(std::move(r));
    if (!out_path.empty()) std::ofstream(out_path) << doc.dump(2) << "\n";
  };
  if (rates) doc["rates"] = bench_rates();
  for (unsigned k : ntt_logs) emit(bench_ntt(k, warmup, runs, verify));
  for (unsigned k : g1_logs) emit(bench_msm<ec::G1Curve>("g1_msm", k, warmup, runs, verify));
  for (unsigned k : g2_logs) emit(bench_msm<ec::G2Curve>("g2_msm", k, warmup, runs, verify));
  std::cout << doc.dump(2) << std::endl;
  bool all_ok = true;
  for (const auto& r : doc["results"])
    if (r.contains("verified") && !r["verified"].get<bool>()) all_ok = false;
  return all_ok ? 0 : 1;
}
