// compile_circuit: a constraint system that records each constraint's rows as it is enforced.
#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "r1cs/compiled_circuit.hpp"

namespace cuzk::r1cs {
namespace {

struct FrHash {
  size_t operator()(const Fr& x) const {
    uint64_t limbs[4];
    std::memcpy(limbs, &x, sizeof(limbs));
    return size_t(limbs[0] ^ (limbs[1] * 0x9e3779b97f4a7c15ull) ^ (limbs[2] >> 7) ^ (limbs[3] << 11));
  }
};

// Input j is recorded as kInputColumn | j and becomes aux + j once the aux count is known.
constexpr uint32_t kInputColumn = 0x80000000u;

class CircuitRecorder final : public ConstraintSystem {
 public:
  CircuitRecorder() {
    out_.coefficients = {Fr::one(), -Fr::one()};
    index_.emplace(Fr::one(), CompiledCircuit::kPlusOne);
    index_.emplace(-Fr::one(), CompiledCircuit::kMinusOne);
    for (SparseRows* m : {&out_.a, &out_.b, &out_.c}) m->row_start.push_back(0);
    alloc_input("ONE", Fr::one());
  }

  Variable alloc(std::string_view, const Fr&) override {
    if (out_.aux >= kInputColumn) throw std::length_error("compiled circuit: 2^31 aux variables or more");
    out_.a_aux_density.add_element();
    out_.b_aux_density.add_element();
    return Variable::aux(uint32_t(out_.aux++));
  }
  Variable alloc_input(std::string_view, const Fr&) override {
    out_.b_input_density.add_element();
    return Variable::input(uint32_t(out_.inputs++));
  }
  void enforce(std::string_view, const LC& a, const LC& b, const LC& c) override {
    record(out_.a, a, nullptr, &out_.a_aux_density);
    record(out_.b, b, &out_.b_input_density, &out_.b_aux_density);
    record(out_.c, c, nullptr, nullptr);
    out_.constraints++;
  }
  bool has_values() const override { return false; }
  size_t num_constraints() const override { return out_.constraints; }
  size_t num_inputs() const override { return out_.inputs; }
  size_t num_aux() const override { return out_.aux; }

  CompiledCircuit finish() && {
    const size_t n = out_.inputs;
    for (size_t i = 0; i < n; i++) enforce("input", Variable::input(uint32_t(i)), LC::zero(), LC::zero());
    const uint32_t aux = uint32_t(out_.aux);
    for (SparseRows* m : {&out_.a, &out_.b, &out_.c}) {
      for (uint32_t& col : m->column) {
        if (col & kInputColumn) col = aux + (col & ~kInputColumn);
      }
    }
    return std::move(out_);
  }

 private:
  uint16_t coefficient_index(const Fr& coeff) {
    auto [it, added] = index_.try_emplace(coeff, uint16_t(0));
    if (added) {
      if (out_.coefficients.size() > std::numeric_limits<uint16_t>::max()) {
        index_.erase(it);
        throw std::length_error("compiled circuit: more than 65,536 distinct coefficients");
      }
      it->second = uint16_t(out_.coefficients.size());
      out_.coefficients.push_back(coeff);
    }
    return it->second;
  }

  // Appends one row: the terms with a nonzero coefficient set their density bits (as the proving
  // assignment's evaluation does, before any merging), then a variable's terms are merged.
  void record(SparseRows& m, const LC& lc, DensityTracker* input_density, DensityTracker* aux_density) {
    terms_.clear();
    for (const auto& t : lc.terms()) {
      if (t.coeff.is_zero()) continue;
      uint32_t col;
      if (t.var.kind == Variable::Kind::kInput) {
        if (t.var.index >= out_.inputs) throw std::logic_error("constraint uses an input that does not exist");
        if (input_density) input_density->set(t.var.index);
        col = kInputColumn | t.var.index;
      } else {
        if (t.var.index >= out_.aux) throw std::logic_error("constraint uses an aux variable that does not exist");
        if (aux_density) aux_density->set(t.var.index);
        col = t.var.index;
      }
      terms_.push_back({col, t.coeff});
    }
    // Most combinations have distinct variables: check pairwise when short, else sort and merge.
    bool distinct = terms_.size() <= 8;
    for (size_t i = 1; i < terms_.size() && distinct; i++) {
      for (size_t j = 0; j < i && distinct; j++) distinct = terms_[i].col != terms_[j].col;
    }
    if (!distinct) {
      std::stable_sort(terms_.begin(), terms_.end(), [](const Term& x, const Term& y) { return x.col < y.col; });
      size_t kept = 0;
      for (size_t i = 0; i < terms_.size();) {
        Term sum = terms_[i++];
        for (; i < terms_.size() && terms_[i].col == sum.col; i++) sum.coeff += terms_[i].coeff;
        if (!sum.coeff.is_zero()) terms_[kept++] = sum;
      }
      terms_.resize(kept);
    }
    if (m.column.size() + terms_.size() > std::numeric_limits<uint32_t>::max()) {
      throw std::length_error("compiled circuit: a matrix has 2^32 entries or more");
    }
    static const Fr kOne = Fr::one(), kMinusOne = -Fr::one();
    for (const Term& t : terms_) {
      m.column.push_back(t.col);
      m.coeff.push_back(t.coeff == kOne        ? CompiledCircuit::kPlusOne
                        : t.coeff == kMinusOne ? CompiledCircuit::kMinusOne
                                               : coefficient_index(t.coeff));
    }
    m.row_start.push_back(uint32_t(m.column.size()));
  }

  struct Term {
    uint32_t col;
    Fr coeff;
  };
  CompiledCircuit out_;
  std::unordered_map<Fr, uint16_t, FrHash> index_;
  std::vector<Term> terms_;
};

}  // namespace

CompiledCircuit compile_circuit(const Circuit& circuit) {
  CircuitRecorder recorder;
  circuit.synthesize(recorder);
  return std::move(recorder).finish();
}

}  // namespace cuzk::r1cs
