// The field templates compiled for the GPU agree bit for bit with the CPU build.
// Skipped cleanly when no CUDA device is present.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ff/cuda/field_selftest.hpp"
#include "ff/cuda/lazy_mont.hpp"
#include "test_support.hpp"

namespace cuzk::ff {
namespace {

class FieldGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (cuda::device_count(&why) == 0) GTEST_SKIP() << "no CUDA device: " << why;
  }
};

template <class F, class Run>
void compare(Run run, size_t n) {
  auto rng = test::make_rng();
  std::vector<F> a(n), b(n);
  for (size_t i = 0; i < n; i++) {
    a[i] = F::random(rng);
    b[i] = F::random(rng);
  }
  if (n > 2) {
    a[0] = F::zero();
    b[1] = F::one();
    a[2] = -F::one();
    b[2] = -F::one();
  }
  std::vector<F> got = run(a, b);
  constexpr size_t k = cuda::kFieldOps;
  ASSERT_EQ(got.size(), k * n);
  for (size_t i = 0; i < n; i++) {
    EXPECT_EQ(got[k * i + 0], a[i] * b[i]) << i;
    EXPECT_EQ(got[k * i + 1], a[i] + b[i]) << i;
    EXPECT_EQ(got[k * i + 2], a[i] - b[i]) << i;
    EXPECT_EQ(got[k * i + 3], a[i].sqr()) << i;
    // The device's one-reduction form against two products and an addition here.
    EXPECT_EQ(got[k * i + 4], a[i] * b[i] + (a[i] + b[i]) * (a[i] - b[i])) << i;
  }
}

TEST_F(FieldGpuTest, FpMatchesCpu) {
  for (size_t n : {size_t(0), size_t(1), size_t(1000), size_t(4099)}) compare<Fp>(cuda::fp_ops_on_device, n);
}
TEST_F(FieldGpuTest, FrMatchesCpu) {
  for (size_t n : {size_t(1), size_t(4099)}) compare<Fr>(cuda::fr_ops_on_device, n);
}
TEST_F(FieldGpuTest, Fp2MatchesCpu) {
  for (size_t n : {size_t(3), size_t(2048)}) compare<Fp2>(cuda::fp2_ops_on_device, n);
}

// The MSM's lazy Fp: results below 2p and equal, once reduced, to the CPU's (operands entered in
// both lazy forms, x and x + p).
TEST_F(FieldGpuTest, LazyFpMatchesCpu) {
  using Lazy = LazyMont<Fp>;
  constexpr BigInt<6> two_p = Lazy::Consts::M2;
  auto rng = test::make_rng();
  const size_t n = 4099;
  std::vector<Fp> a(n), b(n);
  for (size_t i = 0; i < n; i++) {
    a[i] = Fp::random(rng);
    b[i] = Fp::random(rng);
  }
  for (size_t i = 0; i < 8; i++) {  // 0 and -1 against themselves in all four lift patterns (i & 3)
    a[i] = i < 4 ? Fp::zero() : -Fp::one();
    b[i] = i < 4 ? Fp::zero() : -Fp::one();
  }
  b[8] = a[8] = Fp::one();
  const std::vector<BigInt<6>> got = cuda::fp_lazy_ops_on_device(a, b);
  constexpr size_t k = cuda::kFieldOps;
  ASSERT_EQ(got.size(), k * n);
  for (size_t i = 0; i < n; i++) {
    const Fp want[k] = {a[i] * b[i], a[i] + b[i], a[i] - b[i], a[i].sqr(), a[i] * b[i] + (a[i] + b[i]) * (a[i] - b[i])};
    for (size_t op = 0; op < k; op++) {
      EXPECT_TRUE(got[k * i + op] < two_p) << "op " << op << " at " << i;
      EXPECT_EQ(Lazy{got[k * i + op]}.canonical(), want[op]) << "op " << op << " at " << i;
    }
  }
}

}  // namespace
}  // namespace cuzk::ff
