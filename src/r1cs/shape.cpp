#include "r1cs/shape.hpp"

namespace cuzk::r1cs {

ShapeRecorder::ShapeRecorder() { alloc_input("ONE", Fr::one()); }

Variable ShapeRecorder::alloc(std::string_view, const Fr&) {
  a_.aux.emplace_back();
  b_.aux.emplace_back();
  c_.aux.emplace_back();
  return Variable::aux(uint32_t(a_.aux.size() - 1));
}

Variable ShapeRecorder::alloc_input(std::string_view, const Fr&) {
  a_.inputs.emplace_back();
  b_.inputs.emplace_back();
  c_.inputs.emplace_back();
  return Variable::input(uint32_t(a_.inputs.size() - 1));
}

void ShapeRecorder::record(QueryColumns& q, const LC& lc) {
  for (const auto& t : lc.terms()) {
    auto& column = t.var.kind == Variable::Kind::kInput ? q.inputs[t.var.index] : q.aux[t.var.index];
    column.push_back({t.coeff, uint32_t(num_constraints_)});
  }
}

void ShapeRecorder::enforce(std::string_view, const LC& a, const LC& b, const LC& c) {
  record(a_, a);
  record(b_, b);
  record(c_, c);
  num_constraints_++;
}

void ShapeRecorder::enforce_input_constraints() {
  const size_t n = num_inputs();
  for (size_t i = 0; i < n; i++) enforce("input", Variable::input(uint32_t(i)), LC::zero(), LC::zero());
}

TestChecker::TestChecker() { alloc_input("ONE", Fr::one()); }

Variable TestChecker::alloc(std::string_view, const Fr& value) {
  aux_.push_back(value);
  return Variable::aux(uint32_t(aux_.size() - 1));
}

Variable TestChecker::alloc_input(std::string_view, const Fr& value) {
  inputs_.push_back(value);
  return Variable::input(uint32_t(inputs_.size() - 1));
}

Fr TestChecker::eval(const LC& lc) const {
  Fr acc = Fr::zero();
  for (const auto& t : lc.terms()) {
    acc += (t.var.kind == Variable::Kind::kInput ? inputs_[t.var.index] : aux_[t.var.index]) * t.coeff;
  }
  return acc;
}

void TestChecker::enforce(std::string_view name, const LC& a, const LC& b, const LC& c) {
  const size_t index = num_constraints_++;
  if (first_failure_) return;
  if (eval(a) * eval(b) == eval(c)) return;
  std::string full;
  for (const auto& p : path_) full += p + "/";
  full += std::string(name) + " (constraint #" + std::to_string(index) + ")";
  first_failure_ = std::move(full);
}

}  // namespace cuzk::r1cs
