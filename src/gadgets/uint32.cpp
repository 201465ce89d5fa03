#include "gadgets/uint32.hpp"

#include <bit>
#include <stdexcept>

namespace cuzk::gadgets {

UInt32 UInt32::constant(uint32_t value) {
  UInt32 r;
  for (int i = 0; i < 32; i++) r.bits_[i] = Boolean::constant((value >> i) & 1);
  r.value_ = value;
  return r;
}

UInt32 UInt32::alloc(ConstraintSystem& cs, uint32_t value) {
  UInt32 r;
  for (int i = 0; i < 32; i++) r.bits_[i] = AllocatedBit::alloc(cs, (value >> i) & 1);
  r.value_ = value;
  return r;
}

UInt32 UInt32::from_bits_be(std::span<const Boolean> bits) {
  if (bits.size() != 32) throw std::invalid_argument("UInt32::from_bits_be: need 32 bits");
  UInt32 r;
  for (int i = 0; i < 32; i++) {
    r.bits_[31 - i] = bits[i];
    r.value_ = (r.value_ << 1) | uint32_t(bits[i].value());
  }
  return r;
}

UInt32 UInt32::from_bits(std::span<const Boolean> bits) {
  if (bits.size() != 32) throw std::invalid_argument("UInt32::from_bits: need 32 bits");
  UInt32 r;
  for (int i = 0; i < 32; i++) {
    r.bits_[i] = bits[i];
    r.value_ |= uint32_t(bits[i].value()) << i;
  }
  return r;
}

std::vector<Boolean> UInt32::into_bits_be() const { return std::vector<Boolean>(bits_.rbegin(), bits_.rend()); }

UInt32 UInt32::rotr(size_t by) const {
  by %= 32;
  UInt32 r;
  for (size_t i = 0; i < 32; i++) r.bits_[i] = bits_[(i + by) % 32];
  r.value_ = by == 0 ? value_ : (value_ >> by) | (value_ << (32 - by));
  return r;
}

UInt32 UInt32::shr(size_t by) const {
  by %= 32;
  UInt32 r;
  for (size_t i = 0; i < 32; i++) r.bits_[i] = i + by < 32 ? bits_[i + by] : Boolean::constant(false);
  r.value_ = value_ >> by;
  return r;
}

UInt32 UInt32::xor_(ConstraintSystem& cs, const UInt32& other) const {
  UInt32 r;
  for (int i = 0; i < 32; i++) r.bits_[i] = Boolean::xor_(cs, bits_[i], other.bits_[i]);
  r.value_ = value_ ^ other.value_;
  return r;
}

UInt32 UInt32::sha256_ch(ConstraintSystem& cs, const UInt32& a, const UInt32& b, const UInt32& c) {
  UInt32 r;
  for (int i = 0; i < 32; i++) r.bits_[i] = Boolean::sha256_ch(cs, a.bits_[i], b.bits_[i], c.bits_[i]);
  r.value_ = (a.value_ & b.value_) ^ (~a.value_ & c.value_);
  return r;
}

UInt32 UInt32::sha256_maj(ConstraintSystem& cs, const UInt32& a, const UInt32& b, const UInt32& c) {
  UInt32 r;
  for (int i = 0; i < 32; i++) r.bits_[i] = Boolean::sha256_maj(cs, a.bits_[i], b.bits_[i], c.bits_[i]);
  r.value_ = (a.value_ & b.value_) ^ (a.value_ & c.value_) ^ (b.value_ & c.value_);
  return r;
}

UInt32 UInt32::addmany(MultiEq& cs, std::span<const UInt32> operands) {
  if (operands.size() < 2 || operands.size() > 10) throw std::invalid_argument("UInt32::addmany: 2..10 operands");
  uint64_t sum = 0;
  bool all_constants = true;
  for (const UInt32& op : operands) {
    sum += op.value_;
    for (const Boolean& bit : op.bits_) all_constants &= bit.is_constant();
  }
  const uint32_t modular = uint32_t(sum);
  if (all_constants) return constant(modular);

  // The sum's bits (carries included), then both sides equal through the MultiEq, their
  // coefficients built at the equality's shift in the packed constraint.
  const size_t num_bits = size_t(std::bit_width(uint64_t(operands.size()) * 0xffffffffull));
  const size_t shift = cs.next_shift(num_bits);
  UInt32 r;
  r1cs::LC result_lc, lc;
  const bool lcs = cs.reads_combinations();  // a witness-only system takes no combinations
  for (size_t i = 0; i < num_bits; i++) {
    AllocatedBit b = AllocatedBit::alloc(cs, (sum >> i) & 1);
    if (lcs) result_lc.add(b.var, MultiEq::pow2(shift + i));
    if (i < 32) r.bits_[i] = b;
  }
  for (const UInt32& op : operands) {
    for (size_t j = 0; lcs && j < 32; j++) op.bits_[j].add_to(lc, MultiEq::pow2(shift + j));
  }
  cs.enforce_shifted(num_bits, lc, result_lc);
  r.value_ = modular;
  return r;
}

}  // namespace cuzk::gadgets
