#include "snarkjs_test_key.hpp"

#include <stdexcept>

#include "interop/snarkjs/odd_coset.hpp"

namespace cuzk::snarkjs::test_keys {
namespace {

using ff::Fr;

// L_j(tau) for the n points w^j: (tau^n - 1) / n * w^j / (tau - w^j).
std::vector<Fr> lagrange_at(const Fr& tau, unsigned log_n) {
  const size_t n = size_t(1) << log_n;
  const Fr w = OddCoset::snarkjs_root_of_unity(log_n);
  const Fr scale = (tau.pow(uint64_t(n)) - Fr::one()) * Fr::from_u64(n).inverse();
  std::vector<Fr> out(n);
  Fr wj = Fr::one();
  for (size_t j = 0; j < n; j++) {
    out[j] = scale * wj * (tau - wj).inverse();
    wj *= w;
  }
  return out;
}

G1Affine g1(const Fr& k) { return ec::g1_mul(ec::kG1Generator, k).to_affine(); }
G2Affine g2(const Fr& k) { return ec::g2_mul(ec::kG2Generator, k).to_affine(); }

}  // namespace

TestKey make_test_key(size_t constraints, std::mt19937_64& rng) {
  if (constraints < 2) throw std::invalid_argument("make_test_key: at least 2 constraints");
  // Wires: 0 the 1 wire, 1 the output, 2..3 public inputs, 4.. internal t_k.
  constexpr uint32_t kPublics = 3;
  const uint32_t vars = uint32_t(kPublics + 1 + constraints);
  TestKey t;
  Zkey& z = t.zkey;
  z.vars = vars;
  z.publics = kPublics;
  unsigned log_n = 1;
  while ((size_t(1) << log_n) < constraints + kPublics + 1) log_n++;
  z.domain_size = uint32_t(1) << log_n;

  // The circuit: t_0 = (u x1 + v) x2, t_1 = (u t_0 + v) x1, t_k = (u t_(k-1) + v) t_(k-2); out = t_last
  // via one more constraint (1 * t_last = out) counted in `constraints`.
  std::vector<Fr>& w = t.witness;
  w.assign(vars, Fr::zero());
  w[0] = Fr::one();
  w[2] = Fr::random(rng);
  w[3] = Fr::random(rng);
  struct Term {
    uint32_t wire;
    Fr coefficient;
  };
  struct Constraint {
    std::vector<Term> a, b, c;
  };
  std::vector<Constraint> cs;
  auto wire_of = [&](long k) -> uint32_t { return k == -2 ? 2 : k == -1 ? 3 : uint32_t(4 + k); };
  for (size_t k = 0; k + 1 < constraints; k++) {
    const Fr u = Fr::random(rng), v = Fr::random(rng);
    const uint32_t prev = wire_of(long(k) - 1), prev2 = wire_of(long(k) - 2), out = uint32_t(4 + k);
    w[out] = (u * w[prev] + v) * w[prev2];
    cs.push_back({{{prev, u}, {0, v}}, {{prev2, Fr::one()}}, {{out, Fr::one()}}});
  }
  // The output, and an unused internal wire kept so that every private wire has a C point.
  const uint32_t last = uint32_t(4 + constraints - 2);
  w[1] = w[last];
  cs.push_back({{{0, Fr::one()}}, {{last, Fr::one()}}, {{1, Fr::one()}}});
  w[vars - 1] = Fr::from_u64(0);

  // Toxic waste, and the QAP at tau as zkey_new.js builds it (A gets one extra constraint per
  // public signal and the 1 wire).
  const Fr tau = Fr::random(rng), alpha = Fr::random(rng), beta = Fr::random(rng), gamma = Fr::random(rng),
           delta = Fr::random(rng);
  const std::vector<Fr> lagrange = lagrange_at(tau, log_n);
  std::vector<Fr> a(vars, Fr::zero()), b(vars, Fr::zero()), c(vars, Fr::zero());
  for (size_t i = 0; i < cs.size(); i++) {
    for (const Term& term : cs[i].a) {
      a[term.wire] += term.coefficient * lagrange[i];
      z.coefficients.push_back({0, uint32_t(i), term.wire, term.coefficient});
    }
    for (const Term& term : cs[i].b) {
      b[term.wire] += term.coefficient * lagrange[i];
      z.coefficients.push_back({1, uint32_t(i), term.wire, term.coefficient});
    }
    for (const Term& term : cs[i].c) c[term.wire] += term.coefficient * lagrange[i];
  }
  for (uint32_t s = 0; s <= kPublics; s++) {
    a[s] += lagrange[cs.size() + s];
    z.coefficients.push_back({0, uint32_t(cs.size() + s), s, Fr::one()});
  }
  const Fr gamma_inverse = gamma.inverse(), delta_inverse = delta.inverse();
  z.alpha_g1 = g1(alpha);
  z.beta_g1 = g1(beta);
  z.beta_g2 = g2(beta);
  z.gamma_g2 = g2(gamma);
  z.delta_g1 = g1(delta);
  z.delta_g2 = g2(delta);
  for (uint32_t i = 0; i < vars; i++) {
    z.a.push_back(g1(a[i]));
    z.b_g1.push_back(g1(b[i]));
    z.b_g2.push_back(g2(b[i]));
    const Fr k = beta * a[i] + alpha * b[i] + c[i];
    if (i <= kPublics) {
      z.ic.push_back(g1(k * gamma_inverse));
    } else {
      z.c.push_back(g1(k * delta_inverse));
    }
  }
  // H: the Lagrange points of the 2n-th roots at the odd indices, over delta.
  const std::vector<Fr> lagrange_2n = lagrange_at(tau, log_n + 1);
  for (size_t j = 0; j < z.domain_size; j++) z.h.push_back(g1(lagrange_2n[2 * j + 1] * delta_inverse));
  return t;
}

}  // namespace cuzk::snarkjs::test_keys
