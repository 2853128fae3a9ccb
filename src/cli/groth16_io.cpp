#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "circom/r1cs.hpp"
#include "circom/snarkjs_json.hpp"
#include "circuit/r1cs_file.hpp"
#include "cli/command.hpp"
#include "cli/progress.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "cli/groth16_io.hpp"

namespace snarkpipe::cli {

using groth16::ProvingKey;

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
      throw std::runtime_error(path + ": " + at + (at.empty() ? "" : ": ") +
                               "expected an array of decimal strings, got " + circom::describe_json(a));
    std::vector<ff::Fr> xs;
    for (std::size_t i = 0; i < a.size(); ++i) {
      const nlohmann::json& v = a[i];
      const std::string s = v.is_string()            ? v.get<std::string>()
                            : v.is_number_unsigned() ? std::to_string(v.get<std::uint64_t>())
                                                     : "";
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

}  // namespace snarkpipe::cli
