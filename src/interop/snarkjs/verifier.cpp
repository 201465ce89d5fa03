#include "interop/snarkjs/verifier.hpp"

#include "groth16/verifier.hpp"

namespace cuzk::snarkjs {

bool verify(const VerifyingKey& vk, std::span<const ff::Fr> public_signals, const Proof& proof) {
  groth16::VerifyingKey key;
  key.alpha_g1 = vk.alpha_g1;
  key.beta_g2 = vk.beta_g2;
  key.gamma_g2 = vk.gamma_g2;
  key.delta_g2 = vk.delta_g2;
  key.ic = vk.ic;
  // beta_1 and delta_1 are not part of a snarkjs verifying key and not used to verify.
  key.beta_g1 = key.delta_g1 = ec::G1Affine::infinity();
  return groth16::verify_proof(groth16::PreparedVerifyingKey(key), groth16::Proof{proof.a, proof.b, proof.c},
                               public_signals);
}

}  // namespace cuzk::snarkjs
