// The optimal ate pairing: bilinearity, non-degeneracy, the order of GT, the multi-
// pairing against the product of single pairings, and the final exponentiation
// against a plain exponentiation by (p^12 - 1) / r.
#include "pairing/pairing.hpp"

#include <vector>

#include <gtest/gtest.h>

#include "ec/scalar_mul.hpp"
#include "test_support.hpp"

namespace cuzk::pairing {
namespace {

using ec::g1_mul;
using ec::g2_mul;
using ec::kG1Generator;
using ec::kG2Generator;
using ff::BigInt;
using ff::Fr;

// (p^12 - 1) / r, computed outside this code base (Python integers).
constexpr BigInt<68> kFinalExponent = BigInt<68>::from_hex(
    "2ee1db5dcc825b7e1bda9c0496a1c0a89ee0193d4977b3f7d4507d07363baa13f8d14a917848517badc3a43d1073776ab353"
    "f2c30698e8cc7deada9c0aadff5e9cfee9a074e43b9a660835cc872ee83ff3a0f0f1c0ad0d6106feaf4e347aa68ad49466fa"
    "927e7bb9375331807a0dce2630d9aa4b113f414386b0e8819328148978e2b0dd39099b86e1ab656d2670d93e4d7acdd350da"
    "5359bc73ab61a0c5bf24c374693c49f570bcd2b01f3077ffb10bf24dde41064837f27611212596bc293c8d4c01f25118790f"
    "4684d0b9c40a68eb74bb22a40ee7169cdc1041296532fef459f12438dfc8e2886ef965e61a474c5c85b0129127a1b5ad0463"
    "434724538411d1676a53b5a62eb34c05739334f46c02c3f0bd0c55d3109cd15948d0a1fad20044ce6ad4c6bec3ec03ef1959"
    "2004cedd556952c6d8823b19dadd7c2498345c6e5308f1c511291097db60b1749bf9b71a9f9e0100418a3ef0bc627751bbd8"
    "1367066bca6a4c1b6dcfc5cceb73fc56947a403577dfa9e13c24ea820b09c1d9f7c31759c3635de3f7a3639991708e88adce"
    "88177456c49637fd7961be1a4c7e79fb02faa732e2f3ec2bea83d196283313492caa9d4aff1c910e9622d2a73f62537f2701"
    "aaef6539314043f7bbce5b78c7869aeb2181a67e49eeed2161daf3f881bd88592d767f67c4717489119226c2f011d4cab803"
    "e9d71650a6f80698e2f8491d12191a04406fbc8fbd5f48925f98630e68bfb24c0bcb9b55df57510");

G1Affine random_g1(std::mt19937_64& rng) { return g1_mul(kG1Generator, Fr::random(rng)).to_affine(); }
G2Affine random_g2(std::mt19937_64& rng) { return g2_mul(kG2Generator, Fr::random(rng)).to_affine(); }

TEST(PairingTest, NonDegenerateAndOfOrderR) {
  Gt e = ate_pairing(kG1Generator, kG2Generator);
  EXPECT_FALSE(e.is_one());
  EXPECT_TRUE(e.pow(Fr::modulus()).is_one());
}

TEST(PairingTest, Bilinearity) {
  auto rng = test::make_rng();
  const Gt e = ate_pairing(kG1Generator, kG2Generator);
  for (int i = 0; i < 4; i++) {
    Fr a = Fr::random(rng), b = Fr::random(rng);
    G1Affine ap = g1_mul(kG1Generator, a).to_affine();
    G2Affine bq = g2_mul(kG2Generator, b).to_affine();
    // e(aP, bQ) = e(P, Q)^(ab)
    EXPECT_EQ(ate_pairing(ap, bq), e.pow((a * b).to_canonical()));
    // Linearity in each argument separately, on random bases.
    G1Affine p = random_g1(rng);
    G2Affine q = random_g2(rng);
    EXPECT_EQ(ate_pairing(g1_mul(p, a).to_affine(), q), ate_pairing(p, g2_mul(q, a).to_affine()));
    G1Affine p2 = random_g1(rng);
    EXPECT_EQ(ate_pairing((ec::G1Jacobian::from_affine(p) + ec::G1Jacobian::from_affine(p2)).to_affine(), q),
              ate_pairing(p, q) * ate_pairing(p2, q));
  }
}

TEST(PairingTest, InfinityGivesOne) {
  EXPECT_TRUE(ate_pairing(G1Affine::infinity(), kG2Generator).is_one());
  EXPECT_TRUE(ate_pairing(kG1Generator, G2Affine::infinity()).is_one());
}

TEST(PairingTest, InverseOfNegation) {
  auto rng = test::make_rng();
  G1Affine p = random_g1(rng);
  G2Affine q = random_g2(rng);
  EXPECT_EQ(ate_pairing(-p, q), ate_pairing(p, q).conjugate());
  EXPECT_TRUE((ate_pairing(-p, q) * ate_pairing(p, q)).is_one());
  EXPECT_EQ(ate_pairing(p, -q), ate_pairing(-p, q));
}

TEST(PairingTest, MultiPairingEqualsProductOfPairings) {
  auto rng = test::make_rng();
  std::vector<G1Affine> ps;
  std::vector<G2Affine> qs;
  Gt product = Gt::one();
  for (int i = 0; i < 3; i++) {
    ps.push_back(random_g1(rng));
    qs.push_back(random_g2(rng));
    product *= ate_pairing(ps.back(), qs.back());
  }
  EXPECT_EQ(multi_pairing(ps, qs), product);
  // Infinity terms contribute nothing.
  ps.push_back(G1Affine::infinity());
  qs.push_back(random_g2(rng));
  EXPECT_EQ(multi_pairing(ps, qs), product);
  EXPECT_THROW(multi_pairing(std::span(ps), std::span(qs).first(2)), std::invalid_argument);
  EXPECT_TRUE(multi_pairing(std::span<const G1Affine>(), std::span<const G2Affine>()).is_one());
}

TEST(PairingTest, ProductCheckAsAVerifierUsesIt) {
  auto rng = test::make_rng();
  Fr a = Fr::random(rng), b = Fr::random(rng);
  // e(aG1, bG2) * e(-(ab) G1, G2) = 1, and a wrong scalar breaks it.
  G1Affine ap = g1_mul(kG1Generator, a).to_affine();
  G2Prepared bq(g2_mul(kG2Generator, b).to_affine());
  G2Prepared g2(kG2Generator);
  G1Affine minus_ab = g1_mul(kG1Generator, -(a * b)).to_affine();
  G1Affine wrong = g1_mul(kG1Generator, -(a * b + Fr::one())).to_affine();
  PairingTerm good[] = {{&ap, &bq}, {&minus_ab, &g2}};
  PairingTerm bad[] = {{&ap, &bq}, {&wrong, &g2}};
  EXPECT_TRUE(pairing_product_is_one(good));
  EXPECT_FALSE(pairing_product_is_one(bad));
}

TEST(PairingTest, FinalExponentiationIsThePlainPower) {
  auto rng = test::make_rng();
  for (int i = 0; i < 2; i++) {
    Fp12 f = Fp12::random(rng);
    EXPECT_EQ(final_exponentiation(f), f.pow(kFinalExponent));
  }
  // And on a real Miller-loop output.
  Fp12 m = miller_loop(random_g1(rng), random_g2(rng));
  EXPECT_EQ(final_exponentiation(m), m.pow(kFinalExponent));
}

TEST(PairingTest, CyclotomicPowMatchesPow) {
  auto rng = test::make_rng();
  Fp12 f = Fp12::random(rng);
  Fp12 g = f.conjugate() * f.inverse();
  g = g.frobenius(2) * g;
  for (uint64_t e : {uint64_t(0), uint64_t(1), uint64_t(2), uint64_t(12345), ec::kBlsXAbs, ~uint64_t(0)}) {
    EXPECT_EQ(cyclotomic_pow_u64(g, e), g.pow(BigInt<1>::from_u64(e))) << e;
  }
}

}  // namespace
}  // namespace cuzk::pairing
