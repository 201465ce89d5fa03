#include "snarkjs_test_key.hpp"

#include <stdexcept>

#include "interop/snarkjs/known_waste_setup.hpp"

namespace cuzk::snarkjs::test_keys {

using ff::Fr;

TestKey make_test_key(size_t constraints, std::mt19937_64& rng) {
  if (constraints < 2) throw std::invalid_argument("make_test_key: at least 2 constraints");
  // Wires: 0 the 1 wire, 1 the output, 2..3 public inputs, 4.. internal t_k.
  R1cs r1cs;
  r1cs.outputs = 1;
  r1cs.public_inputs = 2;
  const uint32_t vars = uint32_t(r1cs.public_signals() + 1 + constraints);
  r1cs.wires = vars;

  // The circuit: t_0 = (u x1 + v) x2, t_1 = (u t_0 + v) x1, t_k = (u t_(k-1) + v) t_(k-2); out = t_last
  // via one more constraint (1 * t_last = out) counted in `constraints`.
  TestKey t;
  std::vector<Fr>& w = t.witness;
  w.assign(vars, Fr::zero());
  w[0] = Fr::one();
  w[2] = Fr::random(rng);
  w[3] = Fr::random(rng);
  auto wire_of = [&](long k) -> uint32_t { return k == -2 ? 2 : k == -1 ? 3 : uint32_t(4 + k); };
  for (size_t k = 0; k + 1 < constraints; k++) {
    const Fr u = Fr::random(rng), v = Fr::random(rng);
    const uint32_t prev = wire_of(long(k) - 1), prev2 = wire_of(long(k) - 2), out = uint32_t(4 + k);
    w[out] = (u * w[prev] + v) * w[prev2];
    r1cs.constraints.push_back({{{prev, u}, {0, v}}, {{prev2, Fr::one()}}, {{out, Fr::one()}}});
  }
  // The output, and an unused internal wire kept so that every private wire has a C point.
  const uint32_t last = uint32_t(4 + constraints - 2);
  w[1] = w[last];
  r1cs.constraints.push_back({{{0, Fr::one()}}, {{last, Fr::one()}}, {{1, Fr::one()}}});
  w[vars - 1] = Fr::from_u64(0);

  groth16::ToxicWaste waste;
  for (Fr* x : {&waste.tau, &waste.alpha, &waste.beta, &waste.gamma, &waste.delta}) *x = Fr::random(rng);
  t.zkey = setup_from_toxic_waste(r1cs, waste);
  t.r1cs = std::move(r1cs);
  return t;
}

}  // namespace cuzk::snarkjs::test_keys
