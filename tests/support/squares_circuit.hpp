// A circuit of coefficients 1 only, for witness-only tests at sizes where the synthetic
// circuit's random coefficients overflow a compiled circuit's table (65,536 distinct): squares
// x * x = y of random x with a running product, two constraints and three aux a square, one
// public input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>

#include "ff/fr.hpp"
#include "r1cs/constraint_system.hpp"

namespace cuzk::test {

struct SquaresCircuit : r1cs::Circuit {
  using Fr = ff::Fr;
  size_t count = (size_t(1) << 19) - 8;  // squares: 2 count + 2 constraints with the inputs'
  uint64_t seed = 1;
  void synthesize(r1cs::ConstraintSystem& cs) const override {
    std::mt19937_64 rng(seed);
    cs.alloc_input("x0", Fr::random(rng));
    Fr acc = Fr::one();
    r1cs::Variable acc_var = r1cs::Variable::one();
    for (size_t i = 0; i < count; i++) {
      const Fr x = Fr::random(rng);
      const r1cs::Variable xv = cs.alloc("x", x), sq = cs.alloc("sq", x.sqr());
      cs.enforce("square", xv, xv, sq);
      acc *= x;
      const r1cs::Variable next = cs.alloc("acc", acc);
      cs.enforce("product", acc_var, xv, next);
      acc_var = next;
    }
  }
};

}  // namespace cuzk::test
