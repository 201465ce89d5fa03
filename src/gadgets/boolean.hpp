// Bits in a constraint system, with bellperson's semantics and constraint shapes
// (bellperson gadgets/boolean.rs): AllocatedBit is a variable constrained to {0, 1};
// Boolean is a constant, a bit or the negation of a bit. Operations on constants and
// negations cost no constraints; the others cost exactly what bellperson's cost, with the
// same allocation order, so circuits built from them have bellperson's shape.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "r1cs/constraint_system.hpp"

namespace cuzk::gadgets {

using ff::Fr;
using r1cs::ConstraintSystem;
using r1cs::LC;
using r1cs::Variable;

// The coefficients every gadget's combinations use.
inline constexpr Fr kOne = Fr::one();
inline constexpr Fr kMinusOne = -Fr::one();

inline Fr fr_bit(bool b) { return b ? Fr::one() : Fr::zero(); }

struct AllocatedBit {
  Variable var;
  bool value;

  // (1 - a) * a = 0
  static AllocatedBit alloc(ConstraintSystem& cs, bool value);
  // (1 - must_be_false - a) * a = 0: a is a bit, and 0 when must_be_false is 1.
  static AllocatedBit alloc_conditionally(ConstraintSystem& cs, bool value, const AllocatedBit& must_be_false);
  // (a + a) * b = a + b - c
  static AllocatedBit xor_(ConstraintSystem& cs, const AllocatedBit& a, const AllocatedBit& b);
  // a * b = c
  static AllocatedBit and_(ConstraintSystem& cs, const AllocatedBit& a, const AllocatedBit& b);
  // a * (1 - b) = c
  static AllocatedBit and_not(ConstraintSystem& cs, const AllocatedBit& a, const AllocatedBit& b);
  // (1 - a) * (1 - b) = c
  static AllocatedBit nor(ConstraintSystem& cs, const AllocatedBit& a, const AllocatedBit& b);
};

class Boolean {
 public:
  enum class Kind : uint8_t { kConstant, kIs, kNot };

  Boolean() : Boolean(false) {}
  static Boolean constant(bool b) { return Boolean(b); }
  Boolean(const AllocatedBit& bit) : kind_(Kind::kIs), bit_(bit) {}  // NOLINT: implicit like bellperson's From

  Kind kind() const { return kind_; }
  bool is_constant() const { return kind_ == Kind::kConstant; }
  const AllocatedBit& bit() const { return bit_; }  // valid unless constant
  bool value() const {
    switch (kind_) {
      case Kind::kConstant:
        return constant_;
      case Kind::kIs:
        return bit_.value;
      default:
        return !bit_.value;
    }
  }
  // coeff * this, as a linear combination over ONE and the bit.
  LC lc(const Fr& coeff = Fr::one()) const;
  void add_to(LC& lc, const Fr& coeff) const;
  Boolean not_() const;

  static Boolean xor_(ConstraintSystem& cs, const Boolean& a, const Boolean& b);
  static Boolean and_(ConstraintSystem& cs, const Boolean& a, const Boolean& b);
  // (a and b) xor ((not a) and c)
  static Boolean sha256_ch(ConstraintSystem& cs, const Boolean& a, const Boolean& b, const Boolean& c);
  // (a and b) xor (a and c) xor (b and c)
  static Boolean sha256_maj(ConstraintSystem& cs, const Boolean& a, const Boolean& b, const Boolean& c);
  // Throws std::invalid_argument when both are constants and differ (unsatisfiable).
  static void enforce_equal(ConstraintSystem& cs, const Boolean& a, const Boolean& b);

 private:
  explicit Boolean(bool c) : kind_(Kind::kConstant), bit_{Variable::one(), false}, constant_(c) {}
  Boolean(Kind k, const AllocatedBit& bit) : kind_(k), bit_(bit) {}

  Kind kind_;
  AllocatedBit bit_;
  bool constant_ = false;
};

// 64 bits of value, least significant first, each allocated (bellperson u64_into_boolean_vec_le).
std::vector<Boolean> u64_into_boolean_vec_le(ConstraintSystem& cs, uint64_t value);
// The 255 bits of a field element, least significant first, each allocated
// (bellperson field_into_allocated_bits_le: "bit i" namespaces, no packing constraint).
std::vector<AllocatedBit> field_into_allocated_bits_le(ConstraintSystem& cs, const Fr& value);
// Big-endian bits of bytes as allocated bits (storage-proofs-core bytes_into_boolean_vec_be):
// byte by byte, most significant bit first.
std::vector<Boolean> bytes_into_boolean_vec_be(ConstraintSystem& cs, const uint8_t* bytes, size_t len);

}  // namespace cuzk::gadgets
