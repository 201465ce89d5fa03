// The CUDA backend's MSM steps of prove_start, over the set's bases (resident or streamed) and
// scalars already in device memory: H's over the H polynomial's coefficients, then L, A, B_G1 and
// B_G2 over the witness. Host code.
#pragma once

#include <cstddef>
#include <functional>

#include "ec/curves.hpp"
#include "ff/fr.hpp"
#include "groth16/cuda/resident_parameters.hpp"
#include "groth16/prover.hpp"
#include "r1cs/proving_assignment.hpp"

namespace cuzk::groth16::cuda {

// Runs a step; when the device runs out of memory it makes room and runs it again (the backend's
// with_room): what names the step in the log.
using RoomRetry = std::function<void(const char* what, const std::function<void()>& step)>;

// H's MSM over its n - 1 coefficients in device memory. They are uniform field elements, so the
// window follows from n alone: a fixed window also spares the MSM its counting pass and host round
// trip (precomputed copies fix the window themselves).
ec::G1Jacobian msm_h(const ResidentSet& res, const ff::Fr* h, size_t n);

// As g1_msms_on_cpu, over the witness in device memory (aux, inputs): a and b_g1 hold inputs
// first, then aux. Each MSM group may grow the workspace, so each runs through with_room. Fills
// out's l, a, b_g1 and b_g2 sums and t's msm_l (added to), msm_a, msm_b_g1 and msm_b_g2.
void g1_msms_on_gpu(const ResidentSet& res, const r1cs::ProvingAssignment& pa, const ff::Fr* aux, const ff::Fr* inputs,
                    PendingProof& out, ProveTimings& t, const RoomRetry& with_room);

}  // namespace cuzk::groth16::cuda
