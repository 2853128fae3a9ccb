#include "filecoin/sector.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace snarkpipe::filecoin {
namespace {

constexpr std::uint64_t KiB = 1ull << 10, MiB = 1ull << 20, GiB = 1ull << 30;

using enum ApiVersion;
constexpr auto SYNTH = ApiFeature::SyntheticPoRep;
constexpr auto NI = ApiFeature::NonInteractivePoRep;

// filecoin-proofs-api REGISTERED_PROOF_IDS, in id order.
constexpr RegisteredSealProof PROOFS[] = {
    {0, "StackedDrg2KiBV1", 2 * KiB, V1_0_0, std::nullopt},
    {1, "StackedDrg8MiBV1", 8 * MiB, V1_0_0, std::nullopt},
    {2, "StackedDrg512MiBV1", 512 * MiB, V1_0_0, std::nullopt},
    {3, "StackedDrg32GiBV1", 32 * GiB, V1_0_0, std::nullopt},
    {4, "StackedDrg64GiBV1", 64 * GiB, V1_0_0, std::nullopt},
    {5, "StackedDrg2KiBV1_1", 2 * KiB, V1_1_0, std::nullopt},
    {6, "StackedDrg8MiBV1_1", 8 * MiB, V1_1_0, std::nullopt},
    {7, "StackedDrg512MiBV1_1", 512 * MiB, V1_1_0, std::nullopt},
    {8, "StackedDrg32GiBV1_1", 32 * GiB, V1_1_0, std::nullopt},
    {9, "StackedDrg64GiBV1_1", 64 * GiB, V1_1_0, std::nullopt},
    {10, "StackedDrg2KiBV1_1_Feat_SyntheticPoRep", 2 * KiB, V1_2_0, SYNTH},
    {11, "StackedDrg8MiBV1_1_Feat_SyntheticPoRep", 8 * MiB, V1_2_0, SYNTH},
    {12, "StackedDrg512MiBV1_1_Feat_SyntheticPoRep", 512 * MiB, V1_2_0, SYNTH},
    {13, "StackedDrg32GiBV1_1_Feat_SyntheticPoRep", 32 * GiB, V1_2_0, SYNTH},
    {14, "StackedDrg64GiBV1_1_Feat_SyntheticPoRep", 64 * GiB, V1_2_0, SYNTH},
    {15, "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", 2 * KiB, V1_2_0, NI},
    {16, "StackedDrg8MiBV1_2_Feat_NonInteractivePoRep", 8 * MiB, V1_2_0, NI},
    {17, "StackedDrg512MiBV1_2_Feat_NonInteractivePoRep", 512 * MiB, V1_2_0, NI},
    {18, "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep", 32 * GiB, V1_2_0, NI},
    {19, "StackedDrg64GiBV1_2_Feat_NonInteractivePoRep", 64 * GiB, V1_2_0, NI},
};

bool iequal(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

std::string_view to_string(ApiVersion v) {
  switch (v) {
    case V1_0_0:
      return "1.0.0";
    case V1_1_0:
      return "1.1.0";
    case V1_2_0:
      return "1.2.0";
  }
  return "?";
}

std::optional<ApiVersion> parse_api_version(std::string_view s) {
  if (!s.empty() && (s[0] == 'v' || s[0] == 'V')) s.remove_prefix(1);
  std::string norm(s);
  std::replace(norm.begin(), norm.end(), '_', '.');
  if (norm == "1.0.0" || norm == "1.0") return V1_0_0;
  if (norm == "1.1.0" || norm == "1.1") return V1_1_0;
  if (norm == "1.2.0" || norm == "1.2") return V1_2_0;
  return std::nullopt;
}

std::optional<ApiFeature> parse_api_feature(std::string_view s) {
  if (iequal(s, "SyntheticPoRep")) return SYNTH;
  if (iequal(s, "NonInteractivePoRep")) return NI;
  return std::nullopt;
}

PorepId RegisteredSealProof::porep_id() const {
  PorepId out{};
  for (int i = 0; i < 8; ++i) out[i] = std::uint8_t(id >> (8 * i));
  // bytes 8..16: the nonce, 0 for every registered type
  return out;
}

std::span<const RegisteredSealProof> registered_seal_proofs() { return PROOFS; }

const RegisteredSealProof* find_registered_seal_proof(std::string_view id_or_name) {
  std::uint64_t id = 0;
  const auto [end, ec] = std::from_chars(id_or_name.data(), id_or_name.data() + id_or_name.size(), id);
  const bool numeric = ec == std::errc() && end == id_or_name.data() + id_or_name.size();
  for (const auto& p : PROOFS)
    if (numeric ? p.id == id : iequal(p.name, id_or_name)) return &p;
  return nullptr;
}

SealShape seal_shape(std::uint64_t sector_size) {
  switch (sector_size) {
    case 2 * KiB:
    case 4 * KiB:
    case 16 * KiB:
    case 32 * KiB:
    case 8 * MiB:
    case 16 * MiB:
    case 512 * MiB:
    case 1 * GiB:
      return {sector_size, sector_size / 32, 2, 1, 2, 2};
    case 32 * GiB:
    case 64 * GiB:
      return {sector_size, sector_size / 32, 11, 10, 18, 176};
    default:
      throw UnknownSectorSize("unsupported sector size " + std::to_string(sector_size) +
                              " bytes (Filecoin seals 2KiB, 8MiB, 512MiB, 32GiB and 64GiB sectors; rust-fil-proofs "
                              "also tests 4KiB, 16KiB, 32KiB, 16MiB and 1GiB)");
  }
}

std::optional<std::uint64_t> parse_sector_size(std::string_view s) {
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || end == s.data()) return std::nullopt;
  const std::string_view unit(end, s.data() + s.size() - end);
  std::uint64_t mult = 0;
  if (unit.empty()) mult = 1;
  else if (iequal(unit, "KiB")) mult = KiB;
  else if (iequal(unit, "MiB")) mult = MiB;
  else if (iequal(unit, "GiB")) mult = GiB;
  else return std::nullopt;
  if (n > ~std::uint64_t(0) / mult) return std::nullopt;
  return n * mult;
}

std::string format_sector_size(std::uint64_t bytes) {
  if (bytes >= GiB && bytes % GiB == 0) return std::to_string(bytes / GiB) + "GiB";
  if (bytes >= MiB && bytes % MiB == 0) return std::to_string(bytes / MiB) + "MiB";
  if (bytes >= KiB && bytes % KiB == 0) return std::to_string(bytes / KiB) + "KiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace snarkpipe::filecoin
