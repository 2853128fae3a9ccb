// import-r1cs, export-circuit and inspect: the circuit files (circom .r1cs, snarkpipe .snkr1cs) and
// a description of any file snarkpipe reads.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>

#include "circom/r1cs.hpp"
#include "circom/snarkjs_json.hpp"
#include "circom/wtns.hpp"
#include "circom/zkey.hpp"
#include "circuit/r1cs_file.hpp"
#include "cli/circuits.hpp"
#include "cli/command.hpp"
#include "groth16/params_file.hpp"
#include "groth16/prover.hpp"
#include "cli/groth16_io.hpp"

namespace snarkpipe::cli {

void add_import_r1cs_command(CLI::App& app, std::vector<Command>& cmds) {
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
}

void add_export_circuit_command(CLI::App& app, std::vector<Command>& cmds) {
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
    auto* c = app.add_subcommand(
        "export-circuit", "Write a built-in circuit as a recorded circuit (.snkr1cs) and a witness as circom .wtns");
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
}

void add_inspect_command(CLI::App& app, std::vector<Command>& cmds) {
  // inspect
  {
    struct InspectOptions {
      std::string path;
      bool validate = false;
    };
    auto o = std::make_shared<InspectOptions>();
    auto* c =
        app.add_subcommand("inspect", "Describe a .params, .vk, .snkr1cs, or circom/snarkjs .r1cs, .wtns, .zkey file");
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
        std::printf("  signals %u (public %u, ONE excluded), domain %u, coefficients %zu\n", z.num_vars, z.num_public,
                    z.domain_size, z.coefficients.size());
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
                    r.b.nnz(), r.c.nnz(), r.a_aux_density.count(), r.b_input_density.count(), r.b_aux_density.count());
        return 0;
      }
      const auto s = groth16::summarize_params_file(o.path);
      const bool params = s.kind == groth16::ParamsSummary::Kind::Parameters;
      std::printf("%s: bellperson %s, %llu bytes\n", o.path.c_str(),
                  params ? "parameters (.params)" : "verifying key (.vk)",
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
        if (params) groth16::read_params(o.path, ro);
        else groth16::read_vk(o.path, ro);
        std::printf("  every point is valid (on the curve, in the subgroup)\n");
      }
      return 0;
    }));
  }
}

}  // namespace snarkpipe::cli
