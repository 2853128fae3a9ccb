// snarkpipe bench cpu | groth16 | prove: measured numbers as JSON records (machine, command,
// date, commit, results: cli/bench_record.hpp), the form bench/results keeps.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <filesystem>
#include <unistd.h>

#include "cli/bench_cpu.hpp"
#include "cli/bench_abi.hpp"
#include "cli/bench_prove.hpp"
#include "cli/bench_record.hpp"
#include "cli/bench_service.hpp"
#include "cli/bench_zkey.hpp"
#include "cli/circuits.hpp"
#include "cli/command.hpp"
#include "cli/measure.hpp"
#include "circom/prover.hpp"
#include "circom/wtns.hpp"
#include "circom/zkey.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "poly/domain.hpp"

namespace snarkpipe::cli {

namespace {

int emit(const nlohmann::json& record, bool json, const std::string& out_path) {
  if (json) {
    std::cout << record.dump(2) << "\n";
  } else {
    const auto& res = record["results"];
    if (res.is_object()) {
      for (const auto& [k, v] : res.items()) std::printf("  %-26s %12.3f\n", k.c_str(), v.get<double>());
    } else {
      for (const auto& row : res) std::printf("  %s\n", row.dump().c_str());
    }
  }
  if (!out_path.empty()) write_record(record, out_path);
  return 0;
}

}  // namespace

std::vector<Command> register_bench_commands(CLI::App& app) {
  std::vector<Command> cmds;
  auto* bench = app.add_subcommand("bench", "Measure performance and print (or record) the numbers as JSON");
  bench->require_subcommand(1);
  register_service_bench(bench, cmds);

  {
    struct CpuBenchOptions {
      bool json = false;
      bool quick = false;
      std::string out;
    };
    auto o = std::make_shared<CpuBenchOptions>();
    auto* c = bench->add_subcommand("cpu", "Field, curve and pairing timings on this CPU (median of 7 runs)");
    c->add_flag("--json", o->json, "Print one JSON object instead of a table");
    c->add_flag("--quick", o->quick, "Shorter runs (noisier), for smoke tests");
    c->add_option("-o,--out", o->out, "Also write the JSON record to this file (e.g. bench/results/cpu-DATE.json)");
    cmds.push_back(make_command(c, o, [](CpuBenchOptions& o, const CLI::App&) -> int {
      nlohmann::json record = bench_record(std::string("snarkpipe bench cpu") + (o.quick ? " --quick" : ""));
      record["results"] = run_cpu_bench(o.quick);
      return emit(record, o.json, o.out);
    }));
  }

  {
    struct AbiOptions {
      AbiBenchOptions opt;
      bool json = false;
      std::string out;
    };
    auto o = std::make_shared<AbiOptions>();
    auto* c = bench->add_subcommand(
        "abi", "Prove a synthetic PoRep-shape partition through the Filecoin ABI (libsnarkpipe_supraseal.so)");
    c->footer(
        "As bellperson calls supraseal-c2: create_SRS on a .params file, then generate_groth16_proofs_c with a/b/c and\n"
        "the assignments in the caller's memory, pageable (a Rust Vec) and page-locked, one circuit per call and one\n"
        "batched call. The environment variables SNARKPIPE_BACKEND (auto|cpu|cuda) and SNARKPIPE_SRS_RESIDENCY\n"
        "(auto|vram|host) reach the library as they would in a Filecoin node.\n"
        "Example: snarkpipe bench abi --scale 1 --params /data/porep-shape.params --runs 3 --batch 10 --json");
    c->add_option("--scale", o->opt.scale, "Of the full PoRep partition shape (1, 1/4, 1/1024, ...)")
        ->capture_default_str();
    c->add_option("--params", o->opt.params, "The key file: read if it exists, else set up and written")->required();
    c->add_option("--library", o->opt.library, "The library to load (default: the one built beside this program)");
    c->add_option("--runs", o->opt.runs, "Timed calls per buffer kind")->capture_default_str();
    c->add_option("--batch", o->opt.batch, "Circuits in the batched call (0: none)")->capture_default_str();
    c->add_flag("--json", o->json, "Print one JSON object");
    c->add_option("-o,--out", o->out, "Also write the JSON record to this file");
    cmds.push_back(make_command(c, o, [](AbiOptions& o, const CLI::App&) -> int {
      const std::string cmd = "snarkpipe bench abi --scale " + o.opt.scale + " --params " + o.opt.params + " --runs " +
                              std::to_string(o.opt.runs) + " --batch " + std::to_string(o.opt.batch);
      return emit(run_abi_bench(o.opt, cmd), o.json, o.out);
    }));
  }

  {
    struct Groth16BenchOptions {
      std::vector<std::string> sizes{"2^12"};
      int runs = 3;
      bool json = false;
      std::string out;
    };
    auto o = std::make_shared<Groth16BenchOptions>();
    auto* c =
        bench->add_subcommand("groth16", "Prove synthetic circuits on the CPU; time per phase (median of --runs)");
    c->footer(
        "Example: snarkpipe bench groth16 --constraints 2^12 2^14 2^16 --json --out bench/results/groth16-cpu.json");
    c->add_option("--constraints", o->sizes, "Circuit sizes (N or 2^k), one or more")->capture_default_str();
    c->add_option("--runs", o->runs, "Proofs per size (the median is reported)")->capture_default_str();
    c->add_flag("--json", o->json, "Print one JSON object");
    c->add_option("-o,--out", o->out, "Also write the JSON record to this file");
    cmds.push_back(make_command(c, o, [](Groth16BenchOptions& o, const CLI::App&) -> int {
      std::string cmd = "snarkpipe bench groth16 --runs " + std::to_string(o.runs) + " --constraints";
      for (const auto& s : o.sizes) cmd += " " + s;
      nlohmann::json rec = bench_record(cmd);
      rec["results"] = nlohmann::json::array();
      for (const auto& size : o.sizes) {
        CircuitSpec spec;
        spec.name = "synthetic";
        // The size counts every R1CS row, the input rows included, so 2^k
        // fills a domain of exactly 2^k.
        spec.inputs = 4;
        const std::size_t rows = parse_size(size);
        if (rows <= spec.inputs + 2) throw std::invalid_argument("--constraints must exceed 6");
        spec.constraints = std::to_string(rows - spec.inputs - 1);
        const CircuitInstance ci = make_circuit(spec);
        auto t0 = Clock::now();
        const circuit::R1cs r1cs = record(*ci.shape);
        const double record_ms = ms_since(t0);
        t0 = Clock::now();
        const groth16::ProvingKey pk = groth16::setup(r1cs);
        const double setup_ms = ms_since(t0);
        const auto pvk = groth16::PreparedVerifyingKey::from(pk.vk);
        std::vector<double> witness, abc, ntt, h, l, a, b1, b2, total, verify;
        for (int r = 0; r < std::max(1, o.runs); ++r) {
          t0 = Clock::now();
          const groth16::Witness w = synthesize_witness(*ci.proving);
          witness.push_back(ms_since(t0));
          groth16::ProverTimings t;
          const auto proof = groth16::prove(pk, r1cs, w, groth16::ProverRandomness::random(), &t);
          abc.push_back(t.abc_ms);
          ntt.push_back(t.ntt_ms);
          h.push_back(t.h_msm_ms);
          l.push_back(t.l_msm_ms);
          a.push_back(t.a_msm_ms);
          b1.push_back(t.b_g1_msm_ms);
          b2.push_back(t.b_g2_msm_ms);
          total.push_back(t.total_ms);
          t0 = Clock::now();
          const std::vector<ff::Fr> xs(w.inputs.begin() + 1, w.inputs.end());
          if (!groth16::verify(pvk, proof, xs)) throw std::runtime_error("benchmark proof does not verify");
          verify.push_back(ms_since(t0));
        }
        nlohmann::json row = {{"constraints", r1cs.num_constraints},
                              {"domain_log2", poly::EvaluationDomain::for_size(r1cs.num_constraints).log_m()},
                              {"aux", r1cs.num_aux},
                              {"record_ms", record_ms},
                              {"setup_ms", setup_ms},
                              {"witness_ms", median(witness)},
                              {"abc_ms", median(abc)},
                              {"ntt_ms", median(ntt)},
                              {"h_msm_ms", median(h)},
                              {"l_msm_ms", median(l)},
                              {"a_msm_ms", median(a)},
                              {"b_g1_msm_ms", median(b1)},
                              {"b_g2_msm_ms", median(b2)},
                              {"prove_ms", median(total)},
                              {"verify_ms", median(verify)}};
        std::fprintf(stderr, "  %s: prove %.1f ms (setup %.1f ms)\n", size.c_str(), median(total), setup_ms);
        rec["results"].push_back(row);
      }
      return emit(rec, o.json, o.out);
    }));
  }
  {
    struct ProveBenchCommandOptions {
      std::string zkey;
      std::string wtns;
      int runs = 5;
      std::string snarkjs;
      int snarkjs_runs = 3;
      int cpu_runs = -1;
      bool json = false;
      std::string out;
      std::string note;
      ProveBenchOptions synthetic;
      std::string circuit;
    };
    auto o = std::make_shared<ProveBenchCommandOptions>();
    auto* c = bench->add_subcommand(
        "prove",
        "Prove a PoRep-shape synthetic partition (--circuit synthetic) on the CPU or GPU, or a circom circuit "
        "from a snarkjs .zkey and .wtns; per-phase times, every proof verified");
    c->footer(
        "Reports the median of --runs proofs (each verified), the key and witness loading, and with --snarkjs the\n"
        "median wall time of `SNARKJS groth16 prove ZKEY WTNS proof.json public.json` (a whole process, as users run it).\n"
        "Example: snarkpipe bench prove --zkey c.zkey --wtns w.wtns --snarkjs tests/interop/node_modules/.bin/snarkjs --json");
    c->add_option("--circuit", o->circuit, "synthetic: a PoRep-partition-shape circuit (see --scale)");
    c->add_option("--scale", o->synthetic.scale,
                  "With --circuit synthetic: the fraction of a full 32 GiB PoRep partition "
                  "(130,278,869 constraints), e.g. 1, 1/8, 1/1024")
        ->capture_default_str();
    c->add_option("--backend", o->synthetic.backend,
                  "cpu, cuda, or auto (cuda when a GPU is usable). With --zkey, cuda also times the GPU prover and "
                  "checks its proof bytes equal the CPU prover's for the same r, s")
        ->check(CLI::IsMember({"cpu", "cuda", "auto"}))
        ->capture_default_str();
    c->add_option(
        "--params", o->synthetic.params,
        "With --circuit synthetic: key cache (bellperson .params): read if it exists, else set up and written");
    c->add_option("--srs-residency", o->synthetic.srs_residency,
                  "With --backend cuda: where the proving key lives: vram (copied once to the GPU), host (pinned in "
                  "host memory, streamed to the GPU in pieces by every proof), auto (vram when it fits)")
        ->capture_default_str();
    c->add_flag("--serial-msms", o->synthetic.serial_msms,
                "With --backend cuda: run the L, A and B MSMs after the H MSM on one stream (by default they run on a "
                "second stream beside the H computation and H MSM, with the key in GPU memory)");
    c->add_option("--free-gib", o->synthetic.free_gib,
                  "With --backend cuda: card sizes to measure in turn in this one process (the key and circuit made "
                  "once), each with all but N GiB of the GPU held by --ballast (0: none), e.g. 16,24,0")
        ->delimiter(',')
        ->check(CLI::NonNegativeNumber);
    c->add_option("--ballast", o->synthetic.ballast,
                  "With --free-gib: the program that holds all but N GiB of the GPU (../shared/anchors/bin/ballast N)");
    c->add_flag("--compare-cpu", o->synthetic.compare_cpu,
                "With --circuit synthetic: also prove on the CPU backend and require identical proof bytes");
    c->add_option("--zkey", o->zkey, "The snarkjs Groth16 key")->check(CLI::ExistingFile);
    c->add_option("--wtns", o->wtns, "The witness")->check(CLI::ExistingFile);
    c->add_option("--runs", o->runs, "Proofs to time (the median is reported)")->capture_default_str();
    c->add_option("--cpu-runs", o->cpu_runs,
                  "With --zkey on a GPU: CPU proofs to time (default --runs; 0: one untimed, for the byte check)");
    c->add_option("--snarkjs", o->snarkjs, "The snarkjs program, to time `snarkjs groth16 prove` on the same files");
    c->add_option("--snarkjs-runs", o->snarkjs_runs, "snarkjs proofs to time")->capture_default_str();
    c->add_flag("--json", o->json, "Print one JSON object");
    c->add_option("-o,--out", o->out, "Also write the JSON record to this file");
    c->add_option("--note", o->note, "Recorded as \"note\": what the files are and how they were made");
    cmds.push_back(make_command(c, o, [](ProveBenchCommandOptions& o, const CLI::App&) -> int {
      if (!o.circuit.empty()) {
        if (o.circuit != "synthetic")
          throw std::invalid_argument("--circuit: only 'synthetic' is supported here (got '" + o.circuit + "')");
        o.synthetic.runs = o.runs;
        std::string cmd = "snarkpipe bench prove --circuit synthetic --scale " + o.synthetic.scale + " --backend " +
                          o.synthetic.backend + " --srs-residency " + o.synthetic.srs_residency + " --runs " +
                          std::to_string(o.runs) + (o.synthetic.compare_cpu ? " --compare-cpu" : "") +
                          (o.synthetic.serial_msms ? " --serial-msms" : "");
        if (!o.synthetic.free_gib.empty()) {
          std::string list;
          for (const double n : o.synthetic.free_gib) list += (list.empty() ? "" : ",") + plain_number(n);
          cmd += " --free-gib " + list + " --ballast " + o.synthetic.ballast;
        }
        nlohmann::json rec = run_prove_bench(o.synthetic, cmd);
        if (!o.note.empty()) rec["note"] = o.note;
        return emit(rec, o.json, o.out);
      }
      if (o.zkey.empty() || o.wtns.empty())
        throw std::invalid_argument("give --circuit synthetic, or both --zkey and --wtns");
      ZkeyBenchOptions z;
      z.zkey = o.zkey, z.wtns = o.wtns, z.backend = o.synthetic.backend, z.runs = o.runs;
      z.cpu_runs = o.cpu_runs, z.snarkjs = o.snarkjs, z.snarkjs_runs = o.snarkjs_runs;
      std::string cmd = "snarkpipe bench prove --zkey " + o.zkey + " --wtns " + o.wtns + " --backend " +
                        o.synthetic.backend + " --runs " + std::to_string(o.runs);
      if (o.cpu_runs >= 0) cmd += " --cpu-runs " + std::to_string(o.cpu_runs);
      if (!o.snarkjs.empty()) cmd += " --snarkjs " + o.snarkjs + " --snarkjs-runs " + std::to_string(o.snarkjs_runs);
      nlohmann::json rec = run_zkey_bench(z, cmd);
      if (!o.note.empty()) rec["note"] = o.note;
      return emit(rec, o.json, o.out);
    }));
  }
  return cmds;
}

}  // namespace snarkpipe::cli
