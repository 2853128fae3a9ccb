// Filecoin's sealed-sector proof types and the SDR PoRep shape of each sector size, as
// rust-fil-proofs (filecoin-proofs/src/constants.rs, parameters.rs) and
// filecoin-proofs-api (src/registry.rs) define them.
//
//   size     nodes   layers  partitions  challenges/partition
//   2 KiB    2^6     2       1           2
//   8 MiB    2^18    2       1           2
//   512 MiB  2^24    2       1           2
//   32 GiB   2^30    11      10          18   (176 minimum, ceil(176/10))
//   64 GiB   2^31    11      10          18
// (and rust-fil-proofs' test sizes 4, 16, 32 KiB, 16 MiB, 1 GiB, shaped as the small ones).
//
// A registered proof's porep_id is its registry id as a u64 little-endian in bytes 0..8, a
// nonce (0 for every published type) in bytes 8..16, zeros after.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace snarkpipe::filecoin {

using Bytes32 = std::array<std::uint8_t, 32>;
using PorepId = Bytes32;

// storage-proofs-core's ApiVersion. 1.0.0 puts the DRG predecessor last among the base parents
// and truncates the expander index to 32 bits before dividing; 1.1.0 and later put it first.
enum class ApiVersion { V1_0_0, V1_1_0, V1_2_0 };
std::string_view to_string(ApiVersion v);  // "1.0.0", …
// Accepts "1.2.0", "v1.2.0", "V1_2_0" (rust-fil-proofs' serde form) and "1.2".
std::optional<ApiVersion> parse_api_version(std::string_view s);

enum class ApiFeature { SyntheticPoRep, NonInteractivePoRep };
std::optional<ApiFeature> parse_api_feature(std::string_view s);

struct RegisteredSealProof {
  std::uint64_t id;       // the registry's (and the chain's) number, 0..19
  std::string_view name;  // filecoin-proofs-api's spelling, e.g. "StackedDrg32GiBV1_1"
  std::uint64_t sector_size;
  ApiVersion api_version;
  std::optional<ApiFeature> feature;

  PorepId porep_id() const;
};

std::span<const RegisteredSealProof> registered_seal_proofs();
// By id ("8") or by name, case-insensitively; nullptr when unknown.
const RegisteredSealProof* find_registered_seal_proof(std::string_view id_or_name);

struct SealShape {
  std::uint64_t sector_size;
  std::uint64_t nodes;  // 32-byte nodes
  unsigned layers;
  unsigned partitions;
  unsigned challenges_per_partition;
  unsigned minimum_challenges;
};

class UnknownSectorSize : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The interactive (and synthetic) PoRep shape; throws UnknownSectorSize for other sizes.
SealShape seal_shape(std::uint64_t sector_size);
// "2KiB", "32GiB", "2048", "34359738368", "512MiB" (units KiB/MiB/GiB, case-insensitive).
std::optional<std::uint64_t> parse_sector_size(std::string_view s);
std::string format_sector_size(std::uint64_t bytes);  // "32GiB"

}  // namespace snarkpipe::filecoin
