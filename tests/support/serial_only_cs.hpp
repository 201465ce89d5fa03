// Constraint systems over a proving assignment for the tests that parallel-section synthesis
// equals serial synthesis: SerialOnly takes no sections (the reference), CountingSections takes
// them and counts how many were opened; expect_same_assignment compares the two results;
// expect_witness_path_equals_full checks a circuit's witness-only synthesis against its full one
// (and its recording in parallel sections against the serial one).
#pragma once

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "r1cs/compiled_circuit.hpp"
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
  bool reads_combinations() const override { return pa_.reads_combinations(); }
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
  bool takes_sections() const override { return true; }
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

// The same matrices, coefficient table, counts and densities.
inline void expect_same_compiled(const r1cs::CompiledCircuit& x, const r1cs::CompiledCircuit& y) {
  EXPECT_EQ(x.constraints, y.constraints);
  EXPECT_EQ(x.inputs, y.inputs);
  EXPECT_EQ(x.aux, y.aux);
  EXPECT_TRUE(x.coefficients == y.coefficients);
  EXPECT_TRUE(x.a == y.a);
  EXPECT_TRUE(x.b == y.b);
  EXPECT_TRUE(x.c == y.c);
  EXPECT_EQ(x.a_aux_density.words(), y.a_aux_density.words());
  EXPECT_EQ(x.b_input_density.words(), y.b_input_density.words());
  EXPECT_EQ(x.b_aux_density.words(), y.b_aux_density.words());
}

// The witness-only synthesis of circuit (with parallel sections and serially) gives the full
// synthesis' aux and inputs, its compiled matrices times that witness give its a, b and c, and
// the compiled densities are its densities: so both paths prove the same for the same r and s.
inline void expect_witness_path_equals_full(const r1cs::Circuit& circuit) {
  const auto compiled = std::make_shared<const r1cs::CompiledCircuit>(r1cs::compile_circuit(circuit));
  {
    SCOPED_TRACE("recorded in parallel sections and serially");
    expect_same_compiled(*compiled, r1cs::compile_circuit(circuit, /*parallel_sections=*/false));
  }
  r1cs::ProvingAssignment full;
  circuit.synthesize(full);
  full.enforce_input_constraints();
  EXPECT_EQ(compiled->constraints, full.num_constraints());
  for (bool sections : {true, false}) {
    SCOPED_TRACE(sections ? "witness-only, parallel sections" : "witness-only, serial");
    r1cs::ProvingAssignment witness(compiled);
    if (sections) {
      circuit.synthesize(witness);
    } else {
      SerialOnly serial(witness);
      circuit.synthesize(serial);
    }
    witness.enforce_input_constraints();
    EXPECT_TRUE(witness.abc_pending());
    EXPECT_TRUE(witness.a().empty());  // no a/b/c until they are computed from the matrices
    witness.compute_abc();
    EXPECT_FALSE(witness.abc_pending());
    expect_same_assignment(full, witness);
  }
}

}  // namespace cuzk::test
