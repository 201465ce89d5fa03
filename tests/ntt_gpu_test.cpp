// The GPU NTT and H polynomial agree bit for bit with ntt::EvaluationDomain on fresh random
// inputs. Skipped cleanly when no CUDA device is present.
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

TEST_F(NttGpuTest, RejectsBadSizes) {
  std::vector<Fr> v(3);
  EXPECT_THROW(cuda::transform_on_device(v, Transform::kFft), std::invalid_argument);
  EXPECT_THROW(cuda::DeviceDomain(40), std::invalid_argument);
}

}  // namespace
}  // namespace cuzk::ntt
