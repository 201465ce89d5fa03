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

// Counts a circuit's shape without keeping it: constraints, variables, and the nonzero entries
// of A, B and C as bellperson counts them (bellpepper-core's LinearCombination merges the terms
// of one variable, and zero coefficients are skipped when a combination is evaluated or
// recorded). Combinations in which a variable's terms cancel are counted apart: for such a
// variable bellperson sets no density bit, so a circuit must have none for the proving
// assignment's densities to equal bellperson's.
class ShapeCounter final : public ConstraintSystem {
 public:
  struct Counts {
    size_t constraints = 0, inputs = 0, aux = 0;
    uint64_t a = 0, b = 0, c = 0;  // nonzero entries
    uint64_t cancelled = 0;        // merged terms whose coefficients summed to zero
  };
  ShapeCounter();

  Variable alloc(std::string_view name, const Fr& value) override;
  Variable alloc_input(std::string_view name, const Fr& value) override;
  void enforce(std::string_view name, const LC& a, const LC& b, const LC& c) override;
  bool has_values() const override { return false; }
  size_t num_constraints() const override { return counts_.constraints; }
  size_t num_inputs() const override { return counts_.inputs; }
  size_t num_aux() const override { return counts_.aux; }

  // The same input constraints as ProvingAssignment::enforce_input_constraints.
  void enforce_input_constraints();
  const Counts& counts() const { return counts_; }

 private:
  uint64_t count(const LC& lc);
  Counts counts_;
  std::vector<LinearCombination::Term> scratch_;
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
