// convert: a snarkjs Groth16 key (.zkey) and its circom circuit become a bellperson key (.params,
// .vk) and a recorded circuit (.snkr1cs), the ceremony kept (circom/zkey_convert.hpp).
#include <bit>
#include <cstdio>
#include <memory>

#include "base/clock.hpp"
#include "circom/r1cs.hpp"
#include "circom/snarkjs_json.hpp"
#include "circom/wtns.hpp"
#include "circom/zkey.hpp"
#include "circom/zkey_convert.hpp"
#include "circuit/r1cs_file.hpp"
#include "cli/command.hpp"
#include "cli/groth16_io.hpp"
#include "groth16/params_file.hpp"
#include "groth16/prover.hpp"
#include "groth16/verifier.hpp"

namespace snarkpipe::cli {

using base::Clock;
using base::ms_since;

void add_convert_command(CLI::App& app, std::vector<Command>& cmds) {
  struct ConvertOptions {
    std::string zkey, circom_r1cs, params, vk, r1cs, wtns, vk_json;
  };
  auto o = std::make_shared<ConvertOptions>();
  auto* c = app.add_subcommand("convert",
                               "Turn a snarkjs .zkey (its ceremony kept) into a bellperson .params/.vk and a .snkr1cs");
  c->footer(
      "The verifying key is the zkey's own points, so proofs made with the converted key (`snarkpipe prove --params\n"
      "P.params --r1cs C.snkr1cs --wtns W`, any backend) verify under the original verification_key.json.\n"
      "A, B1, B2, C (as l) and IC are copied; the recorded circuit holds the circom rows where bellperson's domain\n"
      "evaluates snarkjs's (its roots of unity differ); C's matrix comes from --circom-r1cs, which must be the circuit\n"
      "the zkey was made for (its A and B are checked against the zkey; C is not in a zkey: --wtns proves once to\n"
      "check it). bellperson's h query is rebuilt from snarkjs's H section by a DFT over G1 points: m/2*log2(m)\n"
      "scalar multiplications (two 128-bit halves each, by the G1 endomorphism), on all cores. Measured on the\n"
      "2-core development machine while other builds ran (load 5-8): 2.4 s at 2^12 rows, 60 s at 2^16, 29.5 min at\n"
      "2^20 (20 min of CPU time: about 10 min with both cores free); it grows as m*log2(m). A progress line per step.\n"
      "Example: snarkpipe convert --zkey circuit.zkey --circom-r1cs circuit.r1cs --params c.params --vk c.vk \\\n"
      "           --r1cs c.snkr1cs --wtns witness.wtns --vk-json verification_key.json");
  c->add_option("--zkey", o->zkey, "snarkjs Groth16 key (BLS12-381)")->required()->check(CLI::ExistingFile);
  c->add_option("--circom-r1cs", o->circom_r1cs, "circom's .r1cs the zkey was made for")
      ->required()
      ->check(CLI::ExistingFile);
  c->add_option("--params", o->params, "Where to write bellperson's parameters (.params)")->required();
  c->add_option("--vk", o->vk, "Where to write bellperson's verifying key (.vk)");
  c->add_option("--r1cs", o->r1cs, "Where to write the recorded circuit (.snkr1cs)")->required();
  c->add_option("--wtns", o->wtns, "A witness (.wtns): prove once with the converted key and verify the proof")
      ->check(CLI::ExistingFile);
  c->add_option("--vk-json", o->vk_json, "The zkey's verification_key.json: check it is the converted verifying key")
      ->check(CLI::ExistingFile);
  cmds.push_back(make_command(c, o, [](ConvertOptions& o, const CLI::App&) -> int {
    const auto t0 = Clock::now();
    circom::Zkey zkey = circom::read_zkey(o.zkey);
    const circom::CircomR1cs circuit = circom::read_circom_r1cs(o.circom_r1cs);
    std::printf("%s: %u signals (%u public), domain 2^%d; %s: %u constraints\n", o.zkey.c_str(), zkey.num_vars,
                zkey.num_public, std::countr_zero(zkey.domain_size), o.circom_r1cs.c_str(), circuit.num_constraints);
    std::fflush(stdout);
    const auto th = std::make_shared<Clock::time_point>(Clock::now());
    const circom::ConvertedZkey converted = circom::convert_zkey(
        std::move(zkey), circuit, {o.zkey, o.circom_r1cs},
        [th](std::string_view phase, std::size_t done, std::size_t total) {
          if (phase == "rows") *th = Clock::now();  // the h query starts right after
          if (phase != "h") return;
          std::fprintf(stderr, "h query: %zu/%zu transform steps, %.1f s\n", done, total, ms_since(*th) / 1e3);
        });
    if (!o.vk_json.empty()) {
      const groth16::VerifyingKey original = circom::vk_from_json(circom::read_json_file(o.vk_json), o.vk_json);
      const auto& vk = converted.pk.vk;
      if (original.alpha_g1 != vk.alpha_g1 || original.beta_g2 != vk.beta_g2 || original.gamma_g2 != vk.gamma_g2 ||
          original.delta_g2 != vk.delta_g2 || original.ic != vk.ic)
        throw std::invalid_argument(o.vk_json + ": not the verifying key of " + o.zkey);
      std::printf("%s: the converted verifying key's alpha, beta, gamma, delta and IC\n", o.vk_json.c_str());
    }
    if (!o.wtns.empty()) {
      const std::vector<ff::Fr> z = circom::read_wtns(o.wtns);
      const std::size_t nin = converted.r1cs.num_inputs;
      if (z.size() != converted.r1cs.num_columns())
        throw std::invalid_argument(o.wtns + ": " + std::to_string(z.size()) + " values; the circuit has " +
                                    std::to_string(converted.r1cs.num_columns()) + " wires");
      groth16::Witness w{{z.begin(), z.begin() + std::ptrdiff_t(nin)}, {z.begin() + std::ptrdiff_t(nin), z.end()}};
      const groth16::Proof proof =
          groth16::prove_checked(converted.pk, converted.r1cs, w, groth16::ProverRandomness::random());
      (void)proof;
      std::printf("%s: a proof with the converted key verifies\n", o.wtns.c_str());
    }
    if (o.wtns.empty())
      std::printf(
          "note: a zkey holds no C matrix, so %s's C was not checked against the key (A and B were); "
          "--wtns W proves once to check it\n",
          o.circom_r1cs.c_str());
    groth16::write_params(o.params, converted.pk);
    std::printf("wrote %s\n", o.params.c_str());
    if (!o.vk.empty()) {
      groth16::write_vk(o.vk, converted.pk.vk);
      std::printf("wrote %s\n", o.vk.c_str());
    }
    circuit::write_r1cs(o.r1cs, converted.r1cs);
    std::printf("wrote %s (%llu rows in bellperson's order)\n", o.r1cs.c_str(),
                static_cast<unsigned long long>(converted.r1cs.num_constraints));
    std::printf("converted in %.1f s\n", ms_since(t0) / 1e3);
    return 0;
  }));
}

}  // namespace snarkpipe::cli
