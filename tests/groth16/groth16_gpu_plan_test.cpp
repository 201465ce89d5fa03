// The CUDA backend under its device memory plan (groth16/cuda/device_memory_plan.hpp), on cards
// made small with CudaBackendOptions::device_memory_bytes: a plan that overlays the scratch and
// streams most bases, one that streams half of them, and the whole card give the CPU backend's
// PendingProof for the same r and s (so the same proof; groth16_gpu_test verifies the CUDA
// backend's proofs); a second parameter set takes the room of the first one's copies of H;
// place_matrices says whether a witness-only proof's a/b/c are formed on the device.
// Skipped cleanly when no CUDA device is present.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "circuits/synthetic.hpp"
#include "groth16/backend.hpp"
#include "groth16/cuda/device_memory_plan.hpp"
#include "groth16/cuda/resident_parameters.hpp"
#include "groth16/fault_injection.hpp"
#include "groth16/setup.hpp"
#include "msm/cuda/msm.hpp"
#include "r1cs/compiled_circuit.hpp"
#include "r1cs/shape.hpp"
#include "squares_circuit.hpp"
#include "test_support.hpp"

namespace cuzk::groth16 {
namespace {

class CudaBackendPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  }
  void TearDown() override {
    if (cuda_device_count() == 0) return;
    msm::cuda::set_workspace_limit(0, 0);  // the plans set it for the whole device
    msm::cuda::release_workspace(0);
  }
};

void expect_same(const PendingProof& x, const PendingProof& y, const std::string& what) {
  EXPECT_EQ(x.h.to_affine(), y.h.to_affine()) << what;
  EXPECT_EQ(x.l.to_affine(), y.l.to_affine()) << what;
  EXPECT_EQ(x.a_inputs.to_affine(), y.a_inputs.to_affine()) << what;
  EXPECT_EQ(x.a_aux.to_affine(), y.a_aux.to_affine()) << what;
  EXPECT_EQ(x.b_g1_inputs.to_affine(), y.b_g1_inputs.to_affine()) << what;
  EXPECT_EQ(x.b_g1_aux.to_affine(), y.b_g1_aux.to_affine()) << what;
}

// The card size that leaves the plan `available` bytes: what the process and others use now,
// plus available, plus the 6% margin of the card it makes.
size_t card_for(size_t available) {
  msm::cuda::release_workspace(0);
  size_t free_bytes = 0, total_bytes = 0;
  EXPECT_EQ(cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
  return size_t(double(total_bytes - free_bytes + available) / 0.94) + 1;
}

TEST_F(CudaBackendPlanTest, EveryPlanProvesWhatTheCpuProves) {
  const size_t n = size_t(1) << 19;
  const circuits::SyntheticCircuit circuit(n - 40, 8, {}, test::run_seed());
  const Parameters params = pseudo_random_parameters(synthesize(circuit), n, test::run_seed() + 3);
  auto rng = test::make_rng();
  const Fr r = Fr::random(rng), s = Fr::random(rng);
  auto pa_cpu = synthesize(circuit);
  const PendingProof want = make_cpu_backend()->prove_start(params, pa_cpu, r, s);
  const auto proof_cpu = encode_proof(prove_finish(params, pa_cpu, want));

  // The plan's pieces at this shape, from a plan with room for everything. Cards get 40 MiB more
  // than they need: loading the kernels takes some device memory after the card is measured.
  const cuda::ProofShape shape = cuda::proof_shape(params);
  const cuda::DeviceMemoryPlan roomy =
      cuda::plan_device_memory(size_t(1) << 40, 0, shape, cuda::query_bytes(params), params.h.size(), 1);
  const size_t overlaid_fixed = 32 * std::max(2 * n, shape.aux + shape.inputs) + roomy.twiddles + roomy.compact_abc;
  const size_t floor = cuda::msm_workspace_floor(n), slack = size_t(40) << 20, bases = params.base_bytes();
  ASSERT_GT(bases, 4 * slack) << "the test needs bases that outweigh the slack";
  struct Card {
    std::string name;
    size_t available;                     // 0: the whole card
    std::vector<std::string> has, lacks;  // in the plan's summary
  };
  const Card cards[] = {
      {"overlaid, bases streamed", overlaid_fixed + floor + slack, {"overlaid", "streamed"}, {}},
      {"half the bases streamed", overlaid_fixed + floor + slack + bases / 2, {"streamed"}, {}},
      {"the whole card", 0, {"separate"}, {"streamed"}},
  };
  for (const Card& card : cards) {
    SCOPED_TRACE(card.name);
    auto gpu = make_cuda_backend(0, {.device_memory_bytes = card.available ? card_for(card.available) : 0});
    for (int rep = 0; rep < 2; rep++) {  // the second proof reuses what the first placed
      auto pa = synthesize(circuit);
      const PendingProof got = gpu->prove_start(params, pa, r, s);
      expect_same(got, want, card.name);
      EXPECT_EQ(encode_proof(prove_finish(params, pa, got)), proof_cpu) << card.name;
    }
    const DeviceInfo info = gpu->device_info();
    for (const std::string& word : card.has)
      EXPECT_NE(info.memory_plan.find(word), std::string::npos) << info.memory_plan;
    for (const std::string& word : card.lacks)
      EXPECT_EQ(info.memory_plan.find(word), std::string::npos) << info.memory_plan;
    EXPECT_FALSE(info.memory_plan_bytes.empty());
  }
}

// place_matrices on the whole card: the witness-only circuit's matrices placed, the plan separate,
// nothing to say, a/b/c formed on the device; on a card whose plan beside the matrices would
// overlay the witness on a/b/c: it says so before anything moves (the engine then proves the set
// by full synthesis), and a witness-only assignment given to it all the same has its a/b/c formed
// on the CPU. Both give the CPU backend's proof. (The refusal after an upload, when the prediction
// was wrong, is not driven here.) On the whole card, the matrices let go afterwards (another
// device refused) give the plan its compact a/b/c room back, and a full synthesis the same proof.
TEST_F(CudaBackendPlanTest, PlaceMatricesSaysWhenTheWitnessIsOverlaid) {
  // 2^21: a witness-only proof's separate layout needs 32 bytes a point of min(2n, witness) more
  // than the overlaid one, which must exceed the slack below.
  const size_t n = size_t(1) << 21;
  test::SquaresCircuit circuit;  // coefficients 1 only: the synthetic circuit's overflow the table
  circuit.count = (size_t(1) << 20) - 8;
  circuit.seed = test::run_seed() + 11;
  const Parameters params = pseudo_random_parameters(synthesize(circuit), n, test::run_seed() + 12);
  const auto compiled = std::make_shared<const r1cs::CompiledCircuit>(r1cs::compile_circuit(circuit));
  auto rng = test::make_rng();
  const Fr r = Fr::random(rng), s = Fr::random(rng);
  auto pa_cpu = synthesize(circuit);
  const PendingProof want = make_cpu_backend()->prove_start(params, pa_cpu, r, s);

  const cuda::ProofShape shape = cuda::proof_shape(params);
  const cuda::DeviceMemoryPlan roomy = cuda::plan_device_memory(size_t(1) << 40, 0, shape, cuda::query_bytes(params),
                                                                params.h.size(), 1, /*witness_only=*/true);
  const size_t witness = shape.aux + shape.inputs;
  const size_t overlaid_fixed = 32 * std::max(2 * n, witness) + roomy.twiddles + roomy.compact_abc;
  // The overlaid layout and the workspace's floor, 40 MiB for the kernels' loading, and room for
  // the matrices (their buffers rounded up to the driver's 2 MiB): less than the separate layout
  // needs beyond the overlaid one (a witness-only proof's c is formed over b: 32 bytes a point of
  // 2n + witness - max(2n, witness)), so the plan made after the matrices can only overlay.
  const size_t slack = (size_t(40) << 20) + (size_t(32) << 20);
  ASSERT_EQ(roomy.scratch, 32 * (2 * n + witness));
  ASSERT_LT(slack, 32 * (2 * n + witness - std::max(2 * n, witness)));
  const size_t small = overlaid_fixed + cuda::msm_workspace_floor(n) + compiled->bytes() + slack;
  for (const bool whole : {true, false}) {
    SCOPED_TRACE(whole ? "the whole card" : "an overlaid plan");
    auto gpu = make_cuda_backend(0, {.device_memory_bytes = whole ? 0 : card_for(small)});
    const std::string why = gpu->place_matrices(params, compiled);
    const std::string plan = gpu->device_info().memory_plan;
    if (whole) {
      EXPECT_EQ(why, "");
      EXPECT_EQ(gpu->abc_off_device(), "");
      EXPECT_NE(plan.find("separate"), std::string::npos) << plan;
    } else {  // refused before the matrices went up: the plan beside their bytes would overlay
      EXPECT_NE(why.find("overlays the witness"), std::string::npos) << why << "; " << plan;
      EXPECT_NE(why.find("beside the compiled circuit's matrices"), std::string::npos) << why;
      EXPECT_EQ(gpu->resident_bytes(), 0u) << "nothing placed for a refused set";
    }
    auto pa = synthesize_witness(circuit, compiled);
    expect_same(gpu->prove_start(params, pa, r, s), want, why);
    if (whole) {  // another device refused: the set goes by full synthesis, its plan with compact a/b/c's room
      gpu->let_matrices_go(params, compiled);
      const auto bytes = gpu->device_info().memory_plan_bytes;
      const auto compact =
          std::find_if(bytes.begin(), bytes.end(), [](const auto& b) { return b.first == "compact_abc"; });
      ASSERT_NE(compact, bytes.end());
      EXPECT_GT(compact->second, 0u) << gpu->device_info().memory_plan;
      auto full = synthesize(circuit);
      expect_same(gpu->prove_start(params, full, r, s), want, "full synthesis after the matrices went");
    }
    gpu->release_parameters(params);
  }
}

// Two parameter sets of one shape on a card with room for both sets' bases and a few copies of
// H, not for the first set's copies beside the second set: the copies go (its plain H is
// uploaded again), both sets stay resident, and both prove what a backend without copies proves.
// Pseudo-random parameters: the check is the equality, not a verifier.
TEST_F(CudaBackendPlanTest, CopiesGiveWayToAnotherSet) {
  const size_t n = size_t(1) << 16;
  const circuits::SyntheticCircuit circuit(n - 100, 8, {}, test::run_seed());
  const auto shape = synthesize(circuit);
  const Parameters first = pseudo_random_parameters(shape, n, test::run_seed() + 1);
  const Parameters second = pseudo_random_parameters(shape, n, test::run_seed() + 2);
  const size_t plain = first.base_bytes(), h_bytes = first.h.size() * sizeof(G1Affine);
  const cuda::DeviceMemoryPlan roomy = cuda::plan_device_memory(size_t(1) << 40, 0, cuda::proof_shape(first),
                                                                cuda::query_bytes(first), first.h.size(), 0);
  ASSERT_GT(roomy.h_copies.copies, 2u);
  const size_t fixed = roomy.scratch + roomy.twiddles + roomy.compact_abc;
  const size_t keep = std::max(cuda::msm_workspace_whole(n), cuda::msm_workspace_floor(n));
  auto gpu = make_cuda_backend(0, {.device_memory_bytes = card_for(fixed + keep + 2 * plain + 2 * h_bytes)});

  gpu->load_parameters(first);
  const size_t alone = gpu->resident_bytes();
  EXPECT_GT(alone, plain) << "the first set gets copies of H";
  gpu->load_parameters(second);
  const size_t both = gpu->resident_bytes();
  EXPECT_GE(both, 2 * plain) << "both sets resident: " << gpu->device_info().memory_plan;
  EXPECT_LT(both, plain + alone) << "the first set's copies were not dropped";

  auto reference = make_cuda_backend(0, {.h_copies = 1});
  for (const Parameters* params : {&first, &second}) {
    const Fr r = Fr::from_u64(31), s = Fr::from_u64(37);
    auto pa = synthesize(circuit);
    auto pa_reference = pa;
    expect_same(gpu->prove_start(*params, pa, r, s), reference->prove_start(*params, pa_reference, r, s), "set");
  }
  for (auto* backend : {gpu.get(), reference.get()}) {
    backend->release_parameters(first);
    backend->release_parameters(second);
  }
}

// The partial pages at the ends of a set's five host vectors, which stay.
constexpr size_t kPartialPages = 5 * 2 * 4096;

// Whether the middle page of a query's points reads as zeros (its pages given back to the OS).
bool middle_page_given_back(const std::vector<G1Affine>& points) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(points.data());
  const size_t middle = points.size() * sizeof(G1Affine) / 2 / 4096 * 4096;
  return std::all_of(bytes + middle, bytes + middle + 4096, [](unsigned char b) { return b == 0; });
}

// With release_host_bases the host copy goes once the set is on the device, and proofs stay the
// reference's, also after a device allocation refused once (make_room: H's copies give way to
// its plain bases, made from copy 0 on the device).
TEST_F(CudaBackendPlanTest, HostCopyGivenBackOnceTheDeviceHoldsTheSet) {
  const size_t n = size_t(1) << 16;
  const circuits::SyntheticCircuit circuit(n - 100, 8, {}, test::run_seed());
  const Parameters params = pseudo_random_parameters(synthesize(circuit), n, test::run_seed() + 5);
  const Parameters copy = params;  // the reference's own: params' pages are the tested backend's
  auto gpu = make_cuda_backend(0, {.release_host_bases = true});
  auto reference = make_cuda_backend(0, {.h_copies = 1});
  const Fr r = Fr::from_u64(41), s = Fr::from_u64(43);
  auto prove_both = [&](const char* what) {
    auto pa = synthesize(circuit);
    auto pa_reference = pa;
    const PendingProof got = gpu->prove_start(params, pa, r, s);  // first: an armed fault is the tested backend's
    expect_same(got, reference->prove_start(copy, pa_reference, r, s), what);
  };
  gpu->load_parameters(params);
  EXPECT_GT(gpu->resident_bytes(), params.base_bytes()) << "H gets copies on the whole card";
  EXPECT_GE(gpu->released_host_bytes() + kPartialPages, params.base_bytes());
  EXPECT_TRUE(middle_page_given_back(params.l));
  EXPECT_TRUE(middle_page_given_back(params.h));
  prove_both("first proof");

  fault_injection::arm(fault_injection::Fault::kDeviceOom, 1);
  prove_both("after make_room");
  fault_injection::disarm();
  EXPECT_EQ(gpu->resident_bytes(), params.base_bytes()) << "H plain now";
  EXPECT_TRUE(middle_page_given_back(params.h)) << "made on the device, without the host copy";
  EXPECT_GE(gpu->released_host_bytes() + kPartialPages, params.base_bytes());
  prove_both("third proof");
  gpu->release_parameters(params);  // params' host copy stays zeros: it is not read again
  EXPECT_EQ(gpu->released_host_bytes(), 0u);
  reference->release_parameters(copy);
}

// Every path of ResidentParameters that reads a set's host copy again writes it back from the
// device first, byte for byte: streaming for room (make_room's second step) and a release that
// places the set again; dropping H's copies does not need it (copy 0 on the device).
TEST_F(CudaBackendPlanTest, HostCopyIsWrittenBackBeforeItIsRead) {
  const size_t n = size_t(1) << 16;
  const circuits::SyntheticCircuit circuit(n - 100, 8, {}, test::run_seed());
  const Parameters params = pseudo_random_parameters(synthesize(circuit), n, test::run_seed() + 6);
  const Parameters copy = params;
  cuda::ResidentParameters resident(0, {.release_host_bases = true}, "test");
  resident.get(params, 0);
  resident.release_host_copies();
  ASSERT_GE(resident.released_host_bytes() + kPartialPages, params.base_bytes());
  ASSERT_TRUE(middle_page_given_back(params.h));
  EXPECT_TRUE(resident.host_released(params));

  resident.make_room(0);  // H's copies go: its plain bases from copy 0 on the device
  EXPECT_TRUE(resident.host_released(params));
  EXPECT_TRUE(middle_page_given_back(params.h));
  EXPECT_EQ(resident.bytes(), params.base_bytes());
  resident.make_room(1);  // every set streamed: from the host copy, written back first
  EXPECT_FALSE(resident.host_released(params));
  EXPECT_EQ(resident.released_host_bytes(), 0u);
  EXPECT_TRUE(params == copy) << "written back whole";
  resident.release_host_copies();
  EXPECT_EQ(resident.released_host_bytes(), 0u) << "streamed bases read the host copy";

  resident.release(params, /*restore_host=*/false);
  resident.get(params, 0);  // placed again, resident
  resident.release_host_copies();
  ASSERT_TRUE(resident.host_released(params));
  resident.release(params, /*restore_host=*/true);
  EXPECT_TRUE(params == copy) << "written back whole before the set left the device";
  EXPECT_EQ(resident.released_host_bytes(), 0u);
}

}  // namespace
}  // namespace cuzk::groth16
