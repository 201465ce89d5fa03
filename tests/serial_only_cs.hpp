// A constraint system that forwards to a proving assignment but takes no sections, so a circuit
// synthesizes serially into it: the reference that parallel-section synthesis must equal.
#pragma once

#include <string_view>

#include "r1cs/proving_assignment.hpp"

namespace cuzk::test {

class SerialOnly final : public r1cs::ConstraintSystem {
 public:
  explicit SerialOnly(r1cs::ProvingAssignment& pa) : pa_(pa) {}
  r1cs::Variable alloc(std::string_view n, const ff::Fr& v) override { return pa_.alloc(n, v); }
  r1cs::Variable alloc_input(std::string_view n, const ff::Fr& v) override { return pa_.alloc_input(n, v); }
  void enforce(std::string_view n, const r1cs::LC& a, const r1cs::LC& b, const r1cs::LC& c) override {
    pa_.enforce(n, a, b, c);
  }
  size_t num_constraints() const override { return pa_.num_constraints(); }
  size_t num_inputs() const override { return pa_.num_inputs(); }
  size_t num_aux() const override { return pa_.num_aux(); }

 private:
  r1cs::ProvingAssignment& pa_;
};

}  // namespace cuzk::test
