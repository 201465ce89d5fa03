// A snarkjs proving key made directly from a circuit and known toxic waste, for tests and
// benchmarks only: whoever knows the waste can forge proofs. snarkjs makes a key from a powers
// of tau that must first be prepared for phase 2 (`powersoftau prepare phase2` took 2,046 s
// at 2^14 on a 2-core machine; hours at 2^16); this computes the same sections in seconds.
//
// The key is the one zkey_new.js would derive from a ceremony whose secrets are the waste, with
// one contribution of delta and gamma = waste.gamma (snarkjs keeps gamma = 1):
//   domain n = the smallest power of two >= constraints + public signals + 1 (at least 2);
//   L_j = the Lagrange polynomial of snarkjs' n-th root w^j (odd_coset.hpp), at tau;
//   section 4 = each constraint's A and B terms, then A entry 1 for signal s at constraint
//     constraints + s for s = 0 ..= public signals;
//   u_i, v_i, w_i = sum over the signal's A (with those extra entries), B, C terms of coefficient
//     times L_j;
//   A_i = [u_i]_1, B1_i = [v_i]_1, B2_i = [v_i]_2;
//   IC_i = [(beta u_i + alpha v_i + w_i) / gamma]_1 (i <= public signals), C_i the same over
//     delta for the private signals;
//   H_j = [L'_(2j+1) / delta]_1, L' over snarkjs' 2n-th roots.
#pragma once

#include "groth16/setup.hpp"
#include "interop/snarkjs/r1cs_file.hpp"
#include "interop/snarkjs/zkey_file.hpp"

namespace cuzk::snarkjs {

// Throws std::invalid_argument when gamma or delta is zero, tau is a 2n-th root of unity, or
// the circuit does not fit snarkjs' largest domain (2^31 points: it needs the 2n-th roots).
Zkey setup_from_toxic_waste(const R1cs& r1cs, const groth16::ToxicWaste& waste);

}  // namespace cuzk::snarkjs
