// The circuit: neptune's legacy PoseidonCircuit (circuit.rs, circuit::poseidon_hash), on the
// optimised schedule of PoseidonConstants, constraint for constraint.
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "gadgets/poseidon.hpp"

namespace cuzk::gadgets {

namespace {

const Fr kOne = Fr::one();

// An allocated number or a linear combination with its value (neptune Elt).
struct Elt {
  bool allocated = false;
  AllocatedNum num;  // when allocated
  Num lc;            // otherwise

  static Elt of(const AllocatedNum& n) { return Elt{true, n, {}}; }
  static Elt constant(const Fr& v) {
    Elt e;
    e.lc.lc.add(Variable::one(), v);
    e.lc.value = v;
    return e;
  }
  Fr value() const { return allocated ? num.value : lc.value; }

  AllocatedNum ensure_allocated(ConstraintSystem& cs) const {
    if (allocated) return num;
    AllocatedNum v;
    {
      r1cs::Namespace ns(cs, "allocate for Elt::Num");
      v = AllocatedNum::alloc(cs, lc.value);
    }
    cs.enforce("enforce num allocation preserves lc", lc.lc, LC(Variable::one()), LC(v.var));
    return v;
  }
  // this += s * other (the result is a linear combination; its value alone without terms: a
  // witness-only synthesis reads no combinations)
  void add_scaled(const Elt& other, const Fr& s, bool terms) {
    if (allocated) {
      *this = Elt{false, {}, Num{terms ? LC(num.var) : LC(), num.value}};
    }
    if (other.allocated) {
      if (terms) lc.lc.add(other.num.var, s);
      lc.value += other.num.value * s;
    } else {
      for (const auto& term : other.lc.lc.terms()) {
        if (terms) lc.lc.add(term.var, term.coeff * s);
      }
      lc.value += other.lc.value * s;
    }
  }
};

Elt zero_elt() { return Elt{false, {}, Num{}}; }

// sum_i coeffs[i] * elts[i] as one linear combination with each variable once (as bellperson's
// LinearCombination merges terms); the partial rounds' combinations share their variables, so
// merging keeps them ~t times shorter than concatenation. Without terms: the value alone.
Elt combine(const std::vector<Elt>& elts, std::span<const Fr> coeffs, bool with_terms) {
  Elt r = zero_elt();
  if (!with_terms) {
    for (size_t i = 0; i < elts.size(); i++) r.lc.value += elts[i].value() * coeffs[i];
    return r;
  }
  std::unordered_map<uint64_t, uint32_t> pos;
  std::vector<std::pair<Variable, Fr>> terms;
  auto add = [&](Variable v, const Fr& c) {
    const uint64_t key = (uint64_t(v.kind) << 32) | v.index;
    auto [it, fresh] = pos.try_emplace(key, uint32_t(terms.size()));
    if (fresh) {
      terms.emplace_back(v, c);
    } else {
      terms[it->second].second += c;
    }
  };
  for (size_t i = 0; i < elts.size(); i++) {
    const Elt& e = elts[i];
    const Fr& s = coeffs[i];
    if (e.allocated) {
      add(e.num.var, s);
      r.lc.value += e.num.value * s;
    } else {
      for (const auto& t : e.lc.lc.terms()) add(t.var, t.coeff * s);
      r.lc.value += e.lc.value * s;
    }
  }
  for (const auto& [v, c] : terms) r.lc.lc.add(v, c);
  return r;
}

AllocatedNum square_sum(ConstraintSystem& cs, const Fr& to_add, const AllocatedNum& num) {
  const Fr v = (num.value + to_add).sqr();
  AllocatedNum res;
  {
    r1cs::Namespace ns(cs, "squared sum");
    res = AllocatedNum::alloc(cs, v);
  }
  LC s{{num.var, kOne}, {Variable::one(), to_add}};
  cs.enforce("squared sum constraint", s, s, LC(res.var));
  return res;
}

// a * (b + pre) + post
AllocatedNum mul_sum(ConstraintSystem& cs, const AllocatedNum& a, const AllocatedNum& b, const Fr* pre,
                     const Fr* post) {
  Fr v = b.value;
  if (pre) v += *pre;
  v *= a.value;
  if (post) v += *post;
  AllocatedNum res;
  {
    r1cs::Namespace ns(cs, "mul_sum");
    res = AllocatedNum::alloc(cs, v);
  }
  LC lb(b.var);
  if (pre) lb.add(Variable::one(), *pre);
  LC lres(res.var);
  if (post) lres.add(Variable::one(), -*post);
  const char* name = pre ? (post ? "mul sum constraint pre-post-add" : "mul sum constraint pre-add")
                         : (post ? "mul sum constraint post-add" : "mul sum constraint");
  cs.enforce(name, lb, LC(a.var), lres);
  return res;
}

Elt quintic_s_box(ConstraintSystem& cs, const Elt& e, const Fr* post) {
  AllocatedNum l;
  {
    r1cs::Namespace ns(cs, "S-box input");
    l = e.ensure_allocated(cs);
  }
  AllocatedNum l2, l4;
  {
    r1cs::Namespace ns(cs, "l^2");
    l2 = l.square(cs);
  }
  {
    r1cs::Namespace ns(cs, "l^4");
    l4 = l2.square(cs);
  }
  r1cs::Namespace ns(cs, "(l4 * l) + rk)");
  return Elt::of(mul_sum(cs, l4, l, nullptr, post));
}

Elt quintic_s_box_pre_add(ConstraintSystem& cs, const Elt& e, const Fr& pre, const Fr& post) {
  AllocatedNum l;
  {
    r1cs::Namespace ns(cs, "S-box input");
    l = e.ensure_allocated(cs);
  }
  AllocatedNum l2, l4;
  {
    r1cs::Namespace ns(cs, "(l+rk)^2");
    l2 = square_sum(cs, pre, l);
  }
  {
    r1cs::Namespace ns(cs, "l^4");
    l4 = l2.square(cs);
  }
  r1cs::Namespace ns(cs, "l4 * (l + rk)");
  return Elt::of(mul_sum(cs, l4, l, &pre, &post));
}

class PoseidonCircuit {
 public:
  PoseidonCircuit(std::vector<Elt> elements, const PoseidonConstants& c) : el_(std::move(elements)), c_(c) {}

  AllocatedNum hash(ConstraintSystem& cs) {
    terms_ = cs.reads_combinations();
    full_round(cs, "first round", true, false);
    for (size_t i = 1; i < c_.half_full_rounds; i++)
      full_round(cs, "initial full round " + std::to_string(i), false, false);
    for (size_t i = 0; i < c_.partial_rounds; i++) {
      r1cs::Namespace ns(cs, "partial round " + std::to_string(i));
      const Fr& rk = c_.compressed_round_constants[off_++];
      {
        r1cs::Namespace n2(cs, "solitary quintic s-box");
        el_[0] = quintic_s_box(cs, el_[0], &rk);
      }
      product_mds();
    }
    for (size_t i = 0; i + 1 < c_.half_full_rounds; i++)
      full_round(cs, "final full round " + std::to_string(i), false, false);
    full_round(cs, "terminal full round", false, true);
    r1cs::Namespace ns(cs, "hash result");
    return el_[1].ensure_allocated(cs);
  }

 private:
  void full_round(ConstraintSystem& cs, const std::string& name, bool first, bool last) {
    r1cs::Namespace ns(cs, name);
    const size_t t = c_.width;
    const Fr* pre = nullptr;
    if (first) {
      pre = &c_.compressed_round_constants[off_];
      off_ += t;
    }
    const Fr* post = nullptr;
    if (first || !last) {
      post = &c_.compressed_round_constants[off_];
      off_ += t;
    }
    for (size_t i = 0; i < t; i++) {
      if (first && i == 0) {
        // The tag's first s-box is a constant: computed natively, no constraint.
        el_[0] = Elt::constant(poseidon_sbox(el_[0].value() + pre[0]) + post[0]);
        continue;
      }
      r1cs::Namespace n2(cs, "quintic s-box " + std::to_string(i));
      if (first) {
        el_[i] = quintic_s_box_pre_add(cs, el_[i], pre[i], post[i]);
      } else {
        el_[i] = quintic_s_box(cs, el_[i], post ? &post[i] : nullptr);
      }
    }
    product_mds();
  }

  void product_mds() {
    const size_t sparse_offset = c_.half_full_rounds - 1;
    if (round_ == sparse_offset) {
      product_with_matrix(c_.pre_sparse_matrix);
    } else if (round_ > sparse_offset && round_ < c_.half_full_rounds + c_.partial_rounds) {
      const auto& sp = c_.sparse_matrices[round_ - sparse_offset - 1];
      std::vector<Elt> res;
      res.reserve(c_.width);
      res.push_back(combine(el_, sp.w_hat, terms_));
      for (size_t j = 1; j < c_.width; j++) {
        // el[j] + v_j el[0]: el[0] is a fresh S-box output, so plain concatenation is merged.
        Elt e = el_[j];
        e.add_scaled(el_[0], sp.v_rest[j - 1], terms_);
        res.push_back(std::move(e));
      }
      el_ = std::move(res);
    } else {
      product_with_matrix(c_.m);
    }
    round_++;
  }

  // result[j] = sum_i el[i] * m[i][j]
  void product_with_matrix(const Matrix& m) {
    std::vector<Elt> res;
    res.reserve(c_.width);
    std::vector<Fr> column(c_.width);
    for (size_t j = 0; j < c_.width; j++) {
      for (size_t i = 0; i < c_.width; i++) column[i] = m[i][j];
      res.push_back(combine(el_, column, terms_));
    }
    el_ = std::move(res);
  }

  std::vector<Elt> el_;
  bool terms_ = true;  // the system reads combinations (not a witness-only synthesis)
  const PoseidonConstants& c_;
  size_t off_ = 0;
  size_t round_ = 0;
};

}  // namespace

AllocatedNum poseidon_hash_circuit(ConstraintSystem& cs, std::span<const AllocatedNum> preimage,
                                   const PoseidonConstants& c) {
  if (preimage.size() != c.arity) {
    throw std::invalid_argument("poseidon circuit: preimage of " + std::to_string(preimage.size()) +
                                " elements, arity " + std::to_string(c.arity));
  }
  std::vector<Elt> elements;
  elements.push_back(Elt::constant(c.domain_tag));
  for (const auto& n : preimage) elements.push_back(Elt::of(n));
  PoseidonCircuit p(std::move(elements), c);
  return p.hash(cs);
}

}  // namespace cuzk::gadgets
