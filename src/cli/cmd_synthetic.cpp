// snarkpipe synthetic: writes a PoRep-shape synthetic circuit (circuit/synthetic_shape.hpp)
// straight to a recorded-circuit file, optionally with a witness (.wtns) so that `setup
// --r1cs` and `prove --r1cs --wtns` can use it, and prints its measured shape.
// With --format circom: a circom-shaped circuit (circom/synthetic_circuit.hpp) as the files a
// circom user has after compiling and a snarkjs setup: circuit.r1cs, witness.wtns, a
// single-party circuit.zkey (circom/zkey_setup.hpp) and verification_key.json.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>
#include <tbb/global_control.h>

#include "circom/r1cs_build.hpp"
#include "circom/snarkjs_json.hpp"
#include "circom/synthetic_circuit.hpp"
#include "circom/wtns.hpp"
#include "circom/zkey_setup.hpp"
#include "circom/zkey_write.hpp"
#include "circuit/r1cs_file.hpp"
#include "circuit/spmv.hpp"
#include "circuit/synthetic_shape.hpp"
#include "cli/backend_choice.hpp"
#include "cli/bench_record.hpp"
#include "cli/circuits.hpp"
#include "cli/command.hpp"
#include "cli/progress.hpp"
#include "groth16/packed_witness.hpp"

namespace snarkpipe::cli {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct SyntheticOptions {
  std::string scale, constraints;
  std::optional<std::uint64_t> inputs, aux;
  std::optional<double> a_per_row, b_per_row, c_per_row, a_aux_density, b_aux_density, boolean_fraction;
  std::uint64_t seed = 1;
  std::optional<std::uint64_t> witness_seed;
  std::string out, wtns;
  bool stats = false, check = false, json = false;
  unsigned threads = 0;
  std::string format = "snkr1cs";
  std::uint32_t circom_public = 4;
  std::string key_backend = "auto";
};

// The PoRep-shape options, which --format circom does not take.
constexpr const char* POREP_ONLY_OPTIONS[] = {
    "--scale",     "--inputs",        "--aux",           "--a-per-row",        "--b-per-row",
    "--c-per-row", "--a-aux-density", "--b-aux-density", "--boolean-fraction", "--witness-seed",
    "--wtns",      "--stats",         "--check"};

int run_circom_synthetic(const SyntheticOptions& o, const CLI::App& app) {
  for (const char* name : POREP_ONLY_OPTIONS)
    if (app.count(name) != 0)
      throw std::invalid_argument(std::string(name) +
                                  " is for the PoRep shape; --format circom takes --constraints, "
                                  "--public, --seed, --key-backend, --threads and --out DIR");
  if (o.circom_public == 0) throw std::invalid_argument("--public must be at least 1 (the circuit's output)");
  std::optional<tbb::global_control> threads;
  if (o.threads > 0) threads.emplace(tbb::global_control::max_allowed_parallelism, o.threads);
  circom::CircomSyntheticShape shape;
  shape.rows = parse_size(o.constraints.empty() ? "2^16" : o.constraints);
  shape.public_outputs = 1;
  shape.public_inputs = o.circom_public - 1;
  shape.seed = o.seed;
  shape.validate();
  BackendOptions key_backend;
  key_backend.backend = o.key_backend;
  const bool key_on_gpu = resolve_backend_kind(key_backend) == "cuda";

  const std::filesystem::path dir(o.out);
  std::filesystem::create_directories(dir);
  const std::string r1cs_path = (dir / "circuit.r1cs").string(), wtns_path = (dir / "witness.wtns").string(),
                    zkey_path = (dir / "circuit.zkey").string(), vk_path = (dir / "verification_key.json").string();
  char title[256];
  std::snprintf(title, sizeof title,
                "synthetic circom circuit: %llu rows (%llu constraints, %u public), seed %llu, key on the %s",
                static_cast<unsigned long long>(shape.rows),
                static_cast<unsigned long long>(shape.circom_constraints()), o.circom_public,
                static_cast<unsigned long long>(shape.seed), key_on_gpu ? "GPU" : "CPU");
  PhaseProgress progress(title, 14, o.json);
  progress.phase("circuit and witness");
  circom::CircomSyntheticCircuit sc = circom::make_circom_synthetic(shape);
  progress.phase("check the witness");
  {
    const groth16::Witness w = circom::split_witness(sc.witness, sc.circuit.num_public());
    if (const auto sat = circuit::is_satisfied(sc.circuit.r1cs, w.inputs, w.aux); !sat)
      throw std::logic_error("internal error: the synthetic witness fails constraint " +
                             std::to_string(*sat.first_failing_row));
  }
  progress.phase("write circuit.r1cs");
  circom::write_circom_r1cs(r1cs_path, sc.circuit);
  progress.phase("write witness.wtns");
  circom::write_wtns(wtns_path, sc.witness);
  const std::uint64_t wires = sc.witness.size();
  std::vector<ff::Fr>().swap(sc.witness);

  const SetupMultiplierChoice multipliers(key_on_gpu);
  const circom::Zkey zkey =
      circom::zkey_from_toxic_waste(sc.circuit, groth16::ToxicWaste::random(), multipliers.get(),
                                    [&](std::string_view phase) { progress.phase("key: " + std::string(phase)); });
  sc = {};
  progress.phase("write circuit.zkey");
  circom::write_zkey(zkey_path, zkey);
  progress.phase("write verification_key.json");
  circom::write_json_file(vk_path, circom::vk_to_json(zkey.vk));
  progress.finish();

  nlohmann::json record = bench_record();
  record["shape"] = {{"format", "circom"},
                     {"rows", shape.rows},
                     {"circom_constraints", shape.circom_constraints()},
                     {"wires", wires},
                     {"public", o.circom_public},
                     {"domain_size", zkey.domain_size},
                     {"seed", shape.seed},
                     {"key_backend", key_on_gpu ? "cuda" : "cpu"}};
  nlohmann::json files;
  for (const std::string* f : {&r1cs_path, &wtns_path, &zkey_path, &vk_path})
    files[std::filesystem::path(*f).filename().string()] = std::filesystem::file_size(*f);
  record["file_bytes"] = files;
  nlohmann::json times;
  for (const auto& e : progress.entries()) times[e.name] = e.ms / 1000;
  record["times_s"] = times;
  if (o.json) {
    std::cout << record.dump(2) << "\n";
    return 0;
  }
  std::printf("wrote %s: %llu rows (domain %u), %llu wires, %u public signals\n", dir.string().c_str(),
              static_cast<unsigned long long>(shape.rows), zkey.domain_size, static_cast<unsigned long long>(wires),
              o.circom_public);
  for (const auto& [name, bytes] : files.items())
    std::printf("  %-24s %10.1f MB\n", name.c_str(), double(bytes.get<std::uint64_t>()) / 1e6);
  std::printf("  total %.1f s\n", progress.total_ms() / 1000);
  std::printf("next: snarkpipe bench prove --zkey %s --wtns %s --backend cpu\n", zkey_path.c_str(), wtns_path.c_str());
  return 0;
}

// The default PoRep shape, resized by --scale or --constraints, then the explicit overrides.
circuit::SyntheticShape shape_from(const SyntheticOptions& o) {
  if (!o.scale.empty() && !o.constraints.empty()) {
    throw std::invalid_argument("give --scale or --constraints, not both");
  }
  circuit::SyntheticShape base;
  if (o.inputs) base.num_inputs = *o.inputs;
  double s = 1;
  if (!o.scale.empty()) s = circuit::parse_scale(o.scale);
  std::optional<std::uint64_t> rows;
  if (!o.constraints.empty()) {
    rows = parse_size(o.constraints);
    if (*rows <= base.num_inputs) {
      throw std::invalid_argument("--constraints " + o.constraints + " leaves no room beside the " +
                                  std::to_string(base.num_inputs) + " input rows");
    }
    s = double(*rows - base.num_inputs) / double(base.circuit_constraints());
  }
  circuit::SyntheticShape shape = base.scaled(s);
  if (rows) shape.num_constraints = *rows;  // exactly as asked; aux follows the PoRep ratio
  if (o.aux) shape.num_aux = *o.aux;
  if (o.a_per_row) shape.a_per_row = *o.a_per_row;
  if (o.b_per_row) shape.b_per_row = *o.b_per_row;
  if (o.c_per_row) shape.c_per_row = *o.c_per_row;
  if (o.a_aux_density) shape.a_aux_density = *o.a_aux_density;
  if (o.b_aux_density) shape.b_aux_density = *o.b_aux_density;
  if (o.boolean_fraction) shape.boolean_fraction = *o.boolean_fraction;
  shape.seed = o.seed;
  shape.validate();
  return shape;
}

int run_synthetic(const SyntheticOptions& o, const CLI::App& app) {
  if (o.format == "circom") return run_circom_synthetic(o, app);
  std::optional<tbb::global_control> threads;
  if (o.threads > 0) threads.emplace(tbb::global_control::max_allowed_parallelism, o.threads);
  const circuit::SyntheticShape shape = shape_from(o);
  const std::uint64_t witness_seed = o.witness_seed.value_or(o.seed);
  if (!o.json) std::fprintf(stderr, "synthetic circuit: %s\n", shape.describe().c_str());

  nlohmann::json times;
  auto t0 = Clock::now();
  const circuit::SyntheticStats st = circuit::write_synthetic_r1cs(o.out, shape, o.stats);
  times["generate_and_write_s"] = seconds_since(t0);

  const bool need_witness = o.stats || o.check || !o.wtns.empty();
  circuit::SyntheticWitness w;
  if (need_witness) {
    t0 = Clock::now();
    w = circuit::generate_synthetic_witness(shape, witness_seed);
    times["witness_s"] = seconds_since(t0);
  }
  if (!o.wtns.empty()) {
    t0 = Clock::now();
    std::vector<ff::Fr> values(w.inputs);
    values.insert(values.end(), w.aux.begin(), w.aux.end());
    circom::write_wtns(o.wtns, values);
    times["write_wtns_s"] = seconds_since(t0);
  }
  std::optional<bool> satisfied;
  if (o.check) {
    t0 = Clock::now();
    const circuit::R1cs r = circuit::read_r1cs(o.out);  // checksum and every invariant
    const circuit::Satisfaction sat = circuit::is_satisfied(r, w.inputs, w.aux);
    satisfied = sat.ok();
    times["check_s"] = seconds_since(t0);
    if (!sat.ok()) {
      std::fprintf(stderr, "error: the witness fails constraint %llu (a generator bug)\n",
                   static_cast<unsigned long long>(*sat.first_failing_row));
    }
  }

  const double rows = double(st.num_constraints), aux = double(st.num_aux);
  nlohmann::json record = bench_record();
  record["shape"] = {{"num_constraints", st.num_constraints},
                     {"num_inputs", st.num_inputs},
                     {"num_aux", st.num_aux},
                     {"seed", shape.seed},
                     {"witness_seed", witness_seed},
                     {"file", o.out},
                     {"file_bytes", std::filesystem::file_size(o.out)}};
  nlohmann::json measured = {
      {"a_nnz", st.a_nnz},
      {"b_nnz", st.b_nnz},
      {"c_nnz", st.c_nnz},
      {"a_per_row", double(st.a_nnz) / rows},
      {"b_per_row", double(st.b_nnz) / rows},
      {"c_per_row", double(st.c_nnz) / rows},
      {"a_aux_density", double(st.a_aux_columns) / aux},
      {"b_aux_density", double(st.b_aux_columns) / aux},
      {"b_input_columns", st.b_input_columns},
  };
  if (o.stats) {
    const double coeffs = double(st.coeff_unit + st.coeff_pow2 + st.coeff_other);
    measured["coeff_unit_fraction"] = double(st.coeff_unit) / coeffs;
    measured["coeff_pow2_fraction"] = double(st.coeff_pow2) / coeffs;
    measured["coeff_other_fraction"] = double(st.coeff_other) / coeffs;
    const circuit::WitnessStats ws = circuit::measure_witness(w.aux);
    measured["aux_zero_or_one_fraction"] = double(ws.zeros + ws.ones) / aux;
    measured["aux_zero_fraction"] = double(ws.zeros) / aux;
    // What a partition's witness holds on the host while it waits for a GPU: full, or packed.
    groth16::PackedWitness packed;
    groth16::pack_witness(w.inputs, w.aux, packed);
    measured["witness_bytes"] = (w.inputs.size() + w.aux.size()) * sizeof(ff::Fr);
    measured["packed_witness_bytes"] = packed.capacity_bytes();
  }
  record["measured"] = measured;
  record["target"] = {{"a_per_row", shape.a_per_row},         {"b_per_row", shape.b_per_row},
                      {"c_per_row", shape.c_per_row},         {"a_aux_density", shape.a_aux_density},
                      {"b_aux_density", shape.b_aux_density}, {"aux_zero_or_one_fraction", shape.boolean_fraction}};
  record["times"] = times;
  if (satisfied) record["satisfied"] = *satisfied;

  if (o.json) {
    std::cout << record.dump(2) << "\n";
  } else {
    std::printf("wrote %s: %s, %.2f GB\n", o.out.c_str(), shape.describe().c_str(),
                double(record["shape"]["file_bytes"].get<std::uint64_t>()) / 1e9);
    std::printf("  %-26s %14s %14s\n", "", "measured", "target");
    for (const auto& [k, v] : measured.items()) {
      if (record["target"].contains(k)) {
        std::printf("  %-26s %14.6f %14.6f\n", k.c_str(), v.get<double>(), record["target"][k].get<double>());
      } else if (v.is_number_float()) {
        std::printf("  %-26s %14.6f\n", k.c_str(), v.get<double>());
      } else {
        std::printf("  %-26s %14s\n", k.c_str(), v.dump().c_str());
      }
    }
    for (const auto& [k, v] : times.items()) std::printf("  %-26s %14.3f\n", k.c_str(), v.get<double>());
    if (satisfied) std::printf("  %-26s %14s\n", "file valid, satisfied", *satisfied ? "yes" : "NO");
    if (!o.wtns.empty())
      std::printf("wrote %s (witness seed %llu)\n", o.wtns.c_str(), static_cast<unsigned long long>(witness_seed));
  }
  return satisfied.value_or(true) ? 0 : 1;
}

}  // namespace

std::vector<Command> register_synthetic_commands(CLI::App& app) {
  auto o = std::make_shared<SyntheticOptions>();
  auto* c = app.add_subcommand(
      "synthetic",
      "Write a synthetic circuit: a 32 GiB PoRep partition's shape (.snkr1cs), or circom-shaped with its snarkjs key (--format circom)");
  c->footer(
      "The default is the full partition: 130,278,869 constraints (incl. 328 input rows), 328 inputs,\n"
      "130,169,893 aux; A 2.37, B 1.0004, C 2.17 non-zeros per row; A-aux density 99.7 %, B-aux 25.4 %;\n"
      "90 % of aux values in {0,1}. The file is written block by block (the full shape is ~26 GB).\n"
      "The circuit comes from --seed; a witness (--wtns, --stats, --check) from --witness-seed.\n"
      "Examples:\n"
      "  snarkpipe synthetic --scale 1/1024 --seed 1 --out porep-1k.snkr1cs --stats\n"
      "  snarkpipe synthetic --scale 1/4096 --out s.snkr1cs --wtns s.wtns --witness-seed 7\n"
      "  snarkpipe setup --r1cs s.snkr1cs --params s.params --vk s.vk\n"
      "  snarkpipe prove --params s.params --r1cs s.snkr1cs --wtns s.wtns --proof s.proof --public s.json\n"
      "\n"
      "--format circom --constraints R --out DIR: a circuit shaped as circom compiles them (a multiplication\n"
      "chain with linear mixing; 1 public output and --public - 1 public inputs, 2 private inputs), and\n"
      "the files a circom user has after a snarkjs Groth16 setup, for benchmarks at sizes snarkjs's ceremony\n"
      "cannot reach (2^20 and more):\n"
      "  DIR/circuit.r1cs            circom's .r1cs (snarkjs r1cs info reads it)\n"
      "  DIR/witness.wtns            a satisfying witness (snarkjs wtns check accepts it)\n"
      "  DIR/circuit.zkey            a snarkjs Groth16 key (snarkjs 0.7.6's layout) from fresh toxic waste:\n"
      "                              single-party, INSECURE outside tests and benchmarks\n"
      "  DIR/verification_key.json   its snarkjs verification key\n"
      "R counts the QAP's rows as snarkjs sizes its domain: circom's constraints + public signals + 1, so\n"
      "R = 2^k gives a domain of exactly 2^k. Circuit and witness come from --seed; the key is new each run.\n"
      "  snarkpipe synthetic --format circom --constraints 2^16 --out c16\n"
      "  snarkpipe bench prove --zkey c16/circuit.zkey --wtns c16/witness.wtns --backend cpu\n"
      "  snarkjs groth16 prove c16/circuit.zkey c16/witness.wtns proof.json public.json");
  c->add_option("--scale", o->scale, "Scale the PoRep shape: 1/1024, 0.125, ... (constraints and aux; inputs stay)");
  c->add_option("--constraints", o->constraints,
                "Total constraints incl. the input rows (N or 2^k), instead of --scale; aux keeps the PoRep ratio "
                "(--format circom: the QAP rows, default 2^16)");
  c->add_option("--inputs", o->inputs, "Inputs including ONE (default 328)");
  c->add_option("--aux", o->aux, "Aux variables (default: the PoRep ratio to constraints)");
  c->add_option("--a-per-row", o->a_per_row, "A non-zeros per constraint (default 2.375)");
  c->add_option("--b-per-row", o->b_per_row, "B non-zeros per constraint (default 1.0004)");
  c->add_option("--c-per-row", o->c_per_row, "C non-zeros per constraint (default 2.170)");
  c->add_option("--a-aux-density", o->a_aux_density, "Fraction of aux variables in A (default 0.9968)");
  c->add_option("--b-aux-density", o->b_aux_density, "Fraction of aux variables in B (default 0.2544)");
  c->add_option("--boolean-fraction", o->boolean_fraction, "Fraction of aux values in {0,1} (default 0.9)");
  c->add_option("--seed", o->seed, "The circuit's structure")->capture_default_str();
  c->add_option("--witness-seed", o->witness_seed, "The witness values (default: --seed); one per partition");
  c->add_option("--out", o->out, "Where to write the recorded circuit (.snkr1cs); with --format circom, the directory")
      ->required();
  c->add_option("--format", o->format,
                "snkr1cs (the PoRep shape, a recorded circuit) or circom (circom-shaped: .r1cs, .wtns, .zkey, vk.json)")
      ->check(CLI::IsMember({"snkr1cs", "circom"}))
      ->capture_default_str();
  c->add_option("--public", o->circom_public, "circom: public signals (1 output, the rest public inputs)")
      ->capture_default_str();
  c->add_option("--key-backend", o->key_backend,
                "circom: where the key's fixed-base multiplications run: cpu, cuda or auto (cuda when a GPU is usable)")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}))
      ->capture_default_str();
  c->add_option("--wtns", o->wtns, "Also write a witness (circom .wtns) for `prove --r1cs --wtns`");
  c->add_flag("--stats", o->stats, "Also measure the coefficients and a witness's 0/1 fraction");
  c->add_flag("--check", o->check, "Read the file back (full validation) and check that a witness satisfies it");
  c->add_flag("--json", o->json, "Print one JSON object (machine, shape, measured, target, times)");
  c->add_option("--threads", o->threads, "Worker threads (default: all cores)");
  return {make_command(c, o, [](SyntheticOptions& o, const CLI::App& app) { return run_synthetic(o, app); })};
}

}  // namespace snarkpipe::cli
