#include "engine/cpu_fallback.hpp"

#include <vector>

#include "groth16/params_file.hpp"

namespace snarkpipe::engine {

namespace {

using Query = groth16::ParamsQueries::Query;

base::HostArray<groth16::G1Affine> read_g1(const groth16::ParamsQueries& q, Query which, std::size_t n) {
  std::vector<groth16::G1Affine> points(n);
  if (n) q.read_g1(which, 0, n, points.data());
  return base::HostArray<groth16::G1Affine>(std::move(points));
}

}  // namespace

const groth16::ProvingKey& CpuFallbackBackend::on_host(const groth16::ProvingKey& pk) {
  if (pk.queries_on_host()) return pk;
  if (auto it = whole_.find(&pk); it != whole_.end()) return *it->second;
  if (!pk.deferred) throw groth16::ProverError("the key's query points are not in host memory and have no file");
  const groth16::ParamsQueries& q = *pk.deferred;
  auto whole = std::make_unique<groth16::ProvingKey>();
  whole->vk = pk.vk;
  whole->h = read_g1(q, Query::h, pk.h.size());
  whole->l = read_g1(q, Query::l, pk.l.size());
  whole->a = read_g1(q, Query::a, pk.a.size());
  whole->b_g1 = read_g1(q, Query::b_g1, pk.b_g1.size());
  std::vector<ec::G2Affine> b2(pk.b_g2.size());
  if (!b2.empty()) q.read_g2(0, b2.size(), b2.data());
  whole->b_g2 = base::HostArray<ec::G2Affine>(std::move(b2));
  return *whole_.emplace(&pk, std::move(whole)).first->second;
}

groth16::ProofParts CpuFallbackBackend::start(const groth16::ProvingKey& pk, const circuit::R1cs& r1cs,
                                              const groth16::Witness& witness, groth16::ProverTimings* timings,
                                              const groth16::ProverProgress& progress) {
  return groth16::compute_proof_parts(on_host(pk), r1cs, witness, timings, progress);
}

}  // namespace snarkpipe::engine
