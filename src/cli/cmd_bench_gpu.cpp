// snarkpipe bench gpu: the GPU kernels with their inputs already on the device (issue 5's
// table): G1/G2 MSM, the Fr NTT (natural order in and out) and the whole H computation of a
// proof, timed with CUDA events around each call after warm-up; median, min and max of
// --runs runs on random, never-zero inputs. Every size is also checked: the MSM against
// (Σ k_i·dlog_i)·G computed on the CPU from the bases' known discrete logarithms, the NTT by
// a device round trip (and against the CPU NTT up to 2^22), the H computation against the
// CPU's (at its own size up to 2^22, at 2^22 above). One JSON object, as bench/results keeps.
// No CUDA headers here: the device work goes through src/cuda, which in a build without
// nvcc throws, and the command exits 2 before that when no GPU is usable.
#include <tbb/combinable.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "cli/bench_record.hpp"
#include "cli/command.hpp"
#include "cuda/bench_inputs.hpp"
#include "cuda/device_info.hpp"
#include "cuda/memory.hpp"
#include "cuda/msm.hpp"
#include "cuda/ntt.hpp"
#include "ec/scalar_mul.hpp"
#include "ff/random.hpp"
#include "poly/ntt.hpp"

namespace snarkpipe::cli {

namespace {

using ff::Fr;
using json = nlohmann::json;
namespace bench = cuda::bench;

// The largest size checked against the CPU: its transforms take about a second there.
constexpr unsigned CPU_CHECK_MAX_LOG = 22;

struct GpuBenchOptions {
  std::string ntt = "20,24,27", g1 = "20,22,24,26,27", g2 = "20,22,24", h_poly = "27";
  std::string inputs = "device,host_pinned";
  unsigned runs = 5, warmup = 1;
  bool rates = false, no_verify = false, json = false;
  std::string out;
};

// "20,24,27" → {20, 24, 27}; "" → {} (a kind of operation left out).
std::vector<unsigned> parse_logs(const std::string& option, const std::string& s) {
  std::vector<unsigned> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    const bool digits =
        std::all_of(item.begin(), item.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    if (item.size() > 2 || !digits)
      throw std::invalid_argument(option + ": expected log2 sizes separated by commas (e.g. 20,24), got '" + s + "'");
    out.push_back(unsigned(std::stoul(item)));
  }
  return out;
}

// The kernel driver's version ("580.159.04"): the first dotted number in
// /proc/driver/nvidia/version, else the newest CUDA version the driver supports.
std::string driver_version() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (std::getline(in, line)) {
    std::stringstream s(line);
    std::string token;
    while (s >> token)
      if (std::isdigit(static_cast<unsigned char>(token[0])) && token.find('.') != std::string::npos) return token;
  }
  return "CUDA driver API " + bench::driver_api_version();
}

struct Stats {
  double median, min, max;
  std::size_t runs;
};

// Event-timed runs of f (which enqueues its work on `stream`) after `warmup` untimed ones.
Stats time_runs(void* stream, unsigned warmup, unsigned runs, const std::function<void()>& f) {
  std::vector<float> ms = bench::time_on_stream(stream, warmup, runs, f);
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.front(), ms.back(), ms.size()};
}

json record(const char* op, unsigned log_n, const Stats& s) {
  return {{"op", op},        {"log_n", log_n},  {"inputs", "device"}, {"median_ms", s.median},
          {"min_ms", s.min}, {"max_ms", s.max}, {"runs", s.runs}};
}

std::vector<Fr> to_host(const cuda::DeviceBuffer& d, std::size_t n, void* stream) {
  std::vector<Fr> h(n);
  bench::copy_to_host(h.data(), d.data(), n * sizeof(Fr), stream);
  return h;
}

json bench_ntt(unsigned log_n, const GpuBenchOptions& o) {
  const std::size_t n = std::size_t(1) << log_n;
  cuda::GpuNtt ntt(log_n);
  void* st = ntt.stream();
  const cuda::DeviceBuffer x = ntt.pool().acquire(n * sizeof(Fr)), x0 = ntt.pool().acquire(n * sizeof(Fr));
  bench::random_scalars(x0.as<Fr>(), n, 0x6e7474 + log_n, st);
  bench::copy_on_device(x.data(), x0.data(), n * sizeof(Fr), st);
  // In place, run after run: the transform's work does not depend on the values.
  const Stats s = time_runs(st, o.warmup, o.runs, [&] { ntt.ntt(x.as<Fr>(), log_n); });
  json r = record("ntt", log_n, s);
  if (!o.no_verify) {
    // Fresh input: forward against the CPU (up to 2^22), then the round trip on the device.
    bench::copy_on_device(x.data(), x0.data(), n * sizeof(Fr), st);
    ntt.ntt(x.as<Fr>(), log_n);
    bool ok = true;
    if (log_n <= CPU_CHECK_MAX_LOG) {
      std::vector<Fr> want = to_host(x0, n, st);
      poly::ntt(want, poly::EvaluationDomain(log_n));
      ok = to_host(x, n, st) == want;
      r["checked_against_cpu"] = true;
    }
    ntt.intt(x.as<Fr>(), log_n);
    r["verified"] = ok && bench::count_mismatches(x.as<Fr>(), x0.as<Fr>(), n, st) == 0;
  }
  return r;
}

// H of a proof from the evaluations a, b, c on the domain of 2^log_n, in place in a, as
// src/cuda/prover.cu computes it (GpuNtt::quotient_coefficients: six transforms).
void h_poly(cuda::GpuNtt& ntt, Fr* a, Fr* b, Fr* c, unsigned log_n, const Fr& z_inv) {
  ntt.quotient_coefficients(a, b, c, log_n, z_inv);
}

// h_poly on fresh random inputs of 2^log_n against the seven-transform formula with src/poly
// on the CPU: coefficients, coset evaluations, (a·b − c)/Z there, coefficients again.
bool h_poly_matches_cpu(cuda::GpuNtt& ntt, unsigned log_n) {
  const std::size_t n = std::size_t(1) << log_n;
  void* st = ntt.stream();
  const poly::EvaluationDomain domain(log_n);
  cuda::DeviceBuffer d[3];
  std::vector<Fr> h[3];
  for (int k = 0; k < 3; ++k) {
    d[k] = ntt.pool().acquire(n * sizeof(Fr));
    bench::random_scalars(d[k].as<Fr>(), n, 0x68706c79 + 3 * log_n + k, st);
    h[k] = to_host(d[k], n, st);
  }
  h_poly(ntt, d[0].as<Fr>(), d[1].as<Fr>(), d[2].as<Fr>(), log_n, domain.coset_vanishing_inv());
  for (auto& v : h) {
    poly::intt(v, domain);
    poly::coset_ntt(v, domain);
  }
  tbb::parallel_for(std::size_t(0), n,
                    [&](std::size_t i) { h[0][i] = (h[0][i] * h[1][i] - h[2][i]) * domain.coset_vanishing_inv(); });
  poly::icoset_ntt(h[0], domain);
  return to_host(d[0], n, st) == h[0];
}

json bench_h_poly(unsigned log_n, const GpuBenchOptions& o) {
  const std::size_t n = std::size_t(1) << log_n;
  cuda::GpuNtt ntt(log_n);
  void* st = ntt.stream();
  const Fr z_inv = poly::EvaluationDomain(log_n).coset_vanishing_inv();
  json r;
  {
    cuda::DeviceBuffer abc[3];
    for (int k = 0; k < 3; ++k) {
      abc[k] = ntt.pool().acquire(n * sizeof(Fr));
      bench::random_scalars(abc[k].as<Fr>(), n, 0x616263 + 3 * log_n + k, st);
    }
    // In place, run after run, like the NTT: the work does not depend on the values.
    const Stats s = time_runs(st, o.warmup, o.runs,
                              [&] { h_poly(ntt, abc[0].as<Fr>(), abc[1].as<Fr>(), abc[2].as<Fr>(), log_n, z_inv); });
    r = record("h_poly", log_n, s);
  }
  if (!o.no_verify) {
    const unsigned check_log = std::min(log_n, CPU_CHECK_MAX_LOG);
    r["checked_log_n"] = check_log;
    r["verified"] = h_poly_matches_cpu(ntt, check_log);
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

// The results of one MSM size: bases on the device, and (with host_pinned in --inputs) the
// same bases in pinned host memory streamed through the device as a host-resident key is.
template <class C>
std::vector<json> bench_msm(const char* op, unsigned log_n, const GpuBenchOptions& o) {
  const std::size_t n = std::size_t(1) << log_n;
  ff::SeededRng rng(0x6d736d + log_n);
  const std::size_t lo_n = std::size_t(1) << bench::TABLE_LO_BITS;
  const std::size_t hi_n = (n + lo_n - 1) / lo_n;
  std::vector<Fr> lo_dlog, hi_dlog;
  const auto lo = progression<C>(Fr::random(rng), Fr::random(rng), lo_n, lo_dlog);
  const auto hi = progression<C>(Fr::random(rng), Fr::random(rng), hi_n, hi_dlog);

  cuda::GpuMsm<C> msm(n, 0);
  void* st = msm.stream();
  const auto t0 = std::chrono::steady_clock::now();
  bench::table_bases<C>(msm.device_bases(), n, lo, hi, st);
  const double bases_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const cuda::DeviceBuffer scalars = msm.pool().acquire(n * sizeof(Fr));
  bench::random_scalars(scalars.as<Fr>(), n, 0x5ca1a5 + log_n, st);

  ec::Jacobian<C> result;
  const Stats s = time_runs(st, o.warmup, o.runs, [&] { result = msm.msm_device(scalars.as<Fr>(), n); });
  json r = record(op, log_n, s);
  r["window_bits"] = cuda::balanced_windows(cuda::GpuMsm<C>::window_bits_for(n)).bits;  // as run
  r["bases_generation_s"] = bases_s;

  // One more run with the phases timed (events between the phases).
  cuda::GpuMsmConfig cfg;
  cfg.timings = true;
  msm.msm_device(scalars.as<Fr>(), n, cfg);
  const cuda::GpuMsmTimings& t = msm.last_timings();
  r["phases_ms"] = {{"digits", t.digits},           {"sort", t.sort},     {"accumulate", t.accumulate},
                    {"bucket_sums", t.bucket_sums}, {"reduce", t.reduce}, {"host_combine", t.host_combine}};

  if (!o.no_verify) {
    const std::vector<Fr> k = to_host(scalars, n, st);
    // Σ k_i·(lo_dlog[i mod 2^12] + hi_dlog[i >> 12])
    //   = Σ_j lo_dlog[j]·(Σ_{i≡j} k_i) + Σ_b hi_dlog[b]·(Σ_{i in b} k_i).
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
    r["verified"] = result.to_affine() == (ec::Jacobian<C>::generator() * total).to_affine();
  }
  std::vector<json> out;
  if (o.inputs.find("device") != std::string::npos) out.push_back(r);
  if (o.inputs.find("host_pinned") != std::string::npos) {
    ec::Jacobian<C> streamed;
    std::vector<float> ms =
        bench::host_streamed_msm_ms<C>(msm.device_bases(), scalars.as<Fr>(), n, 0, o.warmup, o.runs, streamed);
    std::sort(ms.begin(), ms.end());
    json h = record(op, log_n, {ms[ms.size() / 2], ms.front(), ms.back(), ms.size()});
    h["inputs"] = "host_pinned";
    h["piece_points"] = cuda::DEFAULT_STREAM_PIECE_G1_POINTS / (std::is_same_v<C, ec::G1Curve> ? 1 : 2);
    // Checked against the device-resident run's sum (itself checked against the CPU).
    if (r.contains("verified")) h["verified"] = r["verified"].get<bool>() && streamed.to_affine() == result.to_affine();
    out.push_back(h);
  }
  if (o.inputs.find("precomputed") != std::string::npos) {
    // The bases' precomputed copies (GpuMsm::precompute), when the device holds them.
    json p = {{"op", op}, {"log_n", log_n}, {"inputs", "device_precomputed"}};
    try {
      const auto p0 = std::chrono::steady_clock::now();
      msm.precompute();
      p["precompute_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - p0).count();
      ec::Jacobian<C> pre;
      const Stats ps = time_runs(st, o.warmup, o.runs, [&] { pre = msm.msm_device(scalars.as<Fr>(), n); });
      p.update(record(op, log_n, ps));
      p["inputs"] = "device_precomputed";
      p["window_bits"] = msm.precomputed_window_bits();
      p["copies"] = cuda::windows_for(msm.precomputed_window_bits());
      if (r.contains("verified")) p["verified"] = r["verified"].get<bool>() && pre.to_affine() == result.to_affine();
      msm.drop_precomputed();
    } catch (const std::exception& e) {
      p["error"] = e.what();
    }
    out.push_back(p);
  }
  return out;
}

// Operations per second of the device arithmetic (--rates): the multiplier's speed, which
// every kernel's floor is counted from.
json bench_rates(int sm_count, std::FILE* lines) {
  using bench::RateOp;
  const unsigned blocks = unsigned(sm_count) * 16;
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
  for (const auto& op : ops) {
    std::vector<double> ms;
    for (int r = 0; r < 5; ++r) ms.push_back(bench::op_rate_ms(op.op, blocks, op.iters));
    std::sort(ms.begin(), ms.end());
    const double count = double(blocks) * 256 * op.iters * op.per_iter;
    out.push_back({{"op", op.name}, {"median_ms", ms[2]}, {"ops_per_s", count / (ms[2] * 1e-3)}, {"runs", 5}});
    std::fprintf(lines, "  %-14s %.3e/s\n", op.name, count / (ms[2] * 1e-3));
  }
  return out;
}

std::string command_line(const GpuBenchOptions& o) {
  auto list = [](const std::string& s) { return s.empty() ? std::string("''") : s; };
  std::string c = "snarkpipe bench gpu --ntt " + list(o.ntt) + " --g1 " + list(o.g1) + " --g2 " + list(o.g2) +
                  " --h-poly " + list(o.h_poly) + " --inputs " + o.inputs + " --runs " + std::to_string(o.runs) +
                  " --warmup " + std::to_string(o.warmup);
  if (o.rates) c += " --rates";
  if (o.no_verify) c += " --no-verify";
  if (o.json) c += " --json";
  if (!o.out.empty()) c += " -o " + o.out;
  return c;
}

// One line per result: on stdout as the table, or on stderr as progress beside --json.
void print_result(std::FILE* to, const json& r) {
  if (r.contains("error")) {
    std::fprintf(to, "  %-7s 2^%-3u %-11s not run: %s\n", r["op"].get<std::string>().c_str(),
                 r["log_n"].get<unsigned>(), r["inputs"].get<std::string>().c_str(),
                 r["error"].get<std::string>().c_str());
    std::fflush(to);
    return;
  }
  std::fprintf(to, "  %-7s 2^%-3u %-11s median %10.3f ms  min %10.3f  max %10.3f  %s\n",
               r["op"].get<std::string>().c_str(), r["log_n"].get<unsigned>(), r["inputs"].get<std::string>().c_str(),
               r["median_ms"].get<double>(), r["min_ms"].get<double>(), r["max_ms"].get<double>(),
               !r.contains("verified")     ? "not verified"
               : r["verified"].get<bool>() ? "verified"
                                           : "WRONG RESULT");
  std::fflush(to);
}

int run_gpu_bench(const GpuBenchOptions& o) {
  const std::vector<unsigned> ntt_logs = parse_logs("--ntt", o.ntt), g1_logs = parse_logs("--g1", o.g1),
                              g2_logs = parse_logs("--g2", o.g2), h_logs = parse_logs("--h-poly", o.h_poly);
  const std::vector<cuda::DeviceInfo> devices = cuda::list_devices();
  if (devices.empty()) {
    std::fprintf(stderr, "snarkpipe bench gpu: no usable GPU: %s\n", cuda::why_no_devices().c_str());
    return 2;
  }
  // Every engine below runs on device 0.
  json doc = bench_record(command_line(o));
  doc["device"] = devices[0].name;
  doc["driver"] = driver_version();
  doc["cuda_runtime"] = bench::runtime_version();
  doc["sm_count"] = devices[0].sm_count;
  doc["results"] = json::array();
  std::FILE* lines = o.json ? stderr : stdout;
  std::fprintf(lines, "%s, driver %s, CUDA runtime %s\n", devices[0].name.c_str(),
               doc["driver"].get<std::string>().c_str(), doc["cuda_runtime"].get<std::string>().c_str());
  // The file is rewritten after every result, so a run cut short keeps what it measured.
  auto save = [&] {
    if (!o.out.empty()) write_record(doc, o.out);
  };
  auto add = [&](json r) {
    print_result(lines, r);
    doc["results"].push_back(std::move(r));
    save();
  };
  if (o.rates) doc["rates"] = bench_rates(devices[0].sm_count, lines);
  for (unsigned k : ntt_logs) add(bench_ntt(k, o));
  for (unsigned k : g1_logs)
    for (json& r : bench_msm<ec::G1Curve>("g1_msm", k, o)) add(std::move(r));
  for (unsigned k : g2_logs)
    for (json& r : bench_msm<ec::G2Curve>("g2_msm", k, o)) add(std::move(r));
  for (unsigned k : h_logs) add(bench_h_poly(k, o));
  save();
  if (o.json) std::printf("%s\n", doc.dump(2).c_str());
  const bool all_ok = std::none_of(doc["results"].begin(), doc["results"].end(),
                                   [](const json& r) { return r.contains("verified") && !r["verified"].get<bool>(); });
  return all_ok ? 0 : 1;
}

}  // namespace

std::vector<Command> register_gpu_bench_commands(CLI::App& app) {
  auto o = std::make_shared<GpuBenchOptions>();
  auto* c = app.get_subcommand("bench")->add_subcommand(
      "gpu", "Time the GPU's MSM, NTT and H computation on inputs already on the device; every result checked");
  c->footer(
      "Sizes are log2 lists; an empty list (--g2 '') leaves that operation out. Each size reports the median, min and\n"
      "max of --runs event-timed runs after --warmup untimed ones. Exits 2 when no GPU is usable, 1 when a result is\n"
      "wrong.\n"
      "Example: snarkpipe bench gpu --g1 20,24 --g2 '' --ntt 24 --h-poly 24 --json -o bench/results/gpu-DATE.json");
  c->add_option("--ntt", o->ntt, "NTT sizes (natural order in and out)")->capture_default_str();
  c->add_option("--g1", o->g1, "G1 MSM sizes")->capture_default_str();
  c->add_option("--g2", o->g2, "G2 MSM sizes")->capture_default_str();
  c->add_option("--h-poly", o->h_poly, "Sizes of the whole H computation of a proof (6 NTTs and the pointwise steps)")
      ->capture_default_str();
  c->add_option("--inputs", o->inputs,
                "Where the MSM bases are, a comma-separated list: device (resident), host_pinned (streamed from pinned "
                "host memory in pieces, as a host-resident key), precomputed (resident with GpuMsm::precompute's "
                "copies 2^(c·j)·P, where the device holds them)")
      ->check(CLI::Validator(
          [](const std::string& v) {
            std::size_t at = 0;
            while (at <= v.size()) {
              const std::size_t comma = std::min(v.find(',', at), v.size());
              const std::string item = v.substr(at, comma - at);
              if (item != "device" && item != "host_pinned" && item != "precomputed")
                return "unknown input mode '" + item + "' (device, host_pinned, precomputed)";
              at = comma + 1;
            }
            return std::string();
          },
          "LIST"))
      ->capture_default_str();
  c->add_option("--runs", o->runs, "Timed runs per size")->check(CLI::PositiveNumber)->capture_default_str();
  c->add_option("--warmup", o->warmup, "Untimed runs before them")->capture_default_str();
  c->add_flag("--rates", o->rates, "Also measure the field and curve arithmetic's operations per second");
  c->add_flag("--no-verify", o->no_verify, "Skip checking the results");
  c->add_flag("--json", o->json, "Print one JSON object (the per-size lines go to stderr)");
  c->add_option("-o,--out", o->out, "Also write the JSON record to this file, rewritten after every size");
  return {make_command(c, o, [](GpuBenchOptions& o, const CLI::App&) { return run_gpu_bench(o); })};
}

}  // namespace snarkpipe::cli
