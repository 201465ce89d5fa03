// Short-Weierstrass points y^2 = x^3 + b (a = 0) in three coordinate systems,
// generic over the curve (G1 over Fp, G2 over Fp2) and usable on host and device.
//
// - AffinePoint: (x, y); (0, 0) encodes the point at infinity, which is never on
//   these curves, so affine arrays stay plain data (what the GPU MSM reads).
// - JacobianPoint: (X, Y, Z) with x = X/Z^2, y = Y/Z^3; Z = 0 is infinity.
// - XyzzPoint: (X, Y, ZZ, ZZZ) with x = X/ZZ, y = Y/ZZZ; ZZ = 0 is infinity.
//   Mixed additions in XYZZ are the cheapest accumulators for MSM buckets.
//
// Formulas: the "a = 0" entries of the Explicit-Formulas Database
// (dbl-2009-l, add-2007-bl, madd-2007-bl, xyzz add-2008-s, madd-2008-s, dbl-2008-s-1).
#pragma once

#include <cstddef>

#include "ff/hd.hpp"

namespace cuzk::ec {

template <class Curve>
struct AffinePoint {
  using Field = typename Curve::Field;
  Field x, y;

  CUZK_HD static constexpr AffinePoint infinity() { return {Field::zero(), Field::zero()}; }
  CUZK_HD constexpr bool is_infinity() const { return x.is_zero() && y.is_zero(); }
  CUZK_HD constexpr bool is_on_curve() const {
    if (is_infinity()) return true;
    return y.sqr() == x.sqr() * x + Curve::b();
  }
  CUZK_HD constexpr AffinePoint operator-() const { return is_infinity() ? *this : AffinePoint{x, -y}; }
  CUZK_HD friend constexpr bool operator==(const AffinePoint& a, const AffinePoint& b) {
    return a.x == b.x && a.y == b.y;
  }
  CUZK_HD friend constexpr bool operator!=(const AffinePoint& a, const AffinePoint& b) { return !(a == b); }
};

template <class Curve>
struct JacobianPoint {
  using Field = typename Curve::Field;
  using Affine = AffinePoint<Curve>;
  Field X, Y, Z;

  CUZK_HD static constexpr JacobianPoint infinity() { return {Field::one(), Field::one(), Field::zero()}; }
  CUZK_HD static constexpr JacobianPoint from_affine(const Affine& a) {
    return a.is_infinity() ? infinity() : JacobianPoint{a.x, a.y, Field::one()};
  }
  CUZK_HD constexpr bool is_infinity() const { return Z.is_zero(); }
  CUZK_HD constexpr JacobianPoint operator-() const { return {X, -Y, Z}; }

  // One inversion; use batch_to_affine for many points.
  CUZK_HD constexpr Affine to_affine() const {
    if (is_infinity()) return Affine::infinity();
    Field zi = Z.inverse();
    Field zi2 = zi.sqr();
    return {X * zi2, Y * zi2 * zi};
  }

  CUZK_HD constexpr bool is_on_curve() const {
    if (is_infinity()) return true;
    Field z2 = Z.sqr();
    Field z6 = z2.sqr() * z2;
    return Y.sqr() == X.sqr() * X + Curve::b() * z6;
  }

  // Projective equality: X1 Z2^2 = X2 Z1^2 and Y1 Z2^3 = Y2 Z1^3.
  CUZK_HD friend constexpr bool operator==(const JacobianPoint& a, const JacobianPoint& b) {
    if (a.is_infinity() || b.is_infinity()) return a.is_infinity() && b.is_infinity();
    Field za2 = a.Z.sqr(), zb2 = b.Z.sqr();
    if (a.X * zb2 != b.X * za2) return false;
    return a.Y * zb2 * b.Z == b.Y * za2 * a.Z;
  }
  CUZK_HD friend constexpr bool operator!=(const JacobianPoint& a, const JacobianPoint& b) { return !(a == b); }

  // dbl-2009-l
  CUZK_HD constexpr JacobianPoint dbl() const {
    if (is_infinity()) return *this;
    Field A = X.sqr();
    Field B = Y.sqr();
    Field C = B.sqr();
    Field D = ((X + B).sqr() - A - C).dbl();
    Field E = A.dbl() + A;
    Field F = E.sqr();
    Field X3 = F - D.dbl();
    Field Y3 = E * (D - X3) - C.dbl().dbl().dbl();
    Field Z3 = (Y * Z).dbl();
    return {X3, Y3, Z3};
  }

  // add-2007-bl, with the doubling and inverse cases handled.
  CUZK_HD friend constexpr JacobianPoint operator+(const JacobianPoint& p, const JacobianPoint& q) {
    if (p.is_infinity()) return q;
    if (q.is_infinity()) return p;
    Field Z1Z1 = p.Z.sqr(), Z2Z2 = q.Z.sqr();
    Field U1 = p.X * Z2Z2, U2 = q.X * Z1Z1;
    Field S1 = p.Y * q.Z * Z2Z2, S2 = q.Y * p.Z * Z1Z1;
    Field H = U2 - U1;
    Field r = (S2 - S1).dbl();
    if (H.is_zero()) return r.is_zero() ? p.dbl() : infinity();
    Field I = H.dbl().sqr();
    Field J = H * I;
    Field V = U1 * I;
    Field X3 = r.sqr() - J - V.dbl();
    Field Y3 = r * (V - X3) - (S1 * J).dbl();
    Field Z3 = ((p.Z + q.Z).sqr() - Z1Z1 - Z2Z2) * H;
    return {X3, Y3, Z3};
  }

  // madd-2007-bl: this + affine q.
  CUZK_HD constexpr JacobianPoint add_mixed(const Affine& q) const {
    if (q.is_infinity()) return *this;
    if (is_infinity()) return from_affine(q);
    Field Z1Z1 = Z.sqr();
    Field U2 = q.x * Z1Z1;
    Field S2 = q.y * Z * Z1Z1;
    Field H = U2 - X;
    Field r = (S2 - Y).dbl();
    if (H.is_zero()) return r.is_zero() ? dbl() : infinity();
    Field HH = H.sqr();
    Field I = HH.dbl().dbl();
    Field J = H * I;
    Field V = X * I;
    Field X3 = r.sqr() - J - V.dbl();
    Field Y3 = r * (V - X3) - (Y * J).dbl();
    Field Z3 = (Z + H).sqr() - Z1Z1 - HH;
    return {X3, Y3, Z3};
  }

  CUZK_HD friend constexpr JacobianPoint operator-(const JacobianPoint& p, const JacobianPoint& q) { return p + (-q); }
  CUZK_HD constexpr JacobianPoint& operator+=(const JacobianPoint& q) { return *this = *this + q; }
};

template <class Curve>
struct XyzzPoint {
  using Field = typename Curve::Field;
  using Affine = AffinePoint<Curve>;
  using Jacobian = JacobianPoint<Curve>;
  Field X, Y, ZZ, ZZZ;

  CUZK_HD static constexpr XyzzPoint infinity() { return {Field::one(), Field::one(), Field::zero(), Field::zero()}; }
  CUZK_HD static constexpr XyzzPoint from_affine(const Affine& a) {
    return a.is_infinity() ? infinity() : XyzzPoint{a.x, a.y, Field::one(), Field::one()};
  }
  CUZK_HD constexpr bool is_infinity() const { return ZZ.is_zero(); }
  CUZK_HD constexpr XyzzPoint operator-() const { return {X, -Y, ZZ, ZZZ}; }

  // Exact conversion without an inversion: with Z_J = ZZ * ZZZ,
  // X_J = x Z_J^2 = X ZZ ZZZ^2 and Y_J = y Z_J^3 = Y ZZ^3 ZZZ^2.
  CUZK_HD constexpr Jacobian to_jacobian() const {
    if (is_infinity()) return Jacobian::infinity();
    Field zzz2 = ZZZ.sqr();
    Field zz2 = ZZ.sqr();
    return {X * ZZ * zzz2, Y * zzz2 * zz2 * ZZ, ZZ * ZZZ};
  }
  CUZK_HD constexpr Affine to_affine() const {
    if (is_infinity()) return Affine::infinity();
    Field zzz_inv = ZZZ.inverse();
    Field z_inv = zzz_inv * ZZ;  // 1/Z with ZZ = Z^2, ZZZ = Z^3
    Field zz_inv = z_inv.sqr();
    return {X * zz_inv, Y * zzz_inv};
  }

  // dbl-2008-s-1
  CUZK_HD constexpr XyzzPoint dbl() const {
    if (is_infinity()) return *this;
    Field U = Y.dbl();
    Field V = U.sqr();
    Field W = U * V;
    Field S = X * V;
    Field Xs = X.sqr();
    Field M = Xs.dbl() + Xs;
    Field X3 = M.sqr() - S.dbl();
    Field Y3 = Field::sum_of_products(M, S - X3, -W, Y);  // M (S - X3) - W Y
    return {X3, Y3, V * ZZ, W * ZZZ};
  }

  // add-2008-s
  CUZK_HD friend constexpr XyzzPoint operator+(const XyzzPoint& p, const XyzzPoint& q) {
    if (p.is_infinity()) return q;
    if (q.is_infinity()) return p;
    Field U1 = p.X * q.ZZ, U2 = q.X * p.ZZ;
    Field S1 = p.Y * q.ZZZ, S2 = q.Y * p.ZZZ;
    Field P = U2 - U1;
    Field R = S2 - S1;
    if (P.is_zero()) return R.is_zero() ? p.dbl() : infinity();
    Field PP = P.sqr();
    Field PPP = P * PP;
    Field Q = U1 * PP;
    Field X3 = R.sqr() - PPP - Q.dbl();
    Field Y3 = Field::sum_of_products(R, Q - X3, -S1, PPP);  // R (Q - X3) - S1 PPP
    return {X3, Y3, p.ZZ * q.ZZ * PP, p.ZZZ * q.ZZZ * PPP};
  }

  // madd-2008-s: this + affine q.
  CUZK_HD constexpr XyzzPoint add_mixed(const Affine& q) const {
    if (q.is_infinity()) return *this;
    if (is_infinity()) return from_affine(q);
    Field U2 = q.x * ZZ;
    Field S2 = q.y * ZZZ;
    Field P = U2 - X;
    Field R = S2 - Y;
    if (P.is_zero()) return R.is_zero() ? from_affine(q).dbl() : infinity();
    Field PP = P.sqr();
    Field PPP = P * PP;
    Field Q = X * PP;
    Field X3 = R.sqr() - PPP - Q.dbl();
    Field Y3 = Field::sum_of_products(R, Q - X3, -Y, PPP);  // R (Q - X3) - Y PPP
    return {X3, Y3, ZZ * PP, ZZZ * PPP};
  }
  CUZK_HD constexpr XyzzPoint& operator+=(const XyzzPoint& q) { return *this = *this + q; }
};

// Converts n Jacobian points to affine with one field inversion (Montgomery's trick).
// scratch must hold n field elements.
template <class Curve>
void batch_to_affine(const JacobianPoint<Curve>* in, AffinePoint<Curve>* out, size_t n,
                     typename Curve::Field* scratch) {
  using Field = typename Curve::Field;
  Field acc = Field::one();
  for (size_t i = 0; i < n; i++) {
    scratch[i] = acc;
    if (!in[i].is_infinity()) acc *= in[i].Z;
  }
  Field inv = acc.inverse();
  for (size_t i = n; i-- > 0;) {
    if (in[i].is_infinity()) {
      out[i] = AffinePoint<Curve>::infinity();
      continue;
    }
    Field zi = inv * scratch[i];
    inv *= in[i].Z;
    Field zi2 = zi.sqr();
    out[i] = {in[i].X * zi2, in[i].Y * zi2 * zi};
  }
}

}  // namespace cuzk::ec
