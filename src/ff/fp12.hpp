// Fp12 = Fp6[w] / (w^2 - v), the pairing's target field.
#pragma once

#include "ff/fp6.hpp"

namespace cuzk::ff {

struct Fp12 {
  Fp6 c0, c1;  // c0 + c1 w

  CUZK_HD static constexpr Fp12 zero() { return {Fp6::zero(), Fp6::zero()}; }
  CUZK_HD static constexpr Fp12 one() { return {Fp6::one(), Fp6::zero()}; }
  CUZK_HD constexpr bool is_one() const { return c0 == Fp6::one() && c1.is_zero(); }
  CUZK_HD constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  CUZK_HD friend constexpr bool operator==(const Fp12& a, const Fp12& b) { return a.c0 == b.c0 && a.c1 == b.c1; }
  CUZK_HD friend constexpr bool operator!=(const Fp12& a, const Fp12& b) { return !(a == b); }

  CUZK_HD friend constexpr Fp12 operator+(const Fp12& a, const Fp12& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  CUZK_HD friend constexpr Fp12 operator-(const Fp12& a, const Fp12& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  CUZK_HD constexpr Fp12 operator-() const { return {-c0, -c1}; }

  CUZK_HD friend constexpr Fp12 operator*(const Fp12& a, const Fp12& b) {
    Fp6 aa = a.c0 * b.c0, bb = a.c1 * b.c1;
    Fp6 cross = (a.c0 + a.c1) * (b.c0 + b.c1) - aa - bb;
    return {aa + bb.mul_by_nonresidue(), cross};
  }
  CUZK_HD constexpr Fp12& operator*=(const Fp12& b) { return *this = *this * b; }

  // Complex squaring: two Fp6 multiplications.
  CUZK_HD constexpr Fp12 sqr() const {
    Fp6 ab = c0 * c1;
    Fp6 t = (c0 + c1) * (c0 + c1.mul_by_nonresidue()) - ab - ab.mul_by_nonresidue();
    return {t, ab + ab};
  }

  // this * (a + b v + c v w): the shape of a Miller-loop line for BLS12-381's M-type twist.
  CUZK_HD constexpr Fp12 mul_by_014(const Fp2& a, const Fp2& b, const Fp2& c) const {
    Fp6 aa = c0.mul_by_01(a, b);
    Fp6 bb = c1.mul_by_1(c);
    Fp6 cross = (c0 + c1).mul_by_01(a, b + c) - aa - bb;
    return {aa + bb.mul_by_nonresidue(), cross};
  }

  // Conjugation is x^(p^6); on the cyclotomic subgroup it is the inverse.
  CUZK_HD constexpr Fp12 conjugate() const { return {c0, -c1}; }
  CUZK_HD constexpr Fp12 inverse() const {
    Fp6 t = (c0.sqr() - c1.sqr().mul_by_nonresidue()).inverse();
    return {c0 * t, -(c1 * t)};
  }

  // x -> x^(p^k): w^(p^k) = xi^((p^k-1)/6) w = gamma_k w.
  CUZK_HD constexpr Fp12 frobenius(unsigned k) const {
    const Fp2 g = detail::kFrobenius.gamma[k % 12];
    return {c0.frobenius(k), c1.frobenius(k).mul_by_fp2(g)};
  }

  // Granger-Scott squaring, valid only in the cyclotomic subgroup (x^(p^4 - p^2 + 1) of
  // something after the final exponentiation's easy part). Views Fp12 as Fp4^3 with
  // Fp4 = Fp2[s]/(s^2 - xi), s = w^3: x = A + B w + C w^2 with
  // A = (c0.c0, c1.c1), B = (c1.c0, c0.c2), C = (c0.c1, c1.c2).
  CUZK_HD constexpr Fp12 cyclotomic_sqr() const {
    auto fp4_sqr = [](const Fp2& a, const Fp2& b, Fp2& r0, Fp2& r1) {
      Fp2 aa = a.sqr(), bb = b.sqr();
      r0 = bb.mul_by_nonresidue() + aa;
      r1 = (a + b).sqr() - aa - bb;
    };
    Fp2 a0, a1, b0, b1, cc0, cc1;
    fp4_sqr(c0.c0, c1.c1, a0, a1);    // A^2
    fp4_sqr(c1.c0, c0.c2, b0, b1);    // B^2
    fp4_sqr(c0.c1, c1.c2, cc0, cc1);  // C^2
    // A' = 3A^2 - 2 conj(A), B' = 3 s C^2 + 2 conj(B), C' = 3 B^2 - 2 conj(C)
    auto three_minus_two = [](const Fp2& sq, const Fp2& x) { return (sq - x).dbl() + sq; };
    auto three_plus_two = [](const Fp2& sq, const Fp2& x) { return (sq + x).dbl() + sq; };
    Fp12 r;
    r.c0.c0 = three_minus_two(a0, c0.c0);
    r.c1.c1 = three_plus_two(a1, c1.c1);
    Fp2 sc0 = cc1.mul_by_nonresidue();  // s * C^2 = (xi * C1, C0)
    r.c1.c0 = three_plus_two(sc0, c1.c0);
    r.c0.c2 = three_minus_two(cc0, c0.c2);
    r.c0.c1 = three_minus_two(b0, c0.c1);
    r.c1.c2 = three_plus_two(b1, c1.c2);
    return r;
  }

  template <size_t K>
  CUZK_HD constexpr Fp12 pow(const BigInt<K>& e) const {
    return pow_square_and_multiply(*this, e);
  }

  template <class Rng>
  static Fp12 random(Rng& rng) {
    Fp6 a = Fp6::random(rng);
    return {a, Fp6::random(rng)};
  }
};

}  // namespace cuzk::ff
