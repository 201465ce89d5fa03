// Variable-base scalar multiplication on any curve of point.hpp:
// width-w NAF recoding, tables of odd multiples in affine form (one inversion per
// table set), and interleaving of several (base, scalar) pairs over one doubling chain.
// Used directly for arbitrary points and scalars, and by the G1 GLV and G2 psi-based
// multiplications, which split one 255-bit scalar into short ones.
//
// Variable time: the prover's secrets are protected by the protocol's blinding, not by
// constant-time code; do not use this for long-lived signing keys.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ec/point.hpp"
#include "ff/bigint.hpp"

namespace cuzk::ec {

// Width-w NAF of k: digits[i] in {0, ±1, ±3, ..., ±(2^(w-1) - 1)}, at most one non-zero digit
// in any w consecutive positions. Returns the number of digits (<= 64 K + 1).
template <size_t K>
size_t wnaf_recode(const ff::BigInt<K>& k, unsigned w, int8_t* digits) {
  ff::BigInt<K + 1> t = ff::BigInt<K + 1>::zero();
  for (size_t i = 0; i < K; i++) t.limb[i] = k.limb[i];
  const int64_t full = int64_t(1) << w, half = full >> 1;
  size_t n = 0;
  while (!t.is_zero()) {
    int64_t d = 0;
    if (t.is_odd()) {
      d = int64_t(t.limb[0] & uint64_t(full - 1));
      if (d >= half) d -= full;
      if (d > 0) {
        t.sub_in_place(ff::BigInt<K + 1>::from_u64(uint64_t(d)));
      } else {
        t.add_in_place(ff::BigInt<K + 1>::from_u64(uint64_t(-d)));
      }
    }
    digits[n++] = int8_t(d);
    t.shr1();
  }
  return n;
}

// Affine odd multiples P, 3P, ..., (2 count - 1) P of p.
template <class Curve>
void odd_multiples(const JacobianPoint<Curve>& p, size_t count, AffinePoint<Curve>* out) {
  std::vector<JacobianPoint<Curve>> jac(count);
  std::vector<typename Curve::Field> scratch(count);
  JacobianPoint<Curve> twice = p.dbl();
  jac[0] = p;
  for (size_t i = 1; i < count; i++) jac[i] = jac[i - 1] + twice;
  batch_to_affine(jac.data(), out, count, scratch.data());
}

// sum_j [k_j] B_j over interleaved wNAF digit strings. tables[j] holds the odd multiples
// of base j (2^(w-2) entries), digits[j] its wNAF of length lens[j].
template <class Curve>
JacobianPoint<Curve> interleaved_wnaf(size_t n_bases, const AffinePoint<Curve>* const* tables,
                                      const int8_t* const* digits, const size_t* lens) {
  size_t top = 0;
  for (size_t j = 0; j < n_bases; j++) top = lens[j] > top ? lens[j] : top;
  JacobianPoint<Curve> acc = JacobianPoint<Curve>::infinity();
  for (size_t i = top; i-- > 0;) {
    acc = acc.dbl();
    for (size_t j = 0; j < n_bases; j++) {
      if (i >= lens[j]) continue;
      int d = digits[j][i];
      if (d > 0) acc = acc.add_mixed(tables[j][(d - 1) / 2]);
      if (d < 0) acc = acc.add_mixed(-tables[j][(-d - 1) / 2]);
    }
  }
  return acc;
}

// [k] P for any point P on the curve (no subgroup assumption) and any scalar width.
template <class Curve, size_t K>
JacobianPoint<Curve> scalar_mul(const JacobianPoint<Curve>& p, const ff::BigInt<K>& k) {
  constexpr unsigned kWindow = 5;
  constexpr size_t kTable = size_t(1) << (kWindow - 2);
  if (p.is_infinity() || k.is_zero()) return JacobianPoint<Curve>::infinity();
  AffinePoint<Curve> table[kTable];
  odd_multiples(p, kTable, table);
  int8_t digits[64 * K + 1];
  size_t len = wnaf_recode(k, kWindow, digits);
  const AffinePoint<Curve>* tables[1] = {table};
  const int8_t* digit_ptrs[1] = {digits};
  return interleaved_wnaf<Curve>(1, tables, digit_ptrs, &len);
}

// [k] P for a 64-bit k by plain double-and-add; cheap for sparse constants such as |x|.
template <class Curve>
JacobianPoint<Curve> scalar_mul_u64(const AffinePoint<Curve>& p, uint64_t k) {
  JacobianPoint<Curve> acc = JacobianPoint<Curve>::infinity();
  for (int i = 63; i >= 0; i--) {
    acc = acc.dbl();
    if ((k >> i) & 1) acc = acc.add_mixed(p);
  }
  return acc;
}
template <class Curve>
JacobianPoint<Curve> scalar_mul_u64(const JacobianPoint<Curve>& p, uint64_t k) {
  JacobianPoint<Curve> acc = JacobianPoint<Curve>::infinity();
  for (int i = 63; i >= 0; i--) {
    acc = acc.dbl();
    if ((k >> i) & 1) acc += p;
  }
  return acc;
}

}  // namespace cuzk::ec
