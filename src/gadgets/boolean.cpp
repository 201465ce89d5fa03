#include "gadgets/boolean.hpp"

#include <array>
#include <stdexcept>
#include <string>

namespace cuzk::gadgets {

AllocatedBit AllocatedBit::alloc(ConstraintSystem& cs, bool value) {
  Variable v = cs.alloc("boolean", fr_bit(value));
  r1cs::enforce_with(cs, "boolean constraint", [&] {
    return std::array<LC, 3>{LC{{Variable::one(), kOne}, {v, kMinusOne}}, LC{{v, kOne}}, LC{}};
  });
  return {v, value};
}

AllocatedBit AllocatedBit::alloc_conditionally(ConstraintSystem& cs, bool value, const AllocatedBit& must_be_false) {
  Variable v = cs.alloc("boolean", fr_bit(value));
  r1cs::enforce_with(cs, "boolean constraint", [&] {
    return std::array<LC, 3>{LC{{Variable::one(), kOne}, {must_be_false.var, kMinusOne}, {v, kMinusOne}}, LC{{v, kOne}},
                             LC{}};
  });
  return {v, value};
}

AllocatedBit AllocatedBit::xor_(ConstraintSystem& cs, const AllocatedBit& a, const AllocatedBit& b) {
  const bool r = a.value ^ b.value;
  Variable c = cs.alloc("xor result", fr_bit(r));
  r1cs::enforce_with(cs, "xor constraint", [&] {
    return std::array<LC, 3>{LC{{a.var, kOne}, {a.var, kOne}}, LC{{b.var, kOne}},
                             LC{{a.var, kOne}, {b.var, kOne}, {c, kMinusOne}}};
  });
  return {c, r};
}

AllocatedBit AllocatedBit::and_(ConstraintSystem& cs, const AllocatedBit& a, const AllocatedBit& b) {
  const bool r = a.value && b.value;
  Variable c = cs.alloc("and result", fr_bit(r));
  r1cs::enforce_with(cs, "and constraint", [&] {
    return std::array<LC, 3>{LC{{a.var, kOne}}, LC{{b.var, kOne}}, LC{{c, kOne}}};
  });
  return {c, r};
}

AllocatedBit AllocatedBit::and_not(ConstraintSystem& cs, const AllocatedBit& a, const AllocatedBit& b) {
  const bool r = a.value && !b.value;
  Variable c = cs.alloc("and not result", fr_bit(r));
  r1cs::enforce_with(cs, "and not constraint", [&] {
    return std::array<LC, 3>{LC{{a.var, kOne}}, LC{{Variable::one(), kOne}, {b.var, kMinusOne}}, LC{{c, kOne}}};
  });
  return {c, r};
}

AllocatedBit AllocatedBit::nor(ConstraintSystem& cs, const AllocatedBit& a, const AllocatedBit& b) {
  const bool r = !a.value && !b.value;
  Variable c = cs.alloc("nor result", fr_bit(r));
  r1cs::enforce_with(cs, "nor constraint", [&] {
    return std::array<LC, 3>{LC{{Variable::one(), kOne}, {a.var, kMinusOne}},
                             LC{{Variable::one(), kOne}, {b.var, kMinusOne}}, LC{{c, kOne}}};
  });
  return {c, r};
}

void Boolean::add_to(LC& lc, const Fr& coeff) const {
  switch (kind_) {
    case Kind::kConstant:
      if (constant_) lc.add(Variable::one(), coeff);
      break;
    case Kind::kIs:
      lc.add(bit_.var, coeff);
      break;
    case Kind::kNot:
      lc.add(Variable::one(), coeff);
      lc.sub(bit_.var, coeff);
      break;
  }
}

LC Boolean::lc(const Fr& coeff) const {
  LC r;
  add_to(r, coeff);
  return r;
}

Boolean Boolean::not_() const {
  switch (kind_) {
    case Kind::kConstant:
      return Boolean(!constant_);
    case Kind::kIs:
      return Boolean(Kind::kNot, bit_);
    default:
      return Boolean(Kind::kIs, bit_);
  }
}

Boolean Boolean::xor_(ConstraintSystem& cs, const Boolean& a, const Boolean& b) {
  if (a.is_constant() && !a.constant_) return b;
  if (b.is_constant() && !b.constant_) return a;
  if (a.is_constant()) return b.not_();  // true xor x
  if (b.is_constant()) return a.not_();
  if (a.kind_ != b.kind_) {
    // a xor (not b) = not (a xor b); bellperson passes the Is operand first.
    const Boolean& is = a.kind_ == Kind::kIs ? a : b;
    const Boolean& nt = a.kind_ == Kind::kIs ? b : a;
    return Boolean(AllocatedBit::xor_(cs, is.bit_, nt.bit_)).not_();
  }
  return Boolean(AllocatedBit::xor_(cs, a.bit_, b.bit_));
}

Boolean Boolean::and_(ConstraintSystem& cs, const Boolean& a, const Boolean& b) {
  if ((a.is_constant() && !a.constant_) || (b.is_constant() && !b.constant_)) return Boolean(false);
  if (a.is_constant()) return b;
  if (b.is_constant()) return a;
  if (a.kind_ == Kind::kIs && b.kind_ == Kind::kNot) return Boolean(AllocatedBit::and_not(cs, a.bit_, b.bit_));
  if (a.kind_ == Kind::kNot && b.kind_ == Kind::kIs) return Boolean(AllocatedBit::and_not(cs, b.bit_, a.bit_));
  if (a.kind_ == Kind::kNot) return Boolean(AllocatedBit::nor(cs, a.bit_, b.bit_));
  return Boolean(AllocatedBit::and_(cs, a.bit_, b.bit_));
}

Boolean Boolean::sha256_ch(ConstraintSystem& cs, const Boolean& a, const Boolean& b, const Boolean& c) {
  const bool av = a.value(), bv = b.value(), cv = c.value();
  const bool ch = (av && bv) ^ (!av && cv);
  auto is_const = [](const Boolean& x, bool v) { return x.is_constant() && x.constant_ == v; };
  if (a.is_constant() && b.is_constant() && c.is_constant()) return Boolean(ch);
  if (is_const(a, false)) return c;
  if (is_const(b, false)) return and_(cs, a.not_(), c);
  if (is_const(c, false)) return and_(cs, a, b);
  if (is_const(c, true)) return and_(cs, a, b.not_()).not_();
  if (is_const(b, true)) return and_(cs, a.not_(), c.not_()).not_();
  // a constant true, or no constants: allocate ch with a (b - c) = ch - c.
  Variable v = cs.alloc("ch", fr_bit(ch));
  r1cs::enforce_with(cs, "ch computation", [&] {
    LC lb = b.lc();
    LC lc_c = c.lc();
    LC out{{v, kOne}};
    out -= lc_c;
    return std::array<LC, 3>{lb - lc_c, a.lc(), out};
  });
  return Boolean(AllocatedBit{v, ch});
}

Boolean Boolean::sha256_maj(ConstraintSystem& cs, const Boolean& a, const Boolean& b, const Boolean& c) {
  const bool av = a.value(), bv = b.value(), cv = c.value();
  const bool maj = (av && bv) ^ (av && cv) ^ (bv && cv);
  auto is_const = [](const Boolean& x, bool v) { return x.is_constant() && x.constant_ == v; };
  if (a.is_constant() && b.is_constant() && c.is_constant()) return Boolean(maj);
  if (is_const(a, false)) return and_(cs, b, c);
  if (is_const(b, false)) return and_(cs, a, c);
  if (is_const(c, false)) return and_(cs, a, b);
  if (is_const(c, true)) return and_(cs, a.not_(), b.not_()).not_();
  if (is_const(b, true)) return and_(cs, a.not_(), c.not_()).not_();
  if (is_const(a, true)) return and_(cs, b.not_(), c.not_()).not_();
  Variable v = cs.alloc("maj", fr_bit(maj));
  Boolean bc;
  {
    r1cs::Namespace ns(cs, "b and c");
    bc = and_(cs, b, c);
  }
  // (2bc - b - c) * a = bc - maj
  r1cs::enforce_with(cs, "maj computation", [&] {
    LC lhs = bc.lc();
    bc.add_to(lhs, kOne);
    lhs -= b.lc();
    lhs -= c.lc();
    LC out = bc.lc();
    out.sub(v);
    return std::array<LC, 3>{lhs, a.lc(), out};
  });
  return Boolean(AllocatedBit{v, maj});
}

void Boolean::enforce_equal(ConstraintSystem& cs, const Boolean& a, const Boolean& b) {
  if (a.is_constant() && b.is_constant()) {
    if (a.constant_ != b.constant_) throw std::invalid_argument("Boolean::enforce_equal: constants differ");
    return;
  }
  if (a.is_constant() || b.is_constant()) {
    const Boolean& k = a.is_constant() ? a : b;
    const Boolean& x = a.is_constant() ? b : a;
    if (k.constant_) {
      LC c{{Variable::one(), kOne}};
      c -= x.lc();
      cs.enforce("enforce equal to one", LC{}, LC{}, c);
    } else {
      cs.enforce("enforce equal to zero", LC{}, LC{}, x.lc());
    }
    return;
  }
  cs.enforce("enforce equal", LC{}, LC{}, a.lc() - b.lc());
}

std::vector<Boolean> u64_into_boolean_vec_le(ConstraintSystem& cs, uint64_t value) {
  std::vector<Boolean> bits;
  bits.reserve(64);
  for (int i = 0; i < 64; i++) {
    r1cs::Namespace ns(cs, "bit " + std::to_string(i));
    bits.emplace_back(AllocatedBit::alloc(cs, (value >> i) & 1));
  }
  return bits;
}

std::vector<AllocatedBit> field_into_allocated_bits_le(ConstraintSystem& cs, const Fr& value) {
  const auto c = value.to_canonical();
  std::vector<AllocatedBit> bits;
  bits.reserve(255);
  for (int i = 0; i < 255; i++) {
    r1cs::Namespace ns(cs, "bit " + std::to_string(i));
    bits.push_back(AllocatedBit::alloc(cs, (c.limb[i / 64] >> (i % 64)) & 1));
  }
  return bits;
}

std::vector<Boolean> bytes_into_boolean_vec_be(ConstraintSystem& cs, const uint8_t* bytes, size_t len) {
  std::vector<Boolean> bits;
  bits.reserve(8 * len);
  for (size_t i = 0; i < 8 * len; i++) {
    r1cs::Namespace ns(cs, "bit " + std::to_string(i));
    bits.emplace_back(AllocatedBit::alloc(cs, (bytes[i / 8] >> (7 - i % 8)) & 1));
  }
  return bits;
}

}  // namespace cuzk::gadgets
