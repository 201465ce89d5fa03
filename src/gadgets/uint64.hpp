// 64-bit words of Booleans, least significant bit first (storage-proofs-core gadgets/uint64.rs).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "gadgets/boolean.hpp"

namespace cuzk::gadgets {

class UInt64 {
 public:
  static UInt64 constant(uint64_t value) {
    UInt64 r;
    for (int i = 0; i < 64; i++) r.bits_[i] = Boolean::constant((value >> i) & 1);
    r.value_ = value;
    return r;
  }
  // 64 allocated bits ("allocated bit i").
  static UInt64 alloc(ConstraintSystem& cs, uint64_t value) {
    UInt64 r;
    for (int i = 0; i < 64; i++) {
      r1cs::Namespace ns(cs, "allocated bit " + std::to_string(i));
      r.bits_[i] = AllocatedBit::alloc(cs, (value >> i) & 1);
    }
    r.value_ = value;
    return r;
  }
  std::vector<Boolean> to_bits_be() const { return std::vector<Boolean>(bits_.rbegin(), bits_.rend()); }
  const std::array<Boolean, 64>& bits() const { return bits_; }
  uint64_t value() const { return value_; }

 private:
  std::array<Boolean, 64> bits_{};
  uint64_t value_ = 0;
};

}  // namespace cuzk::gadgets
