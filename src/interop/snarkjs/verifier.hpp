// Verification of snarkjs Groth16 proofs through the project's pairing code
// (groth16::verify_proof): e(A, B) = e(alpha_1, beta_2) e(IC_0 + sum x_i IC_i, gamma_2) e(C, delta_2).
#pragma once

#include <span>

#include "ff/fr.hpp"
#include "interop/snarkjs/json_io.hpp"

namespace cuzk::snarkjs {

// False for a proof that does not verify. Throws std::invalid_argument when the number of
// public signals differs from the key's.
bool verify(const VerifyingKey& vk, std::span<const ff::Fr> public_signals, const Proof& proof);

}  // namespace cuzk::snarkjs
