// 32-bit words of Booleans (least significant bit first) with bellperson's UInt32
// semantics: rotations and shifts rearrange bits for free, xor / ch / maj work bit by bit,
// and addmany adds 2..10 words with one packed equality through MultiEq (bellperson
// gadgets/uint32.rs). The native value is carried along.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "gadgets/boolean.hpp"
#include "gadgets/multieq.hpp"

namespace cuzk::gadgets {

class UInt32 {
 public:
  UInt32() = default;
  static UInt32 constant(uint32_t value);
  static UInt32 alloc(ConstraintSystem& cs, uint32_t value);
  // bits[0] is the most significant bit.
  static UInt32 from_bits_be(std::span<const Boolean> bits);
  // bits[0] is the least significant bit.
  static UInt32 from_bits(std::span<const Boolean> bits);
  std::vector<Boolean> into_bits_be() const;
  const std::array<Boolean, 32>& bits() const { return bits_; }  // least significant first
  uint32_t value() const { return value_; }

  UInt32 rotr(size_t by) const;
  UInt32 shr(size_t by) const;
  UInt32 xor_(ConstraintSystem& cs, const UInt32& other) const;
  static UInt32 sha256_ch(ConstraintSystem& cs, const UInt32& a, const UInt32& b, const UInt32& c);
  static UInt32 sha256_maj(ConstraintSystem& cs, const UInt32& a, const UInt32& b, const UInt32& c);
  // Sum of 2..10 operands mod 2^32: allocates the bits of the full sum (carries included) and
  // enforces the equality through cs (bellperson: cs.get_root().enforce_equal).
  static UInt32 addmany(MultiEq& cs, std::span<const UInt32> operands);

 private:
  std::array<Boolean, 32> bits_{};
  uint32_t value_ = 0;
};

}  // namespace cuzk::gadgets
