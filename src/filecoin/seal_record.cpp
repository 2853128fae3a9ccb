#include "filecoin/seal_record.hpp"

#include <charconv>

#include <nlohmann/json.hpp>

#include "filecoin/commitment.hpp"

namespace snarkpipe::filecoin {
namespace {

using nlohmann::json;

const json& member(const json& obj, const char* key, const std::string& path) {
  const auto it = obj.find(key);
  if (it == obj.end()) throw SealInputError(path, "missing");
  return *it;
}

std::vector<std::uint8_t> byte_array(const json& v, const std::string& field) {
  std::vector<std::uint8_t> out;
  if (v.is_string()) {
    std::string_view s = v.get_ref<const std::string&>();
    if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
    if (s.size() % 2 != 0) throw SealInputError(field, "hex string of odd length");
    for (std::size_t i = 0; i < s.size(); i += 2) {
      unsigned b = 0;
      const auto [p, ec] = std::from_chars(s.data() + i, s.data() + i + 2, b, 16);
      if (ec != std::errc() || p != s.data() + i + 2) throw SealInputError(field, "is not hex");
      out.push_back(std::uint8_t(b));
    }
    return out;
  }
  if (!v.is_array()) throw SealInputError(field, "must be an array of byte values or a hex string");
  out.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_number_unsigned() || v[i].get<std::uint64_t>() > 255)
      throw SealInputError(field, "element " + std::to_string(i) + " is not a byte (0..255)");
    out.push_back(std::uint8_t(v[i].get<std::uint64_t>()));
  }
  return out;
}

Bytes32 bytes32(const json& obj, const char* key, const std::string& path,
                std::optional<CommitmentKind> kind = std::nullopt) {
  const json& v = member(obj, key, path);
  if (kind && v.is_string()) return parse_commitment(v.get_ref<const std::string&>(), *kind, path);
  const std::vector<std::uint8_t> b = byte_array(v, path);
  if (b.size() != 32) throw SealInputError(path, "has " + std::to_string(b.size()) + " bytes, needs 32");
  Bytes32 out;
  std::copy(b.begin(), b.end(), out.begin());
  return out;
}

std::uint64_t unsigned_number(const json& obj, const char* key, const std::string& path) {
  const json& v = member(obj, key, path);
  if (!v.is_number_unsigned()) throw SealInputError(path, "must be a non-negative integer");
  return v.get<std::uint64_t>();
}

// A value for an error message: a string (cut short), or the kind of value. Never dump(): it
// recurses, and a hostile record nests arrays deep enough to overflow the stack (issue 27).
std::string describe(const json& v) {
  if (!v.is_string()) return std::string("(a JSON ") + v.type_name() + ")";
  const std::string& s = v.get_ref<const std::string&>();
  return "\"" + s.substr(0, 64) + (s.size() > 64 ? "...\"" : "\"");
}

}  // namespace

SealRecord parse_seal_record(std::string_view text) {
  json j;
  bool too_deep = false;
  try {
    // A record is a few levels deep; deeper values are dropped as they are read and the record
    // refused (the callback must not throw: nlohmann calls it where an exception terminates).
    j = json::parse(text, [&too_deep](int depth, json::parse_event_t, json&) {
      if (depth <= 64) return true;
      too_deep = true;
      return false;
    });
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number like 1e966
    throw SealInputError("record", std::string("not JSON: ") + e.what());
  }
  if (too_deep) throw SealInputError("record", "nested deeper than 64 levels");
  if (!j.is_object()) throw SealInputError("record", "must be a JSON object");
  const json& pc = member(j, "porep_config", "porep_config");
  if (!pc.is_object()) throw SealInputError("porep_config", "must be an object");

  SealRecord r;
  PorepConfig& c = r.inputs.config;
  c.sector_size = unsigned_number(pc, "sector_size", "porep_config.sector_size");
  SealShape shape;
  try {
    shape = seal_shape(c.sector_size);
  } catch (const UnknownSectorSize& e) {
    throw SealInputError("porep_config.sector_size", e.what());
  }
  c.porep_id = bytes32(pc, "porep_id", "porep_config.porep_id");
  const json& version = member(pc, "api_version", "porep_config.api_version");
  const auto v = version.is_string() ? parse_api_version(version.get_ref<const std::string&>()) : std::nullopt;
  if (!v) throw SealInputError("porep_config.api_version", "must be \"V1_0_0\", \"V1_1_0\" or \"V1_2_0\"");
  c.api_version = *v;
  if (const auto it = pc.find("api_features"); it != pc.end()) {
    if (!it->is_array()) throw SealInputError("porep_config.api_features", "must be an array");
    for (const json& f : *it) {
      const auto feature = f.is_string() ? parse_api_feature(f.get_ref<const std::string&>()) : std::nullopt;
      if (!feature) throw SealInputError("porep_config.api_features", "unknown feature " + describe(f));
      if (*feature == ApiFeature::NonInteractivePoRep)
        throw SealInputError("porep_config.api_features",
                             "NonInteractivePoRep proofs are SnarkPack aggregates, which verify-seal does not check");
      c.synthetic = true;
    }
  }
  const std::uint64_t partitions = unsigned_number(pc, "partitions", "porep_config.partitions");
  if (partitions != shape.partitions)
    throw SealInputError("porep_config.partitions", std::to_string(partitions) + ", but a " +
                                                        format_sector_size(c.sector_size) + " PoRep has " +
                                                        std::to_string(shape.partitions));

  r.inputs.comm_r = bytes32(j, "comm_r", "comm_r", CommitmentKind::Sealed);
  r.inputs.comm_d = bytes32(j, "comm_d", "comm_d", CommitmentKind::Unsealed);
  r.inputs.prover_id = bytes32(j, "prover_id", "prover_id");
  r.inputs.sector_id = unsigned_number(j, "sector_id", "sector_id");
  r.inputs.ticket = bytes32(j, "ticket", "ticket");
  r.inputs.seed = bytes32(j, "seed", "seed");
  r.proof = byte_array(member(j, "proof", "proof"), "proof");
  return r;
}

}  // namespace snarkpipe::filecoin
