#include "groth16/prover.hpp"

#include <chrono>
#include <stdexcept>
#include <string>

#include "ff/os_rng.hpp"
#include "msm/pippenger.hpp"
#include "ntt/domain.hpp"
#include "util/elapsed.hpp"

namespace cuzk::groth16 {
namespace {

using Clock = std::chrono::steady_clock;

msm::DensityView view(const r1cs::DensityTracker& d) { return {d.words(), d.size()}; }

void expect(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("parameters do not match the circuit: " + what);
}

// A query (a, b_g1 or b_g2) holds the bases of its inputs, then those of its aux variables;
// checks the counts against the assignment and splits it there.
template <class Curve>
struct QuerySplit {
  std::span<const ec::AffinePoint<Curve>> inputs, aux;
};
template <class Curve>
QuerySplit<Curve> split_query(std::span<const ec::AffinePoint<Curve>> query, const char* name, size_t input_count,
                              size_t aux_count) {
  expect(query.size() == input_count + aux_count, std::string(name) + " query has " + std::to_string(query.size()) +
                                                      " points, the circuit needs " +
                                                      std::to_string(input_count + aux_count));
  return {query.first(input_count), query.subspan(input_count)};
}

}  // namespace

r1cs::ProvingAssignment synthesize(const r1cs::Circuit& circuit) {
  r1cs::ProvingAssignment assignment;
  circuit.synthesize(assignment);
  assignment.enforce_input_constraints();
  return assignment;
}

r1cs::ProvingAssignment synthesize_witness(const r1cs::Circuit& circuit,
                                           std::shared_ptr<const r1cs::CompiledCircuit> compiled) {
  return synthesize_witness(circuit, std::move(compiled), r1cs::KeptWitness());
}

r1cs::ProvingAssignment synthesize_witness(const r1cs::Circuit& circuit,
                                           std::shared_ptr<const r1cs::CompiledCircuit> compiled,
                                           r1cs::KeptWitness&& into) {
  r1cs::ProvingAssignment assignment(std::move(compiled));
  assignment.adopt_witness(std::move(into));
  assignment.reserve(0, assignment.compiled()->aux);
  circuit.synthesize(assignment);
  assignment.enforce_input_constraints();
  assignment.check_matches_compiled();
  return assignment;
}

void check_assignment(const Parameters& params, const r1cs::ProvingAssignment& pa, size_t n) {
  expect(params.h.size() == n - 1,
         "h has " + std::to_string(params.h.size()) + " points, the domain needs " + std::to_string(n - 1));
  expect(params.l.size() == pa.num_aux(),
         "l has " + std::to_string(params.l.size()) + " points for " + std::to_string(pa.num_aux()) + " aux variables");
  expect(params.vk.ic.size() == pa.num_inputs(), "ic has " + std::to_string(params.vk.ic.size()) + " points for " +
                                                     std::to_string(pa.num_inputs()) + " inputs");
}

void g1_msms_on_cpu(const Parameters& params, const r1cs::ProvingAssignment& pa, PendingProof& out, ProveTimings& t) {
  auto t0 = Clock::now();
  out.l = msm::msm<ec::G1Curve>(params.l, pa.aux());
  t.msm_l = seconds_since(t0);

  t0 = Clock::now();
  // Every input occurs in A (through its input constraint), so the input part is dense.
  const auto a_query = split_query<ec::G1Curve>(params.a, "a", pa.num_inputs(), pa.a_aux_density().count_ones());
  out.a_inputs = msm::msm<ec::G1Curve>(a_query.inputs, pa.inputs());
  out.a_aux = msm::msm_with_density<ec::G1Curve>(a_query.aux, pa.aux(), view(pa.a_aux_density()));
  t.msm_a = seconds_since(t0);

  t0 = Clock::now();
  const auto b_query =
      split_query<ec::G1Curve>(params.b_g1, "b_g1", pa.b_input_density().count_ones(), pa.b_aux_density().count_ones());
  out.b_g1_inputs = msm::msm_with_density<ec::G1Curve>(b_query.inputs, pa.inputs(), view(pa.b_input_density()));
  out.b_g1_aux = msm::msm_with_density<ec::G1Curve>(b_query.aux, pa.aux(), view(pa.b_aux_density()));
  t.msm_b_g1 = seconds_since(t0);
}

PendingProof prove_start(const Parameters& params, r1cs::ProvingAssignment& pa, const Fr& r, const Fr& s,
                         ProveTimings* timings) {
  ProveTimings local;
  ProveTimings& t = timings ? *timings : local;
  auto t_abc = Clock::now();
  pa.compute_abc();  // witness-only: the compiled matrices times the witness
  t.abc = seconds_since(t_abc);
  const auto domain = ntt::EvaluationDomain::for_size(pa.num_constraints());
  const size_t n = domain.size();
  check_assignment(params, pa, n);

  PendingProof out;
  out.r = r;
  out.s = s;
  auto t0 = Clock::now();
  {
    auto& a = pa.a_mut();
    auto& b = pa.b_mut();
    auto& c = pa.c_mut();
    a.resize(n, Fr::zero());
    b.resize(n, Fr::zero());
    c.resize(n, Fr::zero());
    ntt::compute_h_polynomial(domain, a, b, c);
  }
  t.h_ntt = seconds_since(t0);
  t0 = Clock::now();
  out.h = msm::msm<ec::G1Curve>(params.h, std::span<const Fr>(pa.a()).first(n - 1));
  t.msm_h = seconds_since(t0);
  pa.release_abc();

  g1_msms_on_cpu(params, pa, out, t);
  return out;
}

Proof prove_finish(const Parameters& params, const r1cs::ProvingAssignment& pa, const PendingProof& p,
                   ProveTimings* timings) {
  ProveTimings local;
  ProveTimings& t = timings ? *timings : local;
  auto t0 = Clock::now();
  G2Jacobian b_g2;
  if (p.b_g2) {
    b_g2 = *p.b_g2;
  } else {
    const auto b_query = split_query<ec::G2Curve>(params.b_g2, "b_g2", pa.b_input_density().count_ones(),
                                                  pa.b_aux_density().count_ones());
    b_g2 = msm::msm_with_density<ec::G2Curve>(b_query.inputs, pa.inputs(), view(pa.b_input_density()));
    b_g2 += msm::msm_with_density<ec::G2Curve>(b_query.aux, pa.aux(), view(pa.b_aux_density()));
    t.msm_b_g2 = seconds_since(t0);
  }

  t0 = Clock::now();
  const auto& vk = params.vk;
  // A = alpha + sum a_i(tau) z_i + r delta
  G1Jacobian a = G1Jacobian::from_affine(vk.alpha_g1) + p.a_inputs + p.a_aux + ec::g1_mul(vk.delta_g1, p.r);
  // B = beta + sum b_i(tau) z_i + s delta (in G2, and its G1 twin for C)
  G2Jacobian b = G2Jacobian::from_affine(vk.beta_g2) + b_g2 + ec::g2_mul(vk.delta_g2, p.s);
  G1Jacobian b_g1 = G1Jacobian::from_affine(vk.beta_g1) + p.b_g1_inputs + p.b_g1_aux + ec::g1_mul(vk.delta_g1, p.s);
  // C = H + L + s A + r B_g1 - r s delta
  G1Jacobian c = p.h + p.l + ec::g1_mul(a, p.s) + ec::g1_mul(b_g1, p.r) - ec::g1_mul(vk.delta_g1, p.r * p.s);
  Proof proof{a.to_affine(), b.to_affine(), c.to_affine()};
  t.finish = seconds_since(t0);
  return proof;
}

Proof prove(const Parameters& params, const r1cs::Circuit& circuit) {
  ff::OsRng rng;
  const Fr r = Fr::random(rng), s = Fr::random(rng);
  auto assignment = synthesize(circuit);
  PendingProof pending = prove_start(params, assignment, r, s);
  return prove_finish(params, assignment, pending);
}

std::vector<Proof> prove_batch(const Parameters& params, std::span<const r1cs::Circuit* const> circuits) {
  std::vector<Proof> out;
  out.reserve(circuits.size());
  for (const r1cs::Circuit* c : circuits) out.push_back(prove(params, *c));
  return out;
}

}  // namespace cuzk::groth16
