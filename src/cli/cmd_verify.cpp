// verify: bellperson proofs (or concatenated partition proofs) and snarkjs proof.json, the format
// detected from the content.
#include <cstdio>
#include <cctype>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "circom/snarkjs_json.hpp"
#include "cli/command.hpp"
#include "groth16/params_file.hpp"
#include "groth16/prover.hpp"
#include "groth16/verifier.hpp"
#include "cli/groth16_io.hpp"

namespace snarkpipe::cli {

using groth16::Proof;

void add_verify_command(CLI::App& app, std::vector<Command>& cmds) {
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
    auto* c = app.add_subcommand("verify",
                                 "Verify a proof (or concatenated partition proofs); exit status 0 only when valid");
    c->footer(
        "Exit status: 0 valid, 1 invalid (the reason is printed), 2 unreadable input.\n"
        "--format snarkjs reads snarkjs's vk.json, public.json and proof.json, in snarkjs's order as arguments.\n"
        "Without --format the key's content decides: a JSON vk.json is snarkjs, a binary .vk bellperson.\n"
        "Example: snarkpipe verify --vk m4.vk --proof m4.proof --public m4.json\n"
        "         snarkpipe verify --format snarkjs vk.json public.json proof.json");
    c->add_option("--vk", o->vk_path, "The verifying key (.vk, bellperson format; vk.json with --format snarkjs)")
        ->check(CLI::ExistingFile);
    c->add_option("--proof", o->proof_path,
                  "The proof file (192 bytes per partition; proof.json with --format snarkjs)")
        ->check(CLI::ExistingFile);
    c->add_option("--public", o->public_path,
                  "The public inputs: a JSON array of decimal strings (one array per partition)")
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
        while (vk_in.get(first) && std::isspace(static_cast<unsigned char>(first))) {}
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
}

}  // namespace snarkpipe::cli
