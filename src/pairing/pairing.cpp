#include "pairing/pairing.hpp"

#include <stdexcept>

namespace cuzk::pairing {
namespace {

using ec::G2Jacobian;
using ec::kBlsXAbs;

// Doubles T (Jacobian on the twist, dbl-2009-l) and returns the tangent line at T,
// scaled by 2 Y Z^3 (an Fp2 factor, which the final exponentiation removes):
// l0 = 3X^3 - 2Y^2, l1 = -3X^2 Z^2, l4 = 2Y Z^3.
LineCoeffs doubling_step(G2Jacobian& t) {
  Fp2 A = t.X.sqr();
  Fp2 B = t.Y.sqr();
  Fp2 C = B.sqr();
  Fp2 D = ((t.X + B).sqr() - A - C).dbl();
  Fp2 E = A.dbl() + A;
  Fp2 F = E.sqr();
  Fp2 ZZ = t.Z.sqr();
  LineCoeffs line;
  line.l0 = E * t.X - B.dbl();
  line.l1 = -(E * ZZ);
  Fp2 Z3 = (t.Y + t.Z).sqr() - B - ZZ;
  line.l4 = Z3 * ZZ;
  Fp2 X3 = F - D.dbl();
  t.Y = E * (D - X3) - C.dbl().dbl().dbl();
  t.X = X3;
  t.Z = Z3;
  return line;
}

// T <- T + Q (madd-2007-bl) and the line through T and Q, scaled by Z3 = 2 Z H:
// l0 = r xq - yq Z3, l1 = -r, l4 = Z3 with r = 2 (yq Z^3 - Y).
LineCoeffs addition_step(G2Jacobian& t, const G2Affine& q) {
  Fp2 Z1Z1 = t.Z.sqr();
  Fp2 U2 = q.x * Z1Z1;
  Fp2 S2 = q.y * t.Z * Z1Z1;
  Fp2 H = U2 - t.X;
  Fp2 HH = H.sqr();
  Fp2 I = HH.dbl().dbl();
  Fp2 J = H * I;
  Fp2 r = (S2 - t.Y).dbl();
  Fp2 V = t.X * I;
  Fp2 X3 = r.sqr() - J - V.dbl();
  Fp2 Y3 = r * (V - X3) - (t.Y * J).dbl();
  Fp2 Z3 = (t.Z + H).sqr() - Z1Z1 - HH;
  t = {X3, Y3, Z3};
  return {r * q.x - q.y * Z3, -r, Z3};
}

void apply_line(Fp12& f, const LineCoeffs& line, const G1Affine& p) {
  f = f.mul_by_014(line.l0, line.l1.mul_by_fp(p.x), line.l4.mul_by_fp(p.y));
}

constexpr int kTopBit = 63;  // |x| has bit 63 set

// f^(|x|) ... conjugated: f^x for x < 0 in the cyclotomic subgroup.
Fp12 cyclotomic_pow_x(const Fp12& f) { return cyclotomic_pow_u64(f, kBlsXAbs).conjugate(); }

// (|x| + 1) / 3, so that (x - 1) / 3 = -(|x| + 1) / 3.
constexpr uint64_t kXMinus1Over3Abs = (kBlsXAbs + 1) / 3;
static_assert((kBlsXAbs + 1) % 3 == 0);

}  // namespace

G2Prepared::G2Prepared(const G2Affine& q) : infinity_(q.is_infinity()) {
  if (infinity_) return;
  lines_.reserve(70);
  G2Jacobian t = G2Jacobian::from_affine(q);
  for (int i = kTopBit - 1; i >= 0; i--) {
    lines_.push_back(doubling_step(t));
    if ((kBlsXAbs >> i) & 1) lines_.push_back(addition_step(t, q));
  }
}

Fp12 multi_miller_loop(std::span<const PairingTerm> terms) {
  Fp12 f = Fp12::one();
  size_t step = 0;
  bool first = true;
  for (int i = kTopBit - 1; i >= 0; i--) {
    if (!first) f = f.sqr();
    first = false;
    const int steps_here = ((kBlsXAbs >> i) & 1) ? 2 : 1;
    for (int s = 0; s < steps_here; s++, step++) {
      for (const PairingTerm& term : terms) {
        if (term.p->is_infinity() || term.q->is_infinity()) continue;
        apply_line(f, term.q->lines()[step], *term.p);
      }
    }
  }
  // x < 0: f_{x,Q} = 1 / f_{|x|,Q} up to factors the final exponentiation removes.
  return f.conjugate();
}

Fp12 miller_loop(const G1Affine& p, const G2Affine& q) {
  G2Prepared prepared(q);
  PairingTerm term{&p, &prepared};
  return multi_miller_loop({&term, 1});
}

Fp12 cyclotomic_pow_u64(const Fp12& f, uint64_t e) {
  Fp12 r = Fp12::one();
  bool started = false;
  for (int i = 63; i >= 0; i--) {
    if (started) r = r.cyclotomic_sqr();
    if ((e >> i) & 1) {
      r = started ? r * f : f;
      started = true;
    }
  }
  return r;
}

Fp12 final_exponentiation(const Fp12& f) {
  // Easy part: f^((p^6 - 1)(p^2 + 1)) lands in the cyclotomic subgroup.
  Fp12 t = f.conjugate() * f.inverse();
  t = t.frobenius(2) * t;
  // Hard part: t^(((x-1)^2/3)(x+p)(x^2+p^2-1) + 1).
  Fp12 a = cyclotomic_pow_u64(t, kXMinus1Over3Abs).conjugate();                     // t^((x-1)/3)
  Fp12 b = cyclotomic_pow_x(a) * a.conjugate();                                     // a^(x-1)
  Fp12 c = cyclotomic_pow_x(b) * b.frobenius(1);                                    // b^(x+p)
  Fp12 e = cyclotomic_pow_x(cyclotomic_pow_x(c)) * c.frobenius(2) * c.conjugate();  // c^(x^2+p^2-1)
  return e * t;
}

Gt ate_pairing(const G1Affine& p, const G2Affine& q) { return final_exponentiation(miller_loop(p, q)); }

Gt multi_pairing(std::span<const PairingTerm> terms) { return final_exponentiation(multi_miller_loop(terms)); }

Gt multi_pairing(std::span<const G1Affine> ps, std::span<const G2Affine> qs) {
  if (ps.size() != qs.size()) throw std::invalid_argument("multi_pairing: G1 and G2 lists differ in length");
  std::vector<G2Prepared> prepared;
  prepared.reserve(qs.size());
  for (const G2Affine& q : qs) prepared.emplace_back(q);
  std::vector<PairingTerm> terms(ps.size());
  for (size_t i = 0; i < ps.size(); i++) terms[i] = {&ps[i], &prepared[i]};
  return multi_pairing(terms);
}

bool pairing_product_is_one(std::span<const PairingTerm> terms) { return multi_pairing(terms).is_one(); }

}  // namespace cuzk::pairing
