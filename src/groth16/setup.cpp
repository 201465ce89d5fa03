#include "groth16/setup.hpp"

#include <algorithm>
#include <cstring>
#include <random>
#include <stdexcept>
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>

#include "ec/fixed_base.hpp"
#include "ec/random_points.hpp"
#include "ff/os_rng.hpp"
#include "ntt/domain.hpp"
#include "r1cs/shape.hpp"

namespace cuzk::groth16 {
namespace {

using ec::FixedBaseTable;
using r1cs::QueryColumns;

// sum_j coeff_j * u_j over one variable's column: its polynomial evaluated at tau.
Fr eval_column(const std::vector<QueryColumns::Entry>& column, const std::vector<Fr>& lagrange) {
  Fr acc = Fr::zero();
  for (const auto& e : column) acc += e.coeff * lagrange[e.constraint];
  return acc;
}

// Drops the entries whose scalar is zero (bellperson filters the points at infinity).
std::vector<Fr> nonzero(const std::vector<Fr>& xs) {
  std::vector<Fr> out;
  for (const Fr& x : xs) {
    if (!x.is_zero()) out.push_back(x);
  }
  return out;
}

}  // namespace

ToxicWaste ToxicWaste::random() {
  ff::OsRng rng;
  ToxicWaste w;
  for (Fr* x : {&w.tau, &w.alpha, &w.beta, &w.gamma, &w.delta}) x->operator=(Fr::random(rng));
  return w;
}

Parameters generate_parameters(const r1cs::Circuit& circuit, const ToxicWaste& w) {
  if (w.gamma.is_zero() || w.delta.is_zero()) throw std::invalid_argument("setup: gamma and delta must be non-zero");
  r1cs::ShapeRecorder shape;
  circuit.synthesize(shape);
  shape.enforce_input_constraints();

  const auto domain = ntt::EvaluationDomain::for_size(shape.num_constraints());
  const size_t n = domain.size();
  // Lagrange basis at tau: u_j = L_j(tau) = ifft(1, tau, ..., tau^(n-1))[j].
  std::vector<Fr> powers(n);
  powers[0] = Fr::one();
  for (size_t i = 1; i < n; i++) powers[i] = powers[i - 1] * w.tau;
  const Fr z_tau = powers[n - 1] * w.tau - Fr::one();
  if (z_tau.is_zero()) throw std::invalid_argument("setup: tau lies in the evaluation domain");
  std::vector<Fr> h_scalars(n - 1);
  const Fr h_coeff = z_tau * w.delta.inverse();
  for (size_t i = 0; i + 1 < n; i++) h_scalars[i] = powers[i] * h_coeff;
  std::vector<Fr> lagrange = std::move(powers);
  domain.ifft(lagrange);

  const size_t num_inputs = shape.num_inputs(), num_aux = shape.num_aux();
  std::vector<Fr> a(num_inputs + num_aux), b(num_inputs + num_aux), ic(num_inputs), l(num_aux);
  const Fr gamma_inv = w.gamma.inverse(), delta_inv = w.delta.inverse();
  tbb::parallel_for(size_t(0), num_inputs + num_aux, [&](size_t i) {
    const bool is_input = i < num_inputs;
    const size_t k = is_input ? i : i - num_inputs;
    const auto& at = is_input ? shape.a().inputs[k] : shape.a().aux[k];
    const auto& bt = is_input ? shape.b().inputs[k] : shape.b().aux[k];
    const auto& ct = is_input ? shape.c().inputs[k] : shape.c().aux[k];
    a[i] = eval_column(at, lagrange);
    b[i] = eval_column(bt, lagrange);
    const Fr cv = eval_column(ct, lagrange);
    const Fr combined = w.beta * a[i] + w.alpha * b[i] + cv;
    if (is_input) {
      ic[k] = combined * gamma_inv;
    } else {
      l[k] = combined * delta_inv;
    }
  });

  const std::vector<Fr> a_nz = nonzero(a), b_nz = nonzero(b);
  const FixedBaseTable<ec::G1Curve> g1(ec::kG1Generator,
                                       ic.size() + h_scalars.size() + l.size() + a_nz.size() + b_nz.size());
  const FixedBaseTable<ec::G2Curve> g2(ec::kG2Generator, b_nz.size());
  Parameters p;
  p.vk.alpha_g1 = g1.mul(w.alpha).to_affine();
  p.vk.beta_g1 = g1.mul(w.beta).to_affine();
  p.vk.beta_g2 = g2.mul(w.beta).to_affine();
  p.vk.gamma_g2 = g2.mul(w.gamma).to_affine();
  p.vk.delta_g1 = g1.mul(w.delta).to_affine();
  p.vk.delta_g2 = g2.mul(w.delta).to_affine();
  tbb::parallel_invoke([&] { p.vk.ic = g1.mul_all(ic); }, [&] { p.h = g1.mul_all(h_scalars); },
                       [&] { p.l = g1.mul_all(l); }, [&] { p.a = g1.mul_all(a_nz); },
                       [&] { p.b_g1 = g1.mul_all(b_nz); }, [&] { p.b_g2 = g2.mul_all(b_nz); });
  return p;
}

namespace {

// count points: a block of distinct pseudo-random subgroup points repeated (filled in
// parallel). Every index still has its own memory, so an MSM's gathers cost what they would
// with distinct points.
template <class Curve>
std::vector<ec::AffinePoint<Curve>> tiled_points(size_t count, const std::vector<ec::AffinePoint<Curve>>& block) {
  std::vector<ec::AffinePoint<Curve>> out(count);
  const size_t k = block.size();
  tbb::parallel_for(size_t(0), (count + k - 1) / k, [&](size_t i) {
    std::memcpy(out.data() + i * k, block.data(), std::min(k, count - i * k) * sizeof(block[0]));
  });
  return out;
}

}  // namespace

PseudoParameterShape pseudo_parameter_shape(const r1cs::ProvingAssignment& pa, size_t n) {
  return {.n = n,
          .inputs = pa.num_inputs(),
          .aux = pa.num_aux(),
          .a_aux = pa.a_aux_density().count_ones(),
          .b = pa.b_input_density().count_ones() + pa.b_aux_density().count_ones()};
}

Parameters pseudo_random_parameters(const PseudoParameterShape& shape, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto g1 = ec::pseudo_random_subgroup_points<ec::G1Curve>(size_t(1) << 16, rng);
  const auto g2 = ec::pseudo_random_subgroup_points<ec::G2Curve>(size_t(1) << 12, rng);
  Parameters p;
  p.vk.alpha_g1 = p.vk.beta_g1 = p.vk.delta_g1 = g1[0];
  p.vk.beta_g2 = p.vk.gamma_g2 = p.vk.delta_g2 = g2[0];
  p.vk.ic.assign(shape.inputs, g1[1]);
  p.h = tiled_points(shape.n - 1, g1);
  p.l = tiled_points(shape.aux, g1);
  p.a = tiled_points(shape.inputs + shape.a_aux, g1);
  p.b_g1 = tiled_points(shape.b, g1);
  p.b_g2 = tiled_points(shape.b, g2);
  return p;
}

Parameters pseudo_random_parameters(const r1cs::ProvingAssignment& pa, size_t n, uint64_t seed) {
  return pseudo_random_parameters(pseudo_parameter_shape(pa, n), seed);
}

}  // namespace cuzk::groth16
