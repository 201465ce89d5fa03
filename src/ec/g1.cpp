// G1 endomorphism, subgroup check and GLV scalar multiplication.
#include "ec/curves.hpp"
#include "ec/scalar_mul.hpp"
#include "ff/fp6.hpp"

namespace cuzk::ec {
namespace {

constexpr BigInt<6> fp_minus1_third() { return ff::detail::fp_minus1_over(3); }
// beta = 2^((p-1)/3): the cube root of unity for which sigma = [-x^2] on G1
// (checked against the generator by the unit tests).
constexpr Fp kBeta = Fp::from_u64(2).pow(fp_minus1_third());

constexpr unsigned kG1Window = 5;
constexpr size_t kG1Table = size_t(1) << (kG1Window - 2);

// k = k0 + k1 x^2 with 0 <= k0 < x^2, from two divisions by |x| (k < r < x^4).
void glv_split(const Fr& k, BigInt<2>& k0, BigInt<2>& k1) {
  BigInt<4> q = k.to_canonical();
  uint64_t r0 = q.div_small_in_place(kBlsXAbs);
  uint64_t r1 = q.div_small_in_place(kBlsXAbs);
  unsigned __int128 low = (unsigned __int128)r1 * kBlsXAbs + r0;
  k0 = {{uint64_t(low), uint64_t(low >> 64)}};
  k1 = {{q.limb[0], q.limb[1]}};
}

}  // namespace

G1Affine g1_sigma(const G1Affine& p) {
  if (p.is_infinity()) return p;
  return {p.x * kBeta, p.y};
}

bool g1_is_in_subgroup(const G1Affine& p) {
  if (p.is_infinity()) return true;
  // [x^2] P = [|x|]([|x|] P); sigma(P) must equal -[x^2] P.
  G1Jacobian xp = scalar_mul_u64(p, kBlsXAbs);
  G1Jacobian x2p = scalar_mul_u64(xp, kBlsXAbs);
  return G1Jacobian::from_affine(g1_sigma(p)) == -x2p;
}

G1Jacobian g1_mul(const G1Jacobian& p, const Fr& k) {
  if (p.is_infinity() || k.is_zero()) return G1Jacobian::infinity();
  BigInt<2> k0, k1;
  glv_split(k, k0, k1);
  // [k] P = [k0] P + [k1] [x^2] P and [x^2] P = -sigma(P).
  G1Affine t0[kG1Table], t1[kG1Table];
  odd_multiples(p, kG1Table, t0);
  for (size_t i = 0; i < kG1Table; i++) t1[i] = -g1_sigma(t0[i]);
  int8_t d0[129], d1[129];
  size_t lens[2] = {wnaf_recode(k0, kG1Window, d0), wnaf_recode(k1, kG1Window, d1)};
  const G1Affine* tables[2] = {t0, t1};
  const int8_t* digits[2] = {d0, d1};
  return interleaved_wnaf<G1Curve>(2, tables, digits, lens);
}

G1Jacobian g1_mul(const G1Affine& p, const Fr& k) { return g1_mul(G1Jacobian::from_affine(p), k); }

}  // namespace cuzk::ec
