// setup, prove, verify, inspect, demo, and the circom/snarkjs bridge (export-vk,
// import-r1cs, test-ptau): Groth16 from the command line, with bellperson's file formats
// (.params, .vk, 192-byte proofs), snarkjs's JSON (public.json, proof.json, vk.json) and
// circom's .r1cs / .wtns and snarkjs's .zkey.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <cctype>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "circom/prover.hpp"
#include "circom/ptau.hpp"
#include "circom/r1cs.hpp"
#include "circom/snarkjs_json.hpp"
#include "circom/wtns.hpp"
#include "circom/zkey.hpp"
#include "cuda/zkey_prover.hpp"
#include "circuit/r1cs_file.hpp"
#include "cli/backend_choice.hpp"
#include "cli/circuits.hpp"
#include "cli/command.hpp"
#include "base/hex.hpp"
#include "cli/progress.hpp"
#include "groth16/params_file.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"

namespace snarkpipe::cli {

using base::hex;

using groth16::Proof;
using groth16::ProvingKey;

namespace {

std::vector<std::uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const std::string& path, std::span<const std::uint8_t> bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

// snarkjs's public.json: the inputs after ONE as decimal strings.
void write_public_json(const std::string& path, std::span<const ff::Fr> xs) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& x : xs) j.push_back(x.to_decimal());
  std::ofstream out(path);
  out << j.dump() << "\n";
  if (!out) throw std::runtime_error("cannot write " + path);
}

// One array of decimal strings, or (several partitions) an array of such arrays.
// Its nesting is bounded and its values are described, never echoed (circom/snarkjs_json.hpp).
std::vector<std::vector<ff::Fr>> read_public_json(const std::string& path) {
  const nlohmann::json j = circom::read_json_file(path);
  // `at`: "" for the one list, "[p]" for partition p's.
  auto parse_list = [&](const nlohmann::json& a, const std::string& at) {
    if (!a.is_array())
      throw std::runtime_error(path + ": " + at + (at.empty() ? "" : ": ") + "expected an array of decimal strings, got " +
                               circom::describe_json(a));
    std::vector<ff::Fr> xs;
    for (std::size_t i = 0; i < a.size(); ++i) {
      const nlohmann::json& v = a[i];
      const std::string s = v.is_string() ? v.get<std::string>() : v.is_number_unsigned() ? std::to_string(v.get<std::uint64_t>()) : "";
      const auto x = ff::Fr::from_decimal(s);
      if (!x)
        throw std::runtime_error(path + ": " + at + "[" + std::to_string(i) + "]: " + circom::describe_json(v) +
                                 " is not a decimal integer below the scalar field order");
      xs.push_back(*x);
    }
    return xs;
  };
  if (!j.is_array()) throw std::runtime_error(path + ": expected a JSON array, got " + circom::describe_json(j));
  if (!j.empty() && j[0].is_array()) {
    std::vector<std::vector<ff::Fr>> out;
    for (std::size_t p = 0; p < j.size(); ++p) out.push_back(parse_list(j[p], "[" + std::to_string(p) + "]"));
    return out;
  }
  return {parse_list(j, "")};
}

void print_r1cs_shape(const circuit::R1cs& r) {
  std::fprintf(stderr, "  circuit: %llu constraints (%llu with the input constraints), %llu public inputs, %llu aux\n",
               static_cast<unsigned long long>(r.num_constraints - r.num_inputs),
               static_cast<unsigned long long>(r.num_constraints), static_cast<unsigned long long>(r.num_inputs - 1),
               static_cast<unsigned long long>(r.num_aux));
}

ProvingKey run_setup(const circuit::R1cs& r1cs, PhaseProgress& progress) {
  return groth16::setup(r1cs, [&](std::string_view p) { progress.phase("setup: " + std::string(p)); });
}

groth16::ProverProgress prover_progress(PhaseProgress& progress) {
  return [&](std::string_view p) { progress.phase("prove: " + std::string(p)); };
}

std::string file_magic(const std::string& path) {
  char magic[8] = {};
  std::ifstream(path, std::ios::binary).read(magic, 8);
  return std::string(magic, 8);
}

// A circuit file: snarkpipe's recorded circuit (.snkr1cs, "SNKR1CS") or circom's .r1cs ("r1cs").
circuit::R1cs load_circuit_file(const std::string& path) {
  const std::string magic = file_magic(path);
  if (std::memcmp(magic.data(), circuit::R1CS_FILE_MAGIC, 8) == 0) return circuit::read_r1cs(path);
  if (magic.compare(0, 4, "r1cs") == 0) return circom::read_circom_r1cs(path).r1cs;
  throw std::runtime_error(path + ": neither a circom .r1cs nor a snarkpipe recorded circuit");
}

void add_proof_format_option(CLI::App* c, std::string& format) {
  c->add_option("--format", format, "bellperson: 192-byte binary proof; snarkjs: proof.json")
      ->check(CLI::IsMember({"bellperson", "snarkjs"}))
      ->capture_default_str();
}

}  // namespace

std::vector<Command> register_groth16_commands(CLI::App& app) {
  std::vector<Command> cmds;

  // setup
  {
    struct SetupOptions {
      CircuitSpec spec;
      std::string r1cs_path;
      std::string params;
      std::string vk;
      CacheOptions cache;
    };
    auto o = std::make_shared<SetupOptions>();
    auto* c = app.add_subcommand("setup", "Generate Groth16 keys for a circuit (fresh toxic waste from the OS CSPRNG)");
    c->footer(
        "Writes bellperson-format files: OUT.params (the proving key) and OUT.vk (the verifying key).\n"
        "The circuit is a built-in one (--circuit) or a file (--r1cs: circom .r1cs or snarkpipe's recorded circuit).\n"
        "Example: snarkpipe setup --circuit merkle-sha256 --depth 4 --params m4.params --vk m4.vk\n"
        "         snarkpipe setup --r1cs circuit.r1cs --params c.params --vk c.vk");
    add_circuit_options(c, o->spec);
    add_cache_options(c, o->cache);
    c->add_option("--r1cs", o->r1cs_path, "A circuit file instead of a built-in circuit (circom .r1cs or .snkr1cs)")
        ->check(CLI::ExistingFile);
    c->add_option("--params", o->params, "Where to write the proving key (.params)")->required();
    c->add_option("--vk", o->vk, "Where to write the verifying key (.vk)")->required();
    cmds.push_back(make_command(c, o, [](SetupOptions& o, const CLI::App&) -> int {
                      const std::string what = o.r1cs_path.empty() ? o.spec.describe() : o.r1cs_path;
                      PhaseProgress progress("setup " + what, 10);
                      circuit::R1cs r1cs;
                      std::string recorded;
                      if (o.r1cs_path.empty()) {
                        const CircuitInstance ci = make_circuit(o.spec);
                        progress.phase("record circuit");
                        RecordedCircuit rc = record_cached(o.spec, *ci.shape, o.cache);
                        recorded = rc.summary();
                        r1cs = std::move(rc.r1cs);
                      } else {
                        progress.phase("read circuit");
                        r1cs = load_circuit_file(o.r1cs_path);
                      }
                      const ProvingKey pk = run_setup(r1cs, progress);
                      progress.phase("write files");
                      groth16::write_params(o.params, pk);
                      groth16::write_vk(o.vk, pk.vk);
                      progress.finish();
                      print_r1cs_shape(r1cs);
                      if (!recorded.empty()) std::printf("circuit %s\n", recorded.c_str());
                      std::printf("wrote %s and %s (%.1f s)\n", o.params.c_str(), o.vk.c_str(), progress.total_ms() / 1e3);
                      return 0;
                    }));
  }

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
    auto* c = app.add_subcommand("prove", "Prove a circuit's statement with a proving key (bellperson .params or snarkjs .zkey)");
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
    c->add_option("--r1cs", o->r1cs_path, "With --params: the circuit file (circom .r1cs or .snkr1cs) instead of --circuit")
        ->check(CLI::ExistingFile);
    c->add_option("--zkey", o->zkey, "A snarkjs Groth16 proving key (.zkey) instead of --params")->check(CLI::ExistingFile);
    c->add_option("--wtns", o->wtns, "The witness (.wtns, from circom's witness calculator / snarkjs wtns calculate)")
        ->check(CLI::ExistingFile);
    add_proof_format_option(c, o->format);
    c->add_option("--proof", o->proof_out, "Where to write the proof");
    c->add_option("--public", o->public_out, "Where to write the public inputs (JSON)");
    c->add_option("files", o->files, "KEY.zkey WITNESS.wtns PROOF.json PUBLIC.json, as snarkjs and rapidsnark take them");
    c->add_flag("--check-subgroup", o->check_subgroup, "Check every key point's subgroup membership while loading (slow)");
    cmds.push_back(make_command(c, o, [](ProveOptions& o, const CLI::App& cmd) -> int {
                      if (!o.files.empty()) {
                        if (o.files.size() != 4 || !o.zkey.empty() || !o.params.empty() || !o.wtns.empty() ||
                            !o.proof_out.empty() || !o.public_out.empty())
                          throw std::invalid_argument(
                              "give KEY.zkey WITNESS.wtns PROOF.json PUBLIC.json as four arguments, or the options "
                              "(--zkey --wtns --proof --public)");
                        o.zkey = o.files[0], o.wtns = o.files[1], o.proof_out = o.files[2], o.public_out = o.files[3];
                        for (const std::string* f : {&o.zkey, &o.wtns})
                          if (!std::filesystem::exists(*f)) throw std::invalid_argument("no such file: " + *f);
                      }
                      if (o.proof_out.empty() || o.public_out.empty())
                        throw std::invalid_argument("--proof and --public (where to write the proof and its public inputs) are required");
                      if (o.zkey.empty() == o.params.empty())
                        throw std::invalid_argument("give exactly one proving key: --params (bellperson) or --zkey (snarkjs)");
                      if (!o.zkey.empty()) {
                        if (o.wtns.empty()) throw std::invalid_argument("--zkey needs --wtns (the witness)");
                        if (!o.r1cs_path.empty()) throw std::invalid_argument("--zkey carries its circuit: leave out --r1cs");
                        // --backend cuda proves on the GPU (cuda/zkey_prover.hpp); auto keeps the CPU for a
                        // .zkey until that path has run on a device beside the CPU prover (issue 29).
                        const bool on_gpu = resolve_backend_kind(o.backend_opts) == "cuda" && o.backend_opts.backend == "cuda";
                        PhaseProgress progress("prove " + o.zkey, 4);
                        progress.phase("load key");
                        circom::ZkeyReadOptions opts;
                        opts.check_subgroup = o.check_subgroup;
                        const circom::ZkeyProver prover(circom::read_zkey(o.zkey, opts));
                        progress.phase("load witness");
                        const std::vector<ff::Fr> w = circom::read_wtns(o.wtns);
                        progress.phase("prove (snarkjs construction)");
                        circom::ZkeyProverTimings t;
                        std::unique_ptr<cuda::GpuZkeyProver> gpu;
                        if (on_gpu) gpu = std::make_unique<cuda::GpuZkeyProver>(prover);
                        const Proof proof = gpu ? gpu->prove_checked(w, groth16::ProverRandomness::random(), &t)
                                                : prover.prove_checked(w, groth16::ProverRandomness::random(), &t);
                        progress.finish();
                        const std::vector<ff::Fr> xs(w.begin() + 1, w.begin() + 1 + prover.num_public());
                        // snarkjs's proof.json unless --format bellperson asks for the 192 bytes.
                        if (cmd.count("--format") != 0 && o.format == "bellperson")
                          write_file(o.proof_out, proof.to_bytes());
                        else
                          circom::write_json_file(o.proof_out, circom::proof_to_json(proof));
                        circom::write_json_file(o.public_out, circom::public_to_json(xs));
                        std::fprintf(stderr, "  key: %u signals, %u public, domain %u\n", prover.num_vars(), prover.num_public(),
                                     prover.domain_size());
                        std::printf("prover (%s): %.0f ms (a,b,c %.0f, NTTs %.0f, C+H MSM %.0f, A MSM %.0f, B1 MSM %.0f, B2 MSM %.0f)\n",
                                    gpu ? "cuda:0" : "cpu", t.total_ms, t.abc_ms, t.ntt_ms, t.c_h_msm_ms, t.a_msm_ms,
                                    t.b1_msm_ms, t.b2_msm_ms);
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
                          throw std::invalid_argument("the witness has " + std::to_string(values.size()) +
                                                      " values; the circuit has " + std::to_string(r1cs.num_columns()) +
                                                      " wires (a witness for another circuit?)");
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
                      if (o.format == "snarkjs")
                        circom::write_json_file(o.proof_out, circom::proof_to_json(proof));
                      else
                        write_file(o.proof_out, bytes);
                      write_public_json(o.public_out, xs);
                      print_r1cs_shape(r1cs);
                      if (!recorded.empty()) std::printf("circuit %s\n", recorded.c_str());
                      std::printf("proof %s\nwrote %s and %s\n", hex(bytes).c_str(), o.proof_out.c_str(), o.public_out.c_str());
                      return 0;
                    }));
  }

  // verify
  {
    struct VerifyOptions {
      std::string vk_path;
      std::string proof_path;
      std::string public_path;
      std::string format = "bellperson";
      std::vector<std::string> files;
    };
    auto o = std::make_shared<VerifyOptions>();
    auto* c = app.add_subcommand("verify", "Verify a proof (or concatenated partition proofs); exit status 0 only when valid");
    c->footer(
        "Exit status: 0 valid, 1 invalid (the reason is printed), 2 unreadable input.\n"
        "--format snarkjs reads snarkjs's vk.json, public.json and proof.json, in snarkjs's order as arguments.\n"
        "Without --format the key's content decides: a JSON vk.json is snarkjs, a binary .vk bellperson.\n"
        "Example: snarkpipe verify --vk m4.vk --proof m4.proof --public m4.json\n"
        "         snarkpipe verify --format snarkjs vk.json public.json proof.json");
    c->add_option("--vk", o->vk_path, "The verifying key (.vk, bellperson format; vk.json with --format snarkjs)")
        ->check(CLI::ExistingFile);
    c->add_option("--proof", o->proof_path, "The proof file (192 bytes per partition; proof.json with --format snarkjs)")
        ->check(CLI::ExistingFile);
    c->add_option("--public", o->public_path, "The public inputs: a JSON array of decimal strings (one array per partition)")
        ->check(CLI::ExistingFile);
    c->add_option("--format", o->format, "bellperson (.vk + binary proof) or snarkjs (vk.json + proof.json)")
        ->check(CLI::IsMember({"bellperson", "snarkjs"}))
        ->capture_default_str();
    c->add_option("files", o->files, "VK PUBLIC PROOF, as snarkjs groth16 verify takes them (instead of the options)")
        ->check(CLI::ExistingFile);
    cmds.push_back(make_command(c, o, [](VerifyOptions& o, const CLI::App& cmd) -> int {
                      std::string vkf = o.vk_path, pubf = o.public_path, prf = o.proof_path;
                      if (!o.files.empty()) {
                        if (o.files.size() != 3 || !vkf.empty() || !pubf.empty() || !prf.empty()) {
                          std::printf("error: give VK PUBLIC PROOF as three arguments, or --vk --public --proof\n");
                          return 2;
                        }
                        vkf = o.files[0];
                        pubf = o.files[1];
                        prf = o.files[2];
                      }
                      if (vkf.empty() || pubf.empty() || prf.empty()) {
                        std::printf("error: the verifying key, the public inputs and the proof are all needed\n");
                        return 2;
                      }
                      groth16::VerifyingKey vk;
                      std::vector<Proof> proofs;
                      std::vector<std::vector<ff::Fr>> inputs;
                      // The format: as given, else from the key's first byte (vk.json is a JSON object).
                      bool snarkjs = o.format == "snarkjs";
                      if (cmd.count("--format") == 0) {
                        std::ifstream vk_in(vkf, std::ios::binary);
                        char first = 0;
                        while (vk_in.get(first) && std::isspace(static_cast<unsigned char>(first))) {
                        }
                        snarkjs = vk_in && first == '{';
                      }
                      try {
                        if (snarkjs) {
                          vk = circom::vk_from_json(circom::read_json_file(vkf), vkf);
                          inputs = {circom::public_from_json(circom::read_json_file(pubf), pubf)};
                        } else {
                          vk = groth16::read_vk(vkf, {true, {}});
                          inputs = read_public_json(pubf);
                        }
                      } catch (const std::exception& e) {
                        std::printf("error: %s\n", e.what());
                        return 2;
                      }
                      try {
                        if (snarkjs) {
                          nlohmann::json j;
                          try {
                            j = circom::read_json_file(prf);
                          } catch (const std::exception& e) {
                            std::printf("error: %s\n", e.what());
                            return 2;
                          }
                          proofs = {circom::proof_from_json(j, prf)};
                        } else {
                          proofs = groth16::decode_proofs(read_file(prf));
                        }
                      } catch (const groth16::ProofFormatError& e) {
                        std::printf("invalid: %s\n", e.what());
                        return 1;
                      } catch (const circom::JsonFormatError& e) {
                        std::printf("invalid: %s\n", e.what());
                        return 1;
                      }
                      if (proofs.size() != inputs.size()) {
                        std::printf("invalid: %zu proofs but %zu lists of public inputs\n", proofs.size(), inputs.size());
                        return 1;
                      }
                      const auto pvk = groth16::PreparedVerifyingKey::from(vk);
                      for (std::size_t i = 0; i < proofs.size(); ++i) {
                        try {
                          if (!groth16::verify(pvk, proofs[i], inputs[i])) {
                            std::printf("invalid: proof %zu does not verify\n", i);
                            return 1;
                          }
                        } catch (const groth16::VerificationError& e) {
                          std::printf("invalid: proof %zu: %s\n", i, e.what());
                          return 1;
                        }
                      }
                      std::printf("valid (%zu proof%s)\n", proofs.size(), proofs.size() == 1 ? "" : "s");
                      return 0;
                    }));
  }

  // export-vk
  {
    struct ExportVkOptions {
      std::string vk_path;
      std::string zkey;
      std::string format = "snarkjs";
      std::string out;
    };
    auto o = std::make_shared<ExportVkOptions>();
    auto* c = app.add_subcommand("export-vk", "Write a verifying key as snarkjs's vk.json");
    c->footer(
        "From a bellperson .vk (or .params) or from a snarkjs .zkey (as `snarkjs zkey export verificationkey`).\n"
        "Example: snarkpipe export-vk --vk m4.vk --format snarkjs --out vk.json");
    c->add_option("--vk", o->vk_path, "A bellperson verifying key (.vk) or parameters (.params)")->check(CLI::ExistingFile);
    c->add_option("--zkey", o->zkey, "A snarkjs Groth16 key (.zkey)")->check(CLI::ExistingFile);
    c->add_option("--format", o->format, "The output format")->check(CLI::IsMember({"snarkjs"}))->capture_default_str();
    c->add_option("--out", o->out, "Where to write vk.json")->required();
    cmds.push_back(make_command(c, o, [](ExportVkOptions& o, const CLI::App&) -> int {
                      if (o.vk_path.empty() == o.zkey.empty()) throw std::invalid_argument("give exactly one of --vk and --zkey");
                      groth16::VerifyingKey vk;
                      if (!o.zkey.empty()) {
                        vk = circom::read_zkey_vk(o.zkey);
                      } else {
                        groth16::ParamsReadOptions ro;
                        ro.check_subgroup = true;
                        vk = groth16::summarize_params_file(o.vk_path).kind == groth16::ParamsSummary::Kind::Parameters
                                 ? groth16::read_params_vk(o.vk_path, ro)
                                 : groth16::read_vk(o.vk_path, ro);
                      }
                      circom::write_json_file(o.out, circom::vk_to_json(vk));
                      std::printf("wrote %s (%zu public inputs)\n", o.out.c_str(), vk.ic.size() - 1);
                      return 0;
                    }));
  }

  // import-r1cs
  {
    struct ImportR1csOptions {
      std::string in;
      std::string out;
    };
    auto o = std::make_shared<ImportR1csOptions>();
    auto* c = app.add_subcommand("import-r1cs", "Convert a circom .r1cs into snarkpipe's recorded-circuit format");
    c->footer(
        "Wires map onto columns as they are (ONE, public outputs, public inputs: the inputs; the rest: aux), and one\n"
        "`input * 0 = 0` row per input is appended, as snarkjs's setup does. The result runs through\n"
        "`snarkpipe setup --r1cs` and `snarkpipe prove --r1cs ... --wtns ...`.\n"
        "Example: snarkpipe import-r1cs circuit.r1cs circuit.snkr1cs");
    c->add_option("in", o->in, "circom's .r1cs (compiled with --prime bls12381)")->required()->check(CLI::ExistingFile);
    c->add_option("out", o->out, "Where to write the recorded circuit")->required();
    cmds.push_back(make_command(c, o, [](ImportR1csOptions& o, const CLI::App&) -> int {
                      const circom::CircomR1cs cr = circom::read_circom_r1cs(o.in);
                      circuit::write_r1cs(o.out, cr.r1cs);
                      std::printf("%s: %u constraints, %u wires (%u public outputs, %u public inputs, %u private inputs)\n",
                                  o.in.c_str(), cr.num_constraints, cr.num_wires, cr.num_public_outputs, cr.num_public_inputs,
                                  cr.num_private_inputs);
                      print_r1cs_shape(cr.r1cs);
                      std::printf("wrote %s\n", o.out.c_str());
                      return 0;
                    }));
  }

  // export-circuit
  {
    struct ExportCircuitOptions {
      CircuitSpec spec;
      CacheOptions cache;
      std::string r1cs_out;
      std::string wtns_out;
      std::string public_out;
    };
    auto o = std::make_shared<ExportCircuitOptions>();
    auto* c = app.add_subcommand("export-circuit",
                                 "Write a built-in circuit as a recorded circuit (.snkr1cs) and a witness as circom .wtns");
    c->footer(
        "For other tools and for callers of the Filecoin ABI (libsnarkpipe_supraseal / _cuzk) that evaluate a\n"
        "circuit themselves: the .snkr1cs layout is documented in src/circuit/r1cs_file.hpp (rows include one\n"
        "`input * 0 = 0` constraint per input, as bellperson adds); the .wtns holds z = (ONE, inputs, aux), circom's\n"
        "layout. The witness comes from --seed; the key for the circuit from `snarkpipe setup` with the same options.\n"
        "Example: snarkpipe export-circuit --circuit merkle-sha256 --depth 1 --r1cs m1.snkr1cs --wtns m1.wtns --public m1.json");
    add_circuit_options(c, o->spec);
    add_cache_options(c, o->cache);
    c->add_option("--r1cs", o->r1cs_out, "Where to write the recorded circuit (.snkr1cs)");
    c->add_option("--wtns", o->wtns_out, "Where to write the witness (.wtns)");
    c->add_option("--public", o->public_out, "Where to write the public inputs (JSON array of decimal strings)");
    cmds.push_back(make_command(c, o, [](ExportCircuitOptions& o, const CLI::App&) -> int {
                      if (o.r1cs_out.empty() && o.wtns_out.empty() && o.public_out.empty())
                        throw std::invalid_argument("nothing to write: give --r1cs, --wtns and/or --public");
                      const CircuitInstance ci = make_circuit(o.spec);
                      if (!o.r1cs_out.empty()) {
                        RecordedCircuit rc = record_cached(o.spec, *ci.shape, o.cache);
                        circuit::write_r1cs(o.r1cs_out, rc.r1cs);
                        print_r1cs_shape(rc.r1cs);
                        std::printf("wrote %s\n", o.r1cs_out.c_str());
                      }
                      if (!o.wtns_out.empty() || !o.public_out.empty()) {
                        const groth16::Witness w = synthesize_witness(*ci.proving);
                        if (!o.wtns_out.empty()) {
                          std::vector<ff::Fr> z(w.inputs);
                          z.insert(z.end(), w.aux.begin(), w.aux.end());
                          circom::write_wtns(o.wtns_out, z);
                          std::printf("wrote %s (%zu values)\n", o.wtns_out.c_str(), z.size());
                        }
                        if (!o.public_out.empty()) {
                          write_public_json(o.public_out, std::span(w.inputs).subspan(1));
                          std::printf("wrote %s\n", o.public_out.c_str());
                        }
                      }
                      return 0;
                    }));
  }

  // test-ptau
  {
    struct TestPtauOptions {
      unsigned power = 12;
      std::string out;
      std::uint64_t seed = 1;
    };
    auto o = std::make_shared<TestPtauOptions>();
    auto* c = app.add_subcommand("test-ptau", "Write an INSECURE prepared powers-of-tau file for tests and benchmarks");
    c->footer(
        "τ, α and β come from --seed, so anyone who knows it can forge proofs: never use the keys it leads to.\n"
        "snarkjs's own ceremony takes minutes even for small powers; this takes seconds. For `snarkjs groth16 setup`,\n"
        "circuits with up to 2^power constraints (public inputs included).\n"
        "Example: snarkpipe test-ptau --power 16 --out test16.ptau");
    c->add_option("--power", o->power, "log2 of the largest domain (1..27)")->capture_default_str();
    c->add_option("--out", o->out, "Where to write the .ptau")->required();
    c->add_option("--seed", o->seed, "Seed of τ, α, β")->capture_default_str();
    cmds.push_back(make_command(c, o, [](TestPtauOptions& o, const CLI::App&) -> int {
                      PhaseProgress progress("test-ptau 2^" + std::to_string(o.power), 11);
                      circom::write_insecure_ptau(o.out, o.power, circom::PtauSecrets::from_seed(o.seed),
                                                  [&](std::string_view p) { progress.phase(std::string(p)); });
                      progress.finish();
                      std::printf("wrote %s (power %u, INSECURE: for tests only) in %.1f s\n", o.out.c_str(), o.power,
                                  progress.total_ms() / 1e3);
                      return 0;
                    }));
  }

  // inspect
  {
    struct InspectOptions {
      std::string path;
      bool validate = false;
    };
    auto o = std::make_shared<InspectOptions>();
    auto* c = app.add_subcommand("inspect", "Describe a .params, .vk, .snkr1cs, or circom/snarkjs .r1cs, .wtns, .zkey file");
    c->footer("Reads only the counts unless --validate is given (then every point is decoded and checked).");
    c->add_option("file", o->path, "The file to describe")->required()->check(CLI::ExistingFile);
    c->add_flag("--validate", o->validate, "Decode and check every point (range, curve, subgroup)");
    cmds.push_back(make_command(c, o, [](InspectOptions& o, const CLI::App&) -> int {
                      std::uint8_t magic[8] = {};
                      std::ifstream(o.path, std::ios::binary).read(reinterpret_cast<char*>(magic), 8);
                      const std::string m4(reinterpret_cast<const char*>(magic), 4);
                      if (m4 == "r1cs") {
                        const circom::CircomR1cs cr = circom::read_circom_r1cs(o.path);
                        std::printf("%s: circom r1cs (BLS12-381)\n", o.path.c_str());
                        std::printf("  constraints %u, wires %u: public outputs %u, public inputs %u, private inputs %u; labels %llu\n",
                                    cr.num_constraints, cr.num_wires, cr.num_public_outputs, cr.num_public_inputs,
                                    cr.num_private_inputs, static_cast<unsigned long long>(cr.num_labels));
                        print_r1cs_shape(cr.r1cs);
                        return 0;
                      }
                      if (m4 == "wtns") {
                        const auto w = circom::read_wtns(o.path);
                        std::printf("%s: witness (.wtns), %zu values, value 0 = 1\n", o.path.c_str(), w.size());
                        return 0;
                      }
                      if (m4 == "zkey") {
                        circom::ZkeyReadOptions zo;
                        zo.check_subgroup = o.validate;
                        const circom::Zkey z = circom::read_zkey(o.path, zo);
                        std::printf("%s: snarkjs Groth16 key (.zkey, BLS12-381)\n", o.path.c_str());
                        std::printf("  signals %u (public %u, ONE excluded), domain %u, coefficients %zu\n", z.num_vars,
                                    z.num_public, z.domain_size, z.coefficients.size());
                        std::printf("  every point is on its curve%s\n", o.validate ? " and in the subgroup" : "");
                        return 0;
                      }
                      if (std::memcmp(magic, circuit::R1CS_FILE_MAGIC, 8) == 0) {
                        const circuit::R1cs r = circuit::read_r1cs(o.path);
                        std::printf("%s: recorded circuit (.r1cs)\n", o.path.c_str());
                        std::printf("  constraints %llu (inputs' constraints included), inputs %llu (ONE included), aux %llu\n",
                                    static_cast<unsigned long long>(r.num_constraints), static_cast<unsigned long long>(r.num_inputs),
                                    static_cast<unsigned long long>(r.num_aux));
                        std::printf("  non-zeros A %zu, B %zu, C %zu; density A-aux %zu, B-input %zu, B-aux %zu\n", r.a.nnz(),
                                    r.b.nnz(), r.c.nnz(), r.a_aux_density.count(), r.b_input_density.count(),
                                    r.b_aux_density.count());
                        return 0;
                      }
                      const auto s = groth16::summarize_params_file(o.path);
                      const bool params = s.kind == groth16::ParamsSummary::Kind::Parameters;
                      std::printf("%s: bellperson %s, %llu bytes\n", o.path.c_str(), params ? "parameters (.params)" : "verifying key (.vk)",
                                  static_cast<unsigned long long>(s.file_bytes));
                      std::printf("  public inputs %llu (ic has %llu points, ONE included)\n",
                                  static_cast<unsigned long long>(s.ic ? s.ic - 1 : 0), static_cast<unsigned long long>(s.ic));
                      if (params) {
                        std::printf("  domain 2^%d (h: %llu points)\n", int(std::bit_width(s.h + 1)) - 1,
                                    static_cast<unsigned long long>(s.h));
                        std::printf("  aux variables %llu (l), a %llu, b_g1 %llu, b_g2 %llu\n", static_cast<unsigned long long>(s.l),
                                    static_cast<unsigned long long>(s.a), static_cast<unsigned long long>(s.b_g1),
                                    static_cast<unsigned long long>(s.b_g2));
                      }
                      if (o.validate) {
                        groth16::ParamsReadOptions ro;
                        ro.check_subgroup = true;
                        if (params)
                          groth16::read_params(o.path, ro);
                        else
                          groth16::read_vk(o.path, ro);
                        std::printf("  every point is valid (on the curve, in the subgroup)\n");
                      }
                      return 0;
                    }));
  }

  // demo: what `make run` runs.
  {
    struct DemoOptions {
      CircuitSpec spec;
      std::string keys_dir = "build/keys";
      BackendOptions demo_backend;
    };
    auto o = std::make_shared<DemoOptions>();
    auto* c = app.add_subcommand("demo", "Set up (or reuse keys), prove and verify a default circuit, with timings");
    c->footer("The keys are cached in --keys-dir and reused on the next run.");
    add_circuit_options(c, o->spec);
    c->add_option("--keys-dir", o->keys_dir, "Where keys are cached")->capture_default_str();
    add_backend_options(c, o->demo_backend);
    cmds.push_back(make_command(c, o, [](DemoOptions& o, const CLI::App&) -> int {
                      PhaseProgress progress("demo: " + o.spec.describe(), 14);
                      const CircuitInstance ci = make_circuit(o.spec);
                      progress.phase("record circuit");
                      const circuit::R1cs r1cs = record(*ci.shape);
                      std::filesystem::create_directories(o.keys_dir);
                      std::string stem = o.spec.describe();
                      for (char& ch : stem)
                        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                      const std::string params = o.keys_dir + "/" + stem + ".params", vkf = o.keys_dir + "/" + stem + ".vk";
                      ProvingKey pk;
                      bool loaded = false;
                      if (std::filesystem::exists(params)) {
                        try {
                          progress.phase("load cached key");
                          pk = groth16::read_params(params);
                          loaded = pk.vk.ic.size() == r1cs.num_inputs && pk.l.size() == r1cs.num_aux;
                        } catch (const std::exception&) {
                          loaded = false;
                        }
                      }
                      if (!loaded) {
                        pk = run_setup(r1cs, progress);
                        progress.phase("write keys");
                        groth16::write_params(params, pk);
                        groth16::write_vk(vkf, pk.vk);
                      }
                      progress.phase("witness");
                      const groth16::Witness w = synthesize_witness(*ci.proving);
                      groth16::ProverTimings t;
                      const auto backend = make_prover_backend(o.demo_backend);
                      const Proof proof = prove_with(*backend, pk, r1cs, w, &t, prover_progress(progress));
                      progress.phase("verify (from the .vk file)");
                      const auto pvk = groth16::PreparedVerifyingKey::from(groth16::read_vk(vkf));
                      const std::vector<ff::Fr> xs(w.inputs.begin() + 1, w.inputs.end());
                      const bool ok = groth16::verify(pvk, Proof::from_bytes(proof.to_bytes()), xs);
                      progress.finish();
                      print_r1cs_shape(r1cs);
                      std::printf("proof:  %s\n", hex(proof.to_bytes()).c_str());
                      std::printf("public:");
                      for (const auto& x : xs) std::printf(" %s", x.to_decimal().c_str());
                      std::printf("\nverified: %s\n", ok ? "yes" : "NO");
                      std::printf("backend: %s\n", backend->name().c_str());
                      std::printf("prover: %.0f ms (a,b,c + H NTTs %.0f, H MSM %.0f, L MSM %.0f, A MSM %.0f, B G1 MSM %.0f, B G2 MSM %.0f)\n",
                                  t.total_ms, t.ntt_ms, t.h_msm_ms, t.l_msm_ms, t.a_msm_ms, t.b_g1_msm_ms, t.b_g2_msm_ms);
                      return ok ? 0 : 1;
                    }));
  }
  return cmds;
}

}  // namespace snarkpipe::cli
