// Groth16 proofs for snarkjs proving keys, with snarkjs' conventions (groth16_prove.js):
//   pi_a = alpha_1 + sum_i w_i A_i + r delta_1                 (every signal, the 1 wire included)
//   pi_b = beta_2 + sum_i w_i B2_i + s delta_2
//   pi_c = sum_{i > nPublic} w_i C_i + sum_j p_j H_j + s pi_a + r (beta_1 + sum_i w_i B1_i + s delta_1)
//          - r s delta_1
// where p_j are the values of A B - C at the odd 2n-th roots of unity (odd_coset.hpp), A and B
// built from section 4's coefficients and C = A .* B on the constraint domain. The CPU prover
// uses the project's NTT (ntt::EvaluationDomain) and Pippenger MSMs; the CUDA prover the GPU
// NTT (ntt::cuda::DeviceDomain) and the GPU MSMs over bases kept resident on the device.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ec/curves.hpp"
#include "ff/fr.hpp"
#include "interop/snarkjs/json_io.hpp"
#include "interop/snarkjs/zkey_file.hpp"

namespace cuzk::snarkjs {

// Seconds spent in each phase (for the benchmark's table).
struct ProveTimings {
  double upload = 0;  // CUDA: bases made resident (first proof with a key)
  double h = 0;       // A, B, C evaluations and the coset transforms
  double msm = 0;     // every MSM, H's included
  double total = 0;
};

class Prover {
 public:
  virtual ~Prover() = default;
  virtual std::string name() const = 0;
  // r and s are the blinding factors. Throws std::invalid_argument when the witness does not
  // fit the key (count, wire 0), std::runtime_error when the device fails.
  virtual Proof prove(const Zkey& zkey, std::span<const ff::Fr> witness, const ff::Fr& r, const ff::Fr& s,
                      ProveTimings* timings = nullptr) = 0;
  // With r and s from the operating system's generator.
  Proof prove(const Zkey& zkey, std::span<const ff::Fr> witness, ProveTimings* timings = nullptr);
};

std::unique_ptr<Prover> make_cpu_prover();
// Throws std::runtime_error when cuzk was built without CUDA or the device cannot be used.
// The prover keeps the bases of the last key it proved with on the device.
std::unique_ptr<Prover> make_cuda_prover(int device = 0);

// The public signals of a witness, as snarkjs lists them: wires 1 ..= nPublic.
std::vector<ff::Fr> public_signals(const Zkey& zkey, std::span<const ff::Fr> witness);

// Shared by the backends (prover_steps.cpp).
namespace detail {

// Throws std::invalid_argument unless the witness has one value per signal and starts with 1.
void check_witness(const Zkey& zkey, std::span<const ff::Fr> witness);
// A and B on the constraint domain from section 4, each at our index coset.our_index(j) for
// snarkjs' constraint j (vectors of the domain's size).
void ab_evaluations(const Zkey& zkey, std::span<const ff::Fr> witness, const class OddCoset& coset, std::span<ff::Fr> a,
                    std::span<ff::Fr> b);
// ab_evaluations, and C = A .* B.
void constraint_evaluations(const Zkey& zkey, std::span<const ff::Fr> witness, const class OddCoset& coset,
                            std::span<ff::Fr> a, std::span<ff::Fr> b, std::span<ff::Fr> c);

struct MsmResults {
  ec::G1Jacobian a, b_g1, c, h;
  ec::G2Jacobian b_g2;
};
Proof assemble(const Zkey& zkey, const MsmResults& m, const ff::Fr& r, const ff::Fr& s);

}  // namespace detail

}  // namespace cuzk::snarkjs
