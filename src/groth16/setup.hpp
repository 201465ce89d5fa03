// Groth16 setup from a circuit (for tests and for users' own circuits), multi-threaded,
// with fixed-base tables; the output matches bellperson's generate_parameters.
#pragma once

#include "groth16/parameters.hpp"
#include "r1cs/constraint_system.hpp"
#include "r1cs/proving_assignment.hpp"

namespace cuzk::groth16 {

struct ToxicWaste {
  Fr tau, alpha, beta, gamma, delta;
  // Uniformly random, from the operating system's generator.
  static ToxicWaste random();
};

Parameters generate_parameters(const r1cs::Circuit& circuit, const ToxicWaste& waste);

// Parameters with the shape prove_start expects for this assignment on a domain of n, made of
// pseudo-random points (2^16 distinct G1 and 2^12 G2 points, tiled): NOT an SRS (no toxic
// waste relates them), so their proofs do not verify. For timing the prover at sizes whose
// setup is impractical (hours at 2^27 on 16 cores), and for comparing provers at such sizes.
Parameters pseudo_random_parameters(const r1cs::ProvingAssignment& pa, size_t n, uint64_t seed);
// The same from the counts alone (the assignment may be freed first): a domain of n, the inputs
// (with ONE), the aux variables, A's aux density and B's whole density, as counted above.
struct PseudoParameterShape {
  size_t n = 0, inputs = 0, aux = 0, a_aux = 0, b = 0;
};
PseudoParameterShape pseudo_parameter_shape(const r1cs::ProvingAssignment& pa, size_t n);
Parameters pseudo_random_parameters(const PseudoParameterShape& shape, uint64_t seed);

}  // namespace cuzk::groth16
