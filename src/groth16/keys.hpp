// Groth16 keys in bellperson's shape (REFERENCE.md §3): the verifying key, the proving key
// ("parameters": the verifying key plus the five queries), and the prepared verifying key
// that verification uses (e(α, β) computed once, -γ and -δ as precomputed Miller lines).
#pragma once

#include <memory>
#include <vector>

#include "base/host_array.hpp"

#include "ec/curves.hpp"
#include "pairing/pairing.hpp"

namespace snarkpipe::groth16 {

using ec::G1Affine;
using ec::G2Affine;
using ff::Fp12;
using ff::Fr;

struct VerifyingKey {
  G1Affine alpha_g1;
  G1Affine beta_g1;
  G2Affine beta_g2;
  G2Affine gamma_g2;
  G1Affine delta_g1;
  G2Affine delta_g2;
  // (β·u_i(τ) + α·v_i(τ) + w_i(τ))/γ for every input, the constant ONE first.
  std::vector<G1Affine> ic;

  std::size_t num_inputs() const { return ic.size(); }  // including ONE
  friend bool operator==(const VerifyingKey&, const VerifyingKey&) = default;
};

class ParamsQueries;  // params_file.hpp

struct ProvingKey {
  VerifyingKey vk;
  base::HostArray<G1Affine> h;     // τ^i·t(τ)/δ, i < m-1
  base::HostArray<G1Affine> l;     // (β·u_j + α·v_j + w_j)/δ per aux variable
  base::HostArray<G1Affine> a;     // u_i(τ) for all inputs, then aux with A-density
  base::HostArray<G1Affine> b_g1;  // v_i(τ): inputs with B-density, then aux with B-density
  base::HostArray<ec::G2Affine> b_g2;
  // Non-null for a key whose five queries were left in their .params file (open_params_deferred):
  // the arrays above then hold their sizes only, and a GPU backend reads the points from here
  // into device (or its own page-locked) memory, so the host never holds a copy.
  std::shared_ptr<const ParamsQueries> deferred;

  std::size_t domain_size() const { return h.size() + 1; }
  std::size_t num_aux() const { return l.size(); }
  // False for a deferred key: the CPU prover, and anything else that reads the points, refuses it.
  bool queries_on_host() const { return h.on_host() && l.on_host() && a.on_host() && b_g1.on_host() && b_g2.on_host(); }
  friend bool operator==(const ProvingKey&, const ProvingKey&) = default;
};

struct PreparedVerifyingKey {
  Fp12 alpha_beta;                // e(α, β)
  pairing::G2Prepared neg_gamma;  // lines of -γ
  pairing::G2Prepared neg_delta;  // lines of -δ
  std::vector<G1Affine> ic;

  static PreparedVerifyingKey from(const VerifyingKey& vk);
};

}  // namespace snarkpipe::groth16
