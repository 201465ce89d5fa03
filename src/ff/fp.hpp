// The BLS12-381 base field Fp (381-bit prime, six 64-bit limbs).
#pragma once

#include "ff/mont_field.hpp"

namespace cuzk::ff {

struct FpConfig {
  static constexpr size_t kLimbs = 6;
  static constexpr BigInt<6> kModulus = BigInt<6>::from_hex(
      "0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab");
  // p = 3 mod 8, so 2 is a quadratic non-residue.
  static constexpr uint64_t kQuadraticNonResidue = 2;
};

using Fp = MontField<FpConfig>;

}  // namespace cuzk::ff
