// The GPU MSM gives the same point as the CPU msm (compared in affine form) on fresh random
// inputs: empty, tiny, non-power-of-two and mid sizes; all-zero, all-one, 0/1-heavy, small and
// repeated scalars (long buckets); offsets into the resident bases; density masks; scalars
// already on the device; every window width class; bases with the exceptional cases of point
// additions (repeated, negated, infinity). Skipped cleanly when no CUDA device is present.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
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

constexpr size_t kResident = 70000;  // resident bases shared by the tests (a non-power of two)

class MsmGpuTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string why;
    if (cuda::device_count(&why) == 0) return;
    auto rng = test::make_rng();
    host_bases_ = new std::vector<G1Affine>(ec::pseudo_random_subgroup_points<G1Curve>(kResident, rng));
    (*host_bases_)[17] = G1Affine::infinity();  // infinity bases contribute nothing
    bases_ = new std::shared_ptr<cuda::G1Bases>(cuda::G1Bases::upload(0, *host_bases_));
  }
  static void TearDownTestSuite() {
    delete bases_;
    delete host_bases_;
    bases_ = nullptr;
    host_bases_ = nullptr;
  }
  void SetUp() override {
    std::string why;
    if (cuda::device_count(&why) == 0) GTEST_SKIP() << "no CUDA device: " << why;
  }

  static std::span<const G1Affine> host(size_t offset, size_t n) {
    return std::span<const G1Affine>(*host_bases_).subspan(offset, n);
  }
  static const cuda::G1Bases& bases() { return **bases_; }

  // GPU (host and device scalars) against the CPU for bases [offset, offset + n).
  static void expect_same(size_t offset, const std::vector<Fr>& scalars, const std::string& what,
                          const MsmOptions& options = {}) {
    expect_same_on(bases(), offset, scalars, what, options);
  }
  static void expect_same_on(const cuda::G1Bases& on, size_t offset, const std::vector<Fr>& scalars,
                             const std::string& what, const MsmOptions& options = {}) {
    const size_t n = scalars.size();
    const auto want = msm::msm<G1Curve>(host(offset, n), scalars).to_affine();
    MsmStats stats;
    const auto got = cuda::msm<G1Curve>(on, offset, n, std::span<const Fr>(scalars), options, &stats);
    EXPECT_EQ(got.to_affine(), want) << what << ", n = " << n << ", offset = " << offset
                                     << ", window = " << stats.window_bits;
    EXPECT_EQ(stats.terms, n);
    EXPECT_EQ(stats.zeros + stats.ones + stats.bucketed, n);
    // Counted by the pair emission (a classify pass, when the window is not fixed, only chooses it).
    if (options.split_zero_one) {
      EXPECT_EQ(stats.zeros, size_t(std::count(scalars.begin(), scalars.end(), Fr::zero()))) << what;
      EXPECT_EQ(stats.ones, size_t(std::count(scalars.begin(), scalars.end(), Fr::one()))) << what;
    }
    Fr* d = nullptr;
    ASSERT_EQ(cudaMalloc(&d, std::max<size_t>(n, 1) * sizeof(Fr)), cudaSuccess);
    // Left unsynchronised on purpose: a pageable cudaMemcpy may return before its copy lands,
    // and the MSM must order itself after the legacy stream's work.
    ASSERT_EQ(cudaMemcpy(d, scalars.data(), n * sizeof(Fr), cudaMemcpyHostToDevice), cudaSuccess);
    const auto got_device = cuda::msm<G1Curve>(on, offset, n, d, options);
    cudaFree(d);
    EXPECT_EQ(got_device.to_affine(), want) << what << " (device scalars), n = " << n;
  }

  static std::vector<G1Affine>* host_bases_;
  static std::shared_ptr<cuda::G1Bases>* bases_;
};

std::vector<G1Affine>* MsmGpuTest::host_bases_ = nullptr;
std::shared_ptr<cuda::G1Bases>* MsmGpuTest::bases_ = nullptr;

std::vector<Fr> random_scalars(size_t n, std::mt19937_64& rng) {
  std::vector<Fr> s(n);
  for (auto& x : s) x = Fr::random(rng);
  return s;
}

// Under a density mask the statistics count only the scalars that have a base.
void expect_density_stats(const MsmStats& stats, const std::vector<Fr>& scalars, const DensityView& density,
                          const std::string& what) {
  size_t with_base = 0, zeros = 0, ones = 0;
  for (size_t i = 0; i < scalars.size(); i++) {
    if (!density.test(i)) continue;
    with_base++;
    zeros += scalars[i] == Fr::zero();
    ones += scalars[i] == Fr::one();
  }
  EXPECT_EQ(stats.terms, with_base) << what;
  EXPECT_EQ(stats.zeros, zeros) << what;
  EXPECT_EQ(stats.ones, ones) << what;
  EXPECT_EQ(stats.bucketed, with_base - zeros - ones) << what;
}

TEST_F(MsmGpuTest, UploadKeepsSizeAndBytes) {
  EXPECT_EQ(bases().size(), kResident);
  EXPECT_EQ(bases().device_bytes(), kResident * sizeof(G1Affine));
  EXPECT_EQ(bases().device(), 0);
}

TEST_F(MsmGpuTest, RandomScalarsMatchCpu) {
  auto rng = test::make_rng();
  for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(7), size_t(100), size_t(1000), size_t(4097), size_t(65536),
                   kResident}) {
    expect_same(0, random_scalars(n, rng), "random");
  }
  expect_same(12345, random_scalars(3001, rng), "offset");
}

TEST_F(MsmGpuTest, ZeroOneAndRepeatedScalars) {
  auto rng = test::make_rng();
  for (size_t n : {size_t(1), size_t(33), size_t(5000), size_t(65537)}) {
    expect_same(0, std::vector<Fr>(n, Fr::zero()), "all zero");
    expect_same(3, std::vector<Fr>(n, Fr::one()), "all one");
    expect_same(0, std::vector<Fr>(n, -Fr::one()), "all minus one");
    expect_same(0, std::vector<Fr>(n, Fr::random(rng)), "one repeated scalar (one long bucket per window)");
    std::vector<Fr> mixed(n), small(n);
    for (size_t i = 0; i < n; i++) {
      const uint64_t r = rng() % 8;
      mixed[i] = r < 3 ? Fr::zero() : r < 6 ? Fr::one() : Fr::random(rng);
      small[i] = Fr::from_u64(rng() % 5);
    }
    expect_same(0, mixed, "PoRep-like 0/1 mix");
    expect_same(0, small, "small scalars");
  }
  // Without the 0/1 split the ones go through the buckets too.
  std::vector<Fr> mixed(3000);
  for (auto& x : mixed) x = rng() % 2 ? Fr::one() : Fr::random(rng);
  expect_same(0, mixed, "no split", MsmOptions{0, false});
}

TEST_F(MsmGpuTest, EveryWindowClass) {
  auto rng = test::make_rng();
  const auto s = random_scalars(20000, rng);
  // Up to 24, the widest allowed: the model picks 22 from ~2^27 scalars (4.8 GB of G1 buckets).
  for (unsigned c : {2u, 3u, 5u, 8u, 11u, 13u, 16u, 19u, 20u, 21u, 22u, 24u}) {
    expect_same(7, s, "window", MsmOptions{c, true});
  }
}

TEST_F(MsmGpuTest, DensityMatchesCpu) {
  auto rng = test::make_rng();
  for (size_t n : {size_t(0), size_t(1), size_t(130), size_t(50000), size_t(200000)}) {
    for (unsigned percent : {0u, 25u, 100u}) {
      std::vector<uint64_t> words((n + 63) / 64, 0);
      for (size_t i = 0; i < n; i++) {
        if (rng() % 100 < percent) words[i / 64] |= uint64_t(1) << (i % 64);
      }
      DensityView density{words, n};
      const size_t ones = density.count_ones();
      if (ones > kResident) continue;
      std::vector<Fr> scalars(n);
      for (auto& x : scalars) {
        const uint64_t r = rng() % 4;
        x = r == 0 ? Fr::zero() : r == 1 ? Fr::one() : Fr::random(rng);
      }
      const size_t offset = kResident - ones;  // the density's bases end at the last resident one
      const auto want = msm_with_density<G1Curve>(host(offset, ones), scalars, density).to_affine();
      const std::string what = "n = " + std::to_string(n) + ", density " + std::to_string(percent) + "%";
      MsmStats stats;
      const auto got =
          cuda::msm_with_density<G1Curve>(bases(), offset, std::span<const Fr>(scalars), density, {}, &stats);
      EXPECT_EQ(got.to_affine(), want) << what;
      expect_density_stats(stats, scalars, density, what);
      Fr* d = nullptr;
      ASSERT_EQ(cudaMalloc(&d, std::max<size_t>(n, 1) * sizeof(Fr)), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(d, scalars.data(), n * sizeof(Fr), cudaMemcpyHostToDevice), cudaSuccess);
      MsmStats device_stats;
      const auto got_device = cuda::msm_with_density<G1Curve>(bases(), offset, d, density, {}, &device_stats);
      cudaFree(d);
      EXPECT_EQ(got_device.to_affine(), want) << "device scalars, " << what;
      expect_density_stats(device_stats, scalars, density, "device scalars, " + what);
    }
  }
}

TEST_F(MsmGpuTest, LargeRandomMatchesCpu) {
  auto rng = test::make_rng();
  const size_t n = size_t(1) << 20;
  auto host_bases = ec::pseudo_random_subgroup_points<G1Curve>(n, rng);
  auto big = cuda::G1Bases::upload(0, host_bases);
  const auto scalars = random_scalars(n - 3, rng);
  const auto want = msm::msm<G1Curve>(std::span<const G1Affine>(host_bases).subspan(3), scalars).to_affine();
  EXPECT_EQ(cuda::msm<G1Curve>(*big, 3, n - 3, std::span<const Fr>(scalars)).to_affine(), want);
}

// G2 runs the same templates over Fp2: random and PoRep-like scalars, a density mask.
TEST_F(MsmGpuTest, G2MatchesCpu) {
  using ec::G2Affine;
  using ec::G2Curve;
  auto rng = test::make_rng();
  const size_t max_n = 9000;
  const auto host_bases = ec::pseudo_random_subgroup_points<G2Curve>(max_n, rng);
  const auto g2 = cuda::G2Bases::upload(0, host_bases);
  EXPECT_EQ(g2->device_bytes(), max_n * sizeof(G2Affine));
  for (size_t n : {size_t(0), size_t(1), size_t(5), size_t(777), max_n - 1}) {
    std::vector<Fr> scalars(n);
    for (auto& x : scalars) {
      const uint64_t r = rng() % 4;
      x = r == 0 ? Fr::zero() : r == 1 ? Fr::one() : Fr::random(rng);
    }
    const size_t offset = max_n - n;
    const auto want = msm::msm<G2Curve>(std::span<const G2Affine>(host_bases).subspan(offset), scalars).to_affine();
    EXPECT_EQ(cuda::msm<G2Curve>(*g2, offset, n, std::span<const Fr>(scalars)).to_affine(), want) << "n = " << n;
  }
  const size_t n = 30000;
  std::vector<uint64_t> words((n + 63) / 64, 0);
  for (size_t i = 0; i < n; i++) {
    if (rng() % 4 == 0) words[i / 64] |= uint64_t(1) << (i % 64);
  }
  const DensityView density{words, n};
  ASSERT_LE(density.count_ones(), max_n);
  const auto scalars = random_scalars(n, rng);
  const auto want =
      msm_with_density<G2Curve>(std::span<const G2Affine>(host_bases).first(density.count_ones()), scalars, density)
          .to_affine();
  EXPECT_EQ(cuda::msm_with_density<G2Curve>(*g2, 0, std::span<const Fr>(scalars), density).to_affine(), want);
}

// Precomputed copies [2^(t G c)] B: several windows and copy counts (one copy, two, one per
// window, a count that does not divide W), against the CPU msm on the plain bases.
TEST_F(MsmGpuTest, PrecomputedBasesMatchCpu) {
  auto rng = test::make_rng();
  struct Case {
    unsigned c, copies;
  };
  for (const Case k :
       {Case{5, 1}, Case{5, 2}, Case{5, 0}, Case{8, 5}, Case{13, 0}, Case{16, 3}, Case{22, 0}, Case{24, 0}}) {
    const auto pre = cuda::G1Bases::upload(0, *host_bases_, cuda::Precompute{k.c, k.copies});
    const unsigned windows = (256 + k.c - 1) / k.c;
    const unsigned h = k.copies == 0 ? windows : std::min(k.copies, windows);
    const unsigned sets = (windows + h - 1) / h;
    const std::string what = "c = " + std::to_string(k.c) + ", copies " + std::to_string(pre->copies());
    EXPECT_EQ(pre->window_bits(), k.c);
    EXPECT_EQ(pre->bucket_sets(), sets) << what;
    EXPECT_EQ(pre->copies(), (windows + sets - 1) / sets) << what;
    EXPECT_EQ(pre->device_bytes(), pre->copies() * kResident * sizeof(G1Affine)) << what;
    // Copy 1 holds [2^(G c)] B (infinity stays infinity).
    if (pre->copies() > 1) {
      for (size_t i : {size_t(0), size_t(17), kResident - 1}) {
        G1Affine got;
        ASSERT_EQ(cudaMemcpy(&got, pre->device_data() + kResident + i, sizeof got, cudaMemcpyDeviceToHost),
                  cudaSuccess);
        auto want = ec::G1Jacobian::from_affine((*host_bases_)[i]);
        for (unsigned d = 0; d < sets * k.c; d++) want = want.dbl();
        EXPECT_EQ(got, want.to_affine()) << what << ", base " << i;
      }
    }
    for (size_t n : {size_t(0), size_t(1), size_t(3), size_t(1000), size_t(4097), size_t(50000)}) {
      expect_same_on(*pre, 0, random_scalars(n, rng), "precomputed, random, " + what);
    }
    expect_same_on(*pre, 12345, random_scalars(3001, rng), "precomputed, offset, " + what);
    expect_same_on(*pre, 0, random_scalars(kResident, rng), "precomputed, all bases, " + what);
    expect_same_on(*pre, 5, std::vector<Fr>(2000, Fr::zero()), "precomputed, all zero, " + what);
    expect_same_on(*pre, 5, std::vector<Fr>(2000, Fr::one()), "precomputed, all one, " + what);
    expect_same_on(*pre, 0, std::vector<Fr>(3000, -Fr::one()), "precomputed, all minus one, " + what);
    std::vector<Fr> mixed(20000);
    for (auto& x : mixed) {
      const uint64_t r = rng() % 8;
      x = r < 3 ? Fr::zero() : r < 6 ? Fr::one() : Fr::random(rng);
    }
    expect_same_on(*pre, 7, mixed, "precomputed, 0/1 mix, " + what);
    expect_same_on(*pre, 7, mixed, "precomputed, no split, " + what, MsmOptions{0, false});
    expect_same_on(*pre, 7, mixed, "precomputed, same window asked, " + what, MsmOptions{k.c, true});
    // A density mask: base offset + i in every copy.
    const size_t n = 100000;
    std::vector<uint64_t> words((n + 63) / 64, 0);
    for (size_t i = 0; i < n; i++) {
      if (rng() % 100 < 40) words[i / 64] |= uint64_t(1) << (i % 64);
    }
    const DensityView density{words, n};
    const size_t ones = density.count_ones();
    ASSERT_LE(ones, kResident);
    const size_t offset = kResident - ones;
    std::vector<Fr> scalars(n);
    for (auto& x : scalars) {
      const uint64_t r = rng() % 8;
      x = r < 2 ? Fr::one() : r < 3 ? Fr::zero() : Fr::random(rng);
    }
    const auto want = msm_with_density<G1Curve>(host(offset, ones), scalars, density).to_affine();
    MsmStats stats;  // counted by the emission (no classify pass: the window is fixed)
    EXPECT_EQ(
        cuda::msm_with_density<G1Curve>(*pre, offset, std::span<const Fr>(scalars), density, {}, &stats).to_affine(),
        want)
        << "precomputed, density, " << what;
    expect_density_stats(stats, scalars, density, "precomputed, density, " + what);
    // The window is the precomputation's.
    std::vector<Fr> s(10, Fr::one());
    EXPECT_THROW(cuda::msm<G1Curve>(*pre, 0, 10, std::span<const Fr>(s), MsmOptions{k.c == 5 ? 6u : 5u, true}),
                 std::invalid_argument);
  }
  // The window by size, and a bad window.
  const auto auto_window = cuda::G1Bases::upload(0, host(0, 5000), cuda::Precompute{0, 2});
  EXPECT_EQ(auto_window->window_bits(), cuda::gpu_precompute_window_bits(5000, 2));
  expect_same_on(*auto_window, 0, random_scalars(5000, rng), "precomputed, window by size");
  EXPECT_THROW(cuda::G1Bases::upload(0, host(0, 10), cuda::Precompute{25, 1}), std::invalid_argument);
  // Empty bases.
  const auto empty = cuda::G1Bases::upload(0, host(0, 0), cuda::Precompute{8, 0});
  EXPECT_EQ(cuda::msm<G1Curve>(*empty, 0, 0, std::span<const Fr>()).to_affine(), G1Affine::infinity());
}

TEST_F(MsmGpuTest, PrecomputedG2MatchesCpu) {
  using ec::G2Affine;
  using ec::G2Curve;
  auto rng = test::make_rng();
  const size_t n = 3000;
  const auto host_bases = ec::pseudo_random_subgroup_points<G2Curve>(n, rng);
  const auto g2 = cuda::G2Bases::upload(0, host_bases, cuda::Precompute{9, 0});
  const auto scalars = random_scalars(n - 1, rng);
  const auto want = msm::msm<G2Curve>(std::span<const G2Affine>(host_bases).subspan(1), scalars).to_affine();
  EXPECT_EQ(cuda::msm<G2Curve>(*g2, 1, n - 1, std::span<const Fr>(scalars)).to_affine(), want);
}

// The workspace can be given back between MSMs; the next MSM allocates it again.
TEST_F(MsmGpuTest, ReleaseWorkspace) {
  auto rng = test::make_rng();
  expect_same(0, random_scalars(30000, rng), "before release");
  EXPECT_GT(cuda::workspace_bytes(0), size_t(0));
  cuda::release_workspace(0);
  EXPECT_EQ(cuda::workspace_bytes(0), size_t(0));
  expect_same(0, random_scalars(30000, rng), "after release");
  EXPECT_GT(cuda::workspace_bytes(0), size_t(0));
  cuda::release_workspace(0);
  cuda::release_workspace(0);  // twice is fine
  EXPECT_EQ(cuda::workspace_bytes(0), size_t(0));
  EXPECT_EQ(cuda::workspace_bytes(1000), size_t(0));  // a device never used
  cuda::release_workspace(1000);
  expect_same(3, random_scalars(1000, rng), "after a second release");
}

// GPU (host and device scalars) against the CPU msm over the given bases.
template <class Curve>
void expect_same_affine(const cuda::Bases<Curve>& on, std::span<const ec::AffinePoint<Curve>> host_bases,
                        const std::vector<Fr>& scalars, const std::string& what, const MsmOptions& options = {}) {
  const size_t n = scalars.size();
  const auto want = msm::msm<Curve>(host_bases.first(n), scalars).to_affine();
  EXPECT_EQ(cuda::msm<Curve>(on, 0, n, std::span<const Fr>(scalars), options).to_affine(), want)
      << what << ", n = " << n;
  Fr* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, std::max<size_t>(n, 1) * sizeof(Fr)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d, scalars.data(), n * sizeof(Fr), cudaMemcpyHostToDevice), cudaSuccess);
  const auto got_device = cuda::msm<Curve>(on, 0, n, d, options);
  cudaFree(d);
  EXPECT_EQ(got_device.to_affine(), want) << what << " (device scalars), n = " << n;
}

// Bases with the exceptional cases of point additions: repeated bases (doublings when their
// scalars share buckets), a base and its negation (P + (-P)), the point at infinity.
template <class Curve>
std::vector<ec::AffinePoint<Curve>> exceptional_bases(size_t n, std::mt19937_64& rng) {
  auto b = ec::pseudo_random_subgroup_points<Curve>(n, rng);
  // Pairs (i, i + 1) with odd i: "neighbours share scalars" puts them into the same buckets.
  b[2] = b[1];
  b[4] = -b[3];
  b[6] = ec::AffinePoint<Curve>::infinity();
  b[8] = b[7];
  b[9] = b[7];
  for (size_t i = 101; i + 1 < n; i += 98) b[i + 1] = b[i];  // more duplicates, spread out
  for (size_t i = 151; i + 1 < n; i += 212) b[i + 1] = -b[i];
  return b;
}

// Scalar patterns for the exceptional bases: random, all zero, all one, all minus one, one repeated
// scalar (one heavy bucket per window: every duplicate doubles, every negation cancels), a few
// distinct scalars, and the same scalar for the duplicates and negations only.
std::vector<std::pair<std::string, std::vector<Fr>>> exceptional_scalar_cases(size_t n, std::mt19937_64& rng) {
  std::vector<std::pair<std::string, std::vector<Fr>>> cases;
  cases.emplace_back("random", random_scalars(n, rng));
  cases.emplace_back("all zero", std::vector<Fr>(n, Fr::zero()));
  cases.emplace_back("all one", std::vector<Fr>(n, Fr::one()));
  cases.emplace_back("all minus one", std::vector<Fr>(n, -Fr::one()));
  cases.emplace_back("one repeated scalar", std::vector<Fr>(n, Fr::random(rng)));
  std::vector<Fr> few(n);
  const Fr pool[3] = {Fr::random(rng), Fr::random(rng), Fr::from_u64(5)};
  for (auto& x : few) x = pool[rng() % 3];
  cases.emplace_back("three distinct scalars", few);
  auto pairs = random_scalars(n, rng);
  for (size_t i = 1; i + 1 < n; i += 2) pairs[i + 1] = pairs[i];
  cases.emplace_back("neighbours share scalars", pairs);
  return cases;
}

TEST_F(MsmGpuTest, ExceptionalBasesMatchCpu) {
  auto rng = test::make_rng();
  const auto special = exceptional_bases<G1Curve>(20000, rng);
  const auto special_bases = cuda::G1Bases::upload(0, special);
  for (size_t n : {size_t(1), size_t(2), size_t(7), size_t(100), size_t(4097), size_t(65536), kResident}) {
    expect_same(0, random_scalars(n, rng), "random");
  }
  expect_same(12345, random_scalars(3001, rng), "offset");
  for (size_t n : {size_t(33), size_t(5000)}) {
    expect_same(0, std::vector<Fr>(n, Fr::random(rng)), "one repeated scalar");
    std::vector<Fr> small(n);
    for (auto& x : small) x = Fr::from_u64(rng() % 5);
    expect_same(0, small, "small scalars");
  }
  std::vector<Fr> mixed(3000);
  for (auto& x : mixed) x = rng() % 2 ? Fr::one() : Fr::random(rng);
  expect_same(0, mixed, "no split", MsmOptions{0, false});
  expect_same(7, random_scalars(20000, rng), "window 5", MsmOptions{5, true});
  for (size_t n : {size_t(7), size_t(1000), size_t(20000)}) {
    for (const auto& [name, scalars] : exceptional_scalar_cases(n, rng)) {
      expect_same_affine<G1Curve>(*special_bases, special, scalars, "exceptional bases, " + name);
    }
  }
}

TEST_F(MsmGpuTest, ExceptionalBasesPrecomputedMatchCpu) {
  auto rng = test::make_rng();
  const auto special = exceptional_bases<G1Curve>(20000, rng);
  struct Case {
    unsigned c, copies;
  };
  for (const Case k : {Case{5, 2}, Case{8, 0}, Case{13, 3}, Case{22, 0}}) {
    const auto pre = cuda::G1Bases::upload(0, special, cuda::Precompute{k.c, k.copies});
    const std::string what = "precomputed c = " + std::to_string(k.c) + ", copies " + std::to_string(pre->copies());
    for (size_t n : {size_t(3), size_t(4097), size_t(20000)}) {
      for (const auto& [name, scalars] : exceptional_scalar_cases(n, rng)) {
        expect_same_affine<G1Curve>(*pre, special, scalars, what + ", " + name);
      }
    }
  }
}

TEST_F(MsmGpuTest, ExceptionalBasesG2MatchCpu) {
  auto rng = test::make_rng();
  const auto special = exceptional_bases<ec::G2Curve>(9000, rng);
  const auto g2 = cuda::G2Bases::upload(0, special);
  const auto pre = cuda::G2Bases::upload(0, special, cuda::Precompute{9, 0});
  for (size_t n : {size_t(1), size_t(5), size_t(777), size_t(9000)}) {
    for (const auto& [name, scalars] : exceptional_scalar_cases(n, rng)) {
      expect_same_affine<ec::G2Curve>(*g2, special, scalars, "G2, " + name);
    }
  }
  expect_same_affine<ec::G2Curve>(*pre, special, random_scalars(9000, rng), "G2, precomputed c = 9");
}

TEST_F(MsmGpuTest, BadArgumentsThrow) {
  std::vector<Fr> s(10, Fr::one());
  EXPECT_THROW(cuda::msm<G1Curve>(bases(), kResident - 5, 10, std::span<const Fr>(s)), std::invalid_argument);
  EXPECT_THROW(cuda::msm<G1Curve>(bases(), 0, 9, std::span<const Fr>(s)), std::invalid_argument);
  EXPECT_THROW(cuda::G1Bases::upload(1000, host(0, 4)), std::runtime_error);
}

}  // namespace
}  // namespace cuzk::msm
