// Rank-1 constraint systems in the spirit of bellperson's ConstraintSystem: variables are
// inputs (public; input 0 is the constant ONE) or aux (private), constraints are
// <a, z> * <b, z> = <c, z> over linear combinations of variables.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ff/fr.hpp"

namespace cuzk::r1cs {

using ff::Fr;

struct Variable {
  enum class Kind : uint8_t { kInput, kAux };
  Kind kind;
  uint32_t index;

  static constexpr Variable input(uint32_t i) { return {Kind::kInput, i}; }
  static constexpr Variable aux(uint32_t i) { return {Kind::kAux, i}; }
  // The constant 1: input 0, allocated by every constraint system at construction.
  static constexpr Variable one() { return input(0); }
  friend constexpr bool operator==(const Variable&, const Variable&) = default;
};

// sum coeff_i * var_i. Terms are kept as added (no merging), like bellperson's LinearCombination.
// Up to kInlineTerms terms live inside the object (most constraints' combinations have one to
// four: a synthesis builds three per constraint, and a heap allocation each cost more than the
// evaluation); longer ones move to the heap.
class LinearCombination {
 public:
  struct Term {
    Variable var;
    Fr coeff;
  };
  static constexpr uint32_t kInlineTerms = 4;

  LinearCombination() = default;
  LinearCombination(Variable v) { push({v, Fr::one()}); }  // NOLINT: implicit like bellperson
  LinearCombination(std::initializer_list<Term> terms) {
    for (const Term& t : terms) push(t);
  }
  LinearCombination(const LinearCombination& o) { *this = o; }
  LinearCombination(LinearCombination&& o) noexcept { *this = std::move(o); }
  LinearCombination& operator=(const LinearCombination& o) {
    if (this != &o) {
      std::vector<Term> heap = o.heap_;  // may throw: nothing changed yet
      heap_.swap(heap);
      if (heap_.empty()) std::copy(o.inline_, o.inline_ + o.size_, inline_);
      size_ = o.size_;
    }
    return *this;
  }
  LinearCombination& operator=(LinearCombination&& o) noexcept {
    if (this != &o) {
      heap_ = std::move(o.heap_);
      if (heap_.empty()) std::copy(o.inline_, o.inline_ + o.size_, inline_);
      size_ = o.size_;
      o.heap_.clear();
      o.size_ = 0;
    }
    return *this;
  }
  ~LinearCombination() = default;

  static LinearCombination zero() { return {}; }
  // coeff * ONE
  static LinearCombination constant(const Fr& coeff) { return LinearCombination({{Variable::one(), coeff}}); }

  LinearCombination& add(Variable v, const Fr& coeff = Fr::one()) {
    push({v, coeff});
    return *this;
  }
  LinearCombination& sub(Variable v, const Fr& coeff = Fr::one()) {
    push({v, -coeff});
    return *this;
  }
  LinearCombination& operator+=(const LinearCombination& o) {
    if (&o == this) return *this += LinearCombination(o);
    for (const Term& t : o.terms()) push(t);
    return *this;
  }
  LinearCombination& operator-=(const LinearCombination& o) {
    if (&o == this) return *this -= LinearCombination(o);
    for (const Term& t : o.terms()) push({t.var, -t.coeff});
    return *this;
  }
  LinearCombination scaled(const Fr& s) const {
    LinearCombination r = *this;
    for (Term& t : r.mutable_terms()) t.coeff *= s;
    return r;
  }
  friend LinearCombination operator+(LinearCombination a, const LinearCombination& b) {
    a += b;
    return a;  // moved, not copied
  }
  friend LinearCombination operator-(LinearCombination a, const LinearCombination& b) {
    a -= b;
    return a;
  }

  std::span<const Term> terms() const { return {heap_.empty() ? inline_ : heap_.data(), size_}; }
  bool empty() const { return size_ == 0; }

 private:
  std::span<Term> mutable_terms() { return {heap_.empty() ? inline_ : heap_.data(), size_}; }
  void push(const Term& t) {
    if (heap_.empty()) {
      if (size_ < kInlineTerms) {
        inline_[size_++] = t;
        return;
      }
      heap_.reserve(2 * kInlineTerms);
      heap_.assign(inline_, inline_ + size_);
    }
    heap_.push_back(t);
    size_++;
  }

  // The terms are inline_[0, size_) while heap_ is empty, else heap_ (size_ > kInlineTerms).
  Term inline_[kInlineTerms];
  uint32_t size_ = 0;
  std::vector<Term> heap_;
};

using LC = LinearCombination;

class SectionSystem;

// The size of one section of a parallel synthesis (ConstraintSystem::open_sections).
struct SectionShape {
  size_t constraints = 0;
  size_t aux = 0;
  size_t inputs = 0;  // public inputs it allocates
};

// The interface circuits synthesize against. Values are passed eagerly; an implementation
// that only records the shape ignores them (has_values() tells a circuit it may skip
// computing them).
class ConstraintSystem {
 public:
  virtual ~ConstraintSystem() = default;

  // A private variable with the given value.
  virtual Variable alloc(std::string_view name, const Fr& value) = 0;
  // A public input with the given value.
  virtual Variable alloc_input(std::string_view name, const Fr& value) = 0;
  // a * b = c
  virtual void enforce(std::string_view name, const LC& a, const LC& b, const LC& c) = 0;
  // Named scopes, for error messages; default: ignored.
  virtual void push_namespace(std::string_view /*name*/) {}
  virtual void pop_namespace() {}
  // Whether alloc's values are used (false while recording a shape for setup).
  virtual bool has_values() const { return true; }
  // Whether enforce reads its combinations (false for a witness-only synthesis, which counts the
  // constraints and takes a, b and c from the compiled circuit). When false a gadget may pass
  // empty combinations (enforce_with), as long as it enforces the same constraints in the same
  // order and allocates the same values.
  virtual bool reads_combinations() const { return true; }

  virtual size_t num_constraints() const = 0;
  virtual size_t num_inputs() const = 0;  // including ONE
  virtual size_t num_aux() const = 0;

  // Parallel synthesis of parts (optional). Reserves, after everything allocated and enforced
  // so far, one range of constraints, aux variables and public inputs per shape, in order, and
  // returns a system per range that any thread may fill at the same time as the others. A
  // section allocates exactly its variables and enforces exactly its constraints, using only
  // variables allocated before the sections were opened, its own, and those of sections already
  // closed (std::logic_error otherwise): so a section may depend on others, as long as it runs
  // after they close. All are closed (SectionSystem::close) before this system is used again.
  // The result is the same as synthesizing the sections one after another here. Systems that
  // cannot do it return no sections: the circuit then synthesizes serially.
  virtual std::vector<std::unique_ptr<SectionSystem>> open_sections(std::span<const SectionShape> shapes) {
    (void)shapes;
    return {};
  }
  // Whether open_sections returns sections: circuits measure their parts' shapes only for a
  // system that takes them.
  virtual bool takes_sections() const { return false; }
};

// One range of a parallel synthesis (ConstraintSystem::open_sections). Variables it allocates
// keep their indices in the whole system.
class SectionSystem : public ConstraintSystem {
 public:
  // Checks that the section filled its range and hands what it recorded to the whole system;
  // throws std::logic_error when it did not. A section that fails or is destroyed unclosed
  // leaves the whole system incomplete: it then refuses further use (std::logic_error).
  // num_constraints() and num_aux() count the section's own, num_inputs() the whole system's.
  virtual void close() = 0;
};

// RAII namespace: cs.push_namespace(name) ... cs.pop_namespace().
class Namespace {
 public:
  Namespace(ConstraintSystem& cs, std::string_view name) : cs_(cs) { cs_.push_namespace(name); }
  ~Namespace() { cs_.pop_namespace(); }
  Namespace(const Namespace&) = delete;
  Namespace& operator=(const Namespace&) = delete;

 private:
  ConstraintSystem& cs_;
};

// cs.enforce(name, a, b, c) with {a, b, c} = make(), or with empty combinations (make not called)
// when cs does not read them: the hot gadgets' way to skip building them in a witness-only
// synthesis.
template <class Make>
void enforce_with(ConstraintSystem& cs, std::string_view name, Make&& make) {
  if (!cs.reads_combinations()) {
    static const LinearCombination kNone{};
    cs.enforce(name, kNone, kNone, kNone);
    return;
  }
  const auto [a, b, c] = make();
  cs.enforce(name, a, b, c);
}

// A circuit: something that synthesizes constraints into any ConstraintSystem.
class Circuit {
 public:
  virtual ~Circuit() = default;
  virtual void synthesize(ConstraintSystem& cs) const = 0;
};

}  // namespace cuzk::r1cs
