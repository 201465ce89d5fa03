// The GPU NTT and H polynomial agree bit for bit with ntt::EvaluationDomain on fresh random
// inputs. Skipped cleanly when no CUDA device is present.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ntt/cuda/ntt.hpp"
#include "ntt/domain.hpp"
#include "test_support.hpp"

namespace cuzk::ntt {
namespace {

using cuda::Transform;

class NttGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (cuda::device_count(&why) == 0) GTEST_SKIP() << "no CUDA device: " << why;
  }
};

std::vector<Fr> random_vector(size_t n, std::mt19937_64& rng) {
  std::vector<Fr> v(n);
  for (auto& x : v) x = Fr::random(rng);
  return v;
}

void cpu_transform(const EvaluationDomain& d, std::vector<Fr>& v, Transform kind) {
  switch (kind) {
    case Transform::kFft:
      d.fft(v);
      break;
    case Transform::kIfft:
      d.ifft(v);
      break;
    case Transform::kCosetFft:
      d.coset_fft(v);
      break;
    case Transform::kIcosetFft:
      d.icoset_fft(v);
      break;
  }
}

// First index where the vectors differ, or -1.
long first_difference(const std::vector<Fr>& x, const std::vector<Fr>& y) {
  if (x.size() != y.size()) return 0;
  for (size_t i = 0; i < x.size(); i++) {
    if (x[i] != y[i]) return long(i);
  }
  return -1;
}

void check_all_transforms(unsigned log_n, std::mt19937_64& rng, bool zeros = false) {
  const EvaluationDomain domain(log_n);
  for (Transform kind : {Transform::kFft, Transform::kIfft, Transform::kCosetFft, Transform::kIcosetFft}) {
    std::vector<Fr> v = zeros ? std::vector<Fr>(domain.size(), Fr::zero()) : random_vector(domain.size(), rng);
    std::vector<Fr> want = v;
    cpu_transform(domain, want, kind);
    cuda::transform_on_device(v, kind);
    EXPECT_EQ(first_difference(v, want), -1) << "log n " << log_n << ", transform " << int(kind);
  }
}

TEST_F(NttGpuTest, TransformsMatchCpuSmallAndMedium) {
  auto rng = test::make_rng();
  for (unsigned log_n = 0; log_n <= 20; log_n++) check_all_transforms(log_n, rng);
}

// Sizes where the pass layout changes (2^21: a third pass; 2^22: 11 + 5 + 6 stages), and 2^24.
TEST_F(NttGpuTest, TransformsMatchCpuLarge) {
  auto rng = test::make_rng();
  for (unsigned log_n : {21u, 22u, 24u}) check_all_transforms(log_n, rng);
}

TEST_F(NttGpuTest, AllZeroInputStaysZero) {
  auto rng = test::make_rng();
  check_all_transforms(12, rng, /*zeros=*/true);
}

TEST_F(NttGpuTest, InverseUndoesForward) {
  auto rng = test::make_rng();
  const auto orig = random_vector(size_t(1) << 16, rng);
  auto v = orig;
  cuda::transform_on_device(v, Transform::kCosetFft);
  cuda::transform_on_device(v, Transform::kIcosetFft);
  EXPECT_EQ(first_difference(v, orig), -1);
}

TEST_F(NttGpuTest, HPolynomialMatchesCpu) {
  auto rng = test::make_rng();
  for (unsigned log_n : {1u, 2u, 5u, 8u, 10u, 11u, 12u, 16u, 20u, 21u}) {
    const EvaluationDomain domain(log_n);
    const size_t n = domain.size();
    auto a = random_vector(n, rng), b = random_vector(n, rng), c = random_vector(n, rng);
    // Constraint data is zero-padded to the domain: zero the top quarter.
    for (size_t i = n - n / 4; i < n; i++) a[i] = b[i] = c[i] = Fr::zero();
    auto ga = a, gb = b, gc = c;
    compute_h_polynomial(domain, a, b, c);
    cuda::h_polynomial_on_device(ga, gb, gc);
    EXPECT_EQ(first_difference(ga, a), -1) << "log n " << log_n;
  }
}

// The device's expansion of a ZeroOneVector equals the host's, entry for entry, and zero-pads
// to the target's length (the target starts as garbage).
TEST_F(NttGpuTest, ExpandsZeroOneVectorsAsTheHostDoes) {
  auto rng = test::make_rng();
  std::uniform_real_distribution<double> u(0, 1);
  const double mixes[][2] = {{0.375, 0.375}, {0.5, 0.5}, {0, 1}, {0.1, 0.1}, {0, 0}};
  for (size_t size : {size_t(0), size_t(1), size_t(31), size_t(1000), size_t(1024), size_t(3000), size_t(65541)}) {
    for (const auto& mix : mixes) {
      std::vector<Fr> v(size);
      for (auto& x : v) {
        const double t = u(rng);
        x = t < mix[0] ? Fr::zero() : t < mix[0] + mix[1] ? Fr::one() : Fr::random(rng);
      }
      const auto z = ZeroOneVector::compress(v, 1.0);
      ASSERT_TRUE(z.has_value());
      const size_t n = size + 37;
      cuzk::cuda::DeviceBuffer<uint32_t> kinds(std::max<size_t>(z->kinds.size(), 1)), offsets(z->chunk_offsets.size());
      cuzk::cuda::DeviceBuffer<Fr> others(std::max<size_t>(z->others.size(), 1)), out(n);
      auto up = [](void* to, const void* from, size_t bytes) {
        if (bytes) {
          ASSERT_EQ(cudaMemcpy(to, from, bytes, cudaMemcpyHostToDevice), cudaSuccess);
        }
      };
      up(kinds.get(), z->kinds.data(), z->kinds.size() * 4);
      up(offsets.get(), z->chunk_offsets.data(), z->chunk_offsets.size() * 4);
      up(others.get(), z->others.data(), z->others.size() * sizeof(Fr));
      ASSERT_EQ(cudaMemset(out.get(), 0xa5, n * sizeof(Fr)), cudaSuccess);
      cuda::expand_zero_one(out.get(), n, {size, kinds.get(), offsets.get(), others.get()}, nullptr);
      std::vector<Fr> got(n);
      ASSERT_EQ(cudaMemcpy(got.data(), out.get(), n * sizeof(Fr), cudaMemcpyDeviceToHost), cudaSuccess);
      auto want = z->expand();
      want.resize(n, Fr::zero());
      EXPECT_EQ(first_difference(got, want), -1) << "size " << size << ", zeros " << mix[0] << ", ones " << mix[1];
    }
  }
  EXPECT_THROW(cuda::expand_zero_one(nullptr, 3, {4, nullptr, nullptr, nullptr}, nullptr), std::invalid_argument);
}

TEST_F(NttGpuTest, RejectsBadSizes) {
  std::vector<Fr> v(3);
  EXPECT_THROW(cuda::transform_on_device(v, Transform::kFft), std::invalid_argument);
  EXPECT_THROW(cuda::DeviceDomain(40), std::invalid_argument);
}

}  // namespace
}  // namespace cuzk::ntt
