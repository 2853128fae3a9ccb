#include "groth16/proof.hpp"

#include <algorithm>

namespace snarkpipe::groth16 {

std::array<std::uint8_t, Proof::BYTES> Proof::to_bytes() const {
  std::array<std::uint8_t, BYTES> out{};
  const auto ab = ec::g1_to_compressed(a);
  const auto bb = ec::g2_to_compressed(b);
  const auto cb = ec::g1_to_compressed(c);
  std::copy(ab.begin(), ab.end(), out.begin());
  std::copy(bb.begin(), bb.end(), out.begin() + 48);
  std::copy(cb.begin(), cb.end(), out.begin() + 144);
  return out;
}

Proof Proof::from_bytes(std::span<const std::uint8_t> bytes) {
  if (bytes.size() != BYTES) throw ProofFormatError("proof must be 192 bytes, got " + std::to_string(bytes.size()));
  auto fail = [](const char* which, ec::DecodeError e) {
    throw ProofFormatError(std::string("proof point ") + which + ": " + ec::describe(e));
  };
  const auto a = ec::g1_from_bytes(bytes.subspan(0, 48));
  if (!a) fail("A", a.error());
  const auto b = ec::g2_from_bytes(bytes.subspan(48, 96));
  if (!b) fail("B", b.error());
  const auto c = ec::g1_from_bytes(bytes.subspan(144, 48));
  if (!c) fail("C", c.error());
  Proof p{a.value(), b.value(), c.value()};
  if (p.a.is_identity() || p.b.is_identity() || p.c.is_identity())
    throw ProofFormatError("proof contains a point at infinity");
  return p;
}

std::vector<std::uint8_t> encode_proofs(std::span<const Proof> proofs) {
  std::vector<std::uint8_t> out;
  out.reserve(proofs.size() * Proof::BYTES);
  for (const auto& p : proofs) {
    const auto b = p.to_bytes();
    out.insert(out.end(), b.begin(), b.end());
  }
  return out;
}

std::vector<Proof> decode_proofs(std::span<const std::uint8_t> bytes) {
  if (bytes.empty() || bytes.size() % Proof::BYTES != 0)
    throw ProofFormatError("proof file length " + std::to_string(bytes.size()) + " is not a positive multiple of 192");
  std::vector<Proof> out;
  for (std::size_t i = 0; i < bytes.size(); i += Proof::BYTES) {
    try {
      out.push_back(Proof::from_bytes(bytes.subspan(i, Proof::BYTES)));
    } catch (const ProofFormatError& e) {
      throw ProofFormatError("partition " + std::to_string(i / Proof::BYTES) + ": " + e.what());
    }
  }
  return out;
}

}  // namespace snarkpipe::groth16
