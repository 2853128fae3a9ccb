// setup, prove, verify, inspect and demo: Groth16 from the command line, with bellperson's
// file formats (.params, .vk, 192-byte proofs) and snarkjs's public.json.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "circuit/r1cs_file.hpp"
#include "cli/circuits.hpp"
#include "cli/command.hpp"
#include "cli/progress.hpp"
#include "groth16/params_file.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"

namespace snarkpipe::cli {

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
std::vector<std::vector<ff::Fr>> read_public_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    throw std::runtime_error(path + ": not JSON: " + e.what());
  }
  auto parse_list = [&](const nlohmann::json& a) {
    if (!a.is_array()) throw std::runtime_error(path + ": expected an array of decimal strings");
    std::vector<ff::Fr> xs;
    for (const auto& v : a) {
      const std::string s = v.is_string() ? v.get<std::string>() : v.is_number_unsigned() ? std::to_string(v.get<std::uint64_t>()) : "";
      const auto x = ff::Fr::from_decimal(s);
      if (!x) throw std::runtime_error(path + ": '" + v.dump() + "' is not a decimal integer below the scalar field order");
      xs.push_back(*x);
    }
    return xs;
  };
  if (!j.is_array()) throw std::runtime_error(path + ": expected a JSON array");
  if (!j.empty() && j[0].is_array()) {
    std::vector<std::vector<ff::Fr>> out;
    for (const auto& a : j) out.push_back(parse_list(a));
    return out;
  }
  return {parse_list(j)};
}

std::string hex(std::span<const std::uint8_t> b) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (auto x : b) {
    s.push_back(d[x >> 4]);
    s.push_back(d[x & 15]);
  }
  return s;
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

}  // namespace

std::vector<Command> register_groth16_commands(CLI::App& app) {
  std::vector<Command> cmds;

  // setup
  {
    auto spec = std::make_shared<CircuitSpec>();
    auto params = std::make_shared<std::string>();
    auto vk = std::make_shared<std::string>();
    auto* c = app.add_subcommand("setup", "Generate Groth16 keys for a built-in circuit (fresh toxic waste from the OS CSPRNG)");
    c->footer(
        "Writes bellperson-format files: OUT.params (the proving key) and OUT.vk (the verifying key).\n"
        "Example: snarkpipe setup --circuit merkle-sha256 --depth 4 --params m4.params --vk m4.vk");
    add_circuit_options(c, *spec);
    c->add_option("--params", *params, "Where to write the proving key (.params)")->required();
    c->add_option("--vk", *vk, "Where to write the verifying key (.vk)")->required();
    cmds.push_back({c, [=] {
                      PhaseProgress progress("setup " + spec->describe(), 10);
                      const CircuitInstance ci = make_circuit(*spec);
                      progress.phase("record circuit");
                      const circuit::R1cs r1cs = record(*ci.shape);
                      const ProvingKey pk = run_setup(r1cs, progress);
                      progress.phase("write files");
                      groth16::write_params(*params, pk);
                      groth16::write_vk(*vk, pk.vk);
                      progress.finish();
                      print_r1cs_shape(r1cs);
                      std::printf("wrote %s and %s (%.1f s)\n", params->c_str(), vk->c_str(), progress.total_ms() / 1e3);
                      return 0;
                    }});
  }

  // prove
  {
    auto spec = std::make_shared<CircuitSpec>();
    auto params = std::make_shared<std::string>();
    auto proof_out = std::make_shared<std::string>();
    auto public_out = std::make_shared<std::string>();
    auto check_subgroup = std::make_shared<bool>(false);
    auto* c = app.add_subcommand("prove", "Prove a built-in circuit's statement with a proving key");
    c->footer(
        "Writes the 192-byte proof (A ‖ B ‖ C, compressed) and the public inputs after ONE as a JSON array of\n"
        "decimal strings (snarkjs's public.json). The proof is verified before it is written.\n"
        "Example: snarkpipe prove --circuit merkle-sha256 --depth 4 --params m4.params --proof m4.proof --public m4.json");
    add_circuit_options(c, *spec);
    c->add_option("--params", *params, "The proving key (.params, bellperson format)")->required()->check(CLI::ExistingFile);
    c->add_option("--proof", *proof_out, "Where to write the proof")->required();
    c->add_option("--public", *public_out, "Where to write the public inputs (JSON)")->required();
    c->add_flag("--check-subgroup", *check_subgroup, "Check every key point's subgroup membership while loading (slow)");
    cmds.push_back({c, [=] {
                      PhaseProgress progress("prove " + spec->describe(), 9);
                      const CircuitInstance ci = make_circuit(*spec);
                      progress.phase("record circuit");
                      const circuit::R1cs r1cs = record(*ci.shape);
                      progress.phase("witness");
                      const groth16::Witness w = synthesize_witness(*ci.proving);
                      progress.phase("load key");
                      groth16::ParamsReadOptions opts;
                      opts.check_subgroup = *check_subgroup;
                      const ProvingKey pk = groth16::read_params(*params, opts);
                      groth16::ProverTimings t;
                      const Proof proof =
                          groth16::prove_checked(pk, r1cs, w, groth16::ProverRandomness::random(), &t, prover_progress(progress));
                      progress.finish();
                      const std::vector<ff::Fr> xs(w.inputs.begin() + 1, w.inputs.end());
                      if (!ci.expected_public.empty() && xs != ci.expected_public)
                        throw std::runtime_error("internal error: the circuit's public inputs differ from the native computation");
                      const auto bytes = proof.to_bytes();
                      write_file(*proof_out, bytes);
                      write_public_json(*public_out, xs);
                      print_r1cs_shape(r1cs);
                      std::printf("proof %s\nwrote %s and %s\n", hex(bytes).c_str(), proof_out->c_str(), public_out->c_str());
                      return 0;
                    }});
  }

  // verify
  {
    auto vk_path = std::make_shared<std::string>();
    auto proof_path = std::make_shared<std::string>();
    auto public_path = std::make_shared<std::string>();
    auto* c = app.add_subcommand("verify", "Verify a proof (or concatenated partition proofs); exit status 0 only when valid");
    c->footer(
        "Exit status: 0 valid, 1 invalid (the reason is printed), 2 unreadable input.\n"
        "Example: snarkpipe verify --vk m4.vk --proof m4.proof --public m4.json");
    c->add_option("--vk", *vk_path, "The verifying key (.vk, bellperson format)")->required()->check(CLI::ExistingFile);
    c->add_option("--proof", *proof_path, "The proof file (192 bytes per partition)")->required()->check(CLI::ExistingFile);
    c->add_option("--public", *public_path, "The public inputs: a JSON array of decimal strings (one array per partition)")
        ->required()
        ->check(CLI::ExistingFile);
    cmds.push_back({c, [=] {
                      groth16::VerifyingKey vk;
                      std::vector<Proof> proofs;
                      std::vector<std::vector<ff::Fr>> inputs;
                      try {
                        vk = groth16::read_vk(*vk_path, {true, {}});
                        inputs = read_public_json(*public_path);
                      } catch (const std::exception& e) {
                        std::printf("error: %s\n", e.what());
                        return 2;
                      }
                      try {
                        proofs = groth16::decode_proofs(read_file(*proof_path));
                      } catch (const groth16::ProofFormatError& e) {
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
                    }});
  }

  // inspect
  {
    auto path = std::make_shared<std::string>();
    auto validate = std::make_shared<bool>(false);
    auto* c = app.add_subcommand("inspect", "Describe a .params, .vk or .r1cs file");
    c->footer("Reads only the counts unless --validate is given (then every point is decoded and checked).");
    c->add_option("file", *path, "The file to describe")->required()->check(CLI::ExistingFile);
    c->add_flag("--validate", *validate, "Decode and check every point (range, curve, subgroup)");
    cmds.push_back({c, [=] {
                      std::uint8_t magic[8] = {};
                      std::ifstream(*path, std::ios::binary).read(reinterpret_cast<char*>(magic), 8);
                      if (std::memcmp(magic, circuit::R1CS_FILE_MAGIC, 8) == 0) {
                        const circuit::R1cs r = circuit::read_r1cs(*path);
                        std::printf("%s: recorded circuit (.r1cs)\n", path->c_str());
                        std::printf("  constraints %llu (inputs' constraints included), inputs %llu (ONE included), aux %llu\n",
                                    static_cast<unsigned long long>(r.num_constraints), static_cast<unsigned long long>(r.num_inputs),
                                    static_cast<unsigned long long>(r.num_aux));
                        std::printf("  non-zeros A %zu, B %zu, C %zu; density A-aux %zu, B-input %zu, B-aux %zu\n", r.a.nnz(),
                                    r.b.nnz(), r.c.nnz(), r.a_aux_density.count(), r.b_input_density.count(),
                                    r.b_aux_density.count());
                        return 0;
                      }
                      const auto s = groth16::summarize_params_file(*path);
                      const bool params = s.kind == groth16::ParamsSummary::Kind::Parameters;
                      std::printf("%s: bellperson %s, %llu bytes\n", path->c_str(), params ? "parameters (.params)" : "verifying key (.vk)",
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
                      if (*validate) {
                        groth16::ParamsReadOptions o;
                        o.check_subgroup = true;
                        if (params)
                          groth16::read_params(*path, o);
                        else
                          groth16::read_vk(*path, o);
                        std::printf("  every point is valid (on the curve, in the subgroup)\n");
                      }
                      return 0;
                    }});
  }

  // demo: what `make run` runs.
  {
    auto spec = std::make_shared<CircuitSpec>();
    auto keys_dir = std::make_shared<std::string>("build/keys");
    auto* c = app.add_subcommand("demo", "Set up (or reuse keys), prove and verify a default circuit, with timings");
    c->footer("The keys are cached in --keys-dir and reused on the next run.");
    add_circuit_options(c, *spec);
    c->add_option("--keys-dir", *keys_dir, "Where keys are cached")->capture_default_str();
    cmds.push_back({c, [=] {
                      PhaseProgress progress("demo: " + spec->describe(), 14);
                      const CircuitInstance ci = make_circuit(*spec);
                      progress.phase("record circuit");
                      const circuit::R1cs r1cs = record(*ci.shape);
                      std::filesystem::create_directories(*keys_dir);
                      std::string stem = spec->describe();
                      for (char& ch : stem)
                        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                      const std::string params = *keys_dir + "/" + stem + ".params", vkf = *keys_dir + "/" + stem + ".vk";
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
                      const Proof proof =
                          groth16::prove_checked(pk, r1cs, w, groth16::ProverRandomness::random(), &t, prover_progress(progress));
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
                      std::printf("prover: %.0f ms (a,b,c + H NTTs %.0f, H MSM %.0f, L MSM %.0f, A MSM %.0f, B G1 MSM %.0f, B G2 MSM %.0f)\n",
                                  t.total_ms, t.ntt_ms, t.h_msm_ms, t.l_msm_ms, t.a_msm_ms, t.b_g1_msm_ms, t.b_g2_msm_ms);
                      return ok ? 0 : 1;
                    }});
  }
  return cmds;
}

}  // namespace snarkpipe::cli
