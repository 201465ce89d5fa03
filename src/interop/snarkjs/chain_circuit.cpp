#include "interop/snarkjs/chain_circuit.hpp"

#include <stdexcept>
#include <string>

namespace cuzk::snarkjs {

ChainCircuit make_chain_circuit(size_t n, const ff::Fr& a, const ff::Fr& b, const ff::Fr& x) {
  if (n == 0 || n > (size_t(1) << 31) - 5) {
    throw std::invalid_argument("Chain(" + std::to_string(n) + "): N must be 1 to 2^31 - 5");
  }
  constexpr uint32_t kOut = 1, kA = 2, kB = 3, kX = 4, kFirstAcc = 5;
  ChainCircuit c;
  R1cs& r = c.r1cs;
  r.wires = uint32_t(kFirstAcc + n - 1);
  r.outputs = 1;
  r.public_inputs = 2;
  r.private_inputs = 1;
  r.labels = uint64_t(kFirstAcc) + n;
  r.wire_labels.resize(r.wires);
  for (uint32_t w = 0; w < r.wires; w++) r.wire_labels[w] = w;
  const ff::Fr minus_one = -ff::Fr::one();
  auto acc_wire = [&](size_t i) { return i + 1 == n ? kOut : uint32_t(kFirstAcc + i); };

  std::vector<ff::Fr>& w = c.witness;
  w.assign(r.wires, ff::Fr::zero());
  w[0] = ff::Fr::one();
  w[kA] = a;
  w[kB] = b;
  w[kX] = x;
  r.constraints.reserve(n);
  ff::Fr acc = x * a;
  w[acc_wire(0)] = acc;
  r.constraints.push_back({{{kX, minus_one}}, {{kA, ff::Fr::one()}}, {{acc_wire(0), minus_one}}});
  for (size_t i = 1; i < n; i++) {
    const uint32_t prev = acc_wire(i - 1), cur = acc_wire(i);
    acc = acc * acc + b;
    w[cur] = acc;
    // circom lists a combination's terms by wire: out (1) comes before b (3).
    LinearCombination c_terms = cur < kB ? LinearCombination{{cur, minus_one}, {kB, ff::Fr::one()}}
                                         : LinearCombination{{kB, ff::Fr::one()}, {cur, minus_one}};
    r.constraints.push_back({{{prev, minus_one}}, {{prev, ff::Fr::one()}}, std::move(c_terms)});
  }
  return c;
}

}  // namespace cuzk::snarkjs
