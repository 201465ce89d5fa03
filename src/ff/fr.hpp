// The BLS12-381 scalar field Fr (255-bit prime r, four 64-bit limbs).
// r - 1 = 2^32 * T, so NTT domains up to 2^32 exist.
#pragma once

#include "ff/mont_field.hpp"

namespace cuzk::ff {

struct FrConfig {
  static constexpr size_t kLimbs = 4;
  static constexpr BigInt<4> kModulus =
      BigInt<4>::from_hex("0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001");
  // 7 generates the multiplicative group (the coset shift bellperson uses), so it is a non-residue.
  static constexpr uint64_t kQuadraticNonResidue = 7;
};

using Fr = MontField<FrConfig>;

// Fr's multiplicative generator, the shift of the coset NTT.
inline constexpr uint64_t kFrMultiplicativeGenerator = FrConfig::kQuadraticNonResidue;

}  // namespace cuzk::ff
