// Circuit-layer throughput on a circuit shaped like a PoRep partition (REFERENCE.md §5:
// ~2.4 / 1.0 / 2.2 non-zeros per row in A / B / C, only ONE among the inputs in B, ~90 % of
// aux values 0 or 1): recording, witness generation, SpMV (all threads and one), the
// satisfaction check, validation, and the PCE file's write / read / checksum.
//
//   bench_circuit [log2_constraints = 20] [directory for the file = /tmp]
#include <tbb/global_control.h>
#include <tbb/info.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "circuit/r1cs_file.hpp"
#include "circuit/recording_cs.hpp"
#include "circuit/spmv.hpp"
#include "circuit/witness_cs.hpp"
#include "ff/random.hpp"

using namespace snarkpipe::circuit;

namespace {

// Bit gadgets over a pool of recent variables: booleanity b·(1-b) = 0, AND a·b = c,
// XOR 2a·b = a + b - c, and a packing sum (Σ 2^i·b_i)·1 = w.
class PorepShapedCircuit : public Circuit {
 public:
  PorepShapedCircuit(std::uint64_t constraints, std::uint64_t seed) : n_(constraints), seed_(seed) {}

  void synthesize(ConstraintSystem& cs) const override {
    snarkpipe::ff::SeededRng rng(seed_);
    struct V {
      Variable var;
      Fr val;
    };
    std::vector<V> recent;
    for (int i = 0; i < 8; ++i) {
      const Fr x = Fr::random(rng);
      recent.push_back({cs.alloc_input("input", [x] { return x; }), x});
    }
    const auto pick = [&]() -> const V& { return recent[recent.size() - 1 - rng.next_u64() % 64]; };
    const auto keep = [&](V v) {
      if (recent.size() >= 4096) recent.erase(recent.begin(), recent.begin() + 2048);
      recent.push_back(v);
    };
    for (int i = 0; i < 64; ++i) {
      const Fr x = Fr::from_u64(rng.next_u64() & 1);
      keep({cs.alloc("seed bit", [x] { return x; }), x});
    }
    const Fr two = Fr::from_u64(2);
    for (std::uint64_t k = 0; k < n_; ++k) {
      const std::uint64_t r = rng.next_u64() % 100;
      if (r < 30) {
        const Fr x = Fr::from_u64(rng.next_u64() & 1);
        const Variable b = cs.alloc("bit", [x] { return x; });
        cs.enforce("boolean", b, LinearCombination::constant(Fr::one()) - b, LinearCombination::zero());
        keep({b, x});
      } else if (r < 55) {
        const V a = pick(), b = pick();
        const Fr x = a.val * b.val;
        const Variable c = cs.alloc("and", [x] { return x; });
        cs.enforce("and", a.var, b.var, c);
        keep({c, x});
      } else if (r < 88) {
        const V a = pick(), b = pick();
        const Fr x = a.val + b.val - two * a.val * b.val;
        const Variable c = cs.alloc("xor", [x] { return x; });
        cs.enforce("xor", LinearCombination(a.var) * two, b.var,
                   LinearCombination(a.var) + LinearCombination(b.var) - LinearCombination(c));
        keep({c, x});
      } else {
        LinearCombination lc;
        Fr x = Fr::zero(), coeff = Fr::one();
        for (int i = 0; i < 6; ++i) {
          const V& b = pick();
          lc.add(coeff, b.var);
          x += coeff * b.val;
          coeff = coeff.dbl();
        }
        const Variable w = cs.alloc("packed", [x] { return x; });
        cs.enforce("pack", lc, Variable::one(), w);
        keep({w, x});
      }
    }
  }

 private:
  std::uint64_t n_, seed_;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <class F>
double timed(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return seconds_since(t0);
}

}  // namespace

int main(int argc, char** argv) {
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 20;
  const std::filesystem::path dir = argc > 2 ? argv[2] : "/tmp";
  const std::uint64_t n = std::uint64_t(1) << log2n;
  const int threads = tbb::info::default_concurrency();
  std::printf("circuit bench: 2^%d constraints, %d threads\n", log2n, threads);
  PorepShapedCircuit circuit(n, 42);

  R1cs r1cs;
  const double t_record = timed([&] {
    RecordingConstraintSystem rec;
    circuit.synthesize(rec);
    r1cs = rec.finish();
  });
  const std::uint64_t nnz = r1cs.a.nnz() + r1cs.b.nnz() + r1cs.c.nnz();
  std::printf("shape: %llu rows, %llu aux; nnz/row A %.2f B %.2f C %.2f; A-aux density %.1f %%, B-aux %.1f %%\n",
              (unsigned long long)r1cs.num_constraints, (unsigned long long)r1cs.num_aux,
              double(r1cs.a.nnz()) / r1cs.num_constraints, double(r1cs.b.nnz()) / r1cs.num_constraints,
              double(r1cs.c.nnz()) / r1cs.num_constraints, 100.0 * r1cs.a_aux_density.count() / r1cs.num_aux,
              100.0 * r1cs.b_aux_density.count() / r1cs.num_aux);
  std::printf("%-28s %9.3f s  %8.2f M constraints/s\n", "record (1 thread)", t_record, n / t_record / 1e6);

  std::vector<Fr> inputs, aux;
  const double t_witness = timed([&] {
    WitnessConstraintSystem wit;
    circuit.synthesize(wit);
    inputs = wit.take_inputs();
    aux = wit.take_aux();
  });
  std::printf("%-28s %9.3f s  %8.2f M constraints/s\n", "witness (1 thread)", t_witness, n / t_witness / 1e6);

  Evaluations e;
  e.a.resize(r1cs.num_constraints);
  e.b.resize(r1cs.num_constraints);
  e.c.resize(r1cs.num_constraints);
  for (int t : {1, threads}) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, t);
    evaluate_into(r1cs, inputs, aux, e.a, e.b, e.c);  // warm
    double best = 1e30;
    for (int rep = 0; rep < 3; ++rep)
      best = std::min(best, timed([&] { evaluate_into(r1cs, inputs, aux, e.a, e.b, e.c); }));
    std::printf("%-28s %9.3f s  %8.1f M nnz/s\n", ("spmv a,b,c (" + std::to_string(t) + " threads)").c_str(), best,
                nnz / best / 1e6);
  }
  bool ok = false;
  const double t_sat = timed([&] { ok = is_satisfied(r1cs, inputs, aux).ok(); });
  std::printf("%-28s %9.3f s  (%s)\n", "is_satisfied", t_sat, ok ? "satisfied" : "NOT SATISFIED");
  const double t_defect = timed([&] { ok = !find_defect(r1cs); });
  std::printf("%-28s %9.3f s  (%s)\n", "find_defect", t_defect, ok ? "well-formed" : "DEFECT");

  const auto path = dir / "bench_circuit.r1cs";
  const double t_write = timed([&] { write_r1cs(path, r1cs); });
  const double size = double(std::filesystem::file_size(path));
  std::printf("%-28s %9.3f s  %8.2f GB/s  (%.1f MB)\n", "write_r1cs", t_write, size / t_write / 1e9, size / 1e6);
  R1cs back;
  const double t_read = timed([&] { back = read_r1cs(path); });
  std::printf("%-28s %9.3f s  %8.2f GB/s  (%s)\n", "read_r1cs (validating)", t_read, size / t_read / 1e9,
              back == r1cs ? "identical" : "DIFFERENT");

  std::vector<std::uint8_t> image(static_cast<std::size_t>(size));
  std::ifstream(path, std::ios::binary).read(reinterpret_cast<char*>(image.data()), static_cast<std::streamsize>(size));
  for (int t : {1, threads}) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, t);
    std::uint64_t h = 0;
    double best = 1e30;
    for (int rep = 0; rep < 3; ++rep) best = std::min(best, timed([&] { h = r1cs_file_checksum(image); }));
    std::printf("%-28s %9.3f s  %8.2f GB/s  (%016llx)\n", ("checksum (" + std::to_string(t) + " threads)").c_str(),
                best, size / best / 1e9, (unsigned long long)h);
  }
  std::filesystem::remove(path);
  return 0;
}
