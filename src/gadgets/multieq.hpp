// bellperson's MultiEq: packs many "lhs = rhs" equalities of small bit width into one
// constraint (sum 2^k lhs_i) * 1 = (sum 2^k rhs_i) until the field's capacity (254 bits)
// would be exceeded. Every other call is forwarded to the wrapped constraint system, so a
// MultiEq is used as the constraint system of the gadgets inside it. Call finish() (or let
// the destructor do it) to emit the pending constraint.
#pragma once

#include "r1cs/constraint_system.hpp"

namespace cuzk::gadgets {

class MultiEq final : public r1cs::ConstraintSystem {
 public:
  explicit MultiEq(r1cs::ConstraintSystem& cs) : cs_(cs) {}
  ~MultiEq() override { finish(); }
  MultiEq(const MultiEq&) = delete;
  MultiEq& operator=(const MultiEq&) = delete;

  // lhs and rhs are num_bits-bit quantities.
  void enforce_equal(size_t num_bits, const r1cs::LC& lhs, const r1cs::LC& rhs);
  // The same in two steps, for callers that build their combinations already shifted (no
  // coefficient products): next_shift says where a num_bits-bit equality would go, and
  // enforce_shifted then takes lhs and rhs scaled by 2^next_shift(num_bits). Only allocations may
  // come between the two calls.
  size_t next_shift(size_t num_bits) const { return kCapacity <= bits_used_ + num_bits ? 0 : bits_used_; }
  void enforce_shifted(size_t num_bits, const r1cs::LC& lhs, const r1cs::LC& rhs);
  // 2^k for k < 256.
  static const ff::Fr& pow2(size_t k);
  static constexpr size_t kCapacity = 254;  // Fr::CAPACITY: bits that always fit below the modulus
  // Emits the pending packed constraint, if any.
  void finish() {
    if (bits_used_ > 0) accumulate();
  }

  r1cs::Variable alloc(std::string_view name, const ff::Fr& value) override { return cs_.alloc(name, value); }
  r1cs::Variable alloc_input(std::string_view name, const ff::Fr& value) override {
    return cs_.alloc_input(name, value);
  }
  void enforce(std::string_view name, const r1cs::LC& a, const r1cs::LC& b, const r1cs::LC& c) override {
    cs_.enforce(name, a, b, c);
  }
  void push_namespace(std::string_view name) override { cs_.push_namespace(name); }
  void pop_namespace() override { cs_.pop_namespace(); }
  bool has_values() const override { return cs_.has_values(); }
  bool reads_combinations() const override { return cs_.reads_combinations(); }
  size_t num_constraints() const override { return cs_.num_constraints(); }
  size_t num_inputs() const override { return cs_.num_inputs(); }
  size_t num_aux() const override { return cs_.num_aux(); }

 private:
  void accumulate();

  r1cs::ConstraintSystem& cs_;
  size_t ops_ = 0;
  size_t bits_used_ = 0;
  r1cs::LC lhs_, rhs_;
};

}  // namespace cuzk::gadgets
