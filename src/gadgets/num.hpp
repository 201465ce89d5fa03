// Field elements in a constraint system: bellperson's AllocatedNum and Num (gadgets/num.rs)
// and the selection gadgets storage-proofs builds from them (gadgets/insertion.rs,
// gadgets/constraint.rs): pick, select, insert, equal.
#pragma once

#include <span>
#include <vector>

#include "gadgets/boolean.hpp"

namespace cuzk::gadgets {

struct AllocatedNum {
  Variable var;
  Fr value;

  static AllocatedNum alloc(ConstraintSystem& cs, const Fr& value);
  static AllocatedNum alloc_input(ConstraintSystem& cs, const Fr& value);
  // A new public input equal to this number: input * 1 = this.
  void inputize(ConstraintSystem& cs) const;
  // 255 allocated bits, least significant first, and sum 2^i b_i - this = 0 (no range check).
  std::vector<Boolean> to_bits_le(ConstraintSystem& cs) const;
  // 255 bits constrained to the canonical representation (below the modulus).
  std::vector<Boolean> to_bits_le_strict(ConstraintSystem& cs) const;
  AllocatedNum mul(ConstraintSystem& cs, const AllocatedNum& other) const;
  AllocatedNum square(ConstraintSystem& cs) const;
  // (b, a) when condition is true, else (a, b); two constraints.
  static std::pair<AllocatedNum, AllocatedNum> conditionally_reverse(ConstraintSystem& cs, const AllocatedNum& a,
                                                                     const AllocatedNum& b, const Boolean& condition);
};

// A linear combination with its value (bellperson Num).
struct Num {
  LC lc;
  Fr value = Fr::zero();

  static Num zero() { return {}; }
  static Num from(const AllocatedNum& n) { return {LC(n.var), n.value}; }
  Num& add_bool_with_coeff(const Boolean& bit, const Fr& coeff) {
    bit.add_to(lc, coeff);
    if (bit.value()) value += coeff;
    return *this;
  }
};

// a when condition, else b: one constraint (b - a) * condition = b - c.
AllocatedNum pick(ConstraintSystem& cs, const Boolean& condition, const AllocatedNum& a, const AllocatedNum& b);
// from[index] with index given by bits, least significant first; from.size() - 1 constraints.
AllocatedNum select(ConstraintSystem& cs, std::span<const AllocatedNum> from, std::span<const Boolean> bits);
// elements with element inserted at the position given by bits (least significant first);
// elements.size() + 1 must be 2^bits.size(). Hand-optimised for 2, 4 and 8 as storage-proofs.
std::vector<AllocatedNum> insert(ConstraintSystem& cs, const AllocatedNum& element, std::span<const Boolean> bits,
                                 std::span<const AllocatedNum> elements);
// storage-proofs-core constraint::add / sub: a new number res with (a + b) * 1 = res, resp.
// (res + b) * 1 = a.
AllocatedNum add(ConstraintSystem& cs, const AllocatedNum& a, const AllocatedNum& b);
AllocatedNum sub(ConstraintSystem& cs, const AllocatedNum& a, const AllocatedNum& b);
// a * 1 = b
void enforce_equal(ConstraintSystem& cs, std::string_view name, const AllocatedNum& a, const AllocatedNum& b);

}  // namespace cuzk::gadgets
