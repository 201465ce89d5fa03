// Groth16 setup from a circuit (for tests and for users' own circuits), multi-threaded,
// with fixed-base tables; the output matches bellperson's generate_parameters.
#pragma once

#include "groth16/parameters.hpp"
#include "r1cs/constraint_system.hpp"

namespace cuzk::groth16 {

struct ToxicWaste {
  Fr tau, alpha, beta, gamma, delta;
  // Uniformly random, from the operating system's generator.
  static ToxicWaste random();
};

Parameters generate_parameters(const r1cs::Circuit& circuit, const ToxicWaste& waste);

}  // namespace cuzk::groth16
