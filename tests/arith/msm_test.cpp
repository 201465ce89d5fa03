// Pippenger MSM against the naive sum of scalar multiplications, for G1 and G2: empty,
// tiny and mid-size inputs, all-zero and all-one scalars, the PoRep-like mix of 0/1 and
// large scalars, density masks, every window width, and cancellation inside buckets.
#include <vector>

#include <gtest/gtest.h>

#include "ec/random_points.hpp"
#include "ec/scalar_mul.hpp"
#include "msm/pippenger.hpp"
#include "test_support.hpp"

namespace cuzk::msm {
namespace {

using ec::G1Curve;
using ec::G2Curve;
using ff::BigInt;

template <class Curve>
std::vector<AffinePoint<Curve>> random_bases(size_t n, std::mt19937_64& rng) {
  return ec::pseudo_random_subgroup_points<Curve>(n, rng);
}

// Scalars like a PoRep witness: ~40% zero, ~40% one, the rest uniform.
std::vector<Fr> mixed_scalars(size_t n, std::mt19937_64& rng) {
  std::vector<Fr> s(n);
  for (auto& x : s) {
    uint64_t r = rng() % 10;
    x = r < 4 ? Fr::zero() : r < 8 ? Fr::one() : Fr::random(rng);
  }
  return s;
}

template <class Curve>
class MsmTest : public ::testing::Test {};
using Curves = ::testing::Types<G1Curve, G2Curve>;
TYPED_TEST_SUITE(MsmTest, Curves);

TYPED_TEST(MsmTest, MatchesNaiveSum) {
  using Curve = TypeParam;
  auto rng = test::make_rng();
  const size_t max_n = std::is_same_v<Curve, G1Curve> ? 1500 : 400;
  for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(7), size_t(100), max_n}) {
    auto bases = random_bases<Curve>(n, rng);
    std::vector<Fr> scalars(n);
    for (auto& s : scalars) s = Fr::random(rng);
    auto want = msm_naive<Curve>(bases, scalars);
    EXPECT_EQ(msm<Curve>(bases, scalars), want) << "n = " << n;
    auto mixed = mixed_scalars(n, rng);
    MsmStats stats;
    EXPECT_EQ(msm<Curve>(bases, mixed, {}, &stats), msm_naive<Curve>(bases, mixed)) << "mixed, n = " << n;
    EXPECT_EQ(stats.terms, n);
    EXPECT_EQ(stats.zeros + stats.ones + stats.bucketed, n);
  }
}

TYPED_TEST(MsmTest, ZeroAndOneScalars) {
  using Curve = TypeParam;
  auto rng = test::make_rng();
  const size_t n = 300;
  auto bases = random_bases<Curve>(n, rng);
  std::vector<Fr> zeros(n, Fr::zero()), ones(n, Fr::one());
  EXPECT_TRUE(msm<Curve>(bases, zeros).is_infinity());
  JacobianPoint<Curve> sum = JacobianPoint<Curve>::infinity();
  for (const auto& b : bases) sum = sum.add_mixed(b);
  EXPECT_EQ(msm<Curve>(bases, ones), sum);
  // The same without the 0/1 pre-pass.
  MsmOptions plain;
  plain.split_zero_one = false;
  EXPECT_EQ(msm<Curve>(bases, ones, plain), sum);
  EXPECT_TRUE(msm<Curve>(bases, zeros, plain).is_infinity());
}

TYPED_TEST(MsmTest, EveryWindowWidthAgrees) {
  using Curve = TypeParam;
  auto rng = test::make_rng();
  const size_t n = 200;
  auto bases = random_bases<Curve>(n, rng);
  auto scalars = mixed_scalars(n, rng);
  scalars[0] = -Fr::one();  // r - 1: the largest scalar
  scalars[1] = Fr::from_u64(1u << 15);
  auto want = msm_naive<Curve>(bases, scalars);
  for (unsigned c : {2u, 3u, 4u, 5u, 7u, 8u, 11u, 13u, 16u}) {
    MsmOptions o;
    o.window_bits = c;
    EXPECT_EQ(msm<Curve>(bases, scalars, o), want) << "c = " << c;
  }
  MsmOptions bad;
  bad.window_bits = 40;
  EXPECT_THROW(msm<Curve>(bases, scalars, bad), std::invalid_argument);
}

TYPED_TEST(MsmTest, CancellationAndRepeatedBases) {
  using Curve = TypeParam;
  auto rng = test::make_rng();
  auto one_base = random_bases<Curve>(1, rng);
  // k B + (r - k) B = 0, and the same base many times (doubling inside a bucket).
  Fr k = Fr::random(rng);
  std::vector<AffinePoint<Curve>> bases(64, one_base[0]);
  std::vector<Fr> scalars(64, k);
  for (size_t i = 32; i < 64; i++) scalars[i] = -k;
  EXPECT_TRUE(msm<Curve>(bases, scalars).is_infinity());
  std::vector<Fr> same(64, Fr::from_u64(5));
  EXPECT_EQ(msm<Curve>(bases, same), msm_naive<Curve>(bases, same));
}

// Repeated scalars put many points into one bucket; this must stay linear in the count.
TYPED_TEST(MsmTest, RepeatedScalarsShareBuckets) {
  using Curve = TypeParam;
  auto rng = test::make_rng();
  const size_t n = std::is_same_v<Curve, G1Curve> ? 20000 : 4000;
  auto bases = random_bases<Curve>(n, rng);
  std::vector<Fr> scalars(n, Fr::from_u64(2));
  for (size_t i = 0; i < n; i += 5) scalars[i] = -Fr::from_u64(3);
  JacobianPoint<Curve> twos = JacobianPoint<Curve>::infinity(), threes = JacobianPoint<Curve>::infinity();
  for (size_t i = 0; i < n; i++) (i % 5 == 0 ? threes : twos) = (i % 5 == 0 ? threes : twos).add_mixed(bases[i]);
  auto want = ec::scalar_mul(twos, BigInt<1>::from_u64(2)) - ec::scalar_mul(threes, BigInt<1>::from_u64(3));
  EXPECT_EQ(msm<Curve>(bases, scalars), want);
}

TYPED_TEST(MsmTest, InfinityBasesContributeNothing) {
  using Curve = TypeParam;
  auto rng = test::make_rng();
  auto bases = random_bases<Curve>(100, rng);
  for (size_t i = 0; i < bases.size(); i += 3) bases[i] = AffinePoint<Curve>::infinity();
  auto scalars = mixed_scalars(bases.size(), rng);
  EXPECT_EQ(msm<Curve>(bases, scalars), msm_naive<Curve>(bases, scalars));
}

TYPED_TEST(MsmTest, DensityMask) {
  using Curve = TypeParam;
  auto rng = test::make_rng();
  const size_t n = 500;
  auto scalars = mixed_scalars(n, rng);
  std::vector<uint64_t> words((n + 63) / 64, 0);
  std::vector<Fr> dense_scalars;
  for (size_t i = 0; i < n; i++) {
    if (rng() % 4 == 0) continue;  // ~25% of variables have no base
    words[i / 64] |= uint64_t(1) << (i % 64);
    dense_scalars.push_back(scalars[i]);
  }
  DensityView density{words, n};
  EXPECT_EQ(density.count_ones(), dense_scalars.size());
  auto bases = random_bases<Curve>(dense_scalars.size(), rng);
  EXPECT_EQ(msm_with_density<Curve>(bases, scalars, density), msm_naive<Curve>(bases, dense_scalars));
  // Wrong counts are reported, not read past.
  auto fewer = std::span(bases).first(bases.size() - 1);
  EXPECT_THROW(msm_with_density<Curve>(fewer, scalars, density), std::invalid_argument);
  EXPECT_THROW(msm_with_density<Curve>(bases, std::span(scalars).first(n - 1), density), std::invalid_argument);
  EXPECT_THROW(msm<Curve>(bases, scalars), std::invalid_argument);
}

TEST(MsmWindowTest, DefaultGrowsWithSize) {
  EXPECT_LE(default_window_bits(10), default_window_bits(1 << 10));
  EXPECT_LT(default_window_bits(1 << 10), default_window_bits(1 << 20));
  EXPECT_LE(default_window_bits(size_t(1) << 30), 20u);
}

}  // namespace
}  // namespace cuzk::msm
