// snarkpipe bench cpu | groth16: measured numbers as JSON records (machine, command, date,
// results), the form bench/results keeps.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/bench_cpu.hpp"
#include "cli/circuits.hpp"
#include "cli/command.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "poly/domain.hpp"

namespace snarkpipe::cli {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

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
  if (!out_path.empty()) {
    std::ofstream f(out_path);
    if (!f) {
      std::fprintf(stderr, "error: cannot write %s\n", out_path.c_str());
      return 1;
    }
    f << record.dump(2) << "\n";
  }
  return 0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

std::vector<Command> register_bench_commands(CLI::App& app) {
  std::vector<Command> cmds;
  auto* bench = app.add_subcommand("bench", "Measure performance and print (or record) the numbers as JSON");
  bench->require_subcommand(1);

  {
    auto json = std::make_shared<bool>(false);
    auto quick = std::make_shared<bool>(false);
    auto out = std::make_shared<std::string>();
    auto* c = bench->add_subcommand("cpu", "Field, curve and pairing timings on this CPU (median of 7 runs)");
    c->add_flag("--json", *json, "Print one JSON object instead of a table");
    c->add_flag("--quick", *quick, "Shorter runs (noisier), for smoke tests");
    c->add_option("-o,--out", *out, "Also write the JSON record to this file (e.g. bench/results/cpu-DATE.json)");
    cmds.push_back({c, [=] {
                      nlohmann::json record = machine_info();
                      record["command"] = std::string("snarkpipe bench cpu") + (*quick ? " --quick" : "");
                      record["results"] = run_cpu_bench(*quick);
                      return emit(record, *json, *out);
                    }});
  }

  {
    auto sizes = std::make_shared<std::vector<std::string>>(std::vector<std::string>{"2^12"});
    auto runs = std::make_shared<int>(3);
    auto json = std::make_shared<bool>(false);
    auto out = std::make_shared<std::string>();
    auto* c = bench->add_subcommand("groth16", "Prove synthetic circuits on the CPU; time per phase (median of --runs)");
    c->footer("Example: snarkpipe bench groth16 --constraints 2^12 2^14 2^16 --json --out bench/results/groth16-cpu.json");
    c->add_option("--constraints", *sizes, "Circuit sizes (N or 2^k), one or more")->capture_default_str();
    c->add_option("--runs", *runs, "Proofs per size (the median is reported)")->capture_default_str();
    c->add_flag("--json", *json, "Print one JSON object");
    c->add_option("-o,--out", *out, "Also write the JSON record to this file");
    cmds.push_back({c, [=] {
                      nlohmann::json rec = machine_info();
                      std::string cmd = "snarkpipe bench groth16 --runs " + std::to_string(*runs) + " --constraints";
                      for (const auto& s : *sizes) cmd += " " + s;
                      rec["command"] = cmd;
                      rec["results"] = nlohmann::json::array();
                      for (const auto& size : *sizes) {
                        CircuitSpec spec;
                        spec.name = "synthetic";
                        spec.constraints = size;
                        spec.inputs = 4;
                        const CircuitInstance ci = make_circuit(spec);
                        auto t0 = Clock::now();
                        const circuit::R1cs r1cs = record(*ci.shape);
                        const double record_ms = ms_since(t0);
                        t0 = Clock::now();
                        const groth16::ProvingKey pk = groth16::setup(r1cs);
                        const double setup_ms = ms_since(t0);
                        const auto pvk = groth16::PreparedVerifyingKey::from(pk.vk);
                        std::vector<double> witness, abc, ntt, h, l, a, b1, b2, total, verify;
                        for (int r = 0; r < std::max(1, *runs); ++r) {
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
                      return emit(rec, *json, *out);
                    }});
  }
  return cmds;
}

}  // namespace snarkpipe::cli
