// Groth16 verification: e(A, B) = e(alpha, beta) e(sum x_i IC_i, gamma) e(C, delta), checked as
// one multi-pairing with prepared G2 points; batch verification by a random linear combination.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "groth16/parameters.hpp"

namespace cuzk::groth16 {

// public_inputs excludes ONE. Throws std::invalid_argument when their number does not match
// the key; returns false for a proof that does not verify.
bool verify_proof(const PreparedVerifyingKey& pvk, const Proof& proof, std::span<const Fr> public_inputs);

// What is wrong with a proof's points ("C is not on the curve", "B is not in the subgroup"), or
// nullopt when A and C lie in G1 and B in G2. Microseconds: the check every made proof passes
// before it may leave, whatever else is configured (corrupt parameters make points off the curve).
std::optional<std::string> proof_point_error(const Proof& proof);

// All proofs at once with random 128-bit weights: one multi-pairing of (k + 3) terms.
bool verify_proofs_batch(const PreparedVerifyingKey& pvk, std::span<const Proof> proofs,
                         std::span<const std::vector<Fr>> public_inputs);

}  // namespace cuzk::groth16
