// Constraint systems that do not prove: the shape recorder (the matrices a setup needs, in
// bellperson's KeypairAssembly layout) and the test checker (names the first unsatisfied
// constraint).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "r1cs/constraint_system.hpp"

namespace cuzk::r1cs {

// For each variable, the (coefficient, constraint index) pairs where it occurs in A, B, C.
struct QueryColumns {
  struct Entry {
    Fr coeff;
    uint32_t constraint;
  };
  std::vector<std::vector<Entry>> inputs, aux;
};

class ShapeRecorder final : public ConstraintSystem {
 public:
  ShapeRecorder();

  Variable alloc(std::string_view name, const Fr& value) override;
  Variable alloc_input(std::string_view name, const Fr& value) override;
  void enforce(std::string_view name, const LC& a, const LC& b, const LC& c) override;
  bool has_values() const override { return false; }
  size_t num_constraints() const override { return num_constraints_; }
  size_t num_inputs() const override { return a_.inputs.size(); }
  size_t num_aux() const override { return a_.aux.size(); }

  // The same input constraints as ProvingAssignment::enforce_input_constraints.
  void enforce_input_constraints();

  const QueryColumns& a() const { return a_; }
  const QueryColumns& b() const { return b_; }
  const QueryColumns& c() const { return c_; }

 private:
  void record(QueryColumns& q, const LC& lc);
  QueryColumns a_, b_, c_;
  size_t num_constraints_ = 0;
};

class TestChecker final : public ConstraintSystem {
 public:
  TestChecker();

  Variable alloc(std::string_view name, const Fr& value) override;
  Variable alloc_input(std::string_view name, const Fr& value) override;
  void enforce(std::string_view name, const LC& a, const LC& b, const LC& c) override;
  void push_namespace(std::string_view name) override { path_.emplace_back(name); }
  void pop_namespace() override { path_.pop_back(); }
  size_t num_constraints() const override { return num_constraints_; }
  size_t num_inputs() const override { return inputs_.size(); }
  size_t num_aux() const override { return aux_.size(); }

  bool is_satisfied() const { return !first_failure_.has_value(); }
  // "namespace/.../name (constraint #k)" of the first violated constraint.
  const std::optional<std::string>& first_unsatisfied() const { return first_failure_; }
  // Input values, ONE first.
  const std::vector<Fr>& inputs() const { return inputs_; }

 private:
  Fr eval(const LC& lc) const;
  std::vector<std::string> path_;
  std::vector<Fr> inputs_, aux_;
  size_t num_constraints_ = 0;
  std::optional<std::string> first_failure_;
};

}  // namespace cuzk::r1cs
