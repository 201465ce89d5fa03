#include "interop/snarkjs/known_waste_setup.hpp"

#include <bit>
#include <stdexcept>
#include <string>
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>

#include "ec/fixed_base.hpp"
#include "interop/snarkjs/odd_coset.hpp"

namespace cuzk::snarkjs {
namespace {

using ec::FixedBaseTable;

// L_j(tau) = (w^j / m) (tau^m - 1) / (tau - w^j) for j in [first, first + count), over the m-th
// roots w^j of snarkjs (m a power of two).
std::vector<Fr> lagrange_at(const Fr& tau, unsigned log_m, size_t first, size_t step, size_t count) {
  const size_t m = size_t(1) << log_m;
  const Fr w = OddCoset::snarkjs_root_of_unity(log_m);
  const Fr z = tau.pow(uint64_t(m)) - Fr::one();
  if (z.is_zero()) throw std::invalid_argument("setup: tau is a root of unity of the domain");
  const Fr z_over_m = z * Fr::from_u64(m).inverse();
  std::vector<Fr> root(count), out(count), scratch(count);
  const Fr w_step = w.pow(uint64_t(step));
  Fr power = w.pow(uint64_t(first));
  for (size_t k = 0; k < count; k++) {
    root[k] = power;
    out[k] = tau - power;
    power *= w_step;
  }
  ff::batch_inverse(out.data(), count, scratch.data());
  for (size_t k = 0; k < count; k++) out[k] *= root[k] * z_over_m;
  return out;
}

}  // namespace

Zkey setup_from_toxic_waste(const R1cs& r1cs, const groth16::ToxicWaste& waste) {
  if (waste.gamma.is_zero() || waste.delta.is_zero()) {
    throw std::invalid_argument("setup: gamma and delta must be non-zero");
  }
  const uint32_t publics = r1cs.public_signals();
  const uint64_t rows = uint64_t(r1cs.constraints.size()) + publics + 1;
  if (rows > (uint64_t(1) << 31)) {
    throw std::invalid_argument(
        "setup: " + std::to_string(rows) +
        " rows (constraints, public signals and the 1 wire) exceed snarkjs' largest domain, 2^31");
  }
  Zkey z;
  z.vars = r1cs.wires;
  z.publics = publics;
  z.domain_size = uint32_t(std::max<uint64_t>(2, std::bit_ceil(rows)));
  const unsigned log_n = z.log_domain_size();
  const size_t n = z.domain_size;

  const std::vector<Fr> lagrange = lagrange_at(waste.tau, log_n, 0, 1, n);
  std::vector<Fr> u(z.vars, Fr::zero()), v(z.vars, Fr::zero()), w(z.vars, Fr::zero());
  for (size_t j = 0; j < r1cs.constraints.size(); j++) {
    const R1csConstraint& c = r1cs.constraints[j];
    for (const R1csTerm& t : c.a) {
      u[t.wire] += t.coefficient * lagrange[j];
      z.coefficients.push_back({0, uint32_t(j), t.wire, t.coefficient});
    }
    for (const R1csTerm& t : c.b) {
      v[t.wire] += t.coefficient * lagrange[j];
      z.coefficients.push_back({1, uint32_t(j), t.wire, t.coefficient});
    }
    for (const R1csTerm& t : c.c) w[t.wire] += t.coefficient * lagrange[j];
  }
  // The public signals' own rows keep their part of the QAP linearly independent.
  for (uint32_t s = 0; s <= publics; s++) {
    const size_t j = r1cs.constraints.size() + s;
    u[s] += lagrange[j];
    z.coefficients.push_back({0, uint32_t(j), s, Fr::one()});
  }

  const Fr gamma_inverse = waste.gamma.inverse(), delta_inverse = waste.delta.inverse();
  std::vector<Fr> ic(size_t(publics) + 1), c(size_t(z.vars) - publics - 1);
  tbb::parallel_for(size_t(0), size_t(z.vars), [&](size_t i) {
    const Fr combined = waste.beta * u[i] + waste.alpha * v[i] + w[i];
    if (i <= publics) {
      ic[i] = combined * gamma_inverse;
    } else {
      c[i - publics - 1] = combined * delta_inverse;
    }
  });
  // H: the Lagrange values of the odd 2n-th roots, over delta.
  std::vector<Fr> h = lagrange_at(waste.tau, log_n + 1, 1, 2, n);
  for (Fr& x : h) x *= delta_inverse;

  const FixedBaseTable<ec::G1Curve> g1(ec::kG1Generator, ic.size() + c.size() + u.size() + v.size() + h.size());
  const FixedBaseTable<ec::G2Curve> g2(ec::kG2Generator, v.size());
  z.alpha_g1 = g1.mul(waste.alpha).to_affine();
  z.beta_g1 = g1.mul(waste.beta).to_affine();
  z.beta_g2 = g2.mul(waste.beta).to_affine();
  z.gamma_g2 = g2.mul(waste.gamma).to_affine();
  z.delta_g1 = g1.mul(waste.delta).to_affine();
  z.delta_g2 = g2.mul(waste.delta).to_affine();
  tbb::parallel_invoke([&] { z.ic = g1.mul_all(ic); }, [&] { z.c = g1.mul_all(c); }, [&] { z.a = g1.mul_all(u); },
                       [&] { z.b_g1 = g1.mul_all(v); }, [&] { z.b_g2 = g2.mul_all(v); }, [&] { z.h = g1.mul_all(h); });
  return z;
}

}  // namespace cuzk::snarkjs
