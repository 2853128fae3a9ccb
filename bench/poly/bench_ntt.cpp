// bench_ntt: wall time of the CPU NTT (natural → natural by default) for 2^min..2^max
// elements, on one thread and on all of them; the median of --runs timed runs after one
// warm-up, on random data. Prints a JSON record (DESIGN.md §5) and writes it to --out.
//
//   bench_ntt [--min-log 16] [--max-log 22] [--runs 5] [--variants] [--textbook] [--out FILE]
//             [--block-log B] [--group-elements G]
//
// --variants adds the other transforms the prover uses (without and with permutations);
// --textbook adds, for comparison, the textbook iterative radix-2 NTT on one thread.
#include <tbb/info.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "cli/bench_record.hpp"
#include "ff/random.hpp"
#include "poly/ntt.hpp"

namespace {

using snarkpipe::ff::Fr;
using namespace snarkpipe::poly;
using Clock = std::chrono::steady_clock;

// The 1-minute load average: on a shared machine, what the all-thread figures competed with.
double load_average() {
  std::ifstream in("/proc/loadavg");
  double load = -1;
  in >> load;
  return load;
}

struct Variant {
  const char* transform;
  Order in, out;
  void (*run)(std::span<Fr>, const EvaluationDomain&, Order, Order);
};

// The textbook NTT, natural → natural: bit-reversal permutation, then log n stages whose
// twiddles are a running product, the whole array streamed through the cache once per stage.
void textbook_ntt(std::span<Fr> a, const EvaluationDomain& d, Order, Order) {
  const std::size_t n = a.size();
  for (std::size_t i = 1, j = 0; i < n; ++i) {
    std::size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  for (std::size_t len = 2; len <= n; len <<= 1) {
    const Fr w_len = d.omega().pow(snarkpipe::ff::u64(n / len));
    for (std::size_t base = 0; base < n; base += len) {
      Fr w = Fr::one();
      for (std::size_t j = 0; j < len / 2; ++j) {
        const Fr u = a[base + j], v = a[base + j + len / 2] * w;
        a[base + j] = u + v;
        a[base + j + len / 2] = u - v;
        w *= w_len;
      }
    }
  }
}

const char* order_name(Order o) { return o == Order::Natural ? "natural" : "bit-reversed"; }

[[noreturn]] void usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [--min-log N] [--max-log N] [--runs N] [--variants] [--textbook] [--out FILE] "
               "[--block-log B] [--group-elements G]\n",
               argv0);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t min_log = 16, max_log = 22;
  int runs = 5;
  bool variants = false, textbook = false;
  std::string out_path;
  NttConfig config = ntt_config();
  snarkpipe::cli::record_invocation(argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(argv[0]);
      return argv[++i];
    };
    if (a == "--min-log") {
      min_log = std::stoul(value());
    } else if (a == "--max-log") {
      max_log = std::stoul(value());
    } else if (a == "--runs") {
      runs = std::max(1, std::stoi(value()));
    } else if (a == "--variants") {
      variants = true;
    } else if (a == "--textbook") {
      textbook = true;
    } else if (a == "--out") {
      out_path = value();
    } else if (a == "--block-log") {
      config.block_log = unsigned(std::stoul(value()));
    } else if (a == "--group-elements") {
      config.group_elements = std::stoul(value());
    } else {
      usage(argv[0]);
    }
  }
  if (min_log > max_log || max_log > EvaluationDomain::MAX_LOG_SIZE) usage(argv[0]);
  set_ntt_config(config);

  std::vector<Variant> list = {{"ntt", Order::Natural, Order::Natural, ntt}};
  if (variants) {
    list.push_back({"ntt", Order::Natural, Order::BitReversed, ntt});
    list.push_back({"ntt", Order::BitReversed, Order::Natural, ntt});
    list.push_back({"intt", Order::Natural, Order::Natural, intt});
    list.push_back({"coset_ntt", Order::Natural, Order::Natural, coset_ntt});
    list.push_back({"coset_ntt", Order::BitReversed, Order::Natural, coset_ntt});
    list.push_back({"icoset_ntt", Order::Natural, Order::Natural, icoset_ntt});
    list.push_back({"icoset_ntt", Order::Natural, Order::BitReversed, icoset_ntt});
  }
  if (textbook) list.push_back({"textbook", Order::Natural, Order::Natural, textbook_ntt});
  const int all_threads = tbb::info::default_concurrency();
  std::vector<int> thread_counts = {1};
  if (all_threads > 1) thread_counts.push_back(all_threads);

  const double load_at_start = load_average();
  snarkpipe::ff::SeededRng rng(snarkpipe::ff::fresh_seed());
  nlohmann::json results = nlohmann::json::array();
  for (std::size_t log_n = min_log; log_n <= max_log; ++log_n) {
    const EvaluationDomain domain(log_n);
    std::vector<Fr> data(domain.m());
    for (Fr& x : data) x = Fr::random(rng);
    for (const Variant& v : list) {
      for (int threads : thread_counts) {
        if (v.run == textbook_ntt && threads > 1) continue;
        tbb::task_arena arena(threads);
        std::vector<double> ms;
        arena.execute([&] {
          v.run(data, domain, v.in, v.out);  // warm-up: twiddle tables, page faults, caches
          for (int r = 0; r < runs; ++r) {
            const auto t0 = Clock::now();
            v.run(data, domain, v.in, v.out);
            ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
          }
        });
        std::sort(ms.begin(), ms.end());
        const double median = ms[ms.size() / 2];
        nlohmann::json entry = {{"log_n", log_n}, {"threads", threads}, {"ms", std::round(median * 1000) / 1000}};
        if (variants || textbook) {
          entry["transform"] = v.transform;
          entry["in"] = order_name(v.in);
          entry["out"] = order_name(v.out);
        }
        results.push_back(entry);
        std::fprintf(stderr, "2^%zu %-10s %-12s -> %-12s %2d thread(s): %9.3f ms\n", log_n, v.transform,
                     order_name(v.in), order_name(v.out), threads, median);
      }
    }
  }

  nlohmann::json report = snarkpipe::cli::bench_record();
  report["threads"] = all_threads;
  report["load_average_1min"] = {{"start", load_at_start}, {"end", load_average()}};
  report["transform"] = variants || textbook ? "see results" : "ntt, natural -> natural, in place";
  report["config"] = {{"block_log", config.block_log}, {"group_elements", config.group_elements}};
  report["runs"] = runs;
  report["statistic"] = "median of the runs after one warm-up, random inputs";
  report["results"] = results;
  std::cout << report.dump(2) << "\n";
  if (!out_path.empty()) snarkpipe::cli::write_record(report, out_path);
  return 0;
}
