#include "groth16/verifier.hpp"

#include <stdexcept>
#include <string>
#include <utility>

#include "ff/os_rng.hpp"
#include "msm/pippenger.hpp"

namespace cuzk::groth16 {
namespace {

G1Jacobian input_combination(const PreparedVerifyingKey& pvk, std::span<const Fr> inputs) {
  if (inputs.size() + 1 != pvk.ic.size()) {
    throw std::invalid_argument("verifying key expects " + std::to_string(pvk.ic.size() - 1) + " public inputs, got " +
                                std::to_string(inputs.size()));
  }
  G1Jacobian acc = G1Jacobian::from_affine(pvk.ic[0]);
  return acc + msm::msm<ec::G1Curve>(std::span(pvk.ic).subspan(1), inputs);
}

}  // namespace

PreparedVerifyingKey::PreparedVerifyingKey(const VerifyingKey& vk)
    : neg_alpha_g1(-vk.alpha_g1), beta_g2(vk.beta_g2), gamma_g2(vk.gamma_g2), delta_g2(vk.delta_g2), ic(vk.ic) {
  if (ic.empty()) throw std::invalid_argument("verifying key has no IC points");
}

bool verify_proof(const PreparedVerifyingKey& pvk, const Proof& proof, std::span<const Fr> public_inputs) {
  // e(A, B) e(-alpha, beta) e(-acc, gamma) e(-C, delta) = 1
  const G1Affine neg_acc = (-input_combination(pvk, public_inputs)).to_affine();
  const G1Affine neg_c = -proof.c;
  const pairing::G2Prepared b(proof.b);
  const pairing::PairingTerm terms[] = {
      {&proof.a, &b}, {&pvk.neg_alpha_g1, &pvk.beta_g2}, {&neg_acc, &pvk.gamma_g2}, {&neg_c, &pvk.delta_g2}};
  return pairing::pairing_product_is_one(terms);
}

std::optional<std::string> proof_point_error(const Proof& proof) {
  for (const auto& [name, point] : {std::pair{"A", &proof.a}, std::pair{"C", &proof.c}}) {
    if (!point->is_on_curve()) return std::string(name) + " is not on the curve";
    if (!ec::g1_is_in_subgroup(*point)) return std::string(name) + " is not in the subgroup";
  }
  if (!proof.b.is_on_curve()) return std::string("B is not on the curve");
  if (!ec::g2_is_in_subgroup(proof.b)) return std::string("B is not in the subgroup");
  return std::nullopt;
}

bool verify_proofs_batch(const PreparedVerifyingKey& pvk, std::span<const Proof> proofs,
                         std::span<const std::vector<Fr>> public_inputs) {
  if (proofs.size() != public_inputs.size()) throw std::invalid_argument("batch verify: one input list per proof");
  if (proofs.empty()) return true;
  ff::OsRng rng;
  const size_t k = proofs.size();
  std::vector<G1Affine> weighted_a(k);
  std::vector<pairing::G2Prepared> bs;
  bs.reserve(k);
  G1Jacobian sum_acc = G1Jacobian::infinity(), sum_c = G1Jacobian::infinity();
  Fr sum_z = Fr::zero();
  for (size_t j = 0; j < k; j++) {
    // 128-bit weights: a forged proof passes with probability 2^-128.
    const Fr z = Fr::from_canonical(ff::BigInt<4>{{rng(), rng(), 0, 0}});
    weighted_a[j] = ec::g1_mul(proofs[j].a, z).to_affine();
    bs.emplace_back(proofs[j].b);
    sum_acc += ec::g1_mul(input_combination(pvk, public_inputs[j]), z);
    sum_c += ec::g1_mul(proofs[j].c, z);
    sum_z += z;
  }
  const G1Affine neg_alpha = ec::g1_mul(pvk.neg_alpha_g1, sum_z).to_affine();
  const G1Affine neg_acc = (-sum_acc).to_affine();
  const G1Affine neg_c = (-sum_c).to_affine();
  std::vector<pairing::PairingTerm> terms;
  for (size_t j = 0; j < k; j++) terms.push_back({&weighted_a[j], &bs[j]});
  terms.push_back({&neg_alpha, &pvk.beta_g2});
  terms.push_back({&neg_acc, &pvk.gamma_g2});
  terms.push_back({&neg_c, &pvk.delta_g2});
  return pairing::pairing_product_is_one(terms);
}

}  // namespace cuzk::groth16
