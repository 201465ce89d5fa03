// Prime fields and the Fp2/Fp6/Fp12 tower: laws on fresh random inputs, byte
// conversions with range checks, square roots, Frobenius maps, cyclotomic squaring.
#include <array>
#include <vector>

#include <gtest/gtest.h>

#include "ff/cuda/lazy_mont.hpp"
#include "ff/fp12.hpp"
#include "ff/fr.hpp"
#include "test_support.hpp"

namespace cuzk::ff {
namespace {

constexpr int kIters = 200;

template <class F>
class PrimeFieldTest : public ::testing::Test {};
using PrimeFields = ::testing::Types<Fp, Fr>;
TYPED_TEST_SUITE(PrimeFieldTest, PrimeFields);

TYPED_TEST(PrimeFieldTest, RingLaws) {
  using F = TypeParam;
  auto rng = test::make_rng();
  for (int i = 0; i < kIters; i++) {
    F a = F::random(rng), b = F::random(rng), c = F::random(rng);
    EXPECT_EQ(a + b, b + a);
    EXPECT_EQ((a + b) + c, a + (b + c));
    EXPECT_EQ(a * b, b * a);
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a * (b + c), a * b + a * c);
    EXPECT_EQ(a - b, a + (-b));
    EXPECT_EQ(a + F::zero(), a);
    EXPECT_EQ(a * F::one(), a);
    EXPECT_TRUE((a - a).is_zero());
    EXPECT_TRUE((a + (-a)).is_zero());
    EXPECT_EQ(a.dbl(), a + a);
    EXPECT_EQ(a.sqr(), a * a);
  }
  EXPECT_TRUE((-F::zero()).is_zero());
}

// The assembly kernels (x86-64 with ADX) against the portable ones and plain integer
// arithmetic, on random and extreme operands.
TYPED_TEST(PrimeFieldTest, FastKernelsMatchPortableKernels) {
  using F = TypeParam;
  using L = typename F::Limbs;
  auto rng = test::make_rng();
  std::vector<F> xs = {F::zero(), F::one(), -F::one(), -F::from_u64(2), F::from_montgomery(L::from_u64(1))};
  for (int i = 0; i < 500; i++) xs.push_back(F::random(rng));
  for (size_t i = 0; i < xs.size(); i++) {
    const F& a = xs[i];
    const F& b = xs[(i * 7 + 3) % xs.size()];
    EXPECT_EQ((a * b).mont, F::mont_mul_portable(a.mont, b.mont));
    EXPECT_EQ(a.sqr().mont, F::mont_sqr(a.mont));
    // a + b and a - b on the Montgomery integers, reduced by hand.
    L sum = a.mont;
    sum.add_in_place(b.mont);
    if (sum >= F::modulus()) sum.sub_in_place(F::modulus());
    EXPECT_EQ((a + b).mont, sum);
    L diff = a.mont;
    if (diff.sub_in_place(b.mont)) diff.add_in_place(F::modulus());
    EXPECT_EQ((a - b).mont, diff);
  }
}

TYPED_TEST(PrimeFieldTest, SmallIntegersAndCanonicalForm) {
  using F = TypeParam;
  EXPECT_EQ(F::from_u64(6) * F::from_u64(7), F::from_u64(42));
  EXPECT_EQ(F::from_u64(5) - F::from_u64(7), -F::from_u64(2));
  // M - 1 is -1.
  auto m1 = F::modulus();
  m1.sub_in_place(decltype(m1)::from_u64(1));
  EXPECT_EQ(F::from_canonical(m1), -F::one());
  auto rng = test::make_rng();
  for (int i = 0; i < kIters; i++) {
    F a = F::random(rng);
    EXPECT_EQ(F::from_canonical(a.to_canonical()), a);
    EXPECT_TRUE(a.to_canonical() < F::modulus());
  }
}

TYPED_TEST(PrimeFieldTest, InverseAndPow) {
  using F = TypeParam;
  auto rng = test::make_rng();
  auto pm1 = F::modulus();
  pm1.sub_in_place(decltype(pm1)::from_u64(1));
  for (int i = 0; i < kIters; i++) {
    F a = F::random(rng);
    if (a.is_zero()) continue;
    EXPECT_EQ(a * a.inverse(), F::one());
    // The binary inversion must agree with Fermat's a^(M-2).
    auto pm2 = pm1;
    pm2.sub_in_place(decltype(pm2)::from_u64(1));
    EXPECT_EQ(a.inverse(), a.pow(pm2));
    if (i < 20) {
      EXPECT_TRUE(a.pow(pm1).is_one());  // Fermat
    }
    EXPECT_EQ(a.pow(uint64_t(5)), a * a * a * a * a);
  }
  EXPECT_TRUE(F::zero().inverse().is_zero());
  EXPECT_EQ(F::one().inverse(), F::one());
  // Montgomery values with long runs of trailing zero bits (the inversion strips them in
  // chunks of at most 63).
  for (size_t bits : {1u, 63u, 64u, 65u, 127u, 128u, 200u}) {
    if (bits >= F::Consts::kBits) continue;
    typename F::Limbs v = F::Limbs::zero();
    v.limb[bits / 64] = uint64_t(1) << (bits % 64);
    F a = F::from_montgomery(v);
    EXPECT_EQ(a * a.inverse(), F::one()) << bits;
  }
}

TYPED_TEST(PrimeFieldTest, BatchInverseSkipsZeros) {
  using F = TypeParam;
  auto rng = test::make_rng();
  std::vector<F> xs(67), scratch(67);
  for (size_t i = 0; i < xs.size(); i++) xs[i] = (i % 7 == 3) ? F::zero() : F::random(rng);
  std::vector<F> orig = xs;
  batch_inverse(xs.data(), xs.size(), scratch.data());
  for (size_t i = 0; i < xs.size(); i++) {
    if (orig[i].is_zero()) {
      EXPECT_TRUE(xs[i].is_zero());
    } else {
      EXPECT_EQ(xs[i], orig[i].inverse()) << "index " << i;
    }
  }
  batch_inverse<F>(nullptr, 0, nullptr);  // empty input is fine
}

TYPED_TEST(PrimeFieldTest, SqrtAndLegendre) {
  using F = TypeParam;
  auto rng = test::make_rng();
  EXPECT_EQ(F::quadratic_non_residue().legendre(), -1);
  EXPECT_EQ(F::zero().legendre(), 0);
  int squares = 0, non_squares = 0;
  for (int i = 0; i < kIters; i++) {
    F a = F::random(rng);
    F s = a.sqr();
    F root;
    ASSERT_TRUE(s.sqrt(root));
    EXPECT_EQ(root.sqr(), s);
    EXPECT_TRUE(root == a || root == -a);
    EXPECT_EQ(s.legendre(), a.is_zero() ? 0 : 1);
    // A square times a non-residue is a non-residue.
    F n = s * F::quadratic_non_residue();
    EXPECT_EQ(n.legendre(), -1);
    F unused;
    EXPECT_FALSE(n.sqrt(unused));
    int l = F::random(rng).legendre();
    squares += l == 1;
    non_squares += l == -1;
  }
  // Half of the field is square: both kinds must show up in 200 draws.
  EXPECT_GT(squares, 50);
  EXPECT_GT(non_squares, 50);
}

TYPED_TEST(PrimeFieldTest, TwoAdicRootOfUnity) {
  using F = TypeParam;
  constexpr size_t s = F::Consts::kTwoAdicity;
  F w = F::two_adic_root_of_unity();
  for (size_t i = 0; i + 1 < s; i++) w = w.sqr();
  EXPECT_EQ(w, -F::one());  // order exactly 2^s
  if constexpr (std::is_same_v<F, Fr>) {
    EXPECT_EQ(s, 32u);
  } else {
    EXPECT_EQ(s, 1u);
  }
}

TYPED_TEST(PrimeFieldTest, BytesRoundTripAndRangeCheck) {
  using F = TypeParam;
  constexpr size_t n = F::kBytes;
  auto rng = test::make_rng();
  for (int i = 0; i < kIters; i++) {
    F a = F::random(rng);
    std::array<uint8_t, n> le{}, be{};
    a.to_bytes_le(le.data());
    a.to_bytes_be(be.data());
    for (size_t k = 0; k < n; k++) EXPECT_EQ(le[k], be[n - 1 - k]);
    F b, c;
    ASSERT_TRUE(F::from_bytes_le(le.data(), b));
    ASSERT_TRUE(F::from_bytes_be(be.data(), c));
    EXPECT_EQ(a, b);
    EXPECT_EQ(a, c);
  }
  // 1 as bytes.
  std::array<uint8_t, n> one_le{};
  F::one().to_bytes_le(one_le.data());
  EXPECT_EQ(one_le[0], 1);
  for (size_t k = 1; k < n; k++) EXPECT_EQ(one_le[k], 0);
  // The modulus itself and all-ones are rejected; M - 1 is accepted.
  auto m = F::modulus();
  std::array<uint8_t, n> bytes{};
  for (size_t k = 0; k < n; k++) bytes[k] = uint8_t(m.limb[k / 8] >> (8 * (k % 8)));
  F out;
  EXPECT_FALSE(F::from_bytes_le(bytes.data(), out));
  bytes[0] -= 1;
  EXPECT_TRUE(F::from_bytes_le(bytes.data(), out));
  EXPECT_EQ(out, -F::one());
  bytes.fill(0xff);
  EXPECT_FALSE(F::from_bytes_le(bytes.data(), out));
  EXPECT_FALSE(F::from_bytes_be(bytes.data(), out));
}

TEST(PrimeFieldTest, ModuliAndMontgomeryConstants) {
  // Independent facts: the moduli's bit lengths and R = 2^(64N) mod M.
  EXPECT_EQ(Fp::Consts::kBits, 381u);
  EXPECT_EQ(Fr::Consts::kBits, 255u);
  EXPECT_EQ(Fp::one().to_canonical(), BigInt<6>::from_u64(1));
  EXPECT_EQ(Fp::Consts::M.limb[0] * (0 - Fp::Consts::INV), 1u);
  EXPECT_EQ(Fr::Consts::M.limb[0] * (0 - Fr::Consts::INV), 1u);
}

// The host side of the MSM's lazy Fp (its arithmetic runs on the GPU: ff_gpu_test): x and
// x + p are the same element, canonical() returns the fully reduced one.
TEST(LazyFpTest, CanonicalFormAndZero) {
  using Lazy = LazyMont<Fp>;
  const BigInt<6> p = FpConfig::kModulus;
  BigInt<6> two_p = p;
  EXPECT_EQ(two_p.add_in_place(p), 0u);
  EXPECT_EQ(Lazy::Consts::M2, two_p);
  EXPECT_TRUE(Lazy{p}.is_zero());
  EXPECT_TRUE(Lazy::zero().is_zero());
  EXPECT_FALSE(Lazy::one().is_zero());
  EXPECT_EQ(Lazy{p}.canonical(), Fp::zero());
  auto rng = test::make_rng();
  for (int i = 0; i < 100; i++) {
    const Fp x = Fp::random(rng);
    BigInt<6> lifted = x.mont;
    lifted.add_in_place(p);
    EXPECT_EQ(Lazy::from(x).canonical(), x);
    EXPECT_EQ(Lazy{lifted}.canonical(), x);
    EXPECT_EQ(Lazy{lifted}.is_zero(), x.is_zero());
  }
  BigInt<6> top = two_p, p_minus_1 = p;
  top.sub_in_place(BigInt<6>::from_u64(1));
  p_minus_1.sub_in_place(BigInt<6>::from_u64(1));
  EXPECT_EQ(Lazy{top}.canonical(), Fp::from_montgomery(p_minus_1));  // the largest lazy value
}

// ---- the tower ----------------------------------------------------------

template <class F>
class ExtensionFieldTest : public ::testing::Test {};
using ExtensionFields = ::testing::Types<Fp2, Fp6, Fp12>;
TYPED_TEST_SUITE(ExtensionFieldTest, ExtensionFields);

TYPED_TEST(ExtensionFieldTest, FieldLaws) {
  using F = TypeParam;
  auto rng = test::make_rng();
  for (int i = 0; i < 50; i++) {
    F a = F::random(rng), b = F::random(rng), c = F::random(rng);
    EXPECT_EQ(a * b, b * a);
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a * (b + c), a * b + a * c);
    EXPECT_EQ(a.sqr(), a * a);
    EXPECT_EQ(a * F::one(), a);
    EXPECT_EQ(a * a.inverse(), F::one());
    EXPECT_EQ((a - b) + b, a);
  }
}

TYPED_TEST(ExtensionFieldTest, FrobeniusIsPowerOfP) {
  using F = TypeParam;
  auto rng = test::make_rng();
  const BigInt<6> p = FpConfig::kModulus;
  for (int i = 0; i < 3; i++) {
    F a = F::random(rng), b = F::random(rng);
    F ap = a.pow(p);
    EXPECT_EQ(a.frobenius(1), ap);
    EXPECT_EQ(a.frobenius(2), ap.pow(p));
    EXPECT_EQ(a.frobenius(1).frobenius(1).frobenius(1), a.frobenius(3));
    EXPECT_EQ((a * b).frobenius(1), a.frobenius(1) * b.frobenius(1));  // a field automorphism
    F all = a;
    for (int k = 0; k < 12; k++) all = all.frobenius(1);
    EXPECT_EQ(all, a);  // x^(p^12) = x for every element of the tower
  }
}

TEST(Fp2Test, NonResidueAndSqrt) {
  auto rng = test::make_rng();
  // u^2 = -1 and xi = 1 + u multiplication.
  Fp2 u = {Fp::zero(), Fp::one()};
  EXPECT_EQ(u.sqr(), -Fp2::one());
  for (int i = 0; i < kIters; i++) {
    Fp2 a = Fp2::random(rng);
    EXPECT_EQ(a.mul_by_nonresidue(), (a * Fp2{Fp::one(), Fp::one()}));
    Fp2 root;
    ASSERT_TRUE(a.sqr().sqrt(root));
    EXPECT_TRUE(root == a || root == -a);
    // A non-square: its norm is a non-square in Fp.
    if (a.norm().legendre() == -1) {
      Fp2 unused;
      EXPECT_FALSE(a.sqrt(unused));
    }
  }
  // Purely imaginary and purely real inputs exercise both branches of Algorithm 9.
  Fp2 minus_one = -Fp2::one(), r;
  ASSERT_TRUE(minus_one.sqrt(r));
  EXPECT_EQ(r.sqr(), minus_one);
}

TEST(Fp6Test, SparseProductsMatchFullProducts) {
  auto rng = test::make_rng();
  for (int i = 0; i < 50; i++) {
    Fp6 a = Fp6::random(rng);
    Fp2 b0 = Fp2::random(rng), b1 = Fp2::random(rng);
    EXPECT_EQ(a.mul_by_01(b0, b1), (a * Fp6{b0, b1, Fp2::zero()}));
    EXPECT_EQ(a.mul_by_1(b1), (a * Fp6{Fp2::zero(), b1, Fp2::zero()}));
    EXPECT_EQ(a.mul_by_nonresidue(), (a * Fp6{Fp2::zero(), Fp2::one(), Fp2::zero()}));
  }
}

TEST(Fp12Test, SparseLineProductMatchesFullProduct) {
  auto rng = test::make_rng();
  for (int i = 0; i < 50; i++) {
    Fp12 f = Fp12::random(rng);
    Fp2 a = Fp2::random(rng), b = Fp2::random(rng), c = Fp2::random(rng);
    Fp12 line = {{a, b, Fp2::zero()}, {Fp2::zero(), c, Fp2::zero()}};
    EXPECT_EQ(f.mul_by_014(a, b, c), f * line);
  }
}

TEST(Fp12Test, ConjugationAndCyclotomicSquaring) {
  auto rng = test::make_rng();
  for (int i = 0; i < 50; i++) {
    Fp12 f = Fp12::random(rng);
    EXPECT_EQ(f.conjugate(), f.frobenius(6));
    // Map into the cyclotomic subgroup with the easy part of the final exponentiation.
    Fp12 g = f.conjugate() * f.inverse();
    g = g.frobenius(2) * g;
    EXPECT_EQ(g.cyclotomic_sqr(), g.sqr());
    EXPECT_EQ(g * g.conjugate(), Fp12::one());  // conjugate = inverse there
  }
}

}  // namespace
}  // namespace cuzk::ff
