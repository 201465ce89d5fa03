// NTTs against the naive DFT, inverses, coset evaluation against direct polynomial
// evaluation, and the H polynomial against the identity A B - C = H Z at a random point.
#include <vector>

#include <gtest/gtest.h>

#include "ntt/domain.hpp"
#include "test_support.hpp"

namespace cuzk::ntt {
namespace {

std::vector<Fr> random_vector(size_t n, std::mt19937_64& rng) {
  std::vector<Fr> v(n);
  for (auto& x : v) x = Fr::random(rng);
  return v;
}

// sum_j c_j x^j by Horner's rule.
Fr evaluate(const std::vector<Fr>& coeffs, const Fr& x) {
  Fr acc = Fr::zero();
  for (size_t j = coeffs.size(); j-- > 0;) acc = acc * x + coeffs[j];
  return acc;
}

class NttTest : public ::testing::TestWithParam<EvaluationDomain::Twiddles> {};

TEST_P(NttTest, ForwardMatchesNaiveDft) {
  auto rng = test::make_rng();
  for (unsigned log_n : {0u, 1u, 2u, 3u, 5u, 8u}) {
    EvaluationDomain d(log_n, GetParam());
    auto coeffs = random_vector(d.size(), rng);
    auto values = coeffs;
    d.fft(values);
    Fr x = Fr::one();
    for (size_t i = 0; i < d.size(); i++) {
      ASSERT_EQ(values[i], evaluate(coeffs, x)) << "n = " << d.size() << ", i = " << i;
      x *= d.omega();
    }
  }
}

// Above 2^11 the transform switches from cache blocks to whole-vector stages: spot-check
// evaluations there against Horner's rule.
TEST_P(NttTest, LargeDomainSpotChecks) {
  auto rng = test::make_rng();
  EvaluationDomain d(13, GetParam());
  auto coeffs = random_vector(d.size(), rng);
  auto values = coeffs;
  d.fft(values);
  for (size_t i : {size_t(0), size_t(1), size_t(2047), size_t(2048), size_t(4097), d.size() - 1}) {
    EXPECT_EQ(values[i], evaluate(coeffs, d.omega().pow(ff::BigInt<1>::from_u64(i)))) << i;
  }
}

TEST_P(NttTest, InverseAndCosetRoundTrips) {
  auto rng = test::make_rng();
  for (unsigned log_n : {1u, 4u, 10u, 13u}) {
    EvaluationDomain d(log_n, GetParam());
    auto orig = random_vector(d.size(), rng);
    auto v = orig;
    d.fft(v);
    d.ifft(v);
    EXPECT_EQ(v, orig) << log_n;
    d.coset_fft(v);
    d.icoset_fft(v);
    EXPECT_EQ(v, orig) << log_n;
  }
}

TEST_P(NttTest, CosetEvaluatesOnShiftedDomain) {
  auto rng = test::make_rng();
  EvaluationDomain d(6, GetParam());
  auto coeffs = random_vector(d.size(), rng);
  auto values = coeffs;
  d.coset_fft(values);
  Fr x = d.coset_generator();
  for (size_t i = 0; i < d.size(); i++) {
    ASSERT_EQ(values[i], evaluate(coeffs, x)) << i;
    x *= d.omega();
  }
}

INSTANTIATE_TEST_SUITE_P(Twiddles, NttTest,
                         ::testing::Values(EvaluationDomain::Twiddles::kAuto, EvaluationDomain::Twiddles::kOnTheFly),
                         [](const auto& info) {
                           return info.param == EvaluationDomain::Twiddles::kAuto ? std::string("table")
                                                                                  : std::string("on_the_fly");
                         });

TEST(DomainTest, SizesAndRoots) {
  EXPECT_EQ(EvaluationDomain::for_size(1).size(), 1u);
  EXPECT_EQ(EvaluationDomain::for_size(5).size(), 8u);
  EXPECT_EQ(EvaluationDomain::for_size(1024).size(), 1024u);
  EXPECT_EQ(EvaluationDomain::for_size(1025).log_size(), 11u);
  EXPECT_THROW(EvaluationDomain::for_size((size_t(1) << 32) + 1), std::invalid_argument);
  EvaluationDomain d(12);
  // omega has order exactly n.
  Fr w = d.omega();
  for (unsigned i = 0; i < 11; i++) w = w.sqr();
  EXPECT_EQ(w, -Fr::one());
  // Z on the coset: g^n - 1, and g is not in the domain.
  EXPECT_FALSE(d.z_on_coset().is_zero());
  std::vector<Fr> wrong(100);
  EXPECT_THROW(d.fft(wrong), std::invalid_argument);
  EXPECT_THROW(d.coset_fft(wrong), std::invalid_argument);
}

TEST(HPolynomialTest, SatisfiesTheQuotientIdentity) {
  auto rng = test::make_rng();
  for (unsigned log_n : {2u, 7u, 11u}) {
    EvaluationDomain d(log_n);
    const size_t n = d.size();
    // Evaluations of a satisfied system on the domain: c = a * b pointwise.
    auto a = random_vector(n, rng), b = random_vector(n, rng);
    std::vector<Fr> c(n);
    for (size_t i = 0; i < n; i++) c[i] = a[i] * b[i];
    // The polynomials A, B, C in coefficient form, for the check.
    auto A = a, B = b, C = c;
    d.ifft(A);
    d.ifft(B);
    d.ifft(C);
    compute_h_polynomial(d, a, b, c);
    EXPECT_TRUE(a[n - 1].is_zero()) << "deg H must be at most n - 2";
    for (int trial = 0; trial < 3; trial++) {
      Fr x = Fr::random(rng);
      Fr lhs = evaluate(A, x) * evaluate(B, x) - evaluate(C, x);
      Fr rhs = evaluate(a, x) * (x.pow(ff::BigInt<1>::from_u64(n)) - Fr::one());
      EXPECT_EQ(lhs, rhs) << "n = " << n;
    }
  }
}

// compute_h_polynomial transforms c once (H = icoset(A^ B^) / Z(g) - iNTT(c) / Z(g)); the
// identity is linear, so it must give bellperson's seven-transform coefficients bit for bit on
// any input, satisfied or not, zero-padded or not.
TEST(HPolynomialTest, EqualsBellpersonsSequenceOnAnyInput) {
  auto rng = test::make_rng();
  for (unsigned log_n : {0u, 1u, 2u, 5u, 9u, 12u}) {
    EvaluationDomain d(log_n);
    const size_t n = d.size();
    for (bool padded : {false, true}) {
      auto a = random_vector(n, rng), b = random_vector(n, rng), c = random_vector(n, rng);
      if (padded) {
        for (size_t i = n - n / 4; i < n; i++) a[i] = b[i] = c[i] = Fr::zero();
      }
      // bellperson: a, b, c <- ifft, coset_fft; a <- (a b - c) / Z; icoset_fft.
      auto ra = a, rb = b, rc = c;
      for (auto* v : {&ra, &rb, &rc}) {
        d.ifft(*v);
        d.coset_fft(*v);
      }
      for (size_t i = 0; i < n; i++) ra[i] = ra[i] * rb[i] - rc[i];
      d.divide_by_z_on_coset(ra);
      d.icoset_fft(ra);
      compute_h_polynomial(d, a, b, c);
      for (size_t i = 0; i < n; i++) ASSERT_EQ(a[i], ra[i]) << "n = " << n << ", coefficient " << i;
    }
  }
}

TEST(HPolynomialTest, UnsatisfiedSystemHasNoExactQuotient) {
  auto rng = test::make_rng();
  EvaluationDomain d(6);
  const size_t n = d.size();
  auto a = random_vector(n, rng), b = random_vector(n, rng);
  std::vector<Fr> c(n);
  for (size_t i = 0; i < n; i++) c[i] = a[i] * b[i];
  c[5] += Fr::one();  // one constraint violated
  auto A = a, B = b, C = c;
  d.ifft(A);
  d.ifft(B);
  d.ifft(C);
  compute_h_polynomial(d, a, b, c);
  Fr x = Fr::random(rng);
  Fr lhs = evaluate(A, x) * evaluate(B, x) - evaluate(C, x);
  Fr rhs = evaluate(std::vector<Fr>(a.begin(), a.end() - 1), x) * (x.pow(ff::BigInt<1>::from_u64(n)) - Fr::one());
  EXPECT_NE(lhs, rhs);
}

}  // namespace
}  // namespace cuzk::ntt
