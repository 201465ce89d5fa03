// The CUDA backend's prove_start gives the CPU backend's PendingProof for the same r and s, so
// the proofs are byte-identical, and the verifier accepts them. Skipped cleanly (apart from the
// no-device error check) when no CUDA device is present.
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "circuits/synthetic.hpp"
#include "cuda/check.hpp"
#include "groth16/backend.hpp"
#include "groth16/cuda/device_memory_plan.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "msm/cuda/msm.hpp"
#include "ntt/zero_one_vector.hpp"
#include "r1cs/compiled_circuit.hpp"
#include "r1cs/shape.hpp"
#include "squares_circuit.hpp"
#include "test_support.hpp"

namespace cuzk::groth16 {
namespace {

TEST(CudaBackendTest, NoDeviceIsAnErrorNotACrash) {
  if (cuda_device_count() > 0) {
    EXPECT_THROW(make_cuda_backend(cuda_device_count()), std::runtime_error);
    GTEST_SKIP() << "a device is present; checked only the out-of-range device";
  }
  EXPECT_THROW(make_cuda_backend(0), std::runtime_error);
}

// A CUDA failure names the call, the error and the file and line it came from (no device needed).
TEST(CudaBackendTest, CudaErrorsNameTheirCallSite) {
  try {
    cuzk::cuda::check(cudaErrorMemoryAllocation, "cudaMalloc of a probe");
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("CUDA: cudaMalloc of a probe: cudaErrorMemoryAllocation: "), std::string::npos) << what;
    EXPECT_NE(what.find("(groth16_gpu_test.cpp:"), std::string::npos) << what;
  }
}

TEST(CudaBackendTest, CpuBackendReportsNoDevice) {
  const DeviceInfo info = make_cpu_backend()->device_info();
  EXPECT_EQ(info.ordinal, -1);
  EXPECT_EQ(info.name, "cpu");
  EXPECT_EQ(info.memory_total, 0u);
  EXPECT_EQ(info.memory_free, 0u);
}

// The device's name and memory; the free memory follows allocations, asked at every call.
TEST(CudaBackendTest, DeviceInfoNamesTheCardAndItsMemory) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const auto gpu = make_cuda_backend(0);
  const DeviceInfo before = gpu->device_info();
  EXPECT_EQ(before.ordinal, 0);
  cudaDeviceProp prop{};
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  EXPECT_EQ(before.name, prop.name);
  EXPECT_FALSE(before.name.empty());
  EXPECT_GT(before.memory_total, 0u);
  EXPECT_GT(before.memory_free, 0u);
  EXPECT_LE(before.memory_free, before.memory_total);
  constexpr size_t kBytes = size_t(1) << 30;
  void* p = nullptr;
  ASSERT_EQ(cudaMalloc(&p, kBytes), cudaSuccess);
  const DeviceInfo during = gpu->device_info();
  cudaFree(p);
  EXPECT_EQ(during.memory_total, before.memory_total);
  EXPECT_LE(during.memory_free + kBytes / 2, before.memory_free);  // other processes may allocate too
}

class CudaBackendProofTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  }
};

std::vector<Fr> public_inputs(const r1cs::Circuit& c) {
  r1cs::TestChecker checker;
  c.synthesize(checker);
  return std::vector<Fr>(checker.inputs().begin() + 1, checker.inputs().end());
}

void expect_same(const PendingProof& x, const PendingProof& y) {
  EXPECT_EQ(x.h.to_affine(), y.h.to_affine());
  EXPECT_EQ(x.l.to_affine(), y.l.to_affine());
  EXPECT_EQ(x.a_inputs.to_affine(), y.a_inputs.to_affine());
  EXPECT_EQ(x.a_aux.to_affine(), y.a_aux.to_affine());
  EXPECT_EQ(x.b_g1_inputs.to_affine(), y.b_g1_inputs.to_affine());
  EXPECT_EQ(x.b_g1_aux.to_affine(), y.b_g1_aux.to_affine());
}

// Every setting of H's precomputed copies: as many as fit (all, at these sizes), none, at most 3.
TEST_F(CudaBackendProofTest, ProofsByteIdenticalToCpuAndVerified) {
  auto rng = test::make_rng();
  std::unique_ptr<ProverBackend> gpus[3];
  for (unsigned i = 0; i < 3; i++) gpus[i] = make_cuda_backend(0, {.h_copies = i == 2 ? 3u : i});
  auto cpu = make_cpu_backend();
  EXPECT_EQ(gpus[0]->name(), "cuda:0");
  // A power of two, and a size the domain pads (3000 -> 4096); the backends are reused.
  for (size_t constraints : {size_t(1) << 12, size_t(3000), size_t(1) << 14}) {
    circuits::SyntheticCircuit circuit(constraints, 8, {}, test::run_seed() + constraints);
    const Parameters params = generate_parameters(
        circuit, {Fr::random(rng), Fr::random(rng), Fr::random(rng), Fr::random(rng), Fr::random(rng)});
    const PreparedVerifyingKey pvk(params.vk);
    const auto inputs = public_inputs(circuit);
    for (unsigned g = 0; g < 3; g++) {
      auto& gpu = gpus[g];
      for (int rep = 0; rep < 2; rep++) {
        const Fr r = Fr::random(rng), s = Fr::random(rng);
        auto pa_cpu = synthesize(circuit);
        auto pa_gpu = synthesize(circuit);
        const PendingProof want = cpu->prove_start(params, pa_cpu, r, s);
        const PendingProof got = gpu->prove_start(params, pa_gpu, r, s);
        EXPECT_TRUE(pa_gpu.a().empty() && pa_gpu.b().empty() && pa_gpu.c().empty()) << "a/b/c not released";
        expect_same(got, want);
        ASSERT_TRUE(got.b_g2.has_value()) << "B in G2 runs on the GPU";
        EXPECT_FALSE(want.b_g2.has_value());
        const Proof p_cpu = prove_finish(params, pa_cpu, want);
        const Proof p_gpu = prove_finish(params, pa_gpu, got);
        EXPECT_EQ(encode_proof(p_gpu), encode_proof(p_cpu)) << constraints << " constraints, backend " << g;
        EXPECT_TRUE(verify_proof(pvk, p_gpu, inputs)) << constraints << " constraints, backend " << g;
      }
      // Copies of H's bases where asked for (the card has room for them at these sizes).
      const size_t h_bytes = params.h.size() * sizeof(G1Affine);
      if (g == 0) {
        const size_t all = cuda::plan_h_copies(params.h.size(), 0, size_t(1) << 50).copies;
        EXPECT_EQ(gpu->resident_bytes(), params.base_bytes() + (all - 1) * h_bytes) << "not every copy";
      } else if (g == 1) {
        EXPECT_EQ(gpu->resident_bytes(), params.base_bytes());
      } else {
        EXPECT_GE(gpu->resident_bytes(), params.base_bytes() + h_bytes) << "no copies of H, backend " << g;
      }
      if (g == 2) {
        EXPECT_LE(gpu->resident_bytes(), params.base_bytes() + 2 * h_bytes);
      }
      gpu->release_parameters(params);
      EXPECT_EQ(gpu->resident_bytes(), 0u);
    }
  }
}

// What prepare_assignment should lock of an assignment with fresh compact copies: a vector with
// at most half of its entries neither 0 nor 1 goes compact (ntt::ZeroOneVector), and the arrays
// of its copy that reach the backend's 32 MiB lock threshold are locked whole (the others' array
// with room for others / 16 + one chunk more, for later partitions that refill it); any other
// vector is locked itself when it reaches the threshold.
struct LockedBytes {
  size_t compact = 0, whole = 0;  // compact copies' arrays; a, b, c themselves
  size_t total() const { return compact + whole; }
};
LockedBytes expected_locked_bytes(const r1cs::ProvingAssignment& pa) {
  constexpr size_t kThreshold = size_t(32) << 20;
  auto lockable = [](size_t bytes) { return bytes >= kThreshold ? bytes : 0; };
  LockedBytes bytes;
  for (const auto* v : {&pa.a(), &pa.b(), &pa.c()}) {
    size_t others = 0;
    for (const Fr& x : *v) others += !x.is_zero() && x != Fr::one();
    if (2 * others <= v->size()) {
      const size_t chunks = (v->size() + ntt::ZeroOneVector::kChunk - 1) / ntt::ZeroOneVector::kChunk;
      const size_t room = others + others / 16 + ntt::ZeroOneVector::kChunk;
      bytes.compact += lockable(room * sizeof(Fr)) + lockable(chunks * ntt::ZeroOneVector::kWordsPerChunk * 4);
    } else {
      bytes.whole += lockable(v->size() * sizeof(Fr));
    }
  }
  return bytes;
}

// prepare_assignment compacts the vectors that are mostly 0/1 and page-locks what is large
// enough (copies' arrays, or a/b/c themselves), and prove_start uploads them in that form, by
// DMA where locked; the PendingProof must equal the staged upload's of the same assignment, and
// the preparation (locks included) must go with a/b/c. Three profiles: the default (a and c 75%
// 0/1, b all: everything compact, too small to lock at 1.1 M constraints), few 0/1 values (a
// and c locked whole, b compact) and a middle one at 2.5 M constraints (a and c compact with
// their 45% others locked). Pseudo-random parameters: the check is the equality, not a
// verifier.
TEST_F(CudaBackendProofTest, PreparedAbcUploadGivesTheStagedResult) {
  auto gpu = make_cuda_backend(0);
  struct Case {
    size_t constraints;
    double zero_one_share;
    unsigned log_n;
  };
  for (const Case& k : {Case{1100000, 0.75, 21}, Case{1100000, 0.254, 21}, Case{2500000, 0.55, 22}}) {
    SCOPED_TRACE("zero/one share " + std::to_string(k.zero_one_share));
    circuits::SyntheticProfile profile;
    profile.zero_one_share = k.zero_one_share;
    const circuits::SyntheticCircuit circuit(k.constraints, 8, profile, test::run_seed());
    auto prepared = synthesize(circuit);
    const Parameters params = pseudo_random_parameters(prepared, size_t(1) << k.log_n, test::run_seed());
    const LockedBytes expected = expected_locked_bytes(prepared);
    const size_t locked = expected.total();
    gpu->trim_host_memory();  // fresh compact copies, as expected_locked_bytes counts them
    EXPECT_EQ(gpu->pinned_abc_bytes(), 0u);
    gpu->prepare_assignment(prepared);
    ASSERT_TRUE(prepared.abc_prepared()) << "32 MiB or more per vector should be prepared";
    EXPECT_EQ(gpu->pinned_abc_bytes(), locked) << "the backend counts what it locked";
    if (k.zero_one_share == 0.254) {
      EXPECT_EQ(locked, (prepared.a().size() + prepared.c().size()) * sizeof(Fr)) << "a and c locked whole";
      unsigned flags = 0;
      EXPECT_EQ(cudaHostGetFlags(&flags, const_cast<Fr*>(prepared.a().data())), cudaSuccess) << "a is registered";
    } else if (k.zero_one_share == 0.55) {
      EXPECT_GT(locked, 2 * (size_t(32) << 20)) << "a's and c's others locked";
    }
    const size_t kept = prepared.bytes().abc_prepared;
    EXPECT_GT(kept, 0u) << "the compact copies are counted with the assignment";
    EXPECT_LT(kept, prepared.a().size() * sizeof(Fr) * 2) << "at most half of a and c, and b's kinds";
    auto staged = prepared;  // a copy's vectors are new memory: no preparation
    EXPECT_FALSE(staged.abc_prepared());
    std::optional<r1cs::ReleasedAbc> parked;
    prepared.set_abc_sink([&](r1cs::ReleasedAbc&& abc) {
      // The backend keeps no reference: dropping this one unlocks (on the engine's deallocation
      // thread, not at the end of prove_start).
      EXPECT_EQ(abc.preparation.use_count(), 1);
      parked.emplace(std::move(abc));
    });
    const Fr r = Fr::from_u64(12345), s = Fr::from_u64(678910);
    const PendingProof got = gpu->prove_start(params, prepared, r, s);
    EXPECT_FALSE(prepared.abc_prepared());
    EXPECT_TRUE(prepared.a().empty() && prepared.b().empty() && prepared.c().empty()) << "a/b/c not released";
    // The preparation travelled with the vectors to the sink; dropping it unlocks a, b, c and
    // hands the compact copies back to the backend, still locked, until trim_host_memory.
    ASSERT_TRUE(parked.has_value() && parked->preparation != nullptr);
    EXPECT_EQ(gpu->pinned_abc_bytes(), locked) << "still locked until the sink drops the preparation";
    EXPECT_EQ(gpu->idle_host_bytes(), 0u);
    parked->preparation.reset();
    EXPECT_EQ(gpu->pinned_abc_bytes(), expected.compact);
    EXPECT_EQ(gpu->idle_host_bytes(), kept) << "the compact copies are kept for the next partition";
    gpu->trim_host_memory();
    EXPECT_EQ(gpu->pinned_abc_bytes(), 0u);
    EXPECT_EQ(gpu->idle_host_bytes(), 0u);
    for (const auto* v : {&parked->a, &parked->b, &parked->c}) {
      unsigned flags = 0;
      EXPECT_NE(cudaHostGetFlags(&flags, const_cast<Fr*>(v->data())), cudaSuccess) << "still registered";
      cudaGetLastError();
    }
    parked.reset();
    const PendingProof want = gpu->prove_start(params, staged, r, s);
    expect_same(got, want);
    ASSERT_TRUE(got.b_g2.has_value() && want.b_g2.has_value());
    EXPECT_EQ(got.b_g2->to_affine(), want.b_g2->to_affine());
    // The backend keys resident parameters by address and keeps their host memory locked: drop
    // them before they go (the next case's may land at the same address).
    gpu->release_parameters(params);
  }
  // A preparation made from other vectors (a/b/c moved since) is not trusted: the proof is the
  // staged one's.
  {
    const circuits::SyntheticCircuit circuit(1100000, 8, {}, test::run_seed());
    auto pa = synthesize(circuit);
    const Parameters params = pseudo_random_parameters(pa, size_t(1) << 21, test::run_seed());
    auto other = synthesize(circuits::SyntheticCircuit(1100000, 8, {}, test::run_seed() + 1));
    gpu->prepare_assignment(other);
    ASSERT_TRUE(other.abc_prepared());
    auto staged = pa;
    pa.set_abc_preparation(other.abc_preparation());
    const Fr r = Fr::from_u64(5), s = Fr::from_u64(6);
    expect_same(gpu->prove_start(params, pa, r, s), gpu->prove_start(params, staged, r, s));
    gpu->release_parameters(params);
  }
  // The CPU backend prepares nothing.
  auto pa = synthesize(circuits::SyntheticCircuit(1 << 10, 8, {}, 1));
  make_cpu_backend()->prepare_assignment(pa);
  EXPECT_FALSE(pa.abc_prepared());
}

// The compact copies of one partition stay locked when its a/b/c go, and the next partition's
// preparation refills them in place (unlocking waits for the device to finish its work, which
// stalled the proof beside it): nothing new is locked, and the proof of the second (different)
// witness still equals its staged upload's. trim_host_memory then unlocks and frees them.
TEST_F(CudaBackendProofTest, CompactCopiesAreRefilledForTheNextPartition) {
  auto gpu = make_cuda_backend(0);
  circuits::SyntheticProfile profile;
  profile.zero_one_share = 0.55;  // a and c compact, with 45% others: 36 MB arrays, locked
  circuits::SyntheticCircuit circuit(2500000, 8, profile, test::run_seed());
  auto first = synthesize(circuit);
  circuit.set_witness_seed(test::run_seed() + 1);
  auto second = synthesize(circuit);
  const Parameters params = pseudo_random_parameters(first, size_t(1) << 22, test::run_seed());
  const Fr r = Fr::from_u64(31), s = Fr::from_u64(41);
  auto staged = second;
  const PendingProof want = gpu->prove_start(params, staged, r, s);

  gpu->prepare_assignment(first);
  ASSERT_TRUE(first.abc_prepared());
  const size_t locked = gpu->pinned_abc_bytes(), kept = first.bytes().abc_prepared;
  ASSERT_GT(locked, 2 * (size_t(32) << 20)) << "a's and c's others locked";
  const PendingProof other = gpu->prove_start(params, first, r, s);  // no sink: freed in there
  EXPECT_NE(other.l.to_affine(), want.l.to_affine()) << "the witnesses should differ";
  EXPECT_EQ(gpu->pinned_abc_bytes(), locked) << "kept locked";
  EXPECT_EQ(gpu->idle_host_bytes(), kept);

  gpu->prepare_assignment(second);
  ASSERT_TRUE(second.abc_prepared());
  EXPECT_EQ(gpu->idle_host_bytes(), 0u) << "taken again";
  EXPECT_EQ(gpu->pinned_abc_bytes(), locked) << "refilled in place: nothing new locked";
  const PendingProof got = gpu->prove_start(params, second, r, s);
  expect_same(got, want);
  ASSERT_TRUE(got.b_g2.has_value() && want.b_g2.has_value());
  EXPECT_EQ(got.b_g2->to_affine(), want.b_g2->to_affine());
  EXPECT_EQ(gpu->pinned_abc_bytes(), locked);
  gpu->trim_host_memory();
  EXPECT_EQ(gpu->pinned_abc_bytes(), 0u);
  EXPECT_EQ(gpu->idle_host_bytes(), 0u);
  gpu->release_parameters(params);
}

// prove_start from several threads at once (the backend serialises them): each proof reads its
// own a/b/c and witness. Three witnesses of one shape (so one parameter set) with few 0/1
// values, so that a and c are page-locked in pieces (1.1 M constraints: 35 MB vectors, about
// half of which cross a 64 MiB piece boundary) and b goes compact, proved by three threads at
// once and compared with each one proved alone from ordinary memory.
TEST_F(CudaBackendProofTest, ProofsFromSeveralThreadsKeepTheirOwnData) {
  auto gpu = make_cuda_backend(0);
  circuits::SyntheticProfile few_bits;
  few_bits.zero_one_share = 0.254;
  circuits::SyntheticCircuit circuit(1100000, 8, few_bits, test::run_seed());
  std::vector<r1cs::ProvingAssignment> pinned;
  for (uint64_t w = 0; w < 3; w++) {
    circuit.set_witness_seed(test::run_seed() + 17 * w);
    pinned.push_back(synthesize(circuit));
  }
  const Parameters params = pseudo_random_parameters(pinned[0], size_t(1) << 21, test::run_seed());
  const Fr r = Fr::from_u64(777), s = Fr::from_u64(888);
  std::vector<PendingProof> want;
  for (const auto& pa : pinned) {
    auto staged = pa;
    want.push_back(gpu->prove_start(params, staged, r, s));
  }
  EXPECT_NE(want[0].l.to_affine(), want[1].l.to_affine()) << "the witnesses should differ";
  for (auto& pa : pinned) {
    gpu->prepare_assignment(pa);
    ASSERT_TRUE(pa.abc_prepared());
    for (const auto* v : {&pa.a(), &pa.c()}) {
      unsigned flags = 0;  // the first and the last piece are registered
      EXPECT_EQ(cudaHostGetFlags(&flags, const_cast<Fr*>(v->data())), cudaSuccess);
      EXPECT_EQ(cudaHostGetFlags(&flags, const_cast<Fr*>(&v->back())), cudaSuccess);
    }
  }
  std::vector<PendingProof> got(pinned.size());
  std::vector<std::string> errors(pinned.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < pinned.size(); i++) {
    threads.emplace_back([&, i] {
      try {
        got[i] = gpu->prove_start(params, pinned[i], r, s);
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < pinned.size(); i++) {
    SCOPED_TRACE("witness " + std::to_string(i));
    ASSERT_EQ(errors[i], "");
    expect_same(got[i], want[i]);
    ASSERT_TRUE(got[i].b_g2.has_value() && want[i].b_g2.has_value());
    EXPECT_EQ(got[i].b_g2->to_affine(), want[i].b_g2->to_affine());
    EXPECT_TRUE(pinned[i].a().empty() && pinned[i].b().empty() && pinned[i].c().empty()) << "a/b/c not released";
  }
  EXPECT_EQ(gpu->pinned_abc_bytes(), 0u) << "freed with a/b/c, unlocked";
  gpu->release_parameters(params);  // unlocked before params' memory goes
}

// The card's urgent lane beside its ordinary backend (the engine's pair): each proves on its own
// thread at once, the ordinary one a 2^21 set, the lane a 2^16 set that the ordinary backend
// held first and gave its host copy back for (keep_host_copy writes it back, and a proof of the
// ordinary backend with the set then leaves it, so that the lane uploads the points, not zeros);
// every PendingProof equals the CPU backend's, and the lane's MSMs ran on a workspace of their own.
TEST_F(CudaBackendProofTest, UrgentLaneProvesBesideTheOrdinaryBackend) {
  // The parameters outlive the backends, which pin their host memory.
  circuits::SyntheticCircuit big(1100000, 8, {}, test::run_seed());
  circuits::SyntheticCircuit small(40000, 4, {}, test::run_seed() + 1);
  const auto big_pa = synthesize(big);
  const auto small_pa = synthesize(small);
  const Parameters big_params = pseudo_random_parameters(big_pa, size_t(1) << 21, test::run_seed());
  const Parameters small_params = pseudo_random_parameters(small_pa, size_t(1) << 16, test::run_seed() + 2);
  const Parameters small_copy = small_params;  // the CPU's: the GPU's host copy goes and comes back
  constexpr size_t kLane = size_t(1) << 30;
  auto ordinary = make_cuda_backend(0, {.device_memory_reserved = kLane, .release_host_bases = true});
  auto lane = make_cuda_backend(0, {.h_copies = 1, .device_memory_bytes = kLane, .urgent_lane = true});
  EXPECT_EQ(lane->name(), "cuda:0-urgent");
  auto cpu = make_cpu_backend();
  const Fr r = Fr::from_u64(31), s = Fr::from_u64(37);
  auto cpu_big = big_pa, cpu_small = small_pa;
  const PendingProof want_big = cpu->prove_start(big_params, cpu_big, r, s);
  const PendingProof want_small = cpu->prove_start(small_copy, cpu_small, r, s);
  ordinary->load_parameters(small_params);
  EXPECT_GT(ordinary->released_host_bytes_of(small_params), 0u) << "the ordinary backend gave its host copy back";
  ordinary->keep_host_copy(small_params);
  EXPECT_EQ(ordinary->released_host_bytes_of(small_params), 0u) << "written back for the lane";
  {
    auto pa = small_pa;
    expect_same(ordinary->prove_start(small_params, pa, r, s), want_small);
  }
  EXPECT_EQ(ordinary->released_host_bytes_of(small_params), 0u) << "a kept copy is never given back again";
  constexpr int kBig = 3, kSmall = 6;
  std::vector<PendingProof> got_big(kBig), got_small(kSmall);
  std::string big_error, small_error;
  // Each proof of a fresh copy of the assignment, one after the other; the first error kept.
  auto prove_each = [&](ProverBackend& backend, const Parameters& params, const r1cs::ProvingAssignment& from,
                        std::vector<PendingProof>& got, std::string& error) {
    try {
      for (auto& g : got) {
        auto pa = from;
        g = backend.prove_start(params, pa, r, s);
      }
    } catch (const std::exception& e) {
      error = e.what();
    }
  };
  std::thread t_big([&] { prove_each(*ordinary, big_params, big_pa, got_big, big_error); });
  std::thread t_small([&] { prove_each(*lane, small_params, small_pa, got_small, small_error); });
  t_big.join();
  t_small.join();
  EXPECT_EQ(big_error, "");
  EXPECT_EQ(small_error, "");
  for (const auto& g : got_big) expect_same(g, want_big);
  for (const auto& g : got_small) expect_same(g, want_small);
  const size_t ordinary_workspace = msm::cuda::workspace_bytes(0);  // this thread's lane: the ordinary
  {
    msm::cuda::LaneScope urgent(msm::cuda::Lane::kUrgent);
    EXPECT_GT(msm::cuda::workspace_bytes(0), 0u) << "the lane's MSMs have a workspace of their own";
    EXPECT_LT(msm::cuda::workspace_bytes(0), ordinary_workspace) << "sized for 2^16, not the ordinary 2^21";
  }
  lane->release_parameters(small_params);
  ordinary->release_parameters(small_params);
  ordinary->release_parameters(big_params);
}

// One witness-only proof on the GPU against the CPU's from full synthesis with the same r, s:
// a/b/c made on the device, never on the host; the same PendingProof and proof bytes, verified.
// gpu_params and cpu_params hold the same set (the CPU's a copy where the GPU's host copy goes).
void expect_witness_proof_is_cpus(ProverBackend& gpu, ProverBackend& cpu, const Parameters& gpu_params,
                                  const Parameters& cpu_params, const circuits::SyntheticCircuit& circuit,
                                  const std::shared_ptr<const r1cs::CompiledCircuit>& compiled,
                                  const PreparedVerifyingKey& pvk, std::mt19937_64& rng) {
  const Fr r = Fr::random(rng), s = Fr::random(rng);
  auto pa_cpu = synthesize(circuit);
  auto pa_gpu = synthesize_witness(circuit, compiled);
  gpu.prepare_assignment(pa_gpu);
  const PendingProof want = cpu.prove_start(cpu_params, pa_cpu, r, s);
  ProveTimings t;
  const PendingProof got = gpu.prove_start(gpu_params, pa_gpu, r, s, &t);
  EXPECT_GT(t.abc, 0.0) << "a/b/c computed on the device";
  EXPECT_TRUE(pa_gpu.a().empty()) << "never on the host";
  expect_same(got, want);
  const Proof p_gpu = prove_finish(cpu_params, pa_gpu, got);
  EXPECT_EQ(encode_proof(p_gpu), encode_proof(prove_finish(cpu_params, pa_cpu, want)));
  EXPECT_TRUE(verify_proof(pvk, p_gpu, public_inputs(circuit)));
}

// A witness-only assignment: the device computes a, b and c from the compiled matrices (kept on
// the device across proofs), and the proof is the CPU backend's full-synthesis proof byte for
// byte; a small card's plan (the witness overlaid on a and b) computes them on the CPU instead.
TEST_F(CudaBackendProofTest, WitnessOnlyProofsByteIdenticalToFullSynthesisOnCpu) {
  auto rng = test::make_rng();
  auto cpu = make_cpu_backend();
  auto gpu = make_cuda_backend(0);
  for (size_t constraints : {size_t(1) << 12, size_t(3000)}) {
    const circuits::SyntheticCircuit circuit(constraints, 8, {}, test::run_seed() + constraints);
    const Parameters params = generate_parameters(
        circuit, {Fr::random(rng), Fr::random(rng), Fr::random(rng), Fr::random(rng), Fr::random(rng)});
    const PreparedVerifyingKey pvk(params.vk);
    const auto compiled = std::make_shared<const r1cs::CompiledCircuit>(r1cs::compile_circuit(circuit));
    for (int rep = 0; rep < 2; rep++) {
      SCOPED_TRACE(constraints);
      expect_witness_proof_is_cpus(*gpu, *cpu, params, params, circuit, compiled, pvk, rng);
    }
    gpu->release_parameters(params);  // the next size's set may reuse its address
  }
}

// The same with the host copy of the parameters given back once they are on the device
// (CudaBackendOptions::release_host_bases, as the engine runs one GPU): the first witness-only
// proof brings new matrices, and the set's plan is made again around them with its bases kept
// on the device (no host copy to place them from). The CPU proves from a copy of the set.
TEST_F(CudaBackendProofTest, WitnessOnlyProofsWithTheHostCopyGivenBack) {
  auto rng = test::make_rng();
  auto cpu = make_cpu_backend();
  auto gpu = make_cuda_backend(0, {.release_host_bases = true});
  const circuits::SyntheticCircuit circuit(size_t(1) << 16, 8, {}, test::run_seed() + 9);
  const Parameters params = generate_parameters(
      circuit, {Fr::random(rng), Fr::random(rng), Fr::random(rng), Fr::random(rng), Fr::random(rng)});
  const Parameters copy = params;
  const PreparedVerifyingKey pvk(params.vk);
  const auto compiled = std::make_shared<const r1cs::CompiledCircuit>(r1cs::compile_circuit(circuit));
  gpu->load_parameters(params);
  ASSERT_GT(gpu->released_host_bytes(), params.base_bytes() / 2);
  for (int rep = 0; rep < 2; rep++) {
    expect_witness_proof_is_cpus(*gpu, *cpu, params, copy, circuit, compiled, pvk, rng);
    EXPECT_GT(gpu->released_host_bytes(), params.base_bytes() / 2) << "still given back after proof " << rep;
  }
  gpu->release_parameters(params);
}

// A witness-only assignment whose aux is large enough: prepare_assignment page-locks aux, the
// device reads it by DMA before the products, the lock stays with the assignment's memory (not its
// preparation), and the proof equals the CPU backend's from full synthesis (pseudo-random bases:
// equal, not verifiable). That memory kept for the next assignment (as the engine keeps it) is
// synthesized into and found locked: nothing is locked again, and its proof is right too; the lock
// goes with the memory.
// The squares circuit fills a 2^20 domain: aux of 50 MB (over the 32 MiB that is locked).
TEST_F(CudaBackendProofTest, WitnessOnlyAuxGoesUpByDmaFromLockedMemory) {
  auto gpu = make_cuda_backend(0);
  test::SquaresCircuit circuit;
  circuit.seed = test::run_seed();
  const auto compiled = std::make_shared<const r1cs::CompiledCircuit>(r1cs::compile_circuit(circuit));
  auto pa_cpu = synthesize(circuit);
  const Parameters params = pseudo_random_parameters(pa_cpu, size_t(1) << 20, test::run_seed());
  auto pa_gpu = synthesize_witness(circuit, compiled);
  ASSERT_GE(pa_gpu.num_aux() * sizeof(Fr), size_t(32) << 20) << "too small to be locked";
  gpu->prepare_assignment(pa_gpu);
  ASSERT_TRUE(pa_gpu.abc_prepared());
  EXPECT_GE(gpu->pinned_abc_bytes(), pa_gpu.num_aux() * sizeof(Fr)) << "aux page-locked";
  unsigned flags = 0;
  EXPECT_EQ(cudaHostGetFlags(&flags, const_cast<Fr*>(pa_gpu.aux().data())), cudaSuccess);
  const Fr r = Fr::from_u64(31), s = Fr::from_u64(32);
  ProveTimings t;
  const PendingProof got = gpu->prove_start(params, pa_gpu, r, s, &t);
  EXPECT_GT(t.abc, 0.0) << "a/b/c computed on the device";
  EXPECT_FALSE(pa_gpu.abc_prepared()) << "the preparation went with a/b/c's release";
  const size_t locked = gpu->pinned_abc_bytes();
  EXPECT_GE(locked, pa_gpu.num_aux() * sizeof(Fr)) << "aux stays locked while its memory lives";
  expect_same(got, make_cpu_backend()->prove_start(params, pa_cpu, r, s));

  const Fr* memory = pa_gpu.aux().data();
  auto pa_next = synthesize_witness(circuit, compiled, pa_gpu.release_witness());
  EXPECT_EQ(pa_next.aux().data(), memory) << "synthesized into the kept memory";
  gpu->prepare_assignment(pa_next);
  EXPECT_EQ(gpu->pinned_abc_bytes(), locked) << "its lock serves: nothing locked again";
  const Fr r2 = Fr::from_u64(33), s2 = Fr::from_u64(34);
  const PendingProof again = gpu->prove_start(params, pa_next, r2, s2, &t);
  auto pa_cpu2 = synthesize(circuit);
  expect_same(again, make_cpu_backend()->prove_start(params, pa_cpu2, r2, s2));
  { auto gone = std::move(pa_next); }
  EXPECT_EQ(gpu->pinned_abc_bytes(), 0u) << "the lock went with the memory";
  gpu->release_parameters(params);
}

// The next proof's witness goes up while the one before runs (prove_start's `next`), into the
// buffer that proof does not read (the spare, then the scratch's own): the proof then reads the
// copy that went up ahead (its host aux, changed afterwards, is not read again). A next that does
// not come costs nothing: the proof that comes instead, and the named one later, upload their own
// (its host aux, changed after it went up ahead, is read). Every proof equals the CPU backend's
// for the same witness (from full synthesis, or from the changed witness-only assignment).
TEST_F(CudaBackendProofTest, TheNextWitnessGoesUpAheadOfItsProof) {
  auto gpu = make_cuda_backend(0);
  auto cpu = make_cpu_backend();
  test::SquaresCircuit circuit;
  circuit.seed = test::run_seed();
  const auto compiled = std::make_shared<const r1cs::CompiledCircuit>(r1cs::compile_circuit(circuit));
  const Parameters params = pseudo_random_parameters(synthesize(circuit), size_t(1) << 20, test::run_seed());
  const Fr r = Fr::from_u64(41), s = Fr::from_u64(42);
  auto with_seed = [&](uint64_t k) {
    test::SquaresCircuit c = circuit;
    c.seed = circuit.seed + k;
    return c;
  };
  auto want = [&](uint64_t k) {
    auto pa = synthesize(with_seed(k));
    return cpu->prove_start(params, pa, r, s);
  };
  auto change_aux = [](const r1cs::ProvingAssignment& pa) {
    Fr* host_aux = const_cast<Fr*>(pa.aux().data());
    for (size_t i = 0; i < 1000; i++) host_aux[i] = Fr::from_u64(i + 7);
  };
  std::vector<r1cs::ProvingAssignment> w;
  w.reserve(5);
  for (uint64_t k = 0; k < 5; k++) {
    w.push_back(synthesize_witness(with_seed(k), compiled));
    gpu->prepare_assignment(w.back());
    ASSERT_TRUE(w.back().abc_prepared()) << "aux page-locked, so that it may go up ahead";
  }
  expect_same(gpu->prove_start(params, w[0], r, s, nullptr, &w[1]), want(0));
  EXPECT_TRUE(gpu->uploads_ahead()) << "the plan has room for a second witness buffer on this card";
  // w[1] went into the spare, w[2] into the scratch: changes to their host aux must not reach the proofs.
  const PendingProof w1 = want(1), w2 = want(2);
  change_aux(w[1]);
  expect_same(gpu->prove_start(params, w[1], r, s, nullptr, &w[2]), w1);
  change_aux(w[2]);
  expect_same(gpu->prove_start(params, w[2], r, s, nullptr, &w[3]), w2);
  // w[3] was named but w[4] comes: it uploads its own, and so does w[3] after it, changed since.
  expect_same(gpu->prove_start(params, w[4], r, s), want(4));
  auto w3_changed = synthesize_witness(with_seed(3), compiled);
  change_aux(w3_changed);
  change_aux(w[3]);
  expect_same(gpu->prove_start(params, w[3], r, s), cpu->prove_start(params, w3_changed, r, s));
  gpu->release_parameters(params);
}

TEST_F(CudaBackendProofTest, MismatchedParametersAreRejected) {
  auto rng = test::make_rng();
  circuits::SyntheticCircuit small(1 << 10, 8, {}, 1), large(1 << 11, 8, {}, 1);
  const Parameters params =
      generate_parameters(small, {Fr::random(rng), Fr::random(rng), Fr::random(rng), Fr::random(rng), Fr::random(rng)});
  auto pa = synthesize(large);
  EXPECT_THROW(make_cuda_backend(0)->prove_start(params, pa, Fr::one(), Fr::one()), std::invalid_argument);
}

}  // namespace
}  // namespace cuzk::groth16
