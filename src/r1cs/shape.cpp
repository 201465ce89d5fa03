#include "r1cs/shape.hpp"

#include <algorithm>

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

ShapeCounter::ShapeCounter() { alloc_input("ONE", Fr::one()); }

Variable ShapeCounter::alloc(std::string_view, const Fr&) { return Variable::aux(uint32_t(counts_.aux++)); }

Variable ShapeCounter::alloc_input(std::string_view, const Fr&) { return Variable::input(uint32_t(counts_.inputs++)); }

uint64_t ShapeCounter::count(const LC& lc) {
  const auto terms = lc.terms();
  auto key = [](const Variable& v) { return (uint64_t(v.kind == Variable::Kind::kAux) << 32) | v.index; };
  // Most combinations have distinct variables: check pairwise when short, else sort and merge.
  bool distinct = true;
  if (terms.size() <= 8) {
    for (size_t i = 0; i < terms.size() && distinct; i++) {
      for (size_t j = 0; j < i; j++) {
        if (terms[i].var == terms[j].var) distinct = false;
      }
    }
  } else {
    distinct = false;
  }
  uint64_t n = 0;
  if (distinct) {
    for (const auto& t : terms) n += !t.coeff.is_zero();
    return n;
  }
  scratch_.assign(terms.begin(), terms.end());
  std::stable_sort(scratch_.begin(), scratch_.end(),
                   [&](const auto& x, const auto& y) { return key(x.var) < key(y.var); });
  for (size_t i = 0; i < scratch_.size();) {
    size_t j = i;
    Fr sum = Fr::zero();
    for (; j < scratch_.size() && scratch_[j].var == scratch_[i].var; j++) sum += scratch_[j].coeff;
    if (!sum.is_zero()) {
      n++;
    } else if (j - i > 1) {
      counts_.cancelled++;
    }
    i = j;
  }
  return n;
}

void ShapeCounter::enforce(std::string_view, const LC& a, const LC& b, const LC& c) {
  counts_.a += count(a);
  counts_.b += count(b);
  counts_.c += count(c);
  counts_.constraints++;
}

void ShapeCounter::enforce_input_constraints() {
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
