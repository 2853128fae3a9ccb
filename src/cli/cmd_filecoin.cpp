// snarkpipe verify-seal and verify-post: Filecoin PoRep and WindowPoSt proofs checked against
// their public inputs (issue 24). A seal's inputs come from flags or from a JSON record in
// rust-fil-proofs' seal regression form; src/filecoin derives every partition's public inputs
// and batch-verifies the partitions.
#include <charconv>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cli/command.hpp"
#include "filecoin/commitment.hpp"
#include "filecoin/seal.hpp"
#include "filecoin/seal_record.hpp"
#include "filecoin/verifying_key.hpp"
#include "filecoin/window_post.hpp"
#include "groth16/params_file.hpp"

namespace snarkpipe::cli {
namespace {

using namespace filecoin;

constexpr const char* VERIFY_SEAL_HELP =
    R"(Checks what filecoin-proofs' verify_seal checks: from the sector's commitments, prover,
sector number, ticket and seed it derives each partition's public inputs (the replica id,
comm_d, comm_r, and for every challenged node its TreeD/TreeR/TreeC indexes and its 6 DRG
and 8 expander parents in the porep_id-seeded SDR graph), then verifies all partitions'
Groth16 proofs in one batch against the verifying key. Exit status 0 means a valid seal proof.)";

constexpr const char* VERIFY_SEAL_FOOTER = R"(WHAT TO GIVE
  The proof type, one of:
    --registered-proof ID|NAME    the chain's RegisteredSealProof: 0-4 StackedDrg{2KiB,8MiB,512MiB,32GiB,64GiB}V1,
                                  5-9 …V1_1 (what Lotus seals today), 10-14 …V1_1_Feat_SyntheticPoRep.
                                  It fixes the sector size, porep_id and API version.
    --sector-size SIZE --api-version V [--porep-id HEX] [--synthetic]
                                  a configuration by hand (e.g. a network with its own porep_id);
                                  --porep-id defaults to the registered V1 (API 1.0.0) or V1_1 type's.
  The sector: --comm-r, --comm-d (64 hex digits or the CID Lotus prints: bagboea4b5abc…,
  baga6ea4seaq…), --prover-id (64 hex digits) or --miner (f01234), --sector-id, --ticket and
  --seed (64 hex digits each).
  Or all of it at once: --record FILE, a JSON object as one line of rust-fil-proofs'
  filecoin-proofs/tests/seal_regression_records-v16.json (porep_config, comm_r, comm_d, prover_id,
  sector_id, ticket, seed, proof); --line N picks line N of a file of such lines.

FILES
  --vk      bellperson's .vk; or the .params file itself (only its first bytes are read: 32,356 of
            the 47 GB 32 GiB PoRep file); or polka-storage's compressed key (2,356 bytes for 2 KiB),
            binary or hex text. Every key point is checked (range, curve, subgroup).
  --proof   the partitions' 192-byte proofs concatenated (1,920 bytes for 32/64 GiB), binary or hex
            text; with --record it replaces the record's proof.

EXIT STATUS
  0 the seal proof is valid; 1 it is not (the reason is printed); 2 the input cannot be checked:
  an unknown proof type, a value of the wrong length, a commitment that is zero or not in the
  field, a proof of the wrong number of partitions, a key that does not fit (the field is named).

EXAMPLES
  snarkpipe verify-seal --registered-proof StackedDrg32GiBV1_1 \
      --vk /var/tmp/filecoin-proof-parameters/v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.vk \
      --proof sector-42.proof --comm-r bagboea4b5abc… --comm-d baga6ea4seaq… \
      --miner f01000 --sector-id 42 --ticket 1a2b… --seed 3c4d…
  snarkpipe verify-seal --record seal_regression_records-v16.json --line 443 --vk <the 32 GiB .params or .vk>
  snarkpipe verify-seal --sector-size 2KiB --api-version 1.2.0 --porep-id 0000000000000000000000000000000000000000000000000000000000000000 \
      --vk tests/filecoin/data/polka-storage-porep-2kib/vk.hex --proof tests/filecoin/data/polka-storage-porep-2kib/proof.hex \
      --comm-r 4afb35f82a95a10187a913bc14520d9a1d173328265b301b5dcf440ef2583950 \
      --comm-d 129c7562bb0c189544f5dccd365feaec2141eab458097a5ca8429c109d154421 \
      --prover-id 0000000000000000000000000000000000000000000000000000000000000000 --sector-id 77 \
      --ticket 0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c \
      --seed 0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d)";

struct Options {
  std::string registered_proof, sector_size, api_version, porep_id;
  bool synthetic = false;
  std::string comm_r, comm_d, prover_id, miner, ticket, seed;
  std::optional<std::uint64_t> sector_id;
  std::string record;
  std::optional<std::size_t> line;
  std::string vk, proof, public_out;
  bool json = false;
};

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw SealInputError("record", "cannot open " + path);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// The JSON object of --record: the file itself, or its line N (counting from 1).
std::string record_text(const Options& o) {
  const std::string text = read_text(o.record);
  if (!o.line) {
    std::size_t records = 0;
    for (std::size_t start = 0; start < text.size();) {
      const std::size_t end = std::min(text.find('\n', start), text.size());
      if (text.find_first_not_of(" \t\r", start) < end) ++records;
      start = end + 1;
    }
    if (records > 1)
      throw SealInputError("line", o.record + " holds " + std::to_string(records) +
                                       " lines (a JSON-lines file?): pick one record with --line N");
    return text;
  }
  std::size_t start = 0;
  for (std::size_t n = 1; start <= text.size(); ++n) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    if (n == *o.line) return text.substr(start, end - start);
    start = end + 1;
  }
  throw SealInputError("line", o.record + " has fewer than " + std::to_string(*o.line) + " lines");
}

PorepConfig config_from_flags(const Options& o) {
  if (!o.registered_proof.empty()) {
    if (!o.sector_size.empty() || !o.porep_id.empty() || o.synthetic)
      throw SealInputError("registered proof",
                           "--registered-proof fixes the sector size, porep_id and features; "
                           "give it or --sector-size/--porep-id/--synthetic, not both");
    const RegisteredSealProof* p = find_registered_seal_proof(o.registered_proof);
    if (!p)
      throw SealInputError("registered proof", "unknown proof type '" + o.registered_proof +
                                                   "' (0-19 or a name such as StackedDrg32GiBV1_1; see --help)");
    PorepConfig c = PorepConfig::from(*p);
    if (!o.api_version.empty() && parse_api_version(o.api_version) != p->api_version)
      throw SealInputError("api version", std::string(p->name) + " is API " + std::string(to_string(p->api_version)) +
                                              ", not " + o.api_version);
    return c;
  }
  if (o.sector_size.empty())
    throw SealInputError("proof type", "give --registered-proof, or --sector-size with --api-version, or --record");
  PorepConfig c;
  const auto size = parse_sector_size(o.sector_size);
  if (!size)
    throw SealInputError("sector size", "'" + o.sector_size + "' is not a size such as 2KiB, 32GiB or 34359738368");
  c.sector_size = *size;
  if (o.api_version.empty())
    throw SealInputError("api version", "--sector-size needs --api-version (1.0.0, 1.1.0 or 1.2.0)");
  const auto v = parse_api_version(o.api_version);
  if (!v) throw SealInputError("api version", "'" + o.api_version + "' is not 1.0.0, 1.1.0 or 1.2.0");
  c.api_version = *v;
  c.synthetic = o.synthetic;
  if (c.synthetic && c.api_version != ApiVersion::V1_2_0)
    throw SealInputError("api version", "synthetic PoRep exists from API 1.2.0 on");
  if (!o.porep_id.empty()) {
    c.porep_id = parse_bytes32_hex(o.porep_id, "porep id");
  } else {
    // The registered type of that size: V1 for API 1.0.0, V1_1 after (…Feat_SyntheticPoRep if synthetic).
    for (const RegisteredSealProof& p : registered_seal_proofs()) {
      const bool legacy = c.api_version == ApiVersion::V1_0_0;
      const bool wanted = c.synthetic ? p.feature == ApiFeature::SyntheticPoRep
                                      : !p.feature && (p.api_version == ApiVersion::V1_0_0) == legacy;
      if (p.sector_size == c.sector_size && wanted) c.porep_id = p.porep_id();
    }
  }
  c.shape();  // an unsupported size is reported before anything else
  return c;
}

SealInputs inputs_from_flags(const Options& o) {
  SealInputs in;
  try {
    in.config = config_from_flags(o);
  } catch (const UnknownSectorSize& e) {
    throw SealInputError("sector size", e.what());
  }
  auto need = [](const std::string& v, const char* flag, const char* field) {
    if (v.empty()) throw SealInputError(field, std::string("missing (") + flag + ")");
  };
  need(o.comm_r, "--comm-r", "comm_r");
  need(o.comm_d, "--comm-d", "comm_d");
  need(o.ticket, "--ticket", "ticket");
  need(o.seed, "--seed", "seed");
  if (!o.sector_id) throw SealInputError("sector_id", "missing (--sector-id)");
  if (o.prover_id.empty() == o.miner.empty())
    throw SealInputError("prover_id", "give exactly one of --prover-id and --miner");
  in.comm_r = parse_commitment(o.comm_r, CommitmentKind::Sealed, "comm_r");
  in.comm_d = parse_commitment(o.comm_d, CommitmentKind::Unsealed, "comm_d");
  in.prover_id =
      o.miner.empty() ? parse_bytes32_hex(o.prover_id, "prover_id") : prover_id_from_actor(o.miner, "prover_id");
  in.sector_id = *o.sector_id;
  in.ticket = parse_bytes32_hex(o.ticket, "ticket");
  in.seed = parse_bytes32_hex(o.seed, "seed");
  return in;
}

std::string describe_config(const PorepConfig& c) {
  std::string name;
  for (const RegisteredSealProof& p : registered_seal_proofs())
    if (p.porep_id() == c.porep_id && p.api_version == c.api_version &&
        (p.feature == ApiFeature::SyntheticPoRep) == c.synthetic && p.sector_size == c.sector_size)
      name = std::string(p.name) + ", ";
  return format_sector_size(c.sector_size) + " (" + name + "API " + std::string(to_string(c.api_version)) +
         (c.synthetic ? ", synthetic challenges" : "") + ", porep_id " + to_hex(c.porep_id).substr(0, 16) + "…)";
}

void write_public_inputs(const std::string& path, const SealPublicInputs& pub) {
  nlohmann::json all = nlohmann::json::array();
  for (unsigned k = 0; k < pub.shape().partitions; ++k) {
    nlohmann::json part = nlohmann::json::array();
    for (const Fr& x : pub.partition(k)) part.push_back(x.to_decimal());
    all.push_back(std::move(part));
  }
  std::ofstream out(path);
  out << (all.size() == 1 ? all[0] : all).dump() << "\n";
  if (!out) throw SealInputError("public-out", "cannot write " + path);
}

int run_verify_seal(const Options& o) {
  SealInputs inputs;
  std::vector<std::uint8_t> proof;
  groth16::VerifyingKey vk;
  try {
    if (!o.record.empty()) {
      SealRecord r = parse_seal_record(record_text(o));
      inputs = r.inputs;
      proof = std::move(r.proof);
    } else {
      if (o.line) throw SealInputError("line", "--line selects a line of --record");
      inputs = inputs_from_flags(o);
    }
    if (!o.proof.empty()) {
      try {
        proof = read_bytes_or_hex(o.proof);
      } catch (const std::exception& e) {
        throw SealInputError("proof", e.what());
      }
    }
    if (proof.empty())
      throw SealInputError("proof",
                           o.proof.empty() ? "missing (--proof, or a record with one)" : o.proof + " is empty");
    try {
      vk = load_verifying_key(o.vk);
    } catch (const std::exception& e) {
      throw SealInputError("vk", e.what());
    }
    const SealPublicInputs pub(inputs);  // validates the commitments before any pairing
    if (!o.public_out.empty()) write_public_inputs(o.public_out, pub);
    const SealCheck c = verify_seal(inputs, proof, groth16::PreparedVerifyingKey::from(vk));
    if (o.json) {
      nlohmann::json j = {{"valid", c.valid},
                          {"sector_size", inputs.config.sector_size},
                          {"api_version", std::string(to_string(inputs.config.api_version))},
                          {"porep_id", to_hex(inputs.config.porep_id)},
                          {"partitions", c.partitions},
                          {"public_inputs_per_partition", c.inputs_per_partition},
                          {"replica_id", to_hex(pub.replica_id())},
                          {"comm_r", commitment_cid(inputs.comm_r, CommitmentKind::Sealed)},
                          {"comm_d", commitment_cid(inputs.comm_d, CommitmentKind::Unsealed)},
                          {"derive_ms", c.derive_ms},
                          {"verify_ms", c.verify_ms}};
      if (!c.valid) j["reason"] = c.reason;
      std::printf("%s\n", j.dump(2).c_str());
    } else if (c.valid) {
      std::printf("valid: %s seal proof, sector %llu, %u partition%s × %zu public inputs\n",
                  describe_config(inputs.config).c_str(), static_cast<unsigned long long>(inputs.sector_id),
                  c.partitions, c.partitions == 1 ? "" : "s", c.inputs_per_partition);
      std::printf("  comm_r %s\n  comm_d %s\n  replica_id %s\n",
                  commitment_cid(inputs.comm_r, CommitmentKind::Sealed).c_str(),
                  commitment_cid(inputs.comm_d, CommitmentKind::Unsealed).c_str(), to_hex(pub.replica_id()).c_str());
      std::printf("  public inputs derived in %.2f ms; proofs decoded and batch-verified in %.1f ms\n", c.derive_ms,
                  c.verify_ms);
    } else {
      std::printf("invalid: %s seal proof, sector %llu: %s\n", describe_config(inputs.config).c_str(),
                  static_cast<unsigned long long>(inputs.sector_id), c.reason.c_str());
    }
    return c.valid ? 0 : 1;
  } catch (const SealInputError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}

constexpr const char* VERIFY_POST_FOOTER =
    R"(Checks what filecoin-proofs' verify_window_post checks: the sectors, in ascending sector-id
order, fill partitions of 2 (2KiB, 8MiB, 512MiB), 2,349 (32GiB) or 2,300 (64GiB) sectors; each
sector contributes its comm_r and 10 challenged leaf indexes derived from the randomness; a
partition short of sectors repeats its last one. All partitions are verified in one batch.

WHAT TO GIVE
  --registered-proof ID|NAME   the chain's RegisteredPoStProof: 5-9 StackedDrgWindow{2KiB,…,64GiB}V1
                               (API 1.0.0), 10-14 …V1_2 (API 1.2.0, what the chain uses today);
                               or --sector-size SIZE --api-version V
  --randomness HEX             the 32-byte challenge randomness (below r: Lotus clears its top 2 bits)
  --sector ID:COMM_R           a proven sector (repeat it), comm_r as 64 hex digits or its CID;
                               or --sectors FILE with one "ID COMM_R" per line
  --vk, --proof                as for verify-seal (192 bytes per partition)

EXIT STATUS
  0 valid; 1 invalid (the reason is printed); 2 the input cannot be checked (the field is named).

EXAMPLE
  snarkpipe verify-post --sector-size 2KiB --api-version 1.2.0 \
      --randomness 0101010101010101010101010101010101010101010101010101010101010101 \
      --sector 77:4afb35f82a95a10187a913bc14520d9a1d173328265b301b5dcf440ef2583950 \
      --vk tests/filecoin/data/polka-storage-post-2kib/vk.hex --proof tests/filecoin/data/polka-storage-post-2kib/proof.hex)";

struct PostOptions {
  std::string registered_proof, sector_size, api_version, randomness, sectors_file, vk, proof;
  std::vector<std::string> sectors;
};

PostSector parse_post_sector(const std::string& id, const std::string& comm_r, const std::string& where) {
  PostSector s;
  const auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), s.sector_id);
  if (ec != std::errc() || end != id.data() + id.size() || id.empty())
    throw SealInputError(where, "'" + id + "' is not a sector number");
  s.comm_r = parse_commitment(comm_r, CommitmentKind::Sealed, where + " comm_r");
  return s;
}

int run_verify_post(const PostOptions& o) {
  try {
    WindowPostInputs in;
    if (!o.registered_proof.empty()) {
      if (!o.sector_size.empty())
        throw SealInputError("registered proof", "give --registered-proof or --sector-size, not both");
      const RegisteredPostProof* p = find_registered_window_post_proof(o.registered_proof);
      if (!p)
        throw SealInputError("registered proof", "unknown WindowPoSt type '" + o.registered_proof +
                                                     "' (5-14 or a name such as StackedDrgWindow32GiBV1_2)");
      in.sector_size = p->sector_size;
      in.api_version = p->api_version;
    } else {
      const auto size = parse_sector_size(o.sector_size);
      if (!size)
        throw SealInputError("sector size",
                             "give --registered-proof, or --sector-size (2KiB … 64GiB) with --api-version");
      in.sector_size = *size;
      const auto v = parse_api_version(o.api_version);
      if (!v) throw SealInputError("api version", "--sector-size needs --api-version 1.0.0 or 1.2.0");
      in.api_version = *v;
    }
    if (o.randomness.empty()) throw SealInputError("randomness", "missing (--randomness)");
    in.randomness = parse_bytes32_hex(o.randomness, "randomness");
    for (const std::string& s : o.sectors) {
      const auto colon = s.find(':');
      if (colon == std::string::npos) throw SealInputError("sector", "'" + s + "' is not ID:COMM_R");
      in.sectors.push_back(parse_post_sector(s.substr(0, colon), s.substr(colon + 1), "sector " + s.substr(0, colon)));
    }
    if (!o.sectors_file.empty()) {
      std::ifstream f(o.sectors_file);
      if (!f) throw SealInputError("sectors", "cannot open " + o.sectors_file);
      std::string id, comm_r;
      for (std::size_t line = 1; f >> id >> comm_r; ++line)
        in.sectors.push_back(parse_post_sector(id, comm_r, o.sectors_file + " line " + std::to_string(line)));
    }
    std::vector<std::uint8_t> proof;
    try {
      proof = read_bytes_or_hex(o.proof);
    } catch (const std::exception& e) {
      throw SealInputError("proof", e.what());
    }
    groth16::VerifyingKey vk;
    try {
      vk = load_verifying_key(o.vk);
    } catch (const std::exception& e) {
      throw SealInputError("vk", e.what());
    }
    const PostCheck c = verify_window_post(in, proof, groth16::PreparedVerifyingKey::from(vk));
    const std::string what = format_sector_size(in.sector_size) + " WindowPoSt (API " +
                             std::string(to_string(in.api_version)) + "), " + std::to_string(in.sectors.size()) +
                             " sector" + (in.sectors.size() == 1 ? "" : "s");
    if (c.valid)
      std::printf("valid: %s, %u partition%s × %zu public inputs\n", what.c_str(), c.partitions,
                  c.partitions == 1 ? "" : "s", c.inputs_per_partition);
    else std::printf("invalid: %s: %s\n", what.c_str(), c.reason.c_str());
    return c.valid ? 0 : 1;
  } catch (const SealInputError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}

}  // namespace

std::vector<Command> register_filecoin_commands(CLI::App& app) {
  std::vector<Command> cmds;
  auto o = std::make_shared<Options>();
  auto* c =
      app.add_subcommand("verify-seal", "Verify a Filecoin PoRep (sealed sector) proof; exit status 0 only when valid");
  c->footer(std::string(VERIFY_SEAL_HELP) + "\n\n" + VERIFY_SEAL_FOOTER);

  auto* type = c->add_option("--registered-proof", o->registered_proof,
                             "The proof type: its number (0-14) or name, e.g. 8 or StackedDrg32GiBV1_1");
  c->add_option("--sector-size", o->sector_size,
                "With --api-version instead of a registered type: 2KiB, 8MiB, 512MiB, 32GiB, 64GiB");
  c->add_option("--api-version", o->api_version, "rust-fil-proofs' API version: 1.0.0, 1.1.0 or 1.2.0");
  c->add_option("--porep-id", o->porep_id, "With --sector-size: the 32-byte porep_id (64 hex digits)");
  c->add_flag("--synthetic", o->synthetic, "With --sector-size: synthetic PoRep challenges (API 1.2.0)");
  c->add_option("--comm-r", o->comm_r, "The sealed commitment: 64 hex digits (little-endian Fr) or its CID");
  c->add_option("--comm-d", o->comm_d, "The unsealed (data) commitment: 64 hex digits or its CID");
  c->add_option("--prover-id", o->prover_id, "The prover id: 64 hex digits");
  c->add_option("--miner", o->miner,
                "Instead of --prover-id: the miner's actor id (f01234), as Lotus derives the prover id");
  c->add_option("--sector-id", o->sector_id, "The sector number");
  c->add_option("--ticket", o->ticket, "The sealing ticket (randomness at pre-commit): 64 hex digits");
  c->add_option("--seed", o->seed, "The interactive seed (randomness at commit): 64 hex digits");
  auto* record = c->add_option("--record", o->record, "All of the above (and the proof) as one JSON seal record")
                     ->check(CLI::ExistingFile);
  c->add_option("--line", o->line, "With --record: the record on line N (from 1) of a JSON-lines file");
  c->add_option("--vk", o->vk, "The verifying key: .vk, .params, or polka-storage's compressed key")
      ->required()
      ->check(CLI::ExistingFile);
  c->add_option("--proof", o->proof, "The partitions' proofs, 192 bytes each, concatenated (binary or hex)")
      ->check(CLI::ExistingFile);
  c->add_option("--public-out", o->public_out,
                "Also write the derived public inputs (JSON, decimal; one array per partition)");
  c->add_flag("--json", o->json, "Print the result as JSON");
  for (const char* flag : {"--sector-size", "--api-version", "--porep-id", "--synthetic", "--comm-r", "--comm-d",
                           "--prover-id", "--miner", "--sector-id", "--ticket", "--seed"})
    record->excludes(c->get_option(flag));
  record->excludes(type);

  cmds.push_back({c, [o] { return run_verify_seal(*o); }});

  auto po = std::make_shared<PostOptions>();
  auto* p = app.add_subcommand("verify-post", "Verify a Filecoin WindowPoSt proof; exit status 0 only when valid");
  p->footer(VERIFY_POST_FOOTER);
  p->add_option("--registered-proof", po->registered_proof, "The WindowPoSt type: its number (5-14) or name");
  p->add_option("--sector-size", po->sector_size, "Instead of a registered type, with --api-version: 2KiB … 64GiB");
  p->add_option("--api-version", po->api_version, "rust-fil-proofs' API version: 1.0.0 or 1.2.0");
  p->add_option("--randomness", po->randomness, "The challenge randomness: 64 hex digits");
  p->add_option("--sector", po->sectors, "ID:COMM_R of a proven sector; repeat for each");
  p->add_option("--sectors", po->sectors_file, "A file of \"ID COMM_R\" lines, instead of or beside --sector")
      ->check(CLI::ExistingFile);
  p->add_option("--vk", po->vk, "The verifying key: .vk, .params, or polka-storage's compressed key")
      ->required()
      ->check(CLI::ExistingFile);
  p->add_option("--proof", po->proof, "The partitions' proofs, 192 bytes each, concatenated (binary or hex)")
      ->required()
      ->check(CLI::ExistingFile);
  cmds.push_back({p, [po] { return run_verify_post(*po); }});
  return cmds;
}

}  // namespace snarkpipe::cli
