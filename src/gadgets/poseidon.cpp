#include "gadgets/poseidon.hpp"

#include <array>
#include <atomic>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace cuzk::gadgets {

// ---- matrices --------------------------------------------------------------------------------

namespace {

Matrix identity(size_t n) {
  Matrix r(n, std::vector<Fr>(n, Fr::zero()));
  for (size_t i = 0; i < n; i++) r[i][i] = Fr::one();
  return r;
}

// Gauss-Jordan; the matrices here (MDS and its minors) are invertible.
Matrix invert(const Matrix& m) {
  const size_t n = m.size();
  Matrix a = m, inv = identity(n);
  for (size_t col = 0; col < n; col++) {
    size_t piv = col;
    while (piv < n && a[piv][col].is_zero()) piv++;
    if (piv == n) throw std::logic_error("poseidon: singular matrix");
    std::swap(a[piv], a[col]);
    std::swap(inv[piv], inv[col]);
    const Fr s = a[col][col].inverse();
    for (size_t j = 0; j < n; j++) {
      a[col][j] *= s;
      inv[col][j] *= s;
    }
    for (size_t i = 0; i < n; i++) {
      if (i == col || a[i][col].is_zero()) continue;
      const Fr f = a[i][col];
      for (size_t j = 0; j < n; j++) {
        a[i][j] -= f * a[col][j];
        inv[i][j] -= f * inv[col][j];
      }
    }
  }
  return inv;
}

Matrix minor00(const Matrix& m) {
  Matrix r;
  for (size_t i = 1; i < m.size(); i++) r.emplace_back(m[i].begin() + 1, m[i].end());
  return r;
}

Matrix mat_mul(const Matrix& a, const Matrix& b) {
  const size_t n = a.size(), k = b.size(), p = b[0].size();
  Matrix r(n, std::vector<Fr>(p, Fr::zero()));
  for (size_t i = 0; i < n; i++) {
    for (size_t j = 0; j < p; j++) {
      for (size_t l = 0; l < k; l++) r[i][j] += a[i][l] * b[l][j];
    }
  }
  return r;
}

Matrix transpose(const Matrix& m) {
  Matrix r(m[0].size(), std::vector<Fr>(m.size()));
  for (size_t i = 0; i < m.size(); i++) {
    for (size_t j = 0; j < m[0].size(); j++) r[j][i] = m[i][j];
  }
  return r;
}

// M . v
std::vector<Fr> left_apply(const Matrix& m, std::span<const Fr> v) {
  std::vector<Fr> r(m.size(), Fr::zero());
  for (size_t i = 0; i < m.size(); i++) {
    for (size_t j = 0; j < v.size(); j++) r[i] += m[i][j] * v[j];
  }
  return r;
}

// v . M
std::vector<Fr> right_apply(const Matrix& m, std::span<const Fr> v) {
  std::vector<Fr> r(m[0].size(), Fr::zero());
  for (size_t j = 0; j < m[0].size(); j++) {
    for (size_t i = 0; i < v.size(); i++) r[j] += v[i] * m[i][j];
  }
  return r;
}

// neptune derive_mds_matrices: M = M' . M'' with M' = diag(1, M^) and M'' sparse.
void factor(const Matrix& m, Matrix& m_prime, Matrix& m_double_prime) {
  const size_t t = m.size();
  const Matrix m_hat_inv = invert(minor00(m));
  m_prime.assign(t, std::vector<Fr>(t, Fr::zero()));
  m_prime[0][0] = Fr::one();
  for (size_t i = 1; i < t; i++) {
    for (size_t j = 1; j < t; j++) m_prime[i][j] = m[i][j];
  }
  std::vector<Fr> w;
  for (size_t i = 1; i < t; i++) w.push_back(m[i][0]);
  const std::vector<Fr> w_hat = left_apply(m_hat_inv, w);
  m_double_prime.assign(t, std::vector<Fr>(t, Fr::zero()));
  m_double_prime[0] = m[0];
  for (size_t i = 1; i < t; i++) {
    m_double_prime[i][0] = w_hat[i - 1];
    m_double_prime[i][i] = Fr::one();
  }
}

// ---- Grain LFSR ----------------------------------------------------------------------------------

class Grain {
 public:
  explicit Grain(const std::vector<bool>& init) {
    for (size_t i = 0; i < 80; i++) state_[i] = init[i];
    for (int i = 0; i < 160; i++) step();
  }
  // Self-shrinking output: pairs (a, b), output b when a is 1.
  bool next() {
    bool first = step();
    while (!first) {
      step();
      first = step();
    }
    return step();
  }

 private:
  bool step() {
    const bool b = state_[(pos_ + 62) % 80] ^ state_[(pos_ + 51) % 80] ^ state_[(pos_ + 38) % 80] ^
                   state_[(pos_ + 23) % 80] ^ state_[(pos_ + 13) % 80] ^ state_[pos_];
    state_[pos_] = b;  // the oldest bit leaves, the new one enters at the end
    pos_ = (pos_ + 1) % 80;
    return b;
  }
  std::array<bool, 80> state_{};
  size_t pos_ = 0;
};

void append_bits(std::vector<bool>& v, size_t n, uint64_t x) {
  for (size_t i = n; i-- > 0;) v.push_back((x >> i) & 1);
}

}  // namespace

size_t poseidon_partial_rounds(size_t width) {
  switch (width) {
    case 3:
      return 55;
    case 5:
      return 56;
    case 9:
      return 57;
    case 12:
      return 57;
    default:
      throw std::invalid_argument("poseidon: no partial-round count for width " + std::to_string(width) +
                                  " (supported arities: 2, 4, 8, 11)");
  }
}

std::vector<Fr> poseidon_grain_round_constants(size_t width, size_t full_rounds, size_t partial_rounds) {
  constexpr size_t kFieldSize = 255;
  std::vector<bool> init;
  append_bits(init, 2, 1);  // prime field
  append_bits(init, 4, 1);  // s-box type as neptune passes it
  append_bits(init, 12, kFieldSize);
  append_bits(init, 12, width);
  append_bits(init, 10, full_rounds);
  append_bits(init, 10, partial_rounds);
  append_bits(init, 30, (uint64_t(1) << 30) - 1);
  Grain grain(init);
  std::vector<Fr> out;
  const size_t n = (full_rounds + partial_rounds) * width;
  while (out.size() < n) {
    // 255 bits, most significant first: 7 bits into the top byte, then 31 whole bytes.
    ff::BigInt<4> x = ff::BigInt<4>::zero();
    for (size_t i = 0; i < kFieldSize; i++) {
      const size_t bit = kFieldSize - 1 - i;
      if (grain.next()) x.limb[bit / 64] |= uint64_t(1) << (bit % 64);
    }
    Fr f;
    if (Fr::from_limbs_checked(x, f)) out.push_back(f);
  }
  return out;
}

Matrix poseidon_mds(size_t t) {
  Matrix m(t, std::vector<Fr>(t));
  for (size_t i = 0; i < t; i++) {
    for (size_t j = 0; j < t; j++) m[i][j] = Fr::from_u64(i + t + j).inverse();
  }
  return m;
}

PoseidonConstants PoseidonConstants::create(size_t arity, HashType type, size_t length) {
  PoseidonConstants c;
  c.arity = arity;
  c.width = arity + 1;
  c.partial_rounds = poseidon_partial_rounds(c.width);
  c.hash_type = type;
  c.length = length;
  if (type == HashType::kMerkleTree) {
    if (arity >= 64) throw std::invalid_argument("poseidon: arity too large for a MerkleTree tag");
    c.domain_tag = Fr::from_u64((uint64_t(1) << arity) - 1);
  } else {
    if (length == 0 || length > arity)
      throw std::invalid_argument("poseidon: ConstantLength needs 0 < length <= arity");
    ff::BigInt<4> x = ff::BigInt<4>::zero();
    x.limb[1] = length;  // length * 2^64
    c.domain_tag = Fr::from_canonical(x);
  }
  const size_t t = c.width;
  c.round_constants = poseidon_grain_round_constants(t, c.full_rounds, c.partial_rounds);
  c.m = poseidon_mds(t);
  c.m_inv = invert(c.m);

  // Compressed round constants (neptune preprocessing.rs, all partial rounds preprocessed).
  auto keys = [&](size_t r) { return std::span<const Fr>(c.round_constants).subspan(r * t, t); };
  const size_t half = c.half_full_rounds;
  auto& res = c.compressed_round_constants;
  for (const Fr& k : keys(0)) res.push_back(k);
  for (size_t i = 0; i + 1 < half; i++) {
    for (const Fr& k : right_apply(c.m_inv, keys(i + 1))) res.push_back(k);
  }
  std::vector<Fr> partial_keys;
  const size_t final_round = half + c.partial_rounds;
  std::vector<Fr> acc(keys(final_round).begin(), keys(final_round).end());
  for (size_t i = 0; i < c.partial_rounds; i++) {
    std::vector<Fr> inv = right_apply(c.m_inv, acc);
    partial_keys.push_back(inv[0]);
    inv[0] = Fr::zero();
    auto prev = keys(final_round - i - 1);
    for (size_t j = 0; j < t; j++) inv[j] += prev[j];
    acc = std::move(inv);
  }
  for (const Fr& k : right_apply(c.m_inv, acc)) res.push_back(k);
  for (size_t i = partial_keys.size(); i-- > 0;) res.push_back(partial_keys[i]);
  for (size_t i = 1; i < half; i++) {
    for (const Fr& k : right_apply(c.m_inv, keys(i + final_round))) res.push_back(k);
  }

  // Sparse factorisation of the partial rounds' MDS (neptune factor_to_sparse_matrixes on M^T).
  const Matrix base = transpose(c.m);
  Matrix curr = base;
  std::vector<Matrix> all;
  for (size_t i = 0; i < c.partial_rounds; i++) {
    Matrix mp, mpp;
    factor(curr, mp, mpp);
    all.push_back(std::move(mpp));
    curr = mat_mul(base, mp);
  }
  c.pre_sparse_matrix = curr;
  for (size_t i = all.size(); i-- > 0;) {
    Sparse s;
    for (size_t r = 0; r < t; r++) s.w_hat.push_back(all[i][r][0]);
    s.v_rest.assign(all[i][0].begin() + 1, all[i][0].end());
    c.sparse_matrices.push_back(std::move(s));
  }
  return c;
}

const PoseidonConstants& poseidon_constants(size_t arity) {
  // Read without a lock once built: every Poseidon gadget asks, from every synthesis thread.
  static std::array<std::atomic<const PoseidonConstants*>, 17> built{};
  static std::mutex mu;
  static std::map<size_t, std::unique_ptr<PoseidonConstants>> cache;
  if (arity < built.size()) {
    if (const PoseidonConstants* c = built[arity].load(std::memory_order_acquire)) return *c;
  }
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = cache[arity];
  if (!slot) slot = std::make_unique<PoseidonConstants>(PoseidonConstants::create(arity));
  if (arity < built.size()) built[arity].store(slot.get(), std::memory_order_release);
  return *slot;
}

// ---- native --------------------------------------------------------------------------------

namespace {

inline Fr pow5(const Fr& x) {
  const Fr x2 = x.sqr();
  return x2.sqr() * x;
}

std::vector<Fr> initial_state(std::span<const Fr> preimage, const PoseidonConstants& c) {
  const size_t expect = c.hash_type == PoseidonConstants::HashType::kMerkleTree ? c.arity : c.length;
  if (preimage.size() != expect) {
    throw std::invalid_argument("poseidon: preimage of " + std::to_string(preimage.size()) + " elements, expected " +
                                std::to_string(expect));
  }
  std::vector<Fr> s(c.width, Fr::zero());
  s[0] = c.domain_tag;
  for (size_t i = 0; i < preimage.size(); i++) s[i + 1] = preimage[i];
  return s;
}

}  // namespace

Fr poseidon_hash(std::span<const Fr> preimage, const PoseidonConstants& c) {
  std::vector<Fr> s = initial_state(preimage, c);
  const size_t t = c.width, rounds = c.full_rounds + c.partial_rounds;
  for (size_t r = 0; r < rounds; r++) {
    for (size_t i = 0; i < t; i++) s[i] += c.round_constants[r * t + i];
    const bool full = r < c.half_full_rounds || r >= c.half_full_rounds + c.partial_rounds;
    if (full) {
      for (auto& x : s) x = pow5(x);
    } else {
      s[0] = pow5(s[0]);
    }
    s = left_apply(c.m, s);
  }
  return s[1];
}

Fr poseidon_hash_optimized(std::span<const Fr> preimage, const PoseidonConstants& c) {
  std::vector<Fr> s = initial_state(preimage, c);
  const size_t t = c.width;
  size_t off = 0;
  for (size_t i = 0; i < t; i++) s[i] += c.compressed_round_constants[off++];
  for (size_t r = 0; r < c.half_full_rounds; r++) {
    for (size_t i = 0; i < t; i++) s[i] = pow5(s[i]) + c.compressed_round_constants[off++];
    s = right_apply(r + 1 == c.half_full_rounds ? c.pre_sparse_matrix : c.m, s);
  }
  for (const auto& sp : c.sparse_matrices) {
    s[0] = pow5(s[0]) + c.compressed_round_constants[off++];
    std::vector<Fr> n(t);
    n[0] = Fr::zero();
    for (size_t i = 0; i < t; i++) n[0] += sp.w_hat[i] * s[i];
    for (size_t j = 1; j < t; j++) n[j] = s[j] + s[0] * sp.v_rest[j - 1];
    s = std::move(n);
  }
  for (size_t r = 1; r < c.half_full_rounds; r++) {
    for (size_t i = 0; i < t; i++) s[i] = pow5(s[i]) + c.compressed_round_constants[off++];
    s = right_apply(c.m, s);
  }
  for (size_t i = 0; i < t; i++) s[i] = pow5(s[i]);
  s = right_apply(c.m, s);
  return s[1];
}

// ---- circuit (neptune's legacy PoseidonCircuit) ----------------------------------------------

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
  // this += s * other (the result is a linear combination)
  void add_scaled(const Elt& other, const Fr& s) {
    if (allocated) {
      *this = Elt{false, {}, Num{LC(num.var), num.value}};
    }
    if (other.allocated) {
      lc.lc.add(other.num.var, s);
      lc.value += other.num.value * s;
    } else {
      for (const auto& term : other.lc.lc.terms()) lc.lc.add(term.var, term.coeff * s);
      lc.value += other.lc.value * s;
    }
  }
};

Elt zero_elt() { return Elt{false, {}, Num{}}; }

// sum_i coeffs[i] * elts[i] as one linear combination with each variable once (as bellperson's
// LinearCombination merges terms); the partial rounds' combinations share their variables, so
// merging keeps them ~t times shorter than concatenation.
Elt combine(const std::vector<Elt>& elts, std::span<const Fr> coeffs) {
  Elt r = zero_elt();
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
        el_[0] = Elt::constant(pow5(el_[0].value() + pre[0]) + post[0]);
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
      res.push_back(combine(el_, sp.w_hat));
      for (size_t j = 1; j < c_.width; j++) {
        // el[j] + v_j el[0]: el[0] is a fresh S-box output, so plain concatenation is merged.
        Elt e = el_[j];
        e.add_scaled(el_[0], sp.v_rest[j - 1]);
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
      res.push_back(combine(el_, column));
    }
    el_ = std::move(res);
  }

  std::vector<Elt> el_;
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
