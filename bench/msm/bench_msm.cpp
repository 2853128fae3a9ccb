// G1 and G2 MSM timings for bench/results: random bases (k·G from a fixed-base table),
// random full 255-bit scalars, one thread and all threads. After a warm-up, every case runs
// once per round for --reps rounds ("ms" is the median, "min_ms" the fastest run), so a
// burst of other load on a shared machine spoils one run of several cases rather than all
// runs of one. Prints one JSON object and writes it to --out FILE when given.
//
//   bench_msm [--g1 MIN:MAX] [--g2 MIN:MAX] [--split MIN:MAX] [--reps N] [--threads LIST] [--out FILE]
//
// LIST is comma-separated thread counts; 0 means all threads (the default is "1,0").
// --split adds G1 msm_split timings over a PoRep-like witness (45 % zeros, 45 % ones, the
// rest random), every variable dense; the "ms" of those entries is the whole call.
#include <tbb/info.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/bench_record.hpp"
#include "ec/curves.hpp"
#include "ff/random.hpp"
#include "msm/fixed_base.hpp"
#include "msm/pippenger.hpp"

using namespace snarkpipe;
using ff::Fr;
using json = nlohmann::json;

namespace {

struct Range {
  unsigned lo, hi;
};

Range parse_range(const std::string& s) {
  const auto colon = s.find(':');
  if (colon == std::string::npos) return {unsigned(std::stoul(s)), unsigned(std::stoul(s))};
  return {unsigned(std::stoul(s.substr(0, colon))), unsigned(std::stoul(s.substr(colon + 1)))};
}

// The 1-minute load average: other work on a shared machine skews timings.
double load_average() {
  std::ifstream f("/proc/loadavg");
  double l = -1;
  f >> l;
  return l;
}

template <class C>
std::vector<ec::Affine<C>> random_bases(ff::SeededRng& rng, std::size_t n) {
  const auto g = (ec::Jacobian<C>::generator() * Fr::random(rng)).to_affine();
  const msm::FixedBaseTable<C> table(g, msm::fixed_base_window<C>(n));
  std::vector<Fr> ks(n);
  for (auto& k : ks) k = Fr::random(rng);
  return msm::batch_mul(table, std::span<const Fr>(ks));
}

// A PoRep-like witness: 45 % zeros, 45 % ones, the rest random.
std::vector<Fr> zero_one_witness(ff::SeededRng& rng, std::size_t n) {
  std::vector<Fr> s(n);
  for (auto& x : s) {
    const std::uint64_t r = rng.next_u64() % 100;
    x = r < 45 ? Fr::zero() : r < 90 ? Fr::one() : Fr::random(rng);
  }
  return s;
}

// One timed configuration; `run` computes the sum and checks it against the first result.
struct Case {
  std::string curve, kind;
  unsigned log_n;
  std::size_t threads;
  msm::MsmPlan plan;  // for plain MSMs
  std::function<void()> run;
  std::vector<double> ms;
};

// Bases, scalars and the cases of one curve; the data lives as long as the cases.
template <class C>
struct CurveCases {
  std::vector<ec::Affine<C>> bases;
  std::vector<Fr> scalars;
  std::vector<std::uint64_t> dense;  // every variable set

  void add(const char* name, Range r, bool split, const std::vector<std::size_t>& threads, std::vector<Case>& cases) {
    if (r.lo > r.hi) return;
    ff::SeededRng rng(ff::fresh_seed());
    const std::size_t max_n = std::size_t(1) << r.hi;
    std::fprintf(stderr, "%s: generating %zu bases...\n", name, max_n);
    bases = random_bases<C>(rng, max_n);
    if (split) {
      scalars = zero_one_witness(rng, max_n);
    } else {
      scalars.resize(max_n);
      for (auto& k : scalars) k = Fr::random(rng);
    }
    dense.assign((max_n + 63) / 64, ~std::uint64_t(0));
    for (unsigned logn = r.lo; logn <= r.hi; ++logn) {
      const std::size_t n = std::size_t(1) << logn;
      for (std::size_t t : threads) {
        const std::size_t used = t == 0 ? std::size_t(tbb::info::default_concurrency()) : t;
        auto first = std::make_shared<std::optional<ec::Jacobian<C>>>();
        auto run = [this, n, t, split, first] {
          const std::span<const ec::Affine<C>> b(bases.data(), n);
          const std::span<const Fr> s(scalars.data(), n);
          const msm::MsmConfig cfg{t};
          const ec::Jacobian<C> out =
              split ? msm::msm_split<C>(b, s, msm::DensityView(std::span(dense).first((n + 63) / 64), n), cfg)
                    : msm::msm<C>(b, s, cfg);
          if (!*first) *first = out;
          if (!(out == **first)) throw std::runtime_error("MSM results differ between runs");
        };
        cases.push_back(
            {name, split ? "msm_split, 45% zeros 45% ones" : "msm", logn, used, msm::msm_plan<C>(n, used), run, {}});
      }
    }
  }
};

double time_ms(const std::function<void()>& fn) {
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  Range g1{12, 20}, g2{12, 18}, split{1, 0};
  unsigned reps = 3;
  std::vector<std::size_t> threads = {1, 0};
  std::string out;
  snarkpipe::cli::record_invocation(argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    if (a == "--g1") {
      g1 = parse_range(next());
    } else if (a == "--g2") {
      g2 = parse_range(next());
    } else if (a == "--split") {
      split = parse_range(next());
    } else if (a == "--reps") {
      reps = unsigned(std::stoul(next()));
    } else if (a == "--threads") {
      threads.clear();
      std::stringstream ss(next());
      for (std::string t; std::getline(ss, t, ',');) threads.push_back(std::stoul(t));
    } else if (a == "--out") {
      out = next();
    } else if (a == "--no-g2") {
      g2 = {1, 0};
    } else if (a == "--no-g1") {
      g1 = {1, 0};
    } else {
      std::fprintf(stderr,
                   "usage: bench_msm [--g1 MIN:MAX] [--g2 MIN:MAX] [--no-g1] [--no-g2] [--split MIN:MAX] "
                   "[--reps N] [--threads LIST] [--out FILE]\n");
      return 2;
    }
  }
  if (reps == 0) reps = 1;
  const double load_before = load_average();
  CurveCases<ec::G1Curve> c1, c_split;
  CurveCases<ec::G2Curve> c2;
  std::vector<Case> cases;
  c1.add("G1", g1, false, threads, cases);
  c2.add("G2", g2, false, threads, cases);
  c_split.add("G1", split, true, threads, cases);
  // Warm-up (thread pools, page faults), then rounds over every case: a burst of load from
  // other users of the machine hits one run of several cases, not every run of one.
  std::set<std::string> warm;
  for (Case& c : cases) {
    if (warm.insert(c.curve + c.kind + std::to_string(c.threads)).second) c.run();
  }
  for (unsigned round = 0; round < reps; ++round) {
    for (Case& c : cases) {
      c.ms.push_back(time_ms(c.run));
      std::fprintf(stderr, "round %u: %s %s 2^%u threads=%zu: %.2f ms\n", round + 1, c.curve.c_str(), c.kind.c_str(),
                   c.log_n, c.threads, c.ms.back());
    }
  }
  json results = json::array();
  for (Case& c : cases) {
    std::sort(c.ms.begin(), c.ms.end());
    const double median = c.ms[c.ms.size() / 2], best = c.ms.front();
    json r = {{"curve", c.curve},
              {"kind", c.kind},
              {"log_n", c.log_n},
              {"threads", c.threads},
              {"ms", std::round(median * 100) / 100},
              {"min_ms", std::round(best * 100) / 100},
              {"runs", reps}};
    if (c.kind == "msm") {
      r["window_bits"] = c.plan.window_bits;
      r["split_parts"] = c.plan.split_parts;
      r["buckets"] = c.plan.affine_buckets ? "affine" : "xyzz";
      r["chunks"] = c.plan.chunks;
    }
    results.push_back(r);
  }
  json doc = snarkpipe::cli::bench_record();
  doc["load_average_before"] = load_before;
  doc["load_average_after"] = load_average();
  doc["results"] = results;
  std::cout << doc.dump(2) << "\n";
  if (!out.empty()) snarkpipe::cli::write_record(doc, out);
  return 0;
}
