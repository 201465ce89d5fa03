// Rank-1 constraint systems in the spirit of bellperson's ConstraintSystem: variables are
// inputs (public; input 0 is the constant ONE) or aux (private), constraints are
// <a, z> * <b, z> = <c, z> over linear combinations of variables.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
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
class LinearCombination {
 public:
  struct Term {
    Variable var;
    Fr coeff;
  };

  LinearCombination() = default;
  LinearCombination(Variable v) { terms_.push_back({v, Fr::one()}); }  // NOLINT: implicit like bellperson
  LinearCombination(std::initializer_list<Term> terms) : terms_(terms) {}

  static LinearCombination zero() { return {}; }
  // coeff * ONE
  static LinearCombination constant(const Fr& coeff) { return LinearCombination({{Variable::one(), coeff}}); }

  LinearCombination& add(Variable v, const Fr& coeff = Fr::one()) {
    terms_.push_back({v, coeff});
    return *this;
  }
  LinearCombination& sub(Variable v, const Fr& coeff = Fr::one()) {
    terms_.push_back({v, -coeff});
    return *this;
  }
  LinearCombination& operator+=(const LinearCombination& o) {
    terms_.insert(terms_.end(), o.terms_.begin(), o.terms_.end());
    return *this;
  }
  LinearCombination& operator-=(const LinearCombination& o) {
    for (const Term& t : o.terms_) terms_.push_back({t.var, -t.coeff});
    return *this;
  }
  LinearCombination scaled(const Fr& s) const {
    LinearCombination r = *this;
    for (Term& t : r.terms_) t.coeff *= s;
    return r;
  }
  friend LinearCombination operator+(LinearCombination a, const LinearCombination& b) { return a += b; }
  friend LinearCombination operator-(LinearCombination a, const LinearCombination& b) { return a -= b; }

  const std::vector<Term>& terms() const { return terms_; }
  bool empty() const { return terms_.empty(); }

 private:
  std::vector<Term> terms_;
};

using LC = LinearCombination;

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

  virtual size_t num_constraints() const = 0;
  virtual size_t num_inputs() const = 0;  // including ONE
  virtual size_t num_aux() const = 0;
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

// A circuit: something that synthesizes constraints into any ConstraintSystem.
class Circuit {
 public:
  virtual ~Circuit() = default;
  virtual void synthesize(ConstraintSystem& cs) const = 0;
};

}  // namespace cuzk::r1cs
