// The daemon's clients (src/service/client.hpp): `snarkpipe submit` uploads a witness, waits
// (long poll) and writes the proof as snarkjs's proof.json and public.json; `snarkpipe jobs`
// lists the caller's jobs; `snarkpipe cancel` cancels some. The token comes from --token or
// $SNARKPIPE_TOKEN (which keeps it out of the process list).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/command.hpp"

#ifdef SNARKPIPE_HAVE_SERVICE
#include "base/hex.hpp"
#include "circom/snarkjs_json.hpp"
#include "circom/wtns.hpp"
#include "groth16/proof.hpp"
#include "service/client.hpp"
#include "service/spool.hpp"
#include "service/witness_upload.hpp"
#endif

namespace snarkpipe::cli {

namespace {

struct ServerOptions {
  std::string server = "http://127.0.0.1:8080";
  std::string token;  // empty: $SNARKPIPE_TOKEN
  std::string ca_cert;
};

void add_server_options(CLI::App* c, ServerOptions& o) {
  c->add_option("--server", o.server, "The daemon's URL (http:// or https://)")->capture_default_str();
  c->add_option("--token", o.token, "Bearer token (default: $SNARKPIPE_TOKEN)");
  c->add_option("--ca-cert", o.ca_cert, "PEM file of the CA to trust for https (default: the system's)");
}

struct SubmitOptions {
  ServerOptions server;
  std::string circuit, wtns, assignment, packed;
  bool pack = false;
  std::uint64_t partitions = 1;
  std::string priority = "normal";
  std::string idempotency_key;
  std::string out = "proof.json", public_out, proof_bytes, vk_out;
  unsigned timeout_s = 24 * 3600;
  bool no_wait = false;
};

struct JobsOptions {
  ServerOptions server;
  bool json = false;
};

struct CancelOptions {
  ServerOptions server;
  std::vector<std::uint64_t> ids;
};

struct RegisterOptions {
  ServerOptions server;
  std::string name, params, zkey, r1cs;
  bool upload = false;
};

#ifdef SNARKPIPE_HAVE_SERVICE

service::Client connect(const ServerOptions& o) {
  std::string token = o.token;
  if (token.empty())
    if (const char* env = std::getenv("SNARKPIPE_TOKEN")) token = env;
  return service::Client(o.server, token, o.ca_cert);
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
}

void write_bytes(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

using base::unhex;

int run_submit(const SubmitOptions& o) {
  const int given = !o.wtns.empty() + !o.assignment.empty() + !o.packed.empty();
  if (given != 1) throw std::invalid_argument("give the witness as one of --wtns, --assignment, --packed");
  if (o.pack && o.wtns.empty()) throw std::invalid_argument("--pack converts a --wtns");
  service::Client client = connect(o.server);
  service::Upload up;
  up.circuit = o.circuit;
  up.partitions = o.partitions;
  up.priority = o.priority;
  up.idempotency_key = o.idempotency_key;
  std::filesystem::path packed_tmp;
  if (!o.wtns.empty() && o.pack) {
    // Packed before it leaves: its 0/1 values as bits (a PoRep partition: 0.46 GB, not 4.2).
    const nlohmann::json info = client.circuit(o.circuit);
    const std::vector<ff::Fr> values = circom::read_wtns(o.wtns);
    const groth16::Witness w = circom::split_witness(values, info.at("inputs").get<std::size_t>() - 1);
    packed_tmp = std::filesystem::temp_directory_path() / ("snarkpipe-packed-" + service::random_name());
    write_bytes(packed_tmp.string(), service::encode_packed(w));
    up.format = "packed";
    up.file = packed_tmp.string();
  } else if (!o.wtns.empty()) {
    up.format = "wtns";
    up.file = o.wtns;
  } else {
    up.format = o.assignment.empty() ? "packed" : "assignment";
    up.file = o.assignment.empty() ? o.packed : o.assignment;
  }
  nlohmann::json submitted;
  try {
    submitted = client.submit(up);
  } catch (...) {
    if (!packed_tmp.empty()) std::filesystem::remove(packed_tmp);
    throw;
  }
  if (!packed_tmp.empty()) std::filesystem::remove(packed_tmp);
  const std::uint64_t id = submitted.at("id");
  std::fprintf(stderr, "job %llu %s\n", (unsigned long long)id,
               submitted.value("created", true) ? "submitted" : "(already submitted with this key)");
  if (o.no_wait) {
    std::printf("%llu\n", (unsigned long long)id);
    return 0;
  }
  const nlohmann::json job = client.wait(id, std::chrono::seconds(o.timeout_s));
  const std::string state = job.value("state", "");
  if (state != "done") {
    std::fprintf(stderr, "job %llu: %s%s%s\n", (unsigned long long)id, state.c_str(), job.contains("error") ? ": " : "",
                 job.value("error", std::string()).c_str());
    return state == "queued" || state == "running" ? 2 : 1;
  }
  nlohmann::json proofs = nlohmann::json::array(), publics = nlohmann::json::array();
  std::vector<std::uint8_t> all;
  for (const auto& hex : job.at("proofs")) {
    const std::vector<std::uint8_t> bytes = unhex(hex.get<std::string>());
    all.insert(all.end(), bytes.begin(), bytes.end());
    proofs.push_back(circom::proof_to_json(groth16::Proof::from_bytes(bytes)));
  }
  for (const auto& p : job.at("public_inputs")) publics.push_back(p);
  // One partition: snarkjs's own files; several: arrays of them, in partition order.
  write_text(o.out, (proofs.size() == 1 ? proofs[0] : proofs).dump(1) + "\n");
  const std::string public_out =
      o.public_out.empty() ? (std::filesystem::path(o.out).parent_path() / "public.json").string() : o.public_out;
  write_text(public_out, (publics.size() == 1 ? publics[0] : publics).dump(1) + "\n");
  if (!o.proof_bytes.empty()) write_bytes(o.proof_bytes, all);
  if (!o.vk_out.empty())
    write_bytes(o.vk_out, unhex(client.circuit(o.circuit).at("vk").at("bellperson_hex").get<std::string>()));
  std::fprintf(stderr, "job %llu done: wrote %s and %s\n", (unsigned long long)id, o.out.c_str(), public_out.c_str());
  return 0;
}

int run_jobs(const JobsOptions& o) {
  service::Client client = connect(o.server);
  const nlohmann::json jobs = client.jobs();
  if (o.json) {
    std::printf("%s\n", jobs.dump(1).c_str());
    return 0;
  }
  std::printf("%-8s %-10s %-10s %s\n", "ID", "STATE", "PARTITIONS", "CIRCUIT");
  for (const auto& j : jobs.at("jobs"))
    std::printf("%-8llu %-10s %-10llu %s%s%s\n", (unsigned long long)j.at("id").get<std::uint64_t>(),
                j.value("state", "").c_str(), (unsigned long long)j.value("partitions", std::uint64_t(0)),
                j.value("circuit", "").c_str(), j.contains("error") ? "  " : "",
                j.value("error", std::string()).c_str());
  return 0;
}

int run_cancel(const CancelOptions& o) {
  service::Client client = connect(o.server);
  int status = 0;
  for (std::uint64_t id : o.ids) {
    const nlohmann::json r = client.cancel(id);
    const bool cancelled = r.value("cancelled", false);
    std::printf("%llu %s (%s)\n", (unsigned long long)id, cancelled ? "cancelled" : "not cancelled",
                r.value("state", "").c_str());
    if (!cancelled) status = 1;
  }
  return status;
}

int run_register(const RegisterOptions& o) {
  if (o.params.empty() == o.zkey.empty()) throw std::invalid_argument("give the key as one of --params, --zkey");
  service::Client client = connect(o.server);
  const std::string key_kind = o.params.empty() ? "zkey" : "params", key_file = o.params.empty() ? o.zkey : o.params;
  nlohmann::json spec = {{"name", o.name}};
  if (o.upload) {
    // A circuit registered already keeps its files: the registration below then says whether
    // it was registered from uploads like these.
    bool registered = true;
    try {
      client.circuit(o.name);
    } catch (const service::ClientError& e) {
      if (e.status() != 404) throw;
      registered = false;
    }
    if (!registered)
      for (const auto& [kind, file] : {std::pair{key_kind, key_file}, std::pair{std::string("r1cs"), o.r1cs}}) {
        const nlohmann::json up = client.upload_circuit_file(o.name, kind, file);
        std::fprintf(stderr, "uploaded %s: %llu bytes, sha256 %s\n", file.c_str(),
                     (unsigned long long)up.value("bytes", 0ull), up.value("sha256", "").c_str());
      }
    spec["uploaded"] = {key_kind, "r1cs"};
  } else {
    // Paths on the daemon's machine: absolute, so they mean the same there.
    spec[key_kind] = std::filesystem::absolute(key_file).string();
    spec["r1cs"] = std::filesystem::absolute(o.r1cs).string();
  }
  const nlohmann::json r = client.register_circuit(spec);
  std::printf("%s %s\n", r.value("name", "").c_str(),
              r.value("created", false) ? "registered" : "was registered already");
  return 0;
}

#endif

template <class Options>
Command without_daemon(CLI::App* c, std::shared_ptr<Options> o) {
  return make_command(c, o, [](Options&, const CLI::App&) -> int {
    throw std::runtime_error(
        "this snarkpipe was built without the daemon's client: install libcpp-httplib-dev and configure again");
  });
}

}  // namespace

std::vector<Command> register_client_commands(CLI::App& app) {
  std::vector<Command> cmds;
  {
    auto o = std::make_shared<SubmitOptions>();
    auto* c = app.add_subcommand("submit", "Send a witness to a daemon (snarkpipe serve), wait, and write the proof");
    c->footer(
        "The witness is streamed as it is on disk: a circom .wtns (one partition), or the binary assignment or packed\n"
        "form of src/service/witness_upload.hpp (any number of partitions). --pack packs a .wtns first (its 0/1 values as\n"
        "bits). Writes snarkjs's proof.json and public.json (arrays of them for several partitions); --proof-bytes the\n"
        "192-byte proofs, --vk the served bellperson .vk. Exit status: 0 done, 1 failed or cancelled, 2 still running.\n"
        "Example: snarkpipe submit --server http://127.0.0.1:8080 --token T --circuit NAME --wtns w.wtns --out proof.json");
    add_server_options(c, o->server);
    c->add_option("--circuit", o->circuit, "The registered circuit's name")->required();
    c->add_option("--wtns", o->wtns, "The witness as circom's .wtns")->check(CLI::ExistingFile);
    c->add_option("--assignment", o->assignment, "The witness as the binary assignment")->check(CLI::ExistingFile);
    c->add_option("--packed", o->packed, "The witness in the packed form")->check(CLI::ExistingFile);
    c->add_flag("--pack", o->pack, "Pack the --wtns before sending it");
    c->add_option("--partitions", o->partitions, "Partitions in the upload (assignment, packed)")
        ->capture_default_str();
    c->add_option("--priority", o->priority, "low, normal, high, critical")->capture_default_str();
    c->add_option("--idempotency-key", o->idempotency_key, "Submitting again with this key returns the same job");
    c->add_option("--out", o->out, "Where to write the proof (snarkjs proof.json)")->capture_default_str();
    c->add_option("--public", o->public_out, "Where to write the public inputs (default: public.json beside --out)");
    c->add_option("--proof-bytes", o->proof_bytes, "Also write the proofs as 192-byte encodings, concatenated");
    c->add_option("--vk", o->vk_out, "Also write the circuit's verifying key (bellperson .vk)");
    c->add_option("--timeout", o->timeout_s, "Seconds to wait for the proof")->capture_default_str();
    c->add_flag("--no-wait", o->no_wait, "Print the job's id and return without waiting");
#ifdef SNARKPIPE_HAVE_SERVICE
    cmds.push_back(make_command(c, o, [](SubmitOptions& o, const CLI::App&) { return run_submit(o); }));
#else
    cmds.push_back(without_daemon(c, o));
#endif
  }
  {
    auto o = std::make_shared<JobsOptions>();
    auto* c = app.add_subcommand("jobs", "List your jobs on a daemon, newest first");
    add_server_options(c, o->server);
    c->add_flag("--json", o->json, "Print the daemon's JSON");
#ifdef SNARKPIPE_HAVE_SERVICE
    cmds.push_back(make_command(c, o, [](JobsOptions& o, const CLI::App&) { return run_jobs(o); }));
#else
    cmds.push_back(without_daemon(c, o));
#endif
  }
  {
    auto o = std::make_shared<RegisterOptions>();
    auto* c = app.add_subcommand("register", "Register a circuit from its files on a daemon (an admin token's)");
    c->footer(
        "A bellperson .params with its circuit (.snkr1cs or circom .r1cs), or a snarkjs .zkey with its circom .r1cs.\n"
        "By default the paths are read by the daemon on its own machine (under its service.circuit_roots); --upload\n"
        "streams the files to it instead (PUT /v1/circuits/NAME/files/KIND), for a daemon on another machine.\n"
        "Example: snarkpipe register --server http://prover:8080 --token T --name porep --params p.params --r1cs p.snkr1cs --upload");
    add_server_options(c, o->server);
    c->add_option("--name", o->name, "The circuit's name on the daemon")->required();
    c->add_option("--params", o->params, "The bellperson .params (with the proving key)");
    c->add_option("--zkey", o->zkey, "The snarkjs .zkey");
    c->add_option("--r1cs", o->r1cs, "The circuit: .snkr1cs or circom .r1cs")->required();
    c->add_flag("--upload", o->upload, "Send the files to the daemon instead of naming paths on its machine");
#ifdef SNARKPIPE_HAVE_SERVICE
    cmds.push_back(make_command(c, o, [](RegisterOptions& o, const CLI::App&) { return run_register(o); }));
#else
    cmds.push_back(without_daemon(c, o));
#endif
  }
  {
    auto o = std::make_shared<CancelOptions>();
    auto* c = app.add_subcommand("cancel",
                                 "Cancel queued or running jobs on a daemon; exit status 1 when one was not cancelled");
    add_server_options(c, o->server);
    c->add_option("ids", o->ids, "Job ids")->required();
#ifdef SNARKPIPE_HAVE_SERVICE
    cmds.push_back(make_command(c, o, [](CancelOptions& o, const CLI::App&) { return run_cancel(o); }));
#else
    cmds.push_back(without_daemon(c, o));
#endif
  }
  return cmds;
}

}  // namespace snarkpipe::cli
