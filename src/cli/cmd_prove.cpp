// prove: a proof from a bellperson .params (built-in circuits or circom files) or a snarkjs .zkey,
// on the CPU or the GPU; the snarkjs/rapidsnark positional form too.
#include <cstdio>
#include <filesystem>
#include <memory>

#include "circom/prover.hpp"
#include "circom/snarkjs_json.hpp"
#include "circom/wtns.hpp"
#include "circom/zkey.hpp"
#include "circom/zkey_witness.hpp"
#include "cuda/zkey_prover.hpp"
#include "cli/backend_choice.hpp"
#include "cli/circuits.hpp"
#include "cli/command.hpp"
#include "base/hex.hpp"
#include "cli/progress.hpp"
#include "groth16/params_file.hpp"
#include "groth16/prover.hpp"
#include "cli/groth16_io.hpp"

namespace snarkpipe::cli {

using base::hex;
using groth16::Proof;
using groth16::ProvingKey;

void add_prove_command(CLI::App& app, std::vector<Command>& cmds) {
  // prove
  {
    struct ProveOptions {
      CircuitSpec spec;
      std::string params;
      std::string r1cs_path;
      std::string zkey;
      std::string wtns;
      std::string format = "bellperson";
      std::string proof_out;
      std::string public_out;
      bool check_subgroup = false;
      CacheOptions cache;
      BackendOptions backend_opts;
      std::vector<std::string> files;  // snarkjs / rapidsnark: KEY.zkey WITNESS.wtns PROOF.json PUBLIC.json
    };
    auto o = std::make_shared<ProveOptions>();
    auto* c = app.add_subcommand(
        "prove", "Prove a circuit's statement with a proving key (bellperson .params or snarkjs .zkey)");
    c->footer(
        "The key, the circuit and the witness:\n"
        "  --params P with a built-in circuit (--circuit ...), or with --r1cs CIRCUIT --wtns WITNESS (circom files);\n"
        "  --zkey Z --wtns W: a snarkjs Groth16 key and a circom witness, proved as snarkjs proves (proof.json).\n"
        "Writes the proof (192 bytes A | B | C compressed, or snarkjs's proof.json with --format snarkjs; with --zkey\n"
        "proof.json unless --format bellperson) and "
        "the public inputs after ONE as snarkjs's public.json.\nThe proof is verified before it is written.\n"
        "As snarkjs groth16 prove and rapidsnark take them: snarkpipe prove circuit.zkey witness.wtns proof.json public.json\n"
        "A snarkjs key proves on the GPU with --backend cuda (the key uploaded once, snarkjs's conventions, the proof\n"
        "verified before it is written); --backend auto keeps the CPU for it in this version.\n"
        "Example: snarkpipe prove --circuit merkle-sha256 --depth 4 --params m4.params --proof m4.proof --public m4.json\n"
        "         snarkpipe prove --zkey c.zkey --wtns w.wtns --proof proof.json --public public.json\n"
        "         snarkpipe prove c.zkey w.wtns proof.json public.json");
    add_circuit_options(c, o->spec);
    add_cache_options(c, o->cache);
    add_backend_options(c, o->backend_opts);
    c->add_option("--params", o->params, "The proving key (.params, bellperson format)")->check(CLI::ExistingFile);
    c->add_option("--r1cs", o->r1cs_path,
                  "With --params: the circuit file (circom .r1cs or .snkr1cs) instead of --circuit")
        ->check(CLI::ExistingFile);
    c->add_option("--zkey", o->zkey, "A snarkjs Groth16 proving key (.zkey) instead of --params")
        ->check(CLI::ExistingFile);
    c->add_option("--wtns", o->wtns, "The witness (.wtns, from circom's witness calculator / snarkjs wtns calculate)")
        ->check(CLI::ExistingFile);
    add_proof_format_option(c, o->format);
    c->add_option("--proof", o->proof_out, "Where to write the proof");
    c->add_option("--public", o->public_out, "Where to write the public inputs (JSON)");
    c->add_option("files", o->files,
                  "KEY.zkey WITNESS.wtns PROOF.json PUBLIC.json, as snarkjs and rapidsnark take them");
    c->add_flag("--check-subgroup", o->check_subgroup,
                "Check every key point's subgroup membership while loading (slow)");
    cmds.push_back(make_command(c, o, [](ProveOptions& o, const CLI::App& cmd) -> int {
      if (!o.files.empty()) {
        if (o.files.size() != 4 || !o.zkey.empty() || !o.params.empty() || !o.wtns.empty() || !o.proof_out.empty() ||
            !o.public_out.empty())
          throw std::invalid_argument(
              "give KEY.zkey WITNESS.wtns PROOF.json PUBLIC.json as four arguments, or the options "
              "(--zkey --wtns --proof --public)");
        o.zkey = o.files[0], o.wtns = o.files[1], o.proof_out = o.files[2], o.public_out = o.files[3];
        for (const std::string* f : {&o.zkey, &o.wtns})
          if (!std::filesystem::exists(*f)) throw std::invalid_argument("no such file: " + *f);
      }
      if (o.proof_out.empty() || o.public_out.empty())
        throw std::invalid_argument(
            "--proof and --public (where to write the proof and its public inputs) are required");
      if (o.zkey.empty() == o.params.empty())
        throw std::invalid_argument("give exactly one proving key: --params (bellperson) or --zkey (snarkjs)");
      if (!o.zkey.empty()) {
        if (o.wtns.empty()) throw std::invalid_argument("--zkey needs --wtns (the witness)");
        if (!o.r1cs_path.empty()) throw std::invalid_argument("--zkey carries its circuit: leave out --r1cs");
        // On a GPU (cuda/zkey_prover.hpp) when auto finds one, as for bellperson keys: its
        // proofs equal the CPU zkey prover's bytes for fixed r, s (tests/cuda/test_cuda_zkey.cu).
        const bool on_gpu = resolve_backend_kind(o.backend_opts) == "cuda";
        PhaseProgress progress("prove " + o.zkey, 4);
        progress.phase("load key");
        circom::ZkeyReadOptions opts;
        opts.check_subgroup = o.check_subgroup;
        const circom::ZkeyProver prover(circom::read_zkey(o.zkey, opts));
        progress.phase("load witness");
        const std::vector<ff::Fr> w = circom::read_wtns_for_zkey(o.wtns, o.zkey, prover.num_vars());
        progress.phase("prove (snarkjs construction)");
        circom::ZkeyProverTimings t;
        std::unique_ptr<cuda::GpuZkeyProver> gpu;
        if (on_gpu) gpu = std::make_unique<cuda::GpuZkeyProver>(prover);
        const Proof proof = gpu ? gpu->prove_checked(w, groth16::ProverRandomness::random(), &t)
                                : prover.prove_checked(w, groth16::ProverRandomness::random(), &t);
        progress.finish();
        const std::vector<ff::Fr> xs(w.begin() + 1, w.begin() + 1 + prover.num_public());
        // snarkjs's proof.json unless --format bellperson asks for the 192 bytes.
        if (cmd.count("--format") != 0 && o.format == "bellperson") write_file(o.proof_out, proof.to_bytes());
        else circom::write_json_file(o.proof_out, circom::proof_to_json(proof));
        circom::write_json_file(o.public_out, circom::public_to_json(xs));
        std::fprintf(stderr, "  key: %u signals, %u public, domain %u\n", prover.num_vars(), prover.num_public(),
                     prover.domain_size());
        std::printf(
            "prover (%s): %.0f ms (a,b,c %.0f, NTTs %.0f, C+H MSM %.0f, A MSM %.0f, B1 MSM %.0f, B2 MSM %.0f)\n",
            gpu ? "cuda:0" : "cpu", t.total_ms, t.abc_ms, t.ntt_ms, t.c_h_msm_ms, t.a_msm_ms, t.b1_msm_ms, t.b2_msm_ms);
        std::printf("wrote %s and %s\n", o.proof_out.c_str(), o.public_out.c_str());
        return 0;
      }
      if (o.r1cs_path.empty() != o.wtns.empty())
        throw std::invalid_argument("--r1cs and --wtns go together (a circuit file and its witness)");
      PhaseProgress progress("prove " + (o.r1cs_path.empty() ? o.spec.describe() : o.r1cs_path), 9);
      circuit::R1cs r1cs;
      groth16::Witness w;
      std::vector<ff::Fr> expected;
      std::string recorded;
      if (o.r1cs_path.empty()) {
        const CircuitInstance ci = make_circuit(o.spec);
        progress.phase("record circuit");
        RecordedCircuit rc = record_cached(o.spec, *ci.shape, o.cache);
        recorded = rc.summary();
        r1cs = std::move(rc.r1cs);
        progress.phase("witness");
        w = synthesize_witness(*ci.proving);
        expected = ci.expected_public;
      } else {
        progress.phase("read circuit");
        r1cs = load_circuit_file(o.r1cs_path);
        progress.phase("read witness");
        const std::vector<ff::Fr> values = circom::read_wtns(o.wtns);
        if (values.size() != r1cs.num_columns())
          throw std::invalid_argument("the witness has " + std::to_string(values.size()) + " values; the circuit has " +
                                      std::to_string(r1cs.num_columns()) + " wires (a witness for another circuit?)");
        w = circom::split_witness(values, r1cs.num_inputs - 1);
      }
      progress.phase("load key");
      groth16::ParamsReadOptions opts;
      opts.check_subgroup = o.check_subgroup;
      const ProvingKey pk = groth16::read_params(o.params, opts);
      groth16::ProverTimings t;
      const auto backend = make_prover_backend(o.backend_opts);
      const Proof proof = prove_with(*backend, pk, r1cs, w, &t, prover_progress(progress));
      progress.finish();
      std::printf("proved on %s\n", backend->name().c_str());
      const std::vector<ff::Fr> xs(w.inputs.begin() + 1, w.inputs.end());
      if (!expected.empty() && xs != expected)
        throw std::runtime_error("internal error: the circuit's public inputs differ from the native computation");
      const auto bytes = proof.to_bytes();
      if (o.format == "snarkjs") circom::write_json_file(o.proof_out, circom::proof_to_json(proof));
      else write_file(o.proof_out, bytes);
      write_public_json(o.public_out, xs);
      print_r1cs_shape(r1cs);
      if (!recorded.empty()) std::printf("circuit %s\n", recorded.c_str());
      std::printf("proof %s\nwrote %s and %s\n", hex(bytes).c_str(), o.proof_out.c_str(), o.public_out.c_str());
      return 0;
    }));
  }
}

}  // namespace snarkpipe::cli
