#include "interop/snarkjs/odd_coset.hpp"

#include <stdexcept>
#include <string>

namespace cuzk::snarkjs {
namespace {

constexpr unsigned kTwoAdicity = 32;  // of r - 1
constexpr uint64_t kSnarkjsNonResidue = 5;

// T = (r - 1) / 2^32.
ff::BigInt<4> odd_part_of_r_minus_1() {
  ff::BigInt<4> m = ff::Fr::modulus();
  m.limb[0] -= 1;  // r is odd: no borrow
  ff::BigInt<4> t = ff::BigInt<4>::zero();
  for (size_t i = 0; i < 4; i++) {
    t.limb[i] = m.limb[i] >> kTwoAdicity;
    if (i + 1 < 4) t.limb[i] |= m.limb[i + 1] << (64 - kTwoAdicity);
  }
  return t;
}

ff::Fr power_of_two_square(ff::Fr x, unsigned times) {
  for (unsigned i = 0; i < times; i++) x = x.sqr();
  return x;
}

// Pohlig-Hellman in the group of order 2^32: bit b of k from the order of w_ours w_sj^-k.
uint64_t compute_root_exponent() {
  const ff::Fr ours = ff::Fr::two_adic_root_of_unity();
  const ff::Fr theirs = OddCoset::snarkjs_root_of_unity(kTwoAdicity);
  const ff::Fr theirs_inverse = theirs.inverse();
  uint64_t k = 0;
  for (unsigned b = 0; b < kTwoAdicity; b++) {
    const ff::Fr rest = ours * theirs_inverse.pow(k);
    if (!power_of_two_square(rest, kTwoAdicity - 1 - b).is_one()) k |= uint64_t(1) << b;
  }
  if (theirs.pow(k) != ours || (k & 1) == 0) {
    throw std::logic_error("the roots of unity of cuzk and snarkjs are not related as expected");
  }
  return k;
}

}  // namespace

ff::Fr OddCoset::snarkjs_root_of_unity(unsigned log_order) {
  static const ff::Fr root = ff::Fr::from_u64(kSnarkjsNonResidue).pow(odd_part_of_r_minus_1());
  return power_of_two_square(root, kTwoAdicity - log_order);
}

uint64_t OddCoset::root_exponent() {
  static const uint64_t k = compute_root_exponent();
  return k;
}

OddCoset::OddCoset(unsigned log_n) : log_n_(log_n) {
  if (log_n == 0 || log_n >= kTwoAdicity) {
    throw std::invalid_argument("snarkjs domain of 2^" + std::to_string(log_n) +
                                " points is not supported (1 to 2^31: the prover needs the 2n-th roots)");
  }
  mask_ = (uint64_t(1) << log_n) - 1;
  k_ = root_exponent() & mask_;
  // Inverse of an odd k modulo 2^64 by Newton's iteration (each step doubles the correct bits).
  uint64_t inv = k_;
  for (int i = 0; i < 6; i++) inv *= 2 - k_ * inv;
  k_inverse_ = inv & mask_;
  shift_ = snarkjs_root_of_unity(log_n + 1);
}

}  // namespace cuzk::snarkjs
