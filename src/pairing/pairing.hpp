// The optimal ate pairing on BLS12-381: e(P, Q) for P in G1, Q in G2, values in the
// order-r subgroup GT of Fp12*.
//
// Miller loop over the bits of |x| with Jacobian coordinates on the twist and sparse
// line multiplication; final exponentiation f^((p^12 - 1)/r) with the easy part
// (p^6 - 1)(p^2 + 1) and the hard part (p^4 - p^2 + 1)/r written as
// ((x - 1)^2 / 3)(x + p)(x^2 + p^2 - 1) + 1, so the result is exactly e(P, Q)
// (not a power of it), using cyclotomic squaring.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "ec/curves.hpp"
#include "ff/fp12.hpp"

namespace cuzk::pairing {

using ec::G1Affine;
using ec::G2Affine;
using ff::Fp12;
using ff::Fp2;
using Gt = ff::Fp12;

// The line coefficients of one Miller-loop step. Evaluated at P = (xp, yp) the line is
// l0 + (l1 xp) v + (l4 yp) v w.
struct LineCoeffs {
  Fp2 l0, l1, l4;
};

// Q's Miller-loop lines, computed once. A verifying key keeps its G2 points prepared.
class G2Prepared {
 public:
  G2Prepared() = default;
  explicit G2Prepared(const G2Affine& q);
  bool is_infinity() const { return infinity_; }
  const std::vector<LineCoeffs>& lines() const { return lines_; }

 private:
  std::vector<LineCoeffs> lines_;
  bool infinity_ = true;
};

// One (P, prepared Q) term of a product of pairings.
struct PairingTerm {
  const G1Affine* p;
  const G2Prepared* q;
};

// prod_i f_{x, Q_i}(P_i), sharing the squarings; infinity on either side contributes 1.
Fp12 multi_miller_loop(std::span<const PairingTerm> terms);
Fp12 miller_loop(const G1Affine& p, const G2Affine& q);

// f^((p^12 - 1) / r).
Fp12 final_exponentiation(const Fp12& f);

Gt ate_pairing(const G1Affine& p, const G2Affine& q);

// prod_i e(P_i, Q_i) with one final exponentiation. The spans must have equal length.
Gt multi_pairing(std::span<const G1Affine> ps, std::span<const G2Affine> qs);
Gt multi_pairing(std::span<const PairingTerm> terms);

// prod_i e(P_i, Q_i) == 1: the check a Groth16 verifier makes.
bool pairing_product_is_one(std::span<const PairingTerm> terms);

// f^e in the cyclotomic subgroup (f must be the output of a final exponentiation's easy part).
Fp12 cyclotomic_pow_u64(const Fp12& f, uint64_t e);

}  // namespace cuzk::pairing
