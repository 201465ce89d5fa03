// snarkjs' H convention over our NTT domains. snarkjs (ffjavascript, wasmcurves) takes its
// 2-adic roots of unity from the smallest non-residue, 5: w_sj = 5^T (r - 1 = 2^32 T); cuzk's
// domains take them from 7. Both generate the same cyclic group of order 2^32, so
// w_ours = w_sj^k for one odd k, and on a domain of n points our index i is snarkjs' index
// k i mod n. The prover therefore places snarkjs' constraint j at our index k^-1 j, runs our
// iNTT/NTT (the polynomial's coefficients do not depend on the root), and multiplies the
// coefficients by powers of snarkjs' shift, its 2n-th root w_sj,2n (Fr.w[log n + 1]), so that
// the NTT gives the values at the odd 2n-th roots w_sj,2n^(2j+1), j = k i mod n, which section 9's
// H points are indexed by.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ff/fr.hpp"

namespace cuzk::snarkjs {

class OddCoset {
 public:
  // Throws std::invalid_argument for log_n outside 1..31 (snarkjs needs the 2n-th roots).
  explicit OddCoset(unsigned log_n);

  unsigned log_size() const { return log_n_; }
  size_t size() const { return size_t(1) << log_n_; }
  // snarkjs' evaluation index of our index i, and back.
  size_t snarkjs_index(size_t ours) const { return size_t((k_ * ours) & mask_); }
  size_t our_index(size_t snarkjs) const { return size_t((k_inverse_ * snarkjs) & mask_); }
  // w_sj,2n: coefficient j is multiplied by shift^j between the iNTT and the NTT.
  const ff::Fr& shift() const { return shift_; }

  // w_ours = w_sj^k over the whole 2^32 group (exposed for the tests).
  static uint64_t root_exponent();
  static ff::Fr snarkjs_root_of_unity(unsigned log_order);

 private:
  unsigned log_n_;
  uint64_t mask_, k_, k_inverse_;
  ff::Fr shift_;
};

}  // namespace cuzk::snarkjs
