#include "filecoin/replica_id.hpp"

#include <algorithm>

#include "gadgets/sha256_native.hpp"

namespace snarkpipe::filecoin {

Bytes32 replica_id(const Bytes32& prover_id, std::uint64_t sector_id, const Bytes32& ticket, const Bytes32& comm_d,
                   const PorepId& porep_id) {
  std::array<std::uint8_t, 32 + 8 + 32 + 32 + 32> msg;
  auto it = std::copy(prover_id.begin(), prover_id.end(), msg.begin());
  for (int i = 7; i >= 0; --i) *it++ = std::uint8_t(sector_id >> (8 * i));
  it = std::copy(ticket.begin(), ticket.end(), it);
  it = std::copy(comm_d.begin(), comm_d.end(), it);
  std::copy(porep_id.begin(), porep_id.end(), it);
  return truncate_to_fr(gadgets::native::sha256(msg));
}

}  // namespace snarkpipe::filecoin
