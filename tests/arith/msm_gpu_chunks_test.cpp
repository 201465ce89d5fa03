// The GPU MSM within a workspace limit (msm::cuda::set_workspace_limit: over bases on the device a
// few of the whole MSM's windows a pass, else chunks) and over bases kept in host memory
// (Bases::in_host_memory: streamed chunk by chunk),
// against the CPU msm on fresh random inputs: plain, with a density mask and an offset, G2,
// precomputed copies, host and device scalars, pageable and page-locked bases. The workspace
// stays within the limit: limits are 2/5 and more of what the MSM takes whole, at sizes where
// that is above what a chunk of 2^16 scalars needs (its partial sums are ~100 bytes a pair).
// Skipped cleanly when no CUDA device is present.
#include <algorithm>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "ec/random_points.hpp"
#include "msm/cuda/msm.hpp"
#include "msm/pippenger.hpp"
#include "test_support.hpp"

namespace cuzk::msm {
namespace {

using ec::G1Affine;
using ec::G1Curve;
using ec::G2Affine;
using ec::G2Curve;

// Every scalar class the MSM treats apart: zeros, ones and bucketed ones.
std::vector<Fr> mixed_scalars(size_t n, std::mt19937_64& rng) {
  std::vector<Fr> s(n);
  for (auto& x : s) {
    const uint64_t r = rng() % 8;
    x = r == 0 ? Fr::zero() : r == 1 ? Fr::one() : Fr::random(rng);
  }
  return s;
}

// The workspace limit of device 0 for the scope of a test, then none again (released).
struct Limit {
  explicit Limit(size_t bytes) { cuda::set_workspace_limit(0, bytes); }
  ~Limit() {
    cuda::set_workspace_limit(0, 0);
    cuda::release_workspace(0);
  }
};

// What an MSM of these scalars holds in one piece over these bases (nothing held before).
template <class Curve>
size_t whole_workspace(const cuda::Bases<Curve>& bases, size_t offset, const std::vector<Fr>& scalars) {
  cuda::release_workspace(0);
  cuda::msm<Curve>(bases, offset, scalars.size(), std::span<const Fr>(scalars));
  const size_t bytes = cuda::workspace_bytes(0);
  cuda::release_workspace(0);
  return bytes;
}

// Host and device scalars over `on` against want; the workspace within `limit` after each.
template <class Curve>
void expect_msm(const cuda::Bases<Curve>& on, size_t offset, const std::vector<Fr>& scalars,
                const ec::AffinePoint<Curve>& want, size_t limit, const std::string& what) {
  const size_t n = scalars.size();
  EXPECT_EQ(cuda::msm<Curve>(on, offset, n, std::span<const Fr>(scalars)).to_affine(), want) << what;
  if (limit) {
    EXPECT_LE(cuda::workspace_bytes(0), limit) << what;
  }
  Fr* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, n * sizeof(Fr)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d, scalars.data(), n * sizeof(Fr), cudaMemcpyHostToDevice), cudaSuccess);
  const auto got = cuda::msm<Curve>(on, offset, n, d);
  cudaFree(d);
  EXPECT_EQ(got.to_affine(), want) << what << " (device scalars)";
  if (limit) {
    EXPECT_LE(cuda::workspace_bytes(0), limit) << what << " (device scalars)";
  }
}

class MsmGpuChunksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (cuda::device_count(&why) == 0) GTEST_SKIP() << "no CUDA device: " << why;
  }
};

TEST_F(MsmGpuChunksTest, ChunkedAndStreamedG1MatchCpu) {
  auto rng = test::make_rng();
  const size_t n = (size_t(1) << 20) + 3333, offset = 7;
  const auto host_bases = ec::pseudo_random_subgroup_points<G1Curve>(n + offset, rng);
  const auto scalars = mixed_scalars(n, rng);
  const auto want = msm::msm<G1Curve>(std::span<const G1Affine>(host_bases).subspan(offset), scalars).to_affine();
  const auto resident = cuda::G1Bases::upload(0, host_bases);
  const auto streamed = cuda::G1Bases::in_host_memory(0, host_bases);
  EXPECT_TRUE(streamed->streamed());
  EXPECT_EQ(streamed->device_bytes(), 0u);
  EXPECT_EQ(streamed->size(), host_bases.size());
  const size_t whole = whole_workspace(*resident, offset, scalars);
  expect_msm(*resident, offset, scalars, want, 0, "whole");
  expect_msm(*streamed, offset, scalars, want, 0, "streamed, no limit");
  {
    const Limit limit(whole / 2);  // at least two chunks
    expect_msm(*resident, offset, scalars, want, whole / 2, "resident, half the workspace");
    expect_msm(*streamed, offset, scalars, want, whole / 2, "streamed, half the workspace");
    EXPECT_EQ(cuda::workspace_limit(0), whole / 2);
    // A window fixed for the whole MSM (as H's is) gives way to the chunks' own.
    const MsmOptions wide{.window_bits = cuda::gpu_window_bits(n)};
    EXPECT_EQ(cuda::msm<G1Curve>(*streamed, offset, n, std::span<const Fr>(scalars), wide).to_affine(), want);
    EXPECT_LE(cuda::workspace_bytes(0), whole / 2);
  }
  {
    const Limit limit(whole * 2 / 5);
    expect_msm(*streamed, offset, scalars, want, whole * 2 / 5, "streamed, 2/5 of the workspace");
  }
  // Page-locked bases go up by DMA; the result is the same.
  ASSERT_EQ(cudaHostRegister(const_cast<G1Affine*>(host_bases.data()), host_bases.size() * sizeof(G1Affine),
                             cudaHostRegisterDefault),
            cudaSuccess);
  {
    const Limit limit(whole / 2);
    expect_msm(*streamed, offset, scalars, want, whole / 2, "page-locked streamed, half the workspace");
  }
  cudaHostUnregister(const_cast<G1Affine*>(host_bases.data()));
}

// A density's ranks are counted across chunk boundaries: the bases of chunk i start where chunk
// i - 1's set bits end.
TEST_F(MsmGpuChunksTest, ChunkedDensityMatchesCpu) {
  auto rng = test::make_rng();
  const size_t n = size_t(1) << 20, offset = 11;
  std::vector<uint64_t> words((n + 63) / 64, 0);
  for (size_t i = 0; i < n; i++) {
    // Dense and sparse stretches, so that chunks hold very different numbers of bases.
    if (rng() % 100 < ((i >> 16) % 2 ? 90u : 10u)) words[i / 64] |= uint64_t(1) << (i % 64);
  }
  const DensityView density{words, n};
  const size_t ones = density.count_ones();
  const auto host_bases = ec::pseudo_random_subgroup_points<G1Curve>(offset + ones, rng);
  const auto scalars = mixed_scalars(n, rng);
  const auto want =
      msm_with_density<G1Curve>(std::span<const G1Affine>(host_bases).subspan(offset), scalars, density).to_affine();
  const auto resident = cuda::G1Bases::upload(0, host_bases);
  const auto streamed = cuda::G1Bases::in_host_memory(0, host_bases);
  cuda::release_workspace(0);
  cuda::msm_with_density<G1Curve>(*resident, offset, std::span<const Fr>(scalars), density);
  const size_t whole = cuda::workspace_bytes(0);
  const Limit limit(whole / 2);
  for (const auto* on : {resident.get(), streamed.get()}) {
    const std::string what = on->streamed() ? "streamed" : "resident";
    MsmStats stats;
    const auto got = cuda::msm_with_density<G1Curve>(*on, offset, std::span<const Fr>(scalars), density, {}, &stats);
    EXPECT_EQ(got.to_affine(), want) << what;
    EXPECT_EQ(stats.terms, ones) << what;
    EXPECT_EQ(stats.zeros + stats.ones + stats.bucketed, ones) << what;
    EXPECT_LE(cuda::workspace_bytes(0), whole / 2) << what;
    Fr* d = nullptr;
    ASSERT_EQ(cudaMalloc(&d, n * sizeof(Fr)), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(d, scalars.data(), n * sizeof(Fr), cudaMemcpyHostToDevice), cudaSuccess);
    const auto got_device = cuda::msm_with_density<G1Curve>(*on, offset, d, density);
    cudaFree(d);
    EXPECT_EQ(got_device.to_affine(), want) << what << " (device scalars)";
  }
}

TEST_F(MsmGpuChunksTest, ChunkedAndStreamedG2MatchCpu) {
  auto rng = test::make_rng();
  const size_t n = (size_t(1) << 19) + 5;
  const auto host_bases = ec::pseudo_random_subgroup_points<G2Curve>(n, rng);
  const auto scalars = mixed_scalars(n, rng);
  const auto want = msm::msm<G2Curve>(std::span<const G2Affine>(host_bases), scalars).to_affine();
  const auto resident = cuda::G2Bases::upload(0, host_bases);
  const auto streamed = cuda::G2Bases::in_host_memory(0, host_bases);
  const size_t whole = whole_workspace(*resident, 0, scalars);
  expect_msm(*streamed, 0, scalars, want, 0, "G2 streamed, no limit");
  const Limit limit(whole / 2);
  expect_msm(*resident, 0, scalars, want, whole / 2, "G2 resident, half the workspace");
  expect_msm(*streamed, 0, scalars, want, whole / 2, "G2 streamed, half the workspace");
}

// Precomputed copies keep their window in every chunk; copy t of chunk base j is still t * size
// points after it.
TEST_F(MsmGpuChunksTest, ChunkedPrecomputedBasesMatchCpu) {
  auto rng = test::make_rng();
  const size_t n = size_t(1) << 20;
  const auto host_bases = ec::pseudo_random_subgroup_points<G1Curve>(n, rng);
  const auto scalars = mixed_scalars(n - 9, rng);
  const auto want = msm::msm<G1Curve>(std::span<const G1Affine>(host_bases).subspan(9), scalars).to_affine();
  const auto copies = cuda::G1Bases::upload(0, host_bases, {.copies = 3});
  ASSERT_EQ(copies->copies(), 3u);
  const size_t whole = whole_workspace(*copies, 9, scalars);
  const Limit limit(whole / 2);
  expect_msm(*copies, 9, scalars, want, whole / 2, "3 copies, half the workspace");
}

// Too large to run whole within the limit, an MSM over bases on the device keeps the whole MSM's
// window and buckets a few of its windows a pass (at half the whole's workspace and more: at this
// size a pass's level-0 partials weigh about as much as a window's pairs); far below, it goes in
// chunks of a narrower window. Each matches the CPU: mixed scalars (zeros and ones apart), a
// window fixed by the options over uniform scalars (H's case), a density mask, G2; host and
// device scalars; the workspace within the limit.
TEST_F(MsmGpuChunksTest, AFewWindowsAPassKeepTheWholeMsmsWindow) {
  auto rng = test::make_rng();
  const size_t n = (size_t(1) << 20) + 77, offset = 5;
  const auto host_bases = ec::pseudo_random_subgroup_points<G1Curve>(n + offset, rng);
  const auto bases = cuda::G1Bases::upload(0, host_bases);
  const auto points = std::span<const G1Affine>(host_bases).subspan(offset);
  const auto mixed = mixed_scalars(n, rng);
  std::vector<Fr> uniform(n);
  for (auto& x : uniform) x = Fr::random(rng);
  const auto want_mixed = msm::msm<G1Curve>(points, mixed).to_affine();
  const auto want_uniform = msm::msm<G1Curve>(points, uniform).to_affine();
  const size_t whole = whole_workspace(*bases, offset, mixed);
  MsmStats whole_stats;
  cuda::msm<G1Curve>(*bases, offset, n, std::span<const Fr>(mixed), {}, &whole_stats);
  cuda::release_workspace(0);
  for (const size_t limit_bytes : {whole * 3 / 5, whole / 2}) {
    const std::string what = "limit " + std::to_string(limit_bytes) + " of " + std::to_string(whole);
    const Limit limit(limit_bytes);
    expect_msm(*bases, offset, mixed, want_mixed, limit_bytes, what);
    MsmStats stats;
    EXPECT_EQ(cuda::msm<G1Curve>(*bases, offset, n, std::span<const Fr>(mixed), {}, &stats).to_affine(), want_mixed);
    EXPECT_EQ(stats.window_bits, whole_stats.window_bits) << what << ": the whole MSM's window";
    EXPECT_EQ(stats.zeros, whole_stats.zeros) << what;
    EXPECT_EQ(stats.ones, whole_stats.ones) << what;
    const MsmOptions fixed{.window_bits = cuda::gpu_window_bits(n)};
    EXPECT_EQ(cuda::msm<G1Curve>(*bases, offset, n, std::span<const Fr>(uniform), fixed, &stats).to_affine(),
              want_uniform)
        << what << ", fixed window";
    EXPECT_EQ(stats.window_bits, fixed.window_bits) << what;
    EXPECT_LE(cuda::workspace_bytes(0), limit_bytes) << what;
  }
  {
    const Limit limit(whole / 50);  // less than one window of the whole MSM: chunks (beyond the limit)
    MsmStats stats;
    EXPECT_EQ(cuda::msm<G1Curve>(*bases, offset, n, std::span<const Fr>(mixed), {}, &stats).to_affine(), want_mixed);
    EXPECT_LT(stats.window_bits, whole_stats.window_bits) << "chunks take the window of their size";
  }
  // A density mask over the same bases.
  std::vector<uint64_t> words((n + 63) / 64, 0);
  for (size_t i = 0; i < n; i++) {
    if (rng() % 4) words[i / 64] |= uint64_t(1) << (i % 64);
  }
  const DensityView density{words, n};
  const auto want_density = msm_with_density<G1Curve>(points.first(density.count_ones()), mixed, density).to_affine();
  {
    const Limit limit(whole * 2 / 5);
    MsmStats stats;
    EXPECT_EQ(
        cuda::msm_with_density<G1Curve>(*bases, offset, std::span<const Fr>(mixed), density, {}, &stats).to_affine(),
        want_density);
    EXPECT_EQ(stats.terms, density.count_ones());
    EXPECT_LE(cuda::workspace_bytes(0), whole * 2 / 5);
  }
  // G2.
  const size_t n2 = (size_t(1) << 18) + 3;
  const auto host_g2 = ec::pseudo_random_subgroup_points<G2Curve>(n2, rng);
  const auto g2 = cuda::G2Bases::upload(0, host_g2);
  const std::vector<Fr> scalars_g2(mixed.begin(), mixed.begin() + n2);
  const auto want_g2 = msm::msm<G2Curve>(std::span<const G2Affine>(host_g2), scalars_g2).to_affine();
  const size_t whole_g2 = whole_workspace(*g2, 0, scalars_g2);
  MsmStats whole_g2_stats, g2_stats;
  cuda::msm<G2Curve>(*g2, 0, n2, std::span<const Fr>(scalars_g2), {}, &whole_g2_stats);
  cuda::release_workspace(0);
  const Limit limit(whole_g2 / 2);
  expect_msm(*g2, 0, scalars_g2, want_g2, whole_g2 / 2, "G2, half the workspace");
  cuda::msm<G2Curve>(*g2, 0, n2, std::span<const Fr>(scalars_g2), {}, &g2_stats);
  EXPECT_EQ(g2_stats.window_bits, whole_g2_stats.window_bits) << "G2: the whole MSM's window";
}

TEST_F(MsmGpuChunksTest, LoweringTheLimitFreesTheWorkspace) {
  auto rng = test::make_rng();
  const size_t n = size_t(1) << 18;
  const auto host_bases = ec::pseudo_random_subgroup_points<G1Curve>(n, rng);
  const auto bases = cuda::G1Bases::upload(0, host_bases);
  const auto scalars = mixed_scalars(n, rng);
  const size_t whole = whole_workspace(*bases, 0, scalars);
  cuda::msm<G1Curve>(*bases, 0, n, std::span<const Fr>(scalars));
  EXPECT_EQ(cuda::workspace_bytes(0), whole);
  const Limit limit(whole / 2);
  EXPECT_EQ(cuda::workspace_bytes(0), 0u) << "what it held was beyond the new limit";
  EXPECT_THROW(cuda::set_workspace_limit(1000, 1), std::runtime_error);  // no such device
}

}  // namespace
}  // namespace cuzk::msm
