#include "groth16/keys.hpp"

namespace snarkpipe::groth16 {

PreparedVerifyingKey PreparedVerifyingKey::from(const VerifyingKey& vk) {
  PreparedVerifyingKey p;
  p.alpha_beta = pairing::pairing(vk.alpha_g1, vk.beta_g2);
  p.neg_gamma = pairing::G2Prepared::from(-vk.gamma_g2);
  p.neg_delta = pairing::G2Prepared::from(-vk.delta_g2);
  p.ic = vk.ic;
  return p;
}

}  // namespace snarkpipe::groth16
