// A test checker that corrupts one aux value as it is allocated (adds 2, so a bit is never a
// bit again), to check that the checker names the constraint a wrong witness breaks.
#pragma once

#include "r1cs/shape.hpp"

namespace cuzk::test {

class CorruptingChecker final : public r1cs::ConstraintSystem {
 public:
  explicit CorruptingChecker(size_t corrupt_aux_index) : corrupt_(corrupt_aux_index) {}
  r1cs::Variable alloc(std::string_view name, const ff::Fr& value) override {
    const bool hit = inner_.num_aux() == corrupt_;
    return inner_.alloc(name, hit ? value + ff::Fr::one().dbl() : value);
  }
  r1cs::Variable alloc_input(std::string_view name, const ff::Fr& value) override {
    return inner_.alloc_input(name, value);
  }
  void enforce(std::string_view name, const r1cs::LC& a, const r1cs::LC& b, const r1cs::LC& c) override {
    inner_.enforce(name, a, b, c);
  }
  void push_namespace(std::string_view name) override { inner_.push_namespace(name); }
  void pop_namespace() override { inner_.pop_namespace(); }
  size_t num_constraints() const override { return inner_.num_constraints(); }
  size_t num_inputs() const override { return inner_.num_inputs(); }
  size_t num_aux() const override { return inner_.num_aux(); }
  const r1cs::TestChecker& checker() const { return inner_; }

 private:
  r1cs::TestChecker inner_;
  size_t corrupt_;
};

}  // namespace cuzk::test
