#include "groth16/cuda/proof_msms.hpp"

#include <chrono>
#include <stdexcept>
#include <string_view>

#include "groth16/cuda/injected_faults.hpp"
#include "msm/cuda/msm.hpp"
#include "msm/pippenger.hpp"
#include "util/elapsed.hpp"

namespace cuzk::groth16::cuda {

using ff::Fr;
using Clock = std::chrono::steady_clock;

ec::G1Jacobian msm_h(const ResidentSet& res, const Fr* h, size_t n) {
  const msm::MsmOptions uniform{.window_bits = res.h->window_bits() ? 0 : msm::cuda::gpu_window_bits(n - 1)};
  inject_device_oom("cudaMalloc of the MSM workspace for H");
  inject_launch_error("MSM kernels of H");
  return msm::cuda::msm(*res.h, 0, n - 1, h, uniform);
}

void g1_msms_on_gpu(const ResidentSet& res, const r1cs::ProvingAssignment& pa, const Fr* aux, const Fr* inputs,
                    PendingProof& out, ProveTimings& t, const RoomRetry& with_room) {
  auto view = [](const r1cs::DensityTracker& d) { return msm::DensityView{d.words(), d.size()}; };
  // One device-memory request and one launch site per MSM group.
  auto sites = [](std::string_view group) {
    inject_device_oom("cudaMalloc of the MSM workspace for ", group);
    inject_launch_error("MSM kernels of ", group);
  };
  auto t0 = Clock::now();
  with_room("L's MSM", [&] {
    sites("L");
    out.l = msm::cuda::msm(*res.l, 0, pa.num_aux(), aux);
  });
  t.msm_l += seconds_since(t0);
  t0 = Clock::now();
  const size_t a_aux = pa.a_aux_density().count_ones();
  if (res.a->size() != pa.num_inputs() + a_aux) throw std::invalid_argument("a query does not fit the circuit");
  with_room("A's MSMs", [&] {
    sites("A");
    out.a_inputs = msm::cuda::msm(*res.a, 0, pa.num_inputs(), inputs);
    out.a_aux = msm::cuda::msm_with_density(*res.a, pa.num_inputs(), aux, view(pa.a_aux_density()));
  });
  t.msm_a = seconds_since(t0);
  t0 = Clock::now();
  const size_t b_in = pa.b_input_density().count_ones();
  if (res.b_g1->size() != b_in + pa.b_aux_density().count_ones()) {
    throw std::invalid_argument("b_g1 query does not fit the circuit");
  }
  with_room("B_G1's MSMs", [&] {
    sites("B_G1");
    out.b_g1_inputs = msm::cuda::msm_with_density(*res.b_g1, 0, inputs, view(pa.b_input_density()));
    out.b_g1_aux = msm::cuda::msm_with_density(*res.b_g1, b_in, aux, view(pa.b_aux_density()));
  });
  t.msm_b_g1 = seconds_since(t0);
  // B in G2 here too: the GPU G2 MSM beats the CPU tail 24-41x (docs/PERF.md), so prove_finish is
  // left with the assembly alone.
  t0 = Clock::now();
  if (res.b_g2->size() != res.b_g1->size()) throw std::invalid_argument("b_g2 query does not fit the circuit");
  with_room("B_G2's MSMs", [&] {
    sites("B_G2");
    const ec::G2Jacobian inputs_part = msm::cuda::msm_with_density(*res.b_g2, 0, inputs, view(pa.b_input_density()));
    out.b_g2 = inputs_part + msm::cuda::msm_with_density(*res.b_g2, b_in, aux, view(pa.b_aux_density()));
  });
  t.msm_b_g2 = seconds_since(t0);
}

}  // namespace cuzk::groth16::cuda
