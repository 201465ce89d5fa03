// Fp6 = Fp2[v] / (v^3 - xi), xi = 1 + u.
#pragma once

#include "ff/fp2.hpp"

namespace cuzk::ff {

namespace detail {
// (p - 1) / 6 and (p - 1) / 3: exponents of the Frobenius twisting constants.
constexpr BigInt<6> fp_minus1_over(uint64_t d) {
  BigInt<6> m = FpConfig::kModulus;
  m.sub_in_place(BigInt<6>::from_u64(1));
  m.div_small_in_place(d);
  return m;
}

// gamma[k] = xi^((p^k - 1) / 6) for k = 0..11, using
// xi^((p^k-1)/6) = prod_{i<k} (xi^((p-1)/6))^(p^i).
struct FrobeniusConstants {
  Fp2 gamma[12];
  constexpr FrobeniusConstants() : gamma{} {
    constexpr Fp2 xi = {Fp::one(), Fp::one()};
    Fp2 g1 = xi.pow(fp_minus1_over(6));
    gamma[0] = Fp2::one();
    for (unsigned k = 1; k < 12; k++) gamma[k] = gamma[k - 1] * g1.frobenius(k - 1);
  }
};
inline constexpr FrobeniusConstants kFrobenius{};
}  // namespace detail

struct Fp6 {
  Fp2 c0, c1, c2;  // c0 + c1 v + c2 v^2

  CUZK_HD static constexpr Fp6 zero() { return {Fp2::zero(), Fp2::zero(), Fp2::zero()}; }
  CUZK_HD static constexpr Fp6 one() { return {Fp2::one(), Fp2::zero(), Fp2::zero()}; }
  CUZK_HD constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero() && c2.is_zero(); }
  CUZK_HD friend constexpr bool operator==(const Fp6& a, const Fp6& b) {
    return a.c0 == b.c0 && a.c1 == b.c1 && a.c2 == b.c2;
  }
  CUZK_HD friend constexpr bool operator!=(const Fp6& a, const Fp6& b) { return !(a == b); }

  CUZK_HD friend constexpr Fp6 operator+(const Fp6& a, const Fp6& b) { return {a.c0 + b.c0, a.c1 + b.c1, a.c2 + b.c2}; }
  CUZK_HD friend constexpr Fp6 operator-(const Fp6& a, const Fp6& b) { return {a.c0 - b.c0, a.c1 - b.c1, a.c2 - b.c2}; }
  CUZK_HD constexpr Fp6 operator-() const { return {-c0, -c1, -c2}; }
  CUZK_HD constexpr Fp6& operator+=(const Fp6& b) { return *this = *this + b; }
  CUZK_HD constexpr Fp6& operator-=(const Fp6& b) { return *this = *this - b; }

  // Karatsuba-style interpolation: six Fp2 multiplications.
  CUZK_HD friend constexpr Fp6 operator*(const Fp6& a, const Fp6& b) {
    Fp2 aa = a.c0 * b.c0, bb = a.c1 * b.c1, cc = a.c2 * b.c2;
    Fp2 t0 = ((a.c1 + a.c2) * (b.c1 + b.c2) - bb - cc).mul_by_nonresidue() + aa;
    Fp2 t1 = (a.c0 + a.c1) * (b.c0 + b.c1) - aa - bb + cc.mul_by_nonresidue();
    Fp2 t2 = (a.c0 + a.c2) * (b.c0 + b.c2) - aa + bb - cc;
    return {t0, t1, t2};
  }
  CUZK_HD constexpr Fp6& operator*=(const Fp6& b) { return *this = *this * b; }

  // Chung-Hasan SQR2.
  CUZK_HD constexpr Fp6 sqr() const {
    Fp2 s0 = c0.sqr();
    Fp2 s1 = (c0 * c1).dbl();
    Fp2 s2 = (c0 - c1 + c2).sqr();
    Fp2 s3 = (c1 * c2).dbl();
    Fp2 s4 = c2.sqr();
    return {s3.mul_by_nonresidue() + s0, s4.mul_by_nonresidue() + s1, s1 + s2 + s3 - s0 - s4};
  }

  // Multiplication by v: (c0, c1, c2) -> (xi c2, c0, c1).
  CUZK_HD constexpr Fp6 mul_by_nonresidue() const { return {c2.mul_by_nonresidue(), c0, c1}; }
  CUZK_HD constexpr Fp6 mul_by_fp2(const Fp2& s) const { return {c0 * s, c1 * s, c2 * s}; }

  // Sparse products used by the Miller loop's line evaluation.
  // this * (b0 + b1 v)
  CUZK_HD constexpr Fp6 mul_by_01(const Fp2& b0, const Fp2& b1) const {
    Fp2 aa = c0 * b0, bb = c1 * b1;
    Fp2 t0 = (c2 * b1).mul_by_nonresidue() + aa;
    Fp2 t1 = (c0 + c1) * (b0 + b1) - aa - bb;
    Fp2 t2 = c2 * b0 + bb;
    return {t0, t1, t2};
  }
  // this * (b1 v)
  CUZK_HD constexpr Fp6 mul_by_1(const Fp2& b1) const { return {(c2 * b1).mul_by_nonresidue(), c0 * b1, c1 * b1}; }

  CUZK_HD constexpr Fp6 inverse() const {
    Fp2 t0 = c0.sqr() - (c1 * c2).mul_by_nonresidue();
    Fp2 t1 = c2.sqr().mul_by_nonresidue() - c0 * c1;
    Fp2 t2 = c1.sqr() - c0 * c2;
    Fp2 det = c0 * t0 + (c2 * t1 + c1 * t2).mul_by_nonresidue();
    Fp2 inv = det.inverse();
    return {t0 * inv, t1 * inv, t2 * inv};
  }

  // x -> x^(p^k): v^(p^k) = xi^((p^k-1)/3) v = gamma_k^2 v.
  CUZK_HD constexpr Fp6 frobenius(unsigned k) const {
    const Fp2 g = detail::kFrobenius.gamma[k % 12];
    Fp2 g2 = g.sqr();
    return {c0.frobenius(k), c1.frobenius(k) * g2, c2.frobenius(k) * g2.sqr()};
  }

  template <size_t K>
  CUZK_HD constexpr Fp6 pow(const BigInt<K>& e) const {
    return pow_square_and_multiply(*this, e);
  }

  template <class Rng>
  static Fp6 random(Rng& rng) {
    Fp2 a = Fp2::random(rng), b = Fp2::random(rng);
    return {a, b, Fp2::random(rng)};
  }
};

}  // namespace cuzk::ff
