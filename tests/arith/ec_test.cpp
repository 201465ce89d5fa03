// G1 and G2: group laws in every coordinate system, scalar multiplication (generic
// wNAF, GLV / psi-based) against each other and against the group order, the
// endomorphisms' eigenvalues and the subgroup checks.
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "ec/curves.hpp"
#include "ec/fixed_base.hpp"
#include "ec/random_points.hpp"
#include "ec/scalar_mul.hpp"
#include "test_support.hpp"

namespace cuzk::ec {
namespace {

struct G1Traits {
  using Curve = G1Curve;
  using Affine = G1Affine;
  using Jacobian = G1Jacobian;
  using Xyzz = G1Xyzz;
  static Affine generator() { return kG1Generator; }
  static Jacobian mul(const Jacobian& p, const Fr& k) { return g1_mul(p, k); }
  static bool in_subgroup(const Affine& p) { return g1_is_in_subgroup(p); }
};
struct G2Traits {
  using Curve = G2Curve;
  using Affine = G2Affine;
  using Jacobian = G2Jacobian;
  using Xyzz = G2Xyzz;
  static Affine generator() { return kG2Generator; }
  static Jacobian mul(const Jacobian& p, const Fr& k) { return g2_mul(p, k); }
  static bool in_subgroup(const Affine& p) { return g2_is_in_subgroup(p); }
};

// A point on the curve that is almost surely outside the subgroup: random x, solve for y.
template <class T, class Rng>
typename T::Affine random_curve_point(Rng& rng) {
  using Field = typename T::Curve::Field;
  for (;;) {
    Field x = Field::random(rng), y;
    if ((x.sqr() * x + T::Curve::b()).sqrt(y)) return {x, y};
  }
}

template <class T, class Rng>
typename T::Jacobian random_subgroup_point(Rng& rng) {
  return ec::random_subgroup_point<typename T::Curve>(rng);
}

template <class T>
class CurveTest : public ::testing::Test {};
using Curves = ::testing::Types<G1Traits, G2Traits>;
TYPED_TEST_SUITE(CurveTest, Curves);

TYPED_TEST(CurveTest, GeneratorIsOnCurveAndInSubgroup) {
  using T = TypeParam;
  EXPECT_TRUE(T::generator().is_on_curve());
  EXPECT_TRUE(T::in_subgroup(T::generator()));
  EXPECT_TRUE(T::Affine::infinity().is_on_curve());
  EXPECT_TRUE(T::in_subgroup(T::Affine::infinity()));
}

TYPED_TEST(CurveTest, GroupLaws) {
  using T = TypeParam;
  using J = typename T::Jacobian;
  auto rng = test::make_rng();
  const J inf = J::infinity();
  for (int i = 0; i < 20; i++) {
    J a = random_subgroup_point<T>(rng), b = random_subgroup_point<T>(rng), c = random_subgroup_point<T>(rng);
    EXPECT_TRUE((a + b).is_on_curve());
    EXPECT_EQ(a + b, b + a);
    EXPECT_EQ((a + b) + c, a + (b + c));
    EXPECT_EQ(a + inf, a);
    EXPECT_EQ(inf + a, a);
    EXPECT_TRUE((a + (-a)).is_infinity());
    EXPECT_EQ(a + a, a.dbl());
    EXPECT_EQ(a.dbl().to_affine(), (a + a).to_affine());
    // Mixed addition against full addition, including the doubling and inverse cases.
    auto b_aff = b.to_affine();
    EXPECT_EQ(a.add_mixed(b_aff), a + b);
    EXPECT_EQ(b.add_mixed(b_aff), b.dbl());
    EXPECT_TRUE(b.add_mixed(-b_aff).is_infinity());
    EXPECT_EQ(inf.add_mixed(b_aff), b);
    EXPECT_EQ(a.add_mixed(T::Affine::infinity()), a);
    // Affine round trip from a non-normalised Jacobian point.
    EXPECT_EQ(J::from_affine(a.to_affine()), a);
  }
  EXPECT_TRUE(inf.dbl().is_infinity());
}

TYPED_TEST(CurveTest, XyzzAgreesWithJacobian) {
  using T = TypeParam;
  using J = typename T::Jacobian;
  using X = typename T::Xyzz;
  auto rng = test::make_rng();
  for (int i = 0; i < 20; i++) {
    J a = random_subgroup_point<T>(rng), b = random_subgroup_point<T>(rng);
    auto a_aff = a.to_affine(), b_aff = b.to_affine();
    X xa = X::from_affine(a_aff), xb = X::from_affine(b_aff);
    X sum = xa.add_mixed(b_aff);  // ZZ = 1 inputs, then general ones below
    EXPECT_EQ((xa + xb).to_jacobian(), a + b);
    EXPECT_EQ(sum.to_jacobian(), a + b);
    EXPECT_EQ(sum.to_affine(), (a + b).to_affine());
    X s2 = sum + xa.dbl();  // non-trivial ZZ on both sides
    EXPECT_EQ(s2.to_jacobian(), a + b + a.dbl());
    EXPECT_EQ(s2.dbl().to_jacobian(), (a + b + a.dbl()).dbl());
    EXPECT_EQ(sum.add_mixed(a_aff).to_jacobian(), a + b + a);
    // Special cases: P + P, P - P, infinity.
    EXPECT_EQ((xa + xa).to_jacobian(), a.dbl());
    EXPECT_EQ(xa.add_mixed(a_aff).to_jacobian(), a.dbl());
    EXPECT_TRUE((xa + (-xa)).is_infinity());
    EXPECT_TRUE(xa.add_mixed(-a_aff).is_infinity());
    EXPECT_EQ((X::infinity() + xa).to_affine(), a_aff);
    EXPECT_EQ(X::infinity().add_mixed(a_aff).to_affine(), a_aff);
  }
}

TYPED_TEST(CurveTest, BatchToAffine) {
  using T = TypeParam;
  using J = typename T::Jacobian;
  auto rng = test::make_rng();
  std::vector<J> pts;
  for (int i = 0; i < 17; i++) pts.push_back(i % 5 == 2 ? J::infinity() : random_subgroup_point<T>(rng).dbl());
  std::vector<typename T::Affine> out(pts.size());
  std::vector<typename T::Curve::Field> scratch(pts.size());
  batch_to_affine(pts.data(), out.data(), pts.size(), scratch.data());
  for (size_t i = 0; i < pts.size(); i++) EXPECT_EQ(out[i], pts[i].to_affine()) << i;
}

TYPED_TEST(CurveTest, ScalarMultiplication) {
  using T = TypeParam;
  using J = typename T::Jacobian;
  auto rng = test::make_rng();
  const J g = J::from_affine(T::generator());
  for (int i = 0; i < 10; i++) {
    Fr a = Fr::random(rng), b = Fr::random(rng);
    J ga = T::mul(g, a);
    // Endomorphism-based multiplication equals the plain wNAF one.
    EXPECT_EQ(ga, scalar_mul(g, a.to_canonical()));
    // [a + b] G = [a] G + [b] G and [a b] G = [a]([b] G).
    EXPECT_EQ(T::mul(g, a + b), ga + T::mul(g, b));
    EXPECT_EQ(T::mul(g, a * b), T::mul(T::mul(g, b), a));
    EXPECT_EQ(T::mul(ga, -Fr::one()), -ga);
  }
  // Small scalars against repeated addition.
  J acc = J::infinity();
  for (uint64_t k = 0; k < 40; k++) {
    EXPECT_EQ(T::mul(g, Fr::from_u64(k)), acc) << k;
    EXPECT_EQ(scalar_mul(g, BigInt<1>::from_u64(k)), acc) << k;
    EXPECT_EQ(scalar_mul_u64(g, k), acc) << k;
    acc += g;
  }
  EXPECT_TRUE(T::mul(J::infinity(), Fr::random(rng)).is_infinity());
}

// The setups' fixed-base multiplication (batched affine additions over a table of every
// window's digits) against the endomorphism-based one: widths whose windows cross limbs, the
// widest table, edge scalars, and more scalars than one batch.
TYPED_TEST(CurveTest, FixedBaseTableMultipliesAsScalarMultiplication) {
  using T = TypeParam;
  using J = typename T::Jacobian;
  auto rng = test::make_rng();
  EXPECT_EQ(FixedBaseTable<typename T::Curve>::window_bits_for(0), 4u);
  EXPECT_EQ(FixedBaseTable<typename T::Curve>::window_bits_for(size_t(1) << 24), 16u);
  const J g = J::from_affine(T::generator());
  std::vector<Fr> scalars = {
      Fr::zero(), Fr::one(), -Fr::one(), Fr::from_u64(0xffff), Fr::from_u64(0x10000), -Fr::from_u64(0x10000)};
  Fr two_pow = Fr::one();
  for (int k = 0; k < 255; k += 7, two_pow = two_pow * Fr::from_u64(128)) scalars.push_back(two_pow);
  const size_t random_count = std::is_same_v<typename T::Curve, G1Curve> ? 2500 : 1100;  // > 1 batch of 1024
  while (scalars.size() < random_count) scalars.push_back(Fr::random(rng));
  // 16 bits only for G1: the G2 table of that width takes seconds to build.
  const std::vector<unsigned> widths =
      std::is_same_v<typename T::Curve, G1Curve> ? std::vector<unsigned>{5, 13, 16} : std::vector<unsigned>{5, 13};
  std::vector<J> expected;
  for (const Fr& k : scalars) expected.push_back(T::mul(g, k));
  for (unsigned w : widths) {
    const FixedBaseTable<typename T::Curve> table(T::generator(), 0, w);
    ASSERT_EQ(table.window_bits(), w);
    const auto all = table.mul_all(scalars);
    ASSERT_EQ(all.size(), scalars.size());
    for (size_t i = 0; i < scalars.size(); i++) {
      ASSERT_EQ(J::from_affine(all[i]), expected[i]) << "width " << w << ", scalar " << i;
      if (i < 64) {
        EXPECT_EQ(table.mul(scalars[i]), expected[i]) << "width " << w << ", scalar " << i;
      }
    }
  }
  EXPECT_TRUE(FixedBaseTable<typename T::Curve>(T::generator()).mul_all({}).empty());
}

TYPED_TEST(CurveTest, OrderOfSubgroupPointsIsR) {
  using T = TypeParam;
  using J = typename T::Jacobian;
  auto rng = test::make_rng();
  for (int i = 0; i < 5; i++) {
    J p = random_subgroup_point<T>(rng);
    EXPECT_TRUE(scalar_mul(p, Fr::modulus()).is_infinity());
    auto r_minus_1 = Fr::modulus();
    r_minus_1.sub_in_place(BigInt<4>::from_u64(1));
    EXPECT_EQ(scalar_mul(p, r_minus_1), -p);
  }
}

TYPED_TEST(CurveTest, SubgroupCheckMatchesDefinition) {
  using T = TypeParam;
  using J = typename T::Jacobian;
  auto rng = test::make_rng();
  for (int i = 0; i < 10; i++) {
    auto p = random_curve_point<T>(rng);
    ASSERT_TRUE(p.is_on_curve());
    bool by_order = scalar_mul(J::from_affine(p), Fr::modulus()).is_infinity();
    EXPECT_FALSE(by_order);  // random curve points are outside G (cofactor is huge)
    EXPECT_EQ(T::in_subgroup(p), by_order);
    auto q = random_subgroup_point<T>(rng).to_affine();
    EXPECT_TRUE(T::in_subgroup(q));
  }
}

TEST(G1Test, CofactorClearedPointsAreInSubgroup) {
  auto rng = test::make_rng();
  const auto h1 = BigInt<2>::from_hex("0x396c8c005555e1568c00aaab0000aaab");  // (x - 1)^2 / 3
  for (int i = 0; i < 10; i++) {
    auto p = random_curve_point<G1Traits>(rng);
    auto cleared = scalar_mul(G1Jacobian::from_affine(p), h1).to_affine();
    EXPECT_TRUE(g1_is_in_subgroup(cleared));
    EXPECT_TRUE(scalar_mul(G1Jacobian::from_affine(cleared), Fr::modulus()).is_infinity());
  }
}

TEST(G1Test, SigmaActsAsMinusXSquared) {
  auto rng = test::make_rng();
  // -x^2 mod r as an Fr element: x^2 = |x|^2.
  Fr x2 = Fr::from_u64(kBlsXAbs).sqr();
  for (int i = 0; i < 5; i++) {
    auto p = random_subgroup_point<G1Traits>(rng).to_affine();
    EXPECT_EQ(G1Jacobian::from_affine(g1_sigma(p)), g1_mul(p, -x2));
    auto s3 = g1_sigma(g1_sigma(g1_sigma(p)));
    EXPECT_EQ(s3, p);  // beta is a cube root of unity
  }
}

TEST(G2Test, PsiActsAsX) {
  auto rng = test::make_rng();
  Fr x = -Fr::from_u64(kBlsXAbs);
  for (int i = 0; i < 5; i++) {
    auto q = random_subgroup_point<G2Traits>(rng).to_affine();
    EXPECT_EQ(G2Jacobian::from_affine(g2_psi(q)), g2_mul(q, x));
    EXPECT_TRUE(g2_psi(q).is_on_curve());
  }
  // psi maps any twist point to the twist (not only subgroup points).
  auto p = random_curve_point<G2Traits>(rng);
  EXPECT_TRUE(g2_psi(p).is_on_curve());
}

TEST(WnafTest, RecodingReconstructsTheScalar) {
  auto rng = test::make_rng();
  for (unsigned w = 2; w <= 6; w++) {
    for (int i = 0; i < 20; i++) {
      BigInt<2> k = {{rng(), rng()}};
      int8_t digits[129];
      size_t n = wnaf_recode(k, w, digits);
      // Rebuild sum d_i 2^i in 3 limbs of signed arithmetic via two accumulators.
      BigInt<3> pos = BigInt<3>::zero(), neg = BigInt<3>::zero();
      for (size_t j = n; j-- > 0;) {
        pos.shl1();
        neg.shl1();
        int d = digits[j];
        EXPECT_TRUE(d == 0 || (d & 1)) << "even digit";
        EXPECT_LT(d < 0 ? -d : d, 1 << (w - 1));
        if (d > 0) pos.add_in_place(BigInt<3>::from_u64(uint64_t(d)));
        if (d < 0) neg.add_in_place(BigInt<3>::from_u64(uint64_t(-d)));
      }
      pos.sub_in_place(neg);
      EXPECT_EQ(pos, (BigInt<3>{{k.limb[0], k.limb[1], 0}}));
      for (size_t j = 0; j + 1 < n; j++) {
        if (digits[j] == 0) continue;
        for (size_t t = 1; t < w && j + t < n; t++) EXPECT_EQ(digits[j + t], 0);
      }
    }
  }
}

}  // namespace
}  // namespace cuzk::ec
