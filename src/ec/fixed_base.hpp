// Fixed-base scalar multiplication with a precomputed table: [k] G as one mixed addition per
// 8-bit window of k, for setups that multiply one generator by millions of scalars.
#pragma once

#include <cstdint>
#include <span>
#include <tbb/parallel_for.h>
#include <vector>

#include "ec/curves.hpp"

namespace cuzk::ec {

template <class Curve>
class FixedBaseTable {
 public:
  static constexpr unsigned kWindowBits = 8;
  static constexpr unsigned kWindows = 256 / kWindowBits;
  static constexpr unsigned kEntries = (1u << kWindowBits) - 1;  // digits 1..255

  explicit FixedBaseTable(const AffinePoint<Curve>& g) : table_(size_t(kWindows) * kEntries) {
    std::vector<JacobianPoint<Curve>> jac(table_.size());
    JacobianPoint<Curve> base = JacobianPoint<Curve>::from_affine(g);
    for (unsigned w = 0; w < kWindows; w++) {
      JacobianPoint<Curve> acc = base;
      for (unsigned d = 0; d < kEntries; d++) {
        jac[size_t(w) * kEntries + d] = acc;  // (d + 1) 2^(8w) G
        acc += base;
      }
      base = acc;  // 256 * 2^(8w) G = 2^(8(w+1)) G
    }
    std::vector<typename Curve::Field> scratch(jac.size());
    batch_to_affine(jac.data(), table_.data(), jac.size(), scratch.data());
  }

  JacobianPoint<Curve> mul(const Fr& k) const {
    const BigInt<4> c = k.to_canonical();
    JacobianPoint<Curve> acc = JacobianPoint<Curve>::infinity();
    for (unsigned w = 0; w < kWindows; w++) {
      const unsigned d = unsigned(c.limb[w / 8] >> (8 * (w % 8))) & 0xff;
      if (d) acc = acc.add_mixed(table_[size_t(w) * kEntries + d - 1]);
    }
    return acc;
  }

  // [k_i] G for every scalar, in parallel, as affine points (one shared inversion).
  std::vector<AffinePoint<Curve>> mul_all(std::span<const Fr> scalars) const {
    std::vector<JacobianPoint<Curve>> jac(scalars.size());
    tbb::parallel_for(size_t(0), scalars.size(), [&](size_t i) { jac[i] = mul(scalars[i]); });
    std::vector<AffinePoint<Curve>> out(jac.size());
    std::vector<typename Curve::Field> scratch(jac.size());
    batch_to_affine(jac.data(), out.data(), jac.size(), scratch.data());
    return out;
  }

 private:
  std::vector<AffinePoint<Curve>> table_;
};

}  // namespace cuzk::ec
