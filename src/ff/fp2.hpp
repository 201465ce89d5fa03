// Fp2 = Fp[u] / (u^2 + 1), the field G2 coordinates live in.
#pragma once

#include "ff/fp.hpp"

namespace cuzk::ff {

struct Fp2 {
  Fp c0, c1;  // c0 + c1 * u

  CUZK_HD static constexpr Fp2 zero() { return {Fp::zero(), Fp::zero()}; }
  CUZK_HD static constexpr Fp2 one() { return {Fp::one(), Fp::zero()}; }
  CUZK_HD constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  CUZK_HD constexpr bool is_one() const { return c0.is_one() && c1.is_zero(); }
  CUZK_HD friend constexpr bool operator==(const Fp2& a, const Fp2& b) { return a.c0 == b.c0 && a.c1 == b.c1; }
  CUZK_HD friend constexpr bool operator!=(const Fp2& a, const Fp2& b) { return !(a == b); }

  CUZK_FORCE_INLINE CUZK_HD friend constexpr Fp2 operator+(const Fp2& a, const Fp2& b) {
    return {a.c0 + b.c0, a.c1 + b.c1};
  }
  CUZK_FORCE_INLINE CUZK_HD friend constexpr Fp2 operator-(const Fp2& a, const Fp2& b) {
    return {a.c0 - b.c0, a.c1 - b.c1};
  }
  CUZK_HD constexpr Fp2 operator-() const { return {-c0, -c1}; }
  CUZK_HD constexpr Fp2 dbl() const { return {c0.dbl(), c1.dbl()}; }
  CUZK_HD constexpr Fp2& operator+=(const Fp2& b) { return *this = *this + b; }
  CUZK_HD constexpr Fp2& operator-=(const Fp2& b) { return *this = *this - b; }

  // Karatsuba: three base-field multiplications.
  CUZK_FORCE_INLINE CUZK_HD friend constexpr Fp2 operator*(const Fp2& a, const Fp2& b) {
    Fp aa = a.c0 * b.c0;
    Fp bb = a.c1 * b.c1;
    Fp cross = (a.c0 + a.c1) * (b.c0 + b.c1);
    return {aa - bb, cross - aa - bb};
  }
  CUZK_HD constexpr Fp2& operator*=(const Fp2& b) { return *this = *this * b; }
  // a b + c d (the fields' common interface; Fp has a one-reduction form on the device, and
  // with it the Fp2 sum would cost as much as two Karatsuba products, so it stays plain).
  CUZK_HD static constexpr Fp2 sum_of_products(const Fp2& a, const Fp2& b, const Fp2& c, const Fp2& d) {
    return a * b + c * d;
  }
  CUZK_HD constexpr Fp2 mul_by_fp(const Fp& s) const { return {c0 * s, c1 * s}; }
  // (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u
  CUZK_FORCE_INLINE CUZK_HD constexpr Fp2 sqr() const { return {(c0 + c1) * (c0 - c1), (c0 * c1).dbl()}; }
  // Multiplication by the sextic non-residue xi = 1 + u used to build Fp6 and Fp12.
  CUZK_HD constexpr Fp2 mul_by_nonresidue() const { return {c0 - c1, c0 + c1}; }
  CUZK_HD constexpr Fp2 conjugate() const { return {c0, -c1}; }
  CUZK_HD constexpr Fp norm() const { return c0.sqr() + c1.sqr(); }
  CUZK_HD constexpr Fp2 inverse() const {
    Fp t = norm().inverse();
    return {c0 * t, -(c1 * t)};
  }
  // x -> x^(p^k): conjugation for odd k.
  CUZK_HD constexpr Fp2 frobenius(unsigned k) const { return (k & 1) ? conjugate() : *this; }

  template <size_t K>
  CUZK_HD constexpr Fp2 pow(const BigInt<K>& e) const {
    return pow_square_and_multiply(*this, e);
  }

  // ZCash's sign rule for Fp2: compare c1, or c0 when c1 is zero.
  CUZK_HD constexpr bool is_lexicographically_largest() const {
    return c1.is_zero() ? c0.is_lexicographically_largest() : c1.is_lexicographically_largest();
  }

  // Square root for p = 3 mod 4 (Adj and Rodriguez-Henriquez, Algorithm 9).
  // Sets out and returns true, or returns false for a non-square.
  CUZK_HD constexpr bool sqrt(Fp2& out) const;

  template <class Rng>
  static Fp2 random(Rng& rng) {
    Fp a = Fp::random(rng);
    return {a, Fp::random(rng)};
  }
};

namespace detail {
constexpr BigInt<6> fp_minus3_quarter() {
  BigInt<6> m = FpConfig::kModulus;
  m.sub_in_place(BigInt<6>::from_u64(3));
  return m.shr(2);
}
inline constexpr BigInt<6> kFpMinus3Quarter = fp_minus3_quarter();
}  // namespace detail

CUZK_HD constexpr bool Fp2::sqrt(Fp2& out) const {
  if (is_zero()) {
    out = zero();
    return true;
  }
  constexpr BigInt<6> e1 = detail::kFpMinus3Quarter;
  constexpr BigInt<6> e2 = Fp::Consts::kMinus1Half;
  Fp2 a1 = pow(e1);
  Fp2 alpha = a1.sqr() * *this;
  Fp2 x0 = a1 * *this;
  Fp2 root;
  if (alpha == -one()) {
    root = {-x0.c1, x0.c0};  // u * x0
  } else {
    root = (alpha + one()).pow(e2) * x0;
  }
  if (root.sqr() != *this) return false;
  out = root;
  return true;
}

}  // namespace cuzk::ff
