// The Groth16 prover with the split API the engine uses:
//   prove_start  - everything in G1: the H polynomial (NTTs) and the H, L, A and B_G1 MSMs;
//                  afterwards the a/b/c vectors are released;
//   prove_finish - the B_G2 MSM and the assembly of A, B, C with the blinding r, s.
// On the CPU backend both run here; the CUDA backend will run prove_start on the GPU.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "groth16/parameters.hpp"
#include "r1cs/proving_assignment.hpp"

namespace cuzk::groth16 {

// What prove_start hands to prove_finish.
struct PendingProof {
  G1Jacobian h, l, a_inputs, a_aux, b_g1_inputs, b_g1_aux;
  Fr r, s;
  // B's G2 MSM when the backend already computed it (the CUDA backend does, on the device:
  // 24-41x the CPU's speed at the PoRep profile); otherwise prove_finish runs it on the CPU.
  std::optional<G2Jacobian> b_g2;
};

// Time spent in each phase, in seconds (for the benchmark table).
// abc: computing a, b and c from a witness-only synthesis' compiled circuit (0 otherwise).
struct ProveTimings {
  double abc = 0, h_ntt = 0, msm_h = 0, msm_l = 0, msm_a = 0, msm_b_g1 = 0, msm_b_g2 = 0, finish = 0;
};

// Synthesizes circuit into a fresh assignment and appends the input constraints.
r1cs::ProvingAssignment synthesize(const r1cs::Circuit& circuit);
// The same, witness only (r1cs::ProvingAssignment's second mode): a, b and c are left to
// prove_start, which computes them from compiled. Throws std::logic_error when the synthesis does
// not match compiled (recorded from other circuit code).
r1cs::ProvingAssignment synthesize_witness(const r1cs::Circuit& circuit,
                                           std::shared_ptr<const r1cs::CompiledCircuit> compiled);
// The same into a kept witness's memory (r1cs::ProvingAssignment::adopt_witness), its hold kept.
r1cs::ProvingAssignment synthesize_witness(const r1cs::Circuit& circuit,
                                           std::shared_ptr<const r1cs::CompiledCircuit> compiled,
                                           r1cs::KeptWitness&& into);

// Throws std::invalid_argument when the assignment does not fit the parameters.
PendingProof prove_start(const Parameters& params, r1cs::ProvingAssignment& assignment, const Fr& r, const Fr& s,
                         ProveTimings* timings = nullptr);
// Throws std::invalid_argument when the parameters do not fit the assignment over a domain of n
// points (shared by every backend).
void check_assignment(const Parameters& params, const r1cs::ProvingAssignment& assignment, size_t n);
// The L, A (inputs, aux with density) and B_G1 (inputs and aux with density) MSMs of
// prove_start on the CPU, into out (the H MSM is the caller's).
void g1_msms_on_cpu(const Parameters& params, const r1cs::ProvingAssignment& assignment, PendingProof& out,
                    ProveTimings& timings);

Proof prove_finish(const Parameters& params, const r1cs::ProvingAssignment& assignment, const PendingProof& pending,
                   ProveTimings* timings = nullptr);

// Both halves, with r and s drawn from the operating system's generator.
Proof prove(const Parameters& params, const r1cs::Circuit& circuit);
// Many partitions (one circuit each) with the same parameters.
std::vector<Proof> prove_batch(const Parameters& params, std::span<const r1cs::Circuit* const> circuits);

}  // namespace cuzk::groth16
