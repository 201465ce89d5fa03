// G2 endomorphism psi, subgroup check and psi-based scalar multiplication.
#include "ec/curves.hpp"
#include "ec/scalar_mul.hpp"
#include "ff/fp6.hpp"

namespace cuzk::ec {
namespace {

// psi(x, y) = (conj(x) / xi^((p-1)/3), conj(y) / xi^((p-1)/2)); gamma_1 = xi^((p-1)/6).
struct PsiConstants {
  Fp2 cx, cy;
  constexpr PsiConstants() : cx{}, cy{} {
    Fp2 g = ff::detail::kFrobenius.gamma[1];
    Fp2 g2 = g.sqr();
    cx = g2.inverse();
    cy = (g2 * g).inverse();
  }
};
constexpr PsiConstants kPsi{};

constexpr unsigned kG2Window = 4;
constexpr size_t kG2Table = size_t(1) << (kG2Window - 2);

}  // namespace

G2Affine g2_psi(const G2Affine& q) {
  if (q.is_infinity()) return q;
  return {q.x.conjugate() * kPsi.cx, q.y.conjugate() * kPsi.cy};
}

bool g2_is_in_subgroup(const G2Affine& q) {
  if (q.is_infinity()) return true;
  // x < 0: [x] Q = -[|x|] Q.
  G2Jacobian xq = -scalar_mul_u64(q, kBlsXAbs);
  return G2Jacobian::from_affine(g2_psi(q)) == xq;
}

G2Jacobian g2_mul(const G2Jacobian& q, const Fr& k) {
  if (q.is_infinity() || k.is_zero()) return G2Jacobian::infinity();
  // k = sum_i k_i |x|^i with k_i < |x|, and [|x|^i] Q = (-psi)^i (Q) since psi = [x] = -[|x|].
  BigInt<4> rest = k.to_canonical();
  BigInt<1> digit[4];
  for (auto& d : digit) d = BigInt<1>::from_u64(rest.div_small_in_place(kBlsXAbs));
  G2Affine tables[4][kG2Table];
  odd_multiples(q, kG2Table, tables[0]);
  for (size_t j = 1; j < 4; j++) {
    for (size_t i = 0; i < kG2Table; i++) tables[j][i] = -g2_psi(tables[j - 1][i]);
  }
  int8_t digits[4][65];
  size_t lens[4];
  const G2Affine* table_ptrs[4];
  const int8_t* digit_ptrs[4];
  for (size_t j = 0; j < 4; j++) {
    lens[j] = wnaf_recode(digit[j], kG2Window, digits[j]);
    table_ptrs[j] = tables[j];
    digit_ptrs[j] = digits[j];
  }
  return interleaved_wnaf<G2Curve>(4, table_ptrs, digit_ptrs, lens);
}

G2Jacobian g2_mul(const G2Affine& q, const Fr& k) { return g2_mul(G2Jacobian::from_affine(q), k); }

}  // namespace cuzk::ec
