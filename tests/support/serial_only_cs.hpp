// Constraint systems over a proving assignment for the tests that parallel-section synthesis
// equals serial synthesis: SerialOnly takes no sections (the reference), CountingSections takes
// them and counts how many were opened; expect_same_assignment compares the two results.
#pragma once

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "r1cs/proving_assignment.hpp"

namespace cuzk::test {

// Forwards everything to a proving assignment except sections, which it does not take.
class SerialOnly : public r1cs::ConstraintSystem {
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

 protected:
  r1cs::ProvingAssignment& pa_;
};

// SerialOnly that takes sections after all, counting them.
class CountingSections final : public SerialOnly {
 public:
  using SerialOnly::SerialOnly;
  std::vector<std::unique_ptr<r1cs::SectionSystem>> open_sections(std::span<const r1cs::SectionShape> s) override {
    auto out = pa_.open_sections(s);
    opened += out.size();
    return out;
  }
  size_t opened = 0;
};

// The same a, b, c, aux, inputs and densities.
inline void expect_same_assignment(const r1cs::ProvingAssignment& serial, const r1cs::ProvingAssignment& parallel) {
  EXPECT_EQ(serial.num_constraints(), parallel.num_constraints());
  EXPECT_EQ(serial.num_aux(), parallel.num_aux());
  EXPECT_TRUE(serial.a() == parallel.a());
  EXPECT_TRUE(serial.b() == parallel.b());
  EXPECT_TRUE(serial.c() == parallel.c());
  EXPECT_TRUE(serial.aux() == parallel.aux());
  EXPECT_EQ(serial.inputs(), parallel.inputs());
  EXPECT_EQ(serial.a_aux_density().words(), parallel.a_aux_density().words());
  EXPECT_EQ(serial.b_aux_density().words(), parallel.b_aux_density().words());
  EXPECT_EQ(serial.b_input_density().words(), parallel.b_input_density().words());
}

}  // namespace cuzk::test
